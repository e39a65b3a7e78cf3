"""Serving metrics: throughput, latency percentiles, SLO attainment, memory and waste."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import BeforeValidator

from ...outputs import write_csv, write_json
from ._fields import Config, check, is_number

__all__ = ["SLO", "ServingMetrics", "Timeline", "ServingResult", "compute_metrics"]


_SLOBound = Annotated[float, BeforeValidator(check(lambda v: is_number(v) and v > 0,
                                                   "SLO bound must be > 0 s, not {v!r}"))]


class SLO(Config):
    """Latency objectives: a request meets the SLO if both bounds hold.

    Defaults (TTFT 1 s, mean time between tokens 100 ms) are assumptions for
    interactive chat, not from a paper.
    """

    ttft_s: _SLOBound = 1.0
    tbt_s: _SLOBound = 0.1


@dataclass(frozen=True)
class ServingMetrics:
    """Summary of one simulation (times in seconds).

    Throughput is output tokens (or requests) over the makespan, first arrival
    to last finish. TTFT is arrival to first token; TBT is a request's mean gap
    between tokens after the first; e2e is arrival to last token. Batch and
    memory means are time-weighted over the event timeline; memory fractions
    are of the KV-cache capacity (reserved: held by reservations or blocks;
    used: tokens actually cached). ``wasted_tokens`` are tokens re-encoded when
    preempted sequences are recomputed; ``iterations`` counts forward passes.
    """

    requests: int
    output_tokens: int
    makespan_s: float
    throughput_tokens_per_s: float
    throughput_requests_per_s: float
    ttft_p50_s: float
    ttft_p90_s: float
    ttft_p99_s: float
    tbt_mean_s: float
    tbt_p99_s: float
    e2e_p50_s: float
    e2e_p90_s: float
    e2e_p99_s: float
    slo_attainment: float
    mean_batch_size: float
    max_batch_size: int
    mean_memory_reserved_frac: float
    mean_memory_used_frac: float
    peak_memory_reserved_frac: float
    preemptions: int
    wasted_tokens: int
    iterations: int

    def rows(self) -> list[dict[str, Any]]:
        return [{"metric": k, "value": v} for k, v in asdict(self).items()]


@dataclass
class Timeline:
    """Engine state at each event (start of each scheduled iteration or run of iterations)."""

    time_s: np.ndarray
    batch_size: np.ndarray
    reserved_tokens: np.ndarray
    used_tokens: np.ndarray
    capacity_tokens: int

    def rows(self) -> list[dict[str, float]]:
        return [{"time_s": float(t), "batch_size": int(b), "reserved_tokens": int(r),
                 "used_tokens": int(u)}
                for t, b, r, u in zip(self.time_s, self.batch_size, self.reserved_tokens,
                                      self.used_tokens, strict=True)]


@dataclass
class ServingResult:
    """Typed outcome of :func:`~archsim.sim.serving.simulate`."""

    policy: str
    model: str
    gpu: str
    tp: int
    metrics: ServingMetrics
    timeline: Timeline
    per_request: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"policy": self.policy, "model": self.model, "gpu": self.gpu, "tp": self.tp,
                "config": self.config, "metrics": asdict(self.metrics)}

    def write(self, out_dir: str | Path, *, plots: bool = True) -> list[Path]:
        """Write ``summary.json``, ``metrics.csv``, ``requests.csv``, ``timeline.csv`` (+ PNG)."""
        out = Path(out_dir)
        files = [write_json(out / "summary.json", self.to_dict()),
                 write_csv(out / "metrics.csv", self.metrics.rows()),
                 write_csv(out / "timeline.csv", self.timeline.rows())]
        keys = list(self.per_request)
        n = len(self.per_request[keys[0]]) if keys else 0
        req_rows = [{k: self.per_request[k][i] for k in keys} for i in range(n)]
        files.append(write_csv(out / "requests.csv", req_rows, columns=keys))
        if plots:
            from .plots import plot_memory_timeline

            files.append(plot_memory_timeline({self.policy: self}, out / "memory.png"))
        return files


def _pct(x: np.ndarray, q: float) -> float:
    return float(np.percentile(x, q)) if len(x) else float("nan")


def compute_metrics(*, arrival_s, first_token_s, finish_s, output_tokens, preemptions,
                    wasted_tokens, timeline: Timeline, iterations: int,
                    slo: SLO = SLO()) -> ServingMetrics:
    """Metrics from per-request times and the event timeline."""
    ttft = first_token_s - arrival_s
    e2e = finish_s - arrival_s
    multi = output_tokens > 1
    tbt = np.zeros_like(e2e)
    tbt[multi] = (finish_s[multi] - first_token_s[multi]) / (output_tokens[multi] - 1)
    start = float(arrival_s.min())
    makespan = float(finish_s.max()) - start
    tokens = int(output_tokens.sum())
    met = (ttft <= slo.ttft_s) & (tbt <= slo.tbt_s)
    ts = timeline.time_s
    if len(ts) > 1:  # time-weighted means over the events' holding intervals
        dt = np.diff(np.append(ts, float(finish_s.max())))
        w = dt / dt.sum() if dt.sum() > 0 else np.full(len(ts), 1 / len(ts))
    else:
        w = np.ones(len(ts))
    cap = max(timeline.capacity_tokens, 1)
    return ServingMetrics(
        requests=int(len(arrival_s)), output_tokens=tokens, makespan_s=makespan,
        throughput_tokens_per_s=tokens / makespan if makespan > 0 else float("nan"),
        throughput_requests_per_s=len(arrival_s) / makespan if makespan > 0 else float("nan"),
        ttft_p50_s=_pct(ttft, 50), ttft_p90_s=_pct(ttft, 90), ttft_p99_s=_pct(ttft, 99),
        tbt_mean_s=float(tbt[multi].mean()) if multi.any() else 0.0,
        tbt_p99_s=_pct(tbt[multi], 99) if multi.any() else 0.0,
        e2e_p50_s=_pct(e2e, 50), e2e_p90_s=_pct(e2e, 90), e2e_p99_s=_pct(e2e, 99),
        slo_attainment=float(met.mean()),
        mean_batch_size=float(np.dot(w, timeline.batch_size)),
        max_batch_size=int(timeline.batch_size.max()) if len(ts) else 0,
        mean_memory_reserved_frac=float(np.dot(w, timeline.reserved_tokens)) / cap,
        mean_memory_used_frac=float(np.dot(w, timeline.used_tokens)) / cap,
        peak_memory_reserved_frac=float(timeline.reserved_tokens.max()) / cap if len(ts) else 0.0,
        preemptions=int(preemptions.sum()), wasted_tokens=int(wasted_tokens.sum()),
        iterations=int(iterations),
    )
