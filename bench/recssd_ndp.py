"""RecSSD's SLS reduction: the FTL's ARM core against the near-data gather-reduce unit.

Prints (1) the reduce time per embedding row on the FTL core (``SSDConfig.ftl_add_s * dim``)
and on the unit (:func:`archsim.hw.accel.gather_reduce.ndp_reduce_s`: its model's cycles at
its clock, per row in steady state and for one whole page of ``rows`` rows), and (2) the
``recssd_sls`` latency of an RM1-like batch (8 tables x 1M rows, dim 32, 80 lookups per table
and sample: RecSSD-RecInfra ``sweep_*.py``) with the baseline COTS path, the NDP path on the
ARM core and the NDP path with the unit; traces from ``locality_trace`` (the authors'
reuse-distance generator), a host static cache of the top-2000 rows per table.

Run: ``python bench/recssd_ndp.py [--batch 16] [--lanes 4] [--clock-mhz 200] [--k 1.0]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from archsim.hw.accel.gather_reduce import ndp_reduce_s
from archsim.hw.models.ssd import SSDConfig
from archsim.sim.recsys.recssd import (
    baseline_sls,
    host_static_cache,
    locality_trace,
    recssd_sls,
    reuse_locality_of_k,
)

TABLES, ROWS, DIM, LOOKUPS = 8, 1_000_000, 32, 80


def main() -> None:
    """Print the two tables (module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lanes", type=int, default=4)
    p.add_argument("--clock-mhz", type=float, default=200.0)
    p.add_argument("--k", type=float, default=1.0, help="gen_dist.py's locality K")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    cfg = SSDConfig()
    clock = a.clock_mhz * 1e6
    unit = ndp_reduce_s(dim=DIM, lanes=a.lanes, clock_hz=clock)
    arm_row = cfg.ftl_add_s * DIM
    print(f"reduce time per row of {DIM} fp32 (ARM: ftl_add_s = {cfg.ftl_add_s:.3g} s/element;"
          f" unit: {a.lanes} lanes at {a.clock_mhz:g} MHz)")
    print(f"{'rows':>6} {'ARM core [ns]':>14} {'unit [ns]':>10} {'ratio':>7}")
    for rows in (1, 4, 16, 64, cfg.page_bytes // (DIM * 4)):
        arm, ndp = rows * arm_row, unit(rows, DIM)
        print(f"{rows:>6} {arm * 1e9:>14.1f} {ndp * 1e9:>10.1f} {arm / ndp:>7.2f}")
    locality = reuse_locality_of_k(a.k, seed=a.seed)
    idx = np.stack([locality_trace(ROWS, a.batch * LOOKUPS, reuse_locality=locality,
                                   seed=a.seed + t).reshape(a.batch, LOOKUPS)
                    for t in range(TABLES)])
    hc = host_static_cache(idx, 2000)
    kw = dict(rows_per_table=ROWS, dim=DIM, host_cache=hc)
    base = baseline_sls(cfg, idx, **kw)
    arm = recssd_sls(cfg, idx, **kw)
    ndp = recssd_sls(cfg, idx, reduce_s=unit, **kw)
    print(f"\nRM1-like SLS, batch {a.batch}, K {a.k:g} (reuse locality {locality:.3f})")
    print(f"{'path':<22} {'latency [us]':>13} {'compute [us]':>13} {'vs COTS':>8}")
    for name, r in (("COTS SSD (baseline)", base), ("RecSSD, ARM core", arm),
                    ("RecSSD, gather-reduce", ndp)):
        print(f"{name:<22} {r.latency_s * 1e6:>13.1f} {r.compute_s * 1e6:>13.1f} "
              f"{base.latency_s / r.latency_s:>8.2f}")


if __name__ == "__main__":
    main()
