#!/usr/bin/env python3
"""The agreement table (issue 29, item 4): each timer's median per panel case against
triton.testing.do_bench's, as a difference with its 95 % interval.

Input: JSON lines {"case", "method", "round", "seconds"} (run.sh writes them: kbench cold, hot
and graph from kbctl; do_bench, do_bench_cudagraph and CUPTI kernel durations from peers.py).
A round is one independent measurement (a job, a do_bench call). A method's difference is the
ratio of geometric means of its rounds over do_bench's, with a Welch t interval on the
difference of mean log times (rounds independent on both sides). Pure Python: tested on CPU.

usage: agreement_table.py ROUNDS.jsonl [--reference do_bench] [--json]
"""
import argparse
import json
import math
import sys
from collections import OrderedDict

# Two-sided 95 % Student t quantiles by degrees of freedom (1..30); beyond, the normal's.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]

METHOD_ORDER = ["kbench_cold", "kbench_hot", "kbench_graph", "do_bench", "do_bench_cudagraph",
                "cupti"]


def t975(df):
    """The 97.5 % quantile of Student's t with `df` (possibly fractional) degrees of freedom."""
    if df < 1:
        return T975[0]
    if df >= len(T975):
        return 1.960 + 2.4 / df  # within 0.1 % of the exact quantile beyond 30
    lo = int(math.floor(df))
    hi = min(lo + 1, len(T975))
    frac = df - lo
    return T975[lo - 1] * (1 - frac) + T975[hi - 1] * frac


def mean_var(xs):
    m = sum(xs) / len(xs)
    v = sum((x - m) ** 2 for x in xs) / (len(xs) - 1) if len(xs) > 1 else float("nan")
    return m, v


def difference(method_seconds, reference_seconds):
    """(change %, low %, high %) of the method's geometric mean over the reference's, 95 %."""
    a = [math.log(s) for s in method_seconds]
    b = [math.log(s) for s in reference_seconds]
    ma, va = mean_var(a)
    mb, vb = mean_var(b)
    d = ma - mb
    if len(a) < 2 or len(b) < 2:
        return (math.expm1(d) * 100, float("nan"), float("nan"))
    sa, sb = va / len(a), vb / len(b)
    se = math.sqrt(sa + sb)
    # Welch-Satterthwaite degrees of freedom.
    df = (sa + sb) ** 2 / ((sa ** 2 / (len(a) - 1) if sa else 0) +
                           (sb ** 2 / (len(b) - 1) if sb else 0)) if se > 0 else 1e9
    h = t975(df) * se
    return (math.expm1(d) * 100, math.expm1(d - h) * 100, math.expm1(d + h) * 100)


def load(lines):
    """{case: {method: [seconds, ...]}}, cases and methods in the order first seen."""
    table = OrderedDict()
    for line in lines:
        line = line.strip()
        if not line:
            continue
        row = json.loads(line)
        if not row.get("seconds") or row["seconds"] <= 0:
            continue  # a failed round is logged by run.sh, not timed
        table.setdefault(row["case"], OrderedDict()).setdefault(row["method"], []).append(
            float(row["seconds"]))
    return table


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def rows(table, reference="do_bench"):
    """One row per case and method: median time, rounds, difference to the reference."""
    out = []
    for case, methods in table.items():
        ref = methods.get(reference)
        for method in sorted(methods, key=lambda m: (METHOD_ORDER.index(m)
                                                     if m in METHOD_ORDER else 99, m)):
            xs = methods[method]
            row = {"case": case, "method": method, "rounds": len(xs),
                   "seconds": geomean(xs)}
            if ref and method != reference:
                row["change_percent"], row["low_percent"], row["high_percent"] = difference(
                    xs, ref)
            out.append(row)
    return out


def fmt_time(s):
    if s >= 1e-3:
        return "%.4g ms" % (s * 1e3)
    return "%.4g µs" % (s * 1e6)


def fmt_pct(x):
    return "n/a" if math.isnan(x) else "%+.3f %%" % x


def markdown(out, reference="do_bench"):
    lines = ["| case | timer | rounds | time (geo. mean) | vs %s | 95 %% interval |" % reference,
             "| --- | --- | ---: | ---: | ---: | --- |"]
    for r in out:
        if "change_percent" in r:
            diff = fmt_pct(r["change_percent"])
            interval = "[%s, %s]" % (fmt_pct(r["low_percent"]), fmt_pct(r["high_percent"]))
        else:
            diff, interval = ("reference", "") if r["method"] == reference else ("no reference", "")
        lines.append("| %s | %s | %d | %s | %s | %s |" % (r["case"], r["method"], r["rounds"],
                                                       fmt_time(r["seconds"]), diff, interval))
    return "\n".join(lines) + "\n"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rounds")
    p.add_argument("--reference", default="do_bench")
    p.add_argument("--json", action="store_true", help="rows as JSON instead of markdown")
    args = p.parse_args(argv)
    with open(args.rounds) as f:
        out = rows(load(f), args.reference)
    if not out:
        print("agreement_table: no timed rounds in %s" % args.rounds, file=sys.stderr)
        return 1
    sys.stdout.write(json.dumps(out, indent=2) + "\n" if args.json else markdown(out,
                                                                                args.reference))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
