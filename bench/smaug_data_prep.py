"""SMAUG's CPU data preparation, executed: the tiling copies of the SMAUG study's networks.

For every operator of ResNet-50, VGG-16, AlexNet and Fathom's seq2seq (batch 1, fp16) this
replays, with numpy on one thread, the copies SMAUG's SMV backend makes at the tiles archsim's
SoC simulator uses (``archsim.sim.soc.cpu_calibration``: strided regions of NHWC/KRSC tensors
into contiguous tile buffers, output tiles back into the full tensor), times each copy
(median of ``--repeats`` passes, caches evicted before every pass by streaming a
``--evict-mib`` buffer) and fits ``t = fixed + bytes / bandwidth`` per network and pooled.

Prints, per network: copies, MB, the fit (bandwidth +- 2 standard errors, fixed cost per
copy, R^2), the achieved bandwidth (fixed costs included) and its range (per-copy quartiles summed);
then the same scaled to SMAUG's simulated CPU (gem5 DerivO3CPU at 2.5 GHz: the run scripts
of SMAUG's experiments repository, ``sims/smv/tests/*/run.sh``) by clock (a stated model).

Run: ``OPENBLAS_NUM_THREADS=1 python bench/smaug_data_prep.py`` (about 20 s).
``--write`` stores the result in ``sim/studies/smaug/data/cpu_calibration.json`` (what the
study's quick mode reads); ``soc_configs/smaug_calibrated.toml`` carries the pooled value,
copied by hand with the date (a test checks the two agree).
"""

from __future__ import annotations

import argparse
import datetime
import platform
from pathlib import Path

from archsim.compilers.graph import build_workload
from archsim.outputs import write_json
from archsim.sim.soc.config import load_soc_config
from archsim.sim.soc.cpu_calibration import CpuScaling, fit_copy_cost, host_cpu_hz, measure_network

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "soc_configs" / "smaug_baseline.toml"
OUT = ROOT / "sim" / "studies" / "smaug" / "data" / "cpu_calibration.json"
NETWORKS = {"resnet50": "resnet50", "vgg16": "vgg16", "alexnet": "alexnet",
            "lstm (fathom-seq2seq)": "fathom-seq2seq"}
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
    ap.add_argument("--write", action="store_true", help=f"write {OUT.relative_to(ROOT)}")
    args = ap.parse_args()
    spads = load_soc_config(CONFIG).accelerators[0].scratchpads
    host_hz = host_cpu_hz()
    scale = CpuScaling(host_hz=host_hz, target_hz=TARGET_HZ)
    print(f"host {platform.processor() or platform.machine()} at {host_hz / 1e9:.3f} GHz; "
          f"scaled to {TARGET_HZ / 1e9:.2f} GHz by x{scale.factor:.3f}")
    records = []
    all_b: list[float] = []
    all_s: list[float] = []
    head = (f"{'network':24s} {'copies':>7s} {'MB':>8s} {'fit GB/s (+-2se)':>22s} "
            f"{'fixed us':>9s} {'R2':>5s} {'achieved GB/s [q75,q25]':>24s} {'@2.5GHz':>8s}")
    print(head)
    for label, builder in NETWORKS.items():
        graph = build_workload(builder, batch=1, dtype="fp16")
        prep, timings = measure_network(label, list(graph), spads, repeats=args.repeats,
                                        seed=args.seed, evict_bytes=args.evict_mib << 20)
        all_b += [t.nbytes for t in timings]
        all_s += [t.median_s for t in timings]
        f = prep.fit
        records.append(prep.to_record())
        print(f"{label:24s} {prep.copies:7d} {prep.nbytes / 1e6:8.1f} "
              f"{f.bytes_per_s / 1e9:7.2f} [{f.bytes_per_s_low / 1e9:5.2f},"
              f"{f.bytes_per_s_high / 1e9:6.2f}] {f.fixed_s * 1e6:9.2f} {f.r2:5.2f} "
              f"{prep.achieved_bytes_per_s / 1e9:7.2f} [{prep.nbytes / prep.total_q75_s / 1e9:5.2f},"
              f"{prep.nbytes / prep.total_q25_s / 1e9:6.2f}] "
              f"{scale.bandwidth(prep.achieved_bytes_per_s) / 1e9:8.2f}")
    pooled = fit_copy_cost(all_b, all_s)
    print(f"pooled fit: {pooled.bytes_per_s / 1e9:.2f} GB/s "
          f"[{pooled.bytes_per_s_low / 1e9:.2f}, {pooled.bytes_per_s_high / 1e9:.2f}] "
          f"+ {pooled.fixed_s * 1e6:.2f} us per copy (R2 {pooled.r2:.2f}, {pooled.samples} "
          f"copies); at 2.5 GHz {scale.bandwidth(pooled.bytes_per_s) / 1e9:.2f} GB/s + "
          f"{scale.fixed_time(pooled.fixed_s) * 1e6:.2f} us")
    if args.write:
        doc = {"bench": "bench/smaug_data_prep.py",
               "date": datetime.date.today().isoformat(),
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
                          "samples": pooled.samples},
               "networks": records}
        print("wrote", write_json(OUT, doc))


if __name__ == "__main__":
    main()
