"""SMAUG's CPU data preparation, executed: the tiling copies of the SMAUG study's networks.

For every operator of SMAUG's own eight networks (``smaug-minerva`` ... ``smaug-lstm``,
:mod:`archsim.compilers.graph.smaug_nets`) and of the study's secondary ImageNet set
(ResNet-50, VGG-16, AlexNet, Fathom's seq2seq), batch 1, fp16, this replays, with numpy on one thread, the copies SMAUG's SMV backend makes at the tiles archsim's
SoC simulator uses (``archsim.sim.soc.cpu_calibration``: strided regions of NHWC/KRSC tensors
into contiguous tile buffers, output tiles back into the full tensor), times each copy
(median of ``--repeats`` passes, caches evicted before every pass by streaming a
``--evict-mib`` buffer) and fits ``t = fixed + bytes / bandwidth`` per network and pooled.

Prints, per network: copies, MB, the fit (bandwidth +- 2 standard errors, fixed cost per
copy, R^2), the achieved bandwidth (fixed costs included) and its range (per-copy quartiles summed);
then the same scaled to SMAUG's simulated CPU (gem5 DerivO3CPU at 2.5 GHz: the run scripts
of SMAUG's experiments repository, ``sims/smv/tests/*/run.sh``) by clock (a stated model).

Run: ``OPENBLAS_NUM_THREADS=1 python bench/smaug_data_prep.py`` (about 30 s);
``--networks smaug`` (or ``imagenet``, or comma-separated labels) measures a subset.
``--write`` merges the result into ``sim/studies/smaug/data/cpu_calibration.json`` (what the
study's quick mode reads): each measured network's record is replaced or added, with its own
date, host clock and load average; the others are kept. The pooled fit is rewritten only when
the ImageNet set (the networks it was fitted on) is re-measured;
``soc_configs/smaug_calibrated.toml`` carries the pooled value, copied by hand with the date
(a test checks the two agree).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
from pathlib import Path

from archsim.compilers.graph import SMAUG_NETWORKS as SMAUG_NETWORK_BUILDERS
from archsim.compilers.graph import build_workload
from archsim.errors import ConfigError
from archsim.outputs import write_json
from archsim.sim.soc.config import load_soc_config
from archsim.sim.soc.cpu_calibration import (
    CpuScaling,
    fit_copy_cost,
    graph_copies,
    host_cpu_hz,
    network_prep,
    time_copies,
)

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "soc_configs" / "smaug_baseline.toml"
OUT = ROOT / "sim" / "studies" / "smaug" / "data" / "cpu_calibration.json"
#: SMAUG's own networks (the study's main set), label = registry name.
SMAUG_NETWORKS = {name: name for name in SMAUG_NETWORK_BUILDERS}
#: The secondary ImageNet set (the study's first network set; the pooled fit's networks).
IMAGENET_NETWORKS = {"resnet50": "resnet50", "vgg16": "vgg16", "alexnet": "alexnet",
                     "lstm (fathom-seq2seq)": "fathom-seq2seq"}
NETWORKS = {**SMAUG_NETWORKS, **IMAGENET_NETWORKS}
#: SMAUG's simulated CPU: gem5 DerivO3CPU, --cpu-clock=2.5GHz (SMAUG's experiments
#: repository, sims/smv/tests/minerva/run.sh and lstm/run.sh).
TARGET_HZ = 2.5e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--evict-mib", type=int, default=64,
                    help="buffer streamed before each pass (default 64 MiB: 2x this host's "
                         "32 MiB L3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--networks", default="all",
                    help="'all', 'smaug', 'imagenet' or comma-separated labels of "
                         f"{', '.join(NETWORKS)}")
    ap.add_argument("--write", action="store_true",
                    help=f"merge into {OUT.relative_to(ROOT)}")
    args = ap.parse_args()
    groups = {"all": NETWORKS, "smaug": SMAUG_NETWORKS, "imagenet": IMAGENET_NETWORKS}
    if args.networks in groups:
        chosen = groups[args.networks]
    else:
        labels = [x.strip() for x in args.networks.split(",")]
        unknown = [x for x in labels if x not in NETWORKS]
        if unknown:
            ap.error(f"unknown networks {unknown}; allowed: {', '.join(NETWORKS)}")
        chosen = {x: NETWORKS[x] for x in labels}
    with open("/proc/loadavg", encoding="utf-8") as fh:
        loadavg = fh.read().split()[:3]
    print(f"load average before: {' '.join(loadavg)}")
    spads = load_soc_config(CONFIG).accelerators[0].scratchpads
    host_hz = host_cpu_hz()
    scale = CpuScaling(host_hz=host_hz, target_hz=TARGET_HZ)
    print(f"host {platform.processor() or platform.machine()} at {host_hz / 1e9:.3f} GHz; "
          f"scaled to {TARGET_HZ / 1e9:.2f} GHz by x{scale.factor:.3f}")
    records = []
    all_b: list[float] = []
    all_s: list[float] = []
    smaug_b: list[float] = []
    smaug_s: list[float] = []
    head = (f"{'network':24s} {'copies':>7s} {'MB':>8s} {'fit GB/s (+-2se)':>22s} "
            f"{'fixed us':>9s} {'R2':>5s} {'achieved GB/s [q75,q25]':>24s} {'@2.5GHz':>8s}")
    print(head)
    today = datetime.date.today().isoformat()
    for label, builder in chosen.items():
        graph = build_workload(builder, batch=1, dtype="fp16")
        timings = time_copies(graph_copies(list(graph), spads), repeats=args.repeats,
                              seed=args.seed, evict_bytes=args.evict_mib << 20)
        note = None
        try:
            prep = network_prep(label, timings)
        except ConfigError as exc:
            # The LSTM's copies are a few small sizes: no slope of its own. SMAUG's networks
            # measured before it in this run give the slope; its per-copy cost is fitted.
            if len(smaug_b) < 3:
                ap.error(f"{label} has no slope of its own ({exc}): measure it after "
                         "SMAUG's other networks (--networks smaug)")
            smaug_fit = fit_copy_cost(smaug_b, smaug_s)
            prep = network_prep(label, timings, fallback_fit=smaug_fit)
            note = (f"own fit failed ({exc}); slope of SMAUG's networks measured before it "
                    f"in this run ({smaug_fit.bytes_per_s / 1e9:.3g} GB/s), per-copy cost "
                    "fitted with it")
            print(f"{label}: {note}")
        if label in SMAUG_NETWORKS:
            smaug_b += [t.nbytes for t in timings]
            smaug_s += [t.median_s for t in timings]
        if label in IMAGENET_NETWORKS:  # the pooled fit is the ImageNet set's (the toml's)
            all_b += [t.nbytes for t in timings]
            all_s += [t.median_s for t in timings]
        f = prep.fit
        records.append({**prep.to_record(), "date": today, "host_hz": host_hz,
                        "loadavg": " ".join(loadavg), **({"fit_note": note} if note else {})})
        print(f"{label:24s} {prep.copies:7d} {prep.nbytes / 1e6:8.1f} "
              f"{f.bytes_per_s / 1e9:7.2f} [{f.bytes_per_s_low / 1e9:5.2f},"
              f"{f.bytes_per_s_high / 1e9:6.2f}] {f.fixed_s * 1e6:9.2f} {f.r2:5.2f} "
              f"{prep.achieved_bytes_per_s / 1e9:7.2f} [{prep.nbytes / prep.total_q75_s / 1e9:5.2f},"
              f"{prep.nbytes / prep.total_q25_s / 1e9:6.2f}] "
              f"{scale.bandwidth(prep.achieved_bytes_per_s) / 1e9:8.2f}")
    pooled = None
    if set(IMAGENET_NETWORKS) <= set(chosen):
        pooled = fit_copy_cost(all_b, all_s)
        print(f"pooled fit (ImageNet set): {pooled.bytes_per_s / 1e9:.2f} GB/s "
              f"[{pooled.bytes_per_s_low / 1e9:.2f}, {pooled.bytes_per_s_high / 1e9:.2f}] "
              f"+ {pooled.fixed_s * 1e6:.2f} us per copy (R2 {pooled.r2:.2f}, "
              f"{pooled.samples} copies); at 2.5 GHz "
              f"{scale.bandwidth(pooled.bytes_per_s) / 1e9:.2f} GB/s + "
              f"{scale.fixed_time(pooled.fixed_s) * 1e6:.2f} us")
    if not args.write:
        return
    if pooled is None:
        # Merge: the measured networks' records replace or join the shipped ones; the
        # pooled fit (the toml's value) and the top-level host stay as they were.
        doc = json.loads(OUT.read_text(encoding="utf-8"))
        measured = {r["name"] for r in records}
        doc["networks"] = [r for r in doc["networks"] if r["name"] not in measured] + records
        print("wrote", write_json(OUT, doc))
        return
    doc = {"bench": "bench/smaug_data_prep.py",
           "date": today,
           "host": {"processor": platform.processor() or platform.machine(),
                    "hz": host_hz, "threads": 1},
           "target": {"hz": TARGET_HZ,
                      "source": "SMAUG experiments repository (submodule of "
                                "harvard-acc/smaug), sims/smv/tests/*/run.sh: gem5 "
                                "DerivO3CPU --cpu-clock=2.5GHz"},
           "repeats": args.repeats, "evict_bytes": args.evict_mib << 20,
           "seed": args.seed,
           "pooled": {"bytes_per_s": pooled.bytes_per_s, "fixed_s": pooled.fixed_s,
                      "slope_stderr_s_per_byte": pooled.slope_stderr_s_per_byte,
                      "fixed_stderr_s": pooled.fixed_stderr_s, "r2": pooled.r2,
                      "samples": pooled.samples, "networks": list(IMAGENET_NETWORKS)},
           "networks": records}
    if OUT.exists():  # keep the records of networks not measured in this run
        measured = {r["name"] for r in records}
        doc["networks"] = [r for r in json.loads(OUT.read_text(encoding="utf-8"))["networks"]
                           if r["name"] not in measured] + records
    print("wrote", write_json(OUT, doc))


if __name__ == "__main__":
    main()
