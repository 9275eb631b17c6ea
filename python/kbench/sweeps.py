"""A sweep (sweep.proto) as a dataclass: its points, their jobs once fetched with_jobs, and a
table of one row per point and variant."""

from dataclasses import dataclass, field

from .results import STATE_NAMES, Artifact, Job, _time
from .tabular import Tabular
from .v1 import sweep_pb2

SWEEP_STATE_NAMES = {v: n[len("SWEEP_STATE_"):] for n, v in sweep_pb2.SweepState.items()}
SWEEP_TERMINAL_STATES = ("DONE", "CANCELLED")


@dataclass
class SweepPoint:
    index: int
    values: dict
    job_id: str
    state: str


@dataclass
class Sweep(Tabular):
    """`state` is "RUNNING", "REPORTING", "DONE" or "CANCELLED"; `jobs` is filled (in point order)
    only by get_sweep(..., with_jobs=True)."""
    id: str
    state: str
    points: list
    points_total: int
    points_done: int
    points_failed: int
    eta_seconds: float
    artifacts: list
    error: str
    create_time: object
    jobs: list = field(default_factory=list, repr=False)
    proto: object = field(default=None, repr=False)

    @classmethod
    def from_proto(cls, s, jobs=()):
        points = [SweepPoint(p.index, {v.axis: v.value for v in p.values}, p.job_id,
                             STATE_NAMES.get(p.state, str(p.state))) for p in s.points]
        return cls(id=s.id, state=SWEEP_STATE_NAMES.get(s.state, str(s.state)), points=points,
                   points_total=s.points_total, points_done=s.points_done,
                   points_failed=s.points_failed, eta_seconds=s.eta_seconds,
                   artifacts=[Artifact.from_proto(a) for a in s.artifacts], error=s.error,
                   create_time=_time(s.create_time), jobs=[Job.from_proto(j) for j in jobs],
                   proto=s)

    @property
    def done(self):
        return self.state in SWEEP_TERMINAL_STATES

    def rows(self):
        jobs = {j.id: j for j in self.jobs}
        out = []
        for p in self.points:
            base = dict(point=p.index, **p.values, job=p.job_id, state=p.state)
            job = jobs.get(p.job_id)
            if job is None or job.result is None:
                out.append(base)
                continue
            out += [dict(base, **row) for row in job.result.rows()]
        return out

    def _caption(self):
        return f"sweep {self.id} ({self.state}, {self.points_done}/{self.points_total} done)"
