"""Plots of serving results (PNG, matplotlib Agg).

Figures are built as :class:`matplotlib.figure.Figure` and rendered by
:func:`archsim.outputs.save_figure` through the Agg canvas: pyplot is never imported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...outputs import save_figure

__all__ = ["plot_memory_timeline", "plot_throughput_vs_rate", "plot_sensitivity"]


def plot_memory_timeline(results: Mapping[str, Any], path: str | Path) -> Path:
    """KV-cache reserved and used fraction, and batch size, over time for each result."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 6))
    ax_m, ax_b = fig.subplots(2, 1, sharex=True)
    for label, res in results.items():
        tl = res.timeline
        cap = max(tl.capacity_tokens, 1)
        (line,) = ax_m.step(tl.time_s, tl.reserved_tokens / cap, where="post",
                            label=f"{label} reserved")
        ax_m.step(tl.time_s, tl.used_tokens / cap, where="post", linestyle=":",
                  color=line.get_color(), label=f"{label} used")
        ax_b.step(tl.time_s, tl.batch_size, where="post", color=line.get_color(), label=label)
    ax_m.set_ylabel("KV-cache fraction")
    ax_m.set_ylim(0, 1.05)
    ax_m.legend(fontsize=7, ncol=2)
    ax_b.set_ylabel("batch size (sequences)")
    ax_b.set_xlabel("time (s)")
    ax_b.legend(fontsize=7)
    return save_figure(fig, path)


def plot_throughput_vs_rate(rows: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """Throughput and p90 end-to-end latency against arrival rate, one line per policy."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4))
    ax_t, ax_l = fig.subplots(1, 2)
    styles = ["o-", "s--", "^:", "d-."]
    for i, pol in enumerate(dict.fromkeys(r["policy"] for r in rows)):
        sel = sorted((r for r in rows if r["policy"] == pol), key=lambda r: r["rate_per_s"])
        rates = [r["rate_per_s"] for r in sel]
        style = styles[i % len(styles)]
        ax_t.plot(rates, [r["throughput_tokens_per_s"] for r in sel], style, label=pol)
        ax_l.plot(rates, [r["e2e_p90_s"] for r in sel], style, label=pol)
    ax_t.set_xlabel("arrival rate (requests/s)")
    ax_t.set_ylabel("throughput (output tokens/s)")
    ax_l.set_xlabel("arrival rate (requests/s)")
    ax_l.set_ylabel("p90 end-to-end latency (s)")
    ax_l.set_yscale("log")
    ax_t.legend(fontsize=8)
    return save_figure(fig, path)


def plot_sensitivity(rows: Sequence[Mapping[str, Any]], key: str, path: str | Path, *,
                     xlabel: str) -> Path:
    """S3 / worst-case throughput ratio against one predictor parameter."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5, 3.5))
    ax = fig.subplots()
    sel = sorted(rows, key=lambda r: r[key])
    ax.plot([r[key] for r in sel], [r["s3_over_worst_case"] for r in sel], marker="o",
            label="S3 / worst-case")
    if sel and "oracle_over_worst_case" in sel[0]:
        ax.axhline(sel[0]["oracle_over_worst_case"], color="gray", linestyle="--", label="oracle")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("throughput ratio")
    ax.legend(fontsize=8)
    return save_figure(fig, path)
