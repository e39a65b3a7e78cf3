"""Reduce ByteDance's public straggler traces to ``data/collective_spread.csv``.

Source: the artifact of Lin et al. (ByteDance), "Understanding Stragglers in Large Model
Training Using What-if Analysis" (arXiv:2505.05713), GitHub ``ByteDance-Seed/StragglerAnalysis``
at commit ``8efcd7f37f158af26ac64d0b6fbf1f22d28a6e83``, Apache License 2.0, Copyright (c)
2025 Bytedance Ltd. and/or its affiliates. Its ``data/trace-{AR,SE,ST}.parquet`` hold one
row per recorded operation of three LLM training jobs (64, 128 and 8 GPUs; DP 4,
32 and 2); only the reduced statistics below are shipped, not the traces.

The statistic, per collective type (``params-all-gather`` and ``grads-reduce-scatter``,
the data-parallel AllGather and ReduceScatter that PRISM names as the main sources of
step-time variability):

1. A *collective instance* is one ``(step, stage, seq_id)`` of that type: the ops of all
   data-parallel ranks that synchronize in it, as the trace's own what-if analyzer groups
   them (``analyzer/wia.py``, ``get_transfer_time``: DP-synchronized ops grouped by step
   and the op name ``{optype}_{seq_id}_{stage}``).
2. Its *transfer time* is the analyzer's ``transfer_duration`` (a rank's end time minus
   the latest start time in the group: the time the collective runs once every rank has
   arrived, without the wait for stragglers), the median over the group's ranks.
3. The residual of an instance is the log of its transfer time minus the mean log over
   the instances of the same ``(trace, stage, seq_id)`` collective across steps (the same
   collective of the same message size, so size differences do not count as spread).
4. ``log_sigma`` is the pooled standard deviation of the residuals,
   ``sqrt(sum(r**2) / (n - k))`` with ``n`` instances in ``k`` such collectives; ``p01``,
   ``p50``, ``p99`` are quantiles of ``exp(r)`` (the time over its collective's geometric
   mean).

Rows: each trace and type, each type pooled over the traces (``trace = all``), and both
types pooled over the traces (``collective = pooled``, the figure the study uses).

Run (needs a local mirror of the repository, e.g. from ``git clone``)::

    python -m archsim.sim.studies.prism.make_collective_spread --git-dir PATH/.git
"""

from __future__ import annotations

import argparse
import csv
import io
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["SOURCE_COMMIT", "SOURCE_REPO", "TRACES", "COLLECTIVES", "reduce_trace",
           "pooled_rows", "main"]

SOURCE_REPO = "ByteDance-Seed/StragglerAnalysis"
SOURCE_COMMIT = "8efcd7f37f158af26ac64d0b6fbf1f22d28a6e83"
TRACES = ("AR", "SE", "ST")
COLLECTIVES = ("params-all-gather", "grads-reduce-scatter")
FIELDS = ("trace", "collective", "instances", "collectives", "log_sigma", "p01", "p50",
          "p99", "median_transfer_ms")
HEADER = (f"# Reduced from {SOURCE_REPO} @ {SOURCE_COMMIT} (arXiv:2505.05713), data/trace-"
          "{AR,SE,ST}.parquet; Apache License 2.0, Copyright (c) 2025 Bytedance Ltd. and/or "
          "its affiliates. Computed by make_collective_spread.py (see its docstring).")


def reduce_trace(columns: dict[str, Any], collective: str
                 ) -> tuple[np.ndarray, np.ndarray, int]:
    """Per-instance log residuals and transfer times of one collective type of one trace.

    Parameters
    ----------
    columns
        The trace's columns (``optype``, ``step``, ``stage``, ``seq_id``, ``start_ts``,
        ``duration``) as sequences of equal length.
    collective
        The ``optype`` to reduce.

    Returns
    -------
    residuals, transfer_s, collectives
        One residual and one transfer time (s) per instance, the residuals centered per
        ``(stage, seq_id)`` collective, and the number of such collectives.
    """
    optype = np.asarray(columns["optype"], dtype=object)
    keep = np.flatnonzero(optype == collective)
    if keep.size == 0:
        raise ValueError(f"no {collective!r} ops in the trace")
    start = np.asarray(columns["start_ts"], dtype=float)[keep]
    end = start + np.asarray(columns["duration"], dtype=float)[keep]
    keys = zip(np.asarray(columns["step"])[keep], np.asarray(columns["stage"])[keep],
               np.asarray(columns["seq_id"])[keep], strict=True)
    instances: dict[tuple[int, int, int], list[int]] = defaultdict(list)
    for i, (step, stage, seq) in enumerate(keys):
        instances[(int(step), int(stage), int(seq))].append(i)
    per_collective: dict[tuple[int, int], list[float]] = defaultdict(list)
    for (_, stage, seq), idx in sorted(instances.items()):
        transfer = float(np.median(end[idx] - start[idx].max()))
        if transfer <= 0:
            raise ValueError(f"non-positive transfer time in {collective!r} instance")
        per_collective[(stage, seq)].append(transfer)
    res, times = [], []
    for t in per_collective.values():
        logs = np.log(np.asarray(t))
        res.append(logs - logs.mean())
        times.append(np.asarray(t))
    return np.concatenate(res), np.concatenate(times), len(per_collective)


def _row(trace: str, collective: str, parts: list[tuple[np.ndarray, np.ndarray, int]]
         ) -> dict[str, Any]:
    r = np.concatenate([p[0] for p in parts])
    t = np.concatenate([p[1] for p in parts])
    k = sum(p[2] for p in parts)
    ratio = np.exp(r)
    return {"trace": trace, "collective": collective, "instances": int(r.size),
            "collectives": int(k), "log_sigma": float(np.sqrt((r**2).sum() / (r.size - k))),
            "p01": float(np.quantile(ratio, 0.01)), "p50": float(np.quantile(ratio, 0.5)),
            "p99": float(np.quantile(ratio, 0.99)),
            "median_transfer_ms": float(1e3 * np.median(t))}


def pooled_rows(traces: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """All CSV rows from the traces' columns (name -> columns)."""
    parts = {(name, c): reduce_trace(cols, c) for name, cols in traces.items() for c in COLLECTIVES}
    rows = [_row(name, c, [parts[(name, c)]]) for name in traces for c in COLLECTIVES]
    rows += [_row("all", c, [parts[(name, c)] for name in traces]) for c in COLLECTIVES]
    rows.append(_row("all", "pooled", list(parts.values())))
    return rows


def _read_traces(git_dir: Path) -> dict[str, dict[str, Any]]:
    import pyarrow.parquet as pq

    out = {}
    for name in TRACES:
        blob = subprocess.run(
            ["git", f"--git-dir={git_dir}", "show", f"{SOURCE_COMMIT}:data/trace-{name}.parquet"],
            check=True, capture_output=True).stdout
        table = pq.read_table(io.BytesIO(blob), columns=[
            "optype", "step", "stage", "seq_id", "start_ts", "duration"])
        out[name] = table.to_pydict()
    return out


def main(argv: list[str] | None = None) -> Path:
    """Write the CSV from a local git mirror of the source repository."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", type=Path, required=True,
                        help=f"git directory of a clone of {SOURCE_REPO}")
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "data" / "collective_spread.csv")
    args = parser.parse_args(argv)
    rows = pooled_rows(_read_traces(args.git_dir))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="") as f:
        f.write(HEADER + "\n")
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        for row in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    return args.out


if __name__ == "__main__":
    print(main())
