#!/usr/bin/env python3
"""Turns a device_run.sh output folder into the markdown tables of docs/benchmarks.md:
one row per (case, variant) with kbench's statistics beside the PyTorch peer of the same run,
then the run-to-run spread of cases run several times (names ending in #N)."""
import glob
import json
import os
import statistics
import sys


def load(out):
    cases = []
    metas = glob.glob(os.path.join(out, "kb_*.meta"))
    for meta_path in sorted(metas, key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0])):
        meta = json.load(open(meta_path))
        try:
            meta["job"] = json.load(open(meta_path[: -len(".meta")] + ".json"))
        except (OSError, ValueError):
            meta["job"] = None
        cases.append(meta)
    return cases, json.load(open(os.path.join(out, "torch.json")))


def fmt(x, scale=1.0, digits=2):
    return "" if x is None else f"{x * scale:.{digits}f}"


def main():
    out = sys.argv[1]
    cases, torch = load(out)
    devices = json.load(open(os.path.join(out, "devices.json")))["devices"]
    gpu = next((d for d in devices if d["kind"] == "DEVICE_KIND_CUDA"), None)
    if gpu:
        print(f"Device: {gpu['name']} ({gpu['uuid']}), {gpu['sm_count']} SMs, driver {gpu['driver_version']}; "
              f"copy bandwidth measured by kbench at executor start: "
              f"{float(gpu['copy_bandwidth_bytes_per_second']) / 1e9:.1f} GB/s (read + write). "
              f"Peer: torch {torch['torch']} / triton {torch['triton']} `do_bench` median "
              f"(L2 flushed before each rep), same device, same run.\n")
    print("| case | variant | kbench median µs | noise % | samples | stop | GB/s | TFLOP/s | % copy BW "
          "| torch eager µs | torch.compile µs | kbench ÷ best torch | job wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    spreads = {}
    for c in cases:
        job = c["job"]
        if not job or c["rc"] != 0:
            err = (job or {}).get("error", "") if job else open(os.path.join(out, f"kb_{cases.index(c) + 1}.err")).read().strip()[:120]
            print(f"| {c['case']} | failed (exit {c['rc']}): {err} |||||||||||")
            continue
        peer = torch["peers"].get(c["peer"], {})
        eager, compiled = peer.get("eager_ms"), peer.get("compiled_ms")
        best = min([t for t in (eager, compiled) if t is not None], default=None)
        for v in job["result"]["variants"]:
            s = v["stats"]
            med = float(s["median_seconds"])
            ratio = f"{med / (best * 1e-3):.3f}" if best else ""
            print(f"| {c['case']} | {v['variant']} | {med * 1e6:.2f} | {100 * float(s['relative_stddev']):.2f} "
                  f"| {s['samples']} | {v['stop_reason'].split(':')[0]} | {float(v['bytes_per_second']) / 1e9:.1f} "
                  f"| {float(v['flops_per_second']) / 1e12:.2f} | {100 * float(v['fraction_of_copy_bandwidth']):.1f} "
                  f"| {fmt(eager, 1e3)} | {fmt(compiled, 1e3)} | {ratio} | {c['wall_seconds']:.1f} |")
            if "#" in c["case"]:
                spreads.setdefault((c["case"].split("#")[0], v["variant"]), []).append(med)
    if spreads:
        print("\n| repeated case | variant | runs | medians µs | spread (max-min)/median % |")
        print("|---|---|---|---|---|")
        for (name, variant), meds in spreads.items():
            mid = statistics.median(meds)
            print(f"| {name} | {variant} | {len(meds)} | {', '.join(f'{m * 1e6:.2f}' for m in meds)} "
                  f"| {100 * (max(meds) - min(meds)) / mid:.2f} |")


if __name__ == "__main__":
    main()
