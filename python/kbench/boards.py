"""Results over time (history.proto) as dataclasses: one key's history entries, a leaderboard,
and the client-side comparison of two jobs' medians (kbctl's statistical verdicts are not here:
see docs/python.md)."""

from dataclasses import dataclass, field

from .results import _time, enum_suffix
from .tabular import Tabular
from .v1 import types_pb2


@dataclass
class HistoryEntry(Tabular):
    kernel: str
    variant: str
    shape: list
    dtype: str
    mode: str
    device: str
    device_model: str
    job_id: str
    finish_time: object
    median_seconds: float
    ci: tuple
    samples: int
    correct: bool
    contended: bool
    clean: bool
    joules_per_launch: object  # None where the energy was not measured
    proto: object = field(repr=False)

    @classmethod
    def from_proto(cls, e):
        k = e.key
        return cls(kernel=k.kernel, variant=k.variant, shape=list(k.shape),
                   dtype=enum_suffix(types_pb2.DType, k.dtype, "DTYPE_"),
                   mode=enum_suffix(types_pb2.MeasureMode, k.mode, "MEASURE_MODE_"),
                   device=e.device, device_model=k.device_model, job_id=e.job_id,
                   finish_time=_time(e.finish_time), median_seconds=e.median_seconds,
                   ci=(e.median_ci_low_seconds, e.median_ci_high_seconds), samples=e.samples,
                   correct=e.correct, contended=e.contended, clean=e.clean,
                   joules_per_launch=(e.joules_per_launch if e.HasField("joules_per_launch")
                                      else None), proto=e)

    def rows(self):
        return [{"finish_time": self.finish_time, "job": self.job_id, "variant": self.variant,
                 "shape": "x".join(map(str, self.shape)), "dtype": self.dtype,
                 "mode": self.mode, "device": self.device,
                 "median_seconds": self.median_seconds, "ci_low_seconds": self.ci[0],
                 "ci_high_seconds": self.ci[1], "samples": self.samples,
                 "correct": self.correct, "contended": self.contended, "clean": self.clean,
                 "joules_per_launch": self.joules_per_launch}]


@dataclass
class LeaderboardEntry:
    rank: int
    variant: str
    geomean_median_seconds: float
    tied: bool
    final: bool
    points: list  # (shape, median_seconds, job_id) per shape with a counted result
    missing_shapes: list


@dataclass
class Leaderboard(Tabular):
    """`ranked` fastest first; `incomplete` lacks a counted result at some shape."""
    device_model: str
    ranked: list
    incomplete: list
    proto: object = field(repr=False)

    @classmethod
    def from_proto(cls, r):
        def entry(e):
            return LeaderboardEntry(
                e.rank, e.variant, e.geomean_median_seconds, e.tied, e.final,
                [(list(p.shape), p.median_seconds, p.job_id) for p in e.points],
                [list(s.dims) for s in e.missing_shapes])
        return cls(r.device_model, [entry(e) for e in r.ranked],
                   [entry(e) for e in r.incomplete], r)

    def rows(self):
        return [{"rank": e.rank, "variant": e.variant,
                 "geomean_median_seconds": e.geomean_median_seconds, "tied": e.tied,
                 "final": e.final, "shapes": len(e.points)}
                for e in self.ranked + self.incomplete]

    def _caption(self):
        return f"leaderboard on {self.device_model}"


@dataclass
class VariantChange:
    variant: str
    baseline_median_seconds: float
    candidate_median_seconds: float
    # 100 * (candidate / baseline - 1): positive is slower.
    change_percent: float
    # True when the two medians' 95% intervals do not overlap: a first look only, not kbctl's
    # verdict (which weighs the key's between-job noise from its history).
    intervals_disjoint: bool


@dataclass
class JobDiff(Tabular):
    """Two jobs' medians side by side, per variant both timed."""
    baseline_job_id: str
    candidate_job_id: str
    variants: list

    @classmethod
    def of(cls, baseline, candidate):
        changes = []
        for b in baseline.result.variants:
            c = next((v for v in candidate.result.variants if v.variant == b.variant), None)
            if c is None or b.median_seconds <= 0:
                continue
            disjoint = c.ci[0] > b.ci[1] or c.ci[1] < b.ci[0]
            changes.append(VariantChange(b.variant, b.median_seconds, c.median_seconds,
                                         100.0 * (c.median_seconds / b.median_seconds - 1.0),
                                         disjoint))
        return cls(baseline.id, candidate.id, changes)

    def rows(self):
        return [dict(vars(v), baseline=self.baseline_job_id, candidate=self.candidate_job_id)
                for v in self.variants]
