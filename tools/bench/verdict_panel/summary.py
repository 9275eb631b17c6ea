#!/usr/bin/env python3
"""Rates of the verdict panel (run.sh's JSON lines), per case and phase, with one-sided 95 %
Clopper-Pearson bounds, and the pass/fail bounds of issue 26, item 5:
  - false SLOWER/FASTER <= 5 % on fresh keys and on A/A pairs with history;
  - a slowdown at least the minimum effect called SLOWER >= 90 % where the device resolves it
    (the verdict's resolvable effect is under the minimum effect), and never called SAME;
  - a slowdown under the minimum effect called SAME or SLOWER, never FASTER (SAME is the right
    answer: "no change of the size asked about"); the phases "slow" (--min-effect 3) and "slow1"
    (--min-effect 1) of one pair of jobs judge the same change at two sizes.
usage: summary.py ROUNDS.jsonl [--markdown]"""
import collections
import json
import math
import sys


def binom_cdf(k, n, p):
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def solve(f, lo=0.0, hi=1.0):
    """The root of a decreasing f on [lo, hi] by bisection."""
    for _ in range(60):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def upper95(k, n):  # one-sided: P(X <= k | p) = 0.05
    return 1.0 if k >= n else solve(lambda p: binom_cdf(k, n, p) - 0.05)


def lower95(k, n):  # one-sided: P(X >= k | p) = 0.05
    return 0.0 if k == 0 else solve(lambda p: 0.05 - (1 - binom_cdf(k - 1, n, p)))


def main():
    rows = collections.defaultdict(list)
    with open(sys.argv[1]) as f:
        for line in f:
            r = json.loads(line)
            for v in r["comparison"].get("variants", []):
                rows[(r["case"], r["phase"])].append(v)
    md = "--markdown" in sys.argv
    if md:
        print("| case | phase | n | SLOWER | FASTER | SAME | UNSURE | rate | one-sided 95 % bound | "
              "median change | median min effect | bound met |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    failures = 0
    for (case, phase), vs in sorted(rows.items()):
        n = len(vs)
        count = collections.Counter(v.get("verdict", "VERDICT_UNSURE").replace("VERDICT_", "")
                                    for v in vs)
        changes = sorted(v.get("change_percent", 0.0) for v in vs)
        effects = sorted(v.get("min_effect_percent", 0.0) for v in vs)
        median = lambda xs: xs[len(xs) // 2] if xs else float("nan")
        if phase in ("fresh", "aa"):
            k = count["SLOWER"] + count["FASTER"]
            rate, bound, ok = k / n, upper95(k, n), k / n <= 0.05
            what = "false alarms"
        else:
            # Judged against what the jobs measured, not the work added: a step under the minimum
            # effect is SAME by definition.
            big = [v for v in vs if v.get("change_percent", 0.0) >= v.get("min_effect_percent", 3)]
            resolved = [v for v in big if v.get("resolvable_effect_percent", 1e9)
                        <= v.get("min_effect_percent", 3)]
            k = sum(v.get("verdict") == "VERDICT_SLOWER" for v in resolved)
            missed = sum(v.get("verdict") == "VERDICT_SAME" for v in big)
            wrong = count["FASTER"]
            rate = k / len(resolved) if resolved else float("nan")
            bound = lower95(k, len(resolved)) if resolved else float("nan")
            ok = missed == 0 and wrong == 0 and (rate >= 0.9 if resolved else True)
            what = (f"detected of {len(resolved)} resolvable steps >= min effect "
                    f"({n - len(big)} under it: SAME is right)")
        failures += not ok
        if md:
            print(f"| {case} | {phase} | {n} | {count['SLOWER']} | {count['FASTER']} | "
                  f"{count['SAME']} | {count['UNSURE']} | {100 * rate:.0f} % | "
                  f"{100 * bound:.0f} % | {median(changes):+.2f} % | {median(effects):.2f} % | "
                  f"{'yes' if ok else 'NO'} |")
        else:
            print(f"{case:12s} {phase:6s} n={n:3d} {dict(count)} {what} {100 * rate:.0f} % "
                  f"(one-sided 95 % bound {100 * bound:.0f} %), median change "
                  f"{median(changes):+.2f} %, min effect {median(effects):.2f} % "
                  f"{'PASS' if ok else 'FAIL'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
