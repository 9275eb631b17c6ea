"""kbench: a Python client of kbenchd's gRPC API (kbench.v1), reading kbctl's config file.

    import kbench
    with kbench.Client() as kb:          # kbctl's current context, or $KBENCH_SERVER
        job = kb.bench("softmax", "host_rowwise", shape="256x256", device="cpu")
        job.result.to_pandas()

See docs/python.md.
"""

from .boards import HistoryEntry, JobDiff, Leaderboard, LeaderboardEntry, VariantChange
from .client import Client, __version__
from .config import resolve
from .errors import (AuthError, ConfigError, FailedPreconditionError, InvalidArgumentError,
                     JobFailedError, KbenchError, NotFoundError, ResourceExhaustedError,
                     UnavailableError)
from .results import Artifact, Job, JobResult, Progress, VariantResult
from .spec import make_spec
from .sweeps import Sweep, SweepPoint

__all__ = [
    "Artifact", "AuthError", "Client", "ConfigError", "FailedPreconditionError", "HistoryEntry",
    "InvalidArgumentError", "Job", "JobDiff", "JobFailedError", "JobResult", "KbenchError",
    "Leaderboard", "LeaderboardEntry", "NotFoundError", "Progress", "ResourceExhaustedError",
    "Sweep", "SweepPoint", "UnavailableError", "VariantChange", "VariantResult", "__version__",
    "make_spec", "resolve",
]
