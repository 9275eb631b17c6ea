"""Jobs and their results as plain dataclasses, read from the kbench.v1 messages. Each keeps the
message it came from in `proto` (not shown in repr) for the fields not lifted out here."""

import datetime
from dataclasses import dataclass, field
from typing import Optional

from .tabular import Tabular, TabularList
from .v1 import types_pb2

STATE_NAMES = {v: n[len("JOB_STATE_"):] for n, v in types_pb2.JobState.items()}
# "RESOURCE_EXHAUSTED" for STATUS_CODE_RESOURCE_EXHAUSTED: the names grpc.StatusCode has.
STATUS_CODE_NAMES = {v: n[len("STATUS_CODE_"):] for n, v in types_pb2.StatusCode.items()}
TERMINAL_STATES = ("SUCCEEDED", "FAILED", "CANCELLED")


def enum_suffix(enum, value, prefix):
    """"DTYPE_F32" -> "f32": the word after the enum's prefix, lower case."""
    return enum.Name(value)[len(prefix):].lower()


def status_code_name(j):
    """The name of the status code a kbench.v1.Job ended with ("" when it did not fail): read from
    error_status, or from error_code where an older kbenchd sets only that."""
    if j.error_status:
        return STATUS_CODE_NAMES.get(j.error_status, f"unknown({j.error_status})")
    return j.error_code


def _time(ts):
    """A Timestamp as an aware datetime; None when unset."""
    if ts.seconds == 0 and ts.nanos == 0:
        return None
    return ts.ToDatetime().replace(tzinfo=datetime.timezone.utc)


@dataclass
class Progress:
    phase: str
    variant: str
    samples: int
    noise: float
    elapsed_seconds: float

    @classmethod
    def from_proto(cls, p):
        phase = (enum_suffix(types_pb2.ProgressPhase, p.progress_phase, "PROGRESS_PHASE_")
                 if p.progress_phase else p.phase)
        return cls(phase, p.variant, p.samples, p.noise, p.elapsed_seconds)


@dataclass
class VariantResult(Tabular):
    """One variant's timing: the median and its 95% interval (seconds per launch), the kept
    samples, and its correctness check."""
    variant: str
    median_seconds: float
    ci: tuple
    samples: int
    mean_seconds: float
    min_seconds: float
    relative_stddev: float
    correct: bool
    relative_l2_error: float
    bytes_per_second: float
    flops_per_second: float
    speedup_vs_first: float
    converged: bool
    stop_reason: str
    mode: str
    sample_seconds: list = field(repr=False)
    proto: object = field(repr=False)

    @classmethod
    def from_proto(cls, v):
        s = v.stats
        return cls(variant=v.variant, median_seconds=s.median_seconds,
                   ci=(s.median_ci_low_seconds, s.median_ci_high_seconds), samples=s.samples,
                   mean_seconds=s.mean_seconds, min_seconds=s.min_seconds,
                   relative_stddev=s.relative_stddev,
                   correct=v.correctness.passed or not v.correctness.checked,
                   relative_l2_error=v.correctness.relative_l2_error,
                   bytes_per_second=v.bytes_per_second, flops_per_second=v.flops_per_second,
                   speedup_vs_first=v.speedup_vs_first, converged=v.converged,
                   stop_reason=v.stop_reason,
                   mode=enum_suffix(types_pb2.MeasureMode, v.mode, "MEASURE_MODE_"),
                   sample_seconds=list(v.sample_seconds), proto=v)

    def rows(self):
        return [{"variant": self.variant, "median_seconds": self.median_seconds,
                 "ci_low_seconds": self.ci[0], "ci_high_seconds": self.ci[1],
                 "samples": self.samples, "relative_stddev": self.relative_stddev,
                 "bytes_per_second": self.bytes_per_second,
                 "flops_per_second": self.flops_per_second,
                 "speedup_vs_first": self.speedup_vs_first, "correct": self.correct,
                 "converged": self.converged, "mode": self.mode}]


@dataclass
class JobResult(Tabular):
    variants: list
    device_name: str
    host: str
    kbench_version: str
    seed: int
    proto: object = field(repr=False)

    @classmethod
    def from_proto(cls, r):
        e = r.environment
        return cls([VariantResult.from_proto(v) for v in r.variants], e.device_name, e.host,
                   e.kbench_version, e.seed, r)

    def variant(self, name):
        """The result of the variant of that name; KeyError when the job did not time it."""
        for v in self.variants:
            if v.variant == name:
                return v
        raise KeyError(f"no variant {name!r} in this result "
                       f"(have {[v.variant for v in self.variants]})")

    def rows(self):
        return [row for v in self.variants for row in v.rows()]


@dataclass
class Artifact:
    name: str
    size_bytes: int
    sha256: str
    content_type: str
    owner_only: bool

    @classmethod
    def from_proto(cls, a):
        return cls(a.name, a.size_bytes, a.sha256, a.content_type, a.owner_only)


@dataclass
class Job(Tabular):
    """A job as kbenchd last reported it. `state` is "QUEUED", "RUNNING", "SUCCEEDED", "FAILED"
    or "CANCELLED"; `result` is None until the job has one (a job that failed its correctness
    check keeps its timings there; a compile job's report is in result.proto.compile)."""
    id: str
    state: str
    kernel: str
    variants: list
    shape: list
    dtype: str
    device: str
    error: str
    error_code: str  # the status code's name, e.g. "RESOURCE_EXHAUSTED"; "" when it did not fail
    progress: Optional[Progress]
    result: Optional[JobResult]
    artifacts: list
    create_time: object
    finish_time: object
    proto: object = field(repr=False)

    @classmethod
    def from_proto(cls, j):
        return cls(id=j.id, state=STATE_NAMES.get(j.state, str(j.state)), kernel=j.spec.kernel,
                   variants=list(j.spec.variants), shape=list(j.spec.shape),
                   dtype=enum_suffix(types_pb2.DType, j.spec.dtype, "DTYPE_"),
                   device=j.device or j.spec.device, error=j.error,
                   error_code=status_code_name(j),
                   progress=Progress.from_proto(j.progress) if j.HasField("progress") else None,
                   result=JobResult.from_proto(j.result) if j.HasField("result") else None,
                   artifacts=[Artifact.from_proto(a) for a in j.artifacts],
                   create_time=_time(j.create_time), finish_time=_time(j.finish_time), proto=j)

    @property
    def done(self):
        return self.state in TERMINAL_STATES

    def rows(self):
        base = {"job": self.id, "state": self.state, "kernel": self.kernel,
                "shape": "x".join(map(str, self.shape)), "dtype": self.dtype,
                "device": self.device}
        if self.result is None or not self.result.variants:
            return [dict(base, variant=",".join(self.variants), error=self.error)]
        return [dict(base, **row) for row in self.result.rows()]

    def _caption(self):
        return f"job {self.id} ({self.state})"


def job_list(jobs, caption="", pages_left=False):
    return TabularList([Job.from_proto(j) for j in jobs], caption, pages_left)
