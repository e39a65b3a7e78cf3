"""Compute efficiency calibrated on published training throughputs (train / held-out split).

The distributed model prices every kernel with a roofline at a fraction ``compute`` of the
GPU's dense peak. Instead of assuming that fraction, each published measurement below is
inverted: :func:`implied_efficiency` finds the fraction at which our model reproduces the
measurement exactly (the model's strategy, memory and communication terms unchanged). The
calibrated fraction of a GPU kind is fitted on the TRAIN runs only (:func:`fit_compute_efficiency`,
least squares on ``log(fraction)``: the geometric mean), and the model at that fraction is
then compared with the HELD-OUT runs, which never enter the fit.

Sources:

* Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
  Megatron-LM", SC'21, Table 1: GPT models (vocabulary 51,200, sequence 2,048) on Selene
  (A100-80GB, 8 per DGX node, 8 x 200 Gb/s HDR InfiniBand), their (t, p), GPU count, batch
  and achieved TFLOP/s per GPU, FLOPs counted with their eq. (3) (full recomputation).
* Touvron et al., "Llama 2", 2023, Table 2: A100-80GB GPU-hours of pre-training on 2T tokens
  (7B 184,320; 13B 368,640; 70B 1,720,320), sequence 4,096, global batch 4M tokens.

Which runs are TRAIN and which HELD-OUT is fixed here, before any fit: alternate rows of
Megatron's Table 1 (1.7B, 7.5B, 39.1B, 145.6B, 529.6B) and the smallest Llama 2 train;
the other five Megatron rows and Llama 2 13B and 70B are held out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq, least_squares

from ....compilers.graph import TransformerConfig, get_transformer
from ....errors import ConfigError
from ....hw.models.base import OperatorCost, Work
from ....hw.models.gpu import GPUSpec
from ...distributed.cluster import make_cluster
from ...distributed.models import LLMWorkload
from ...distributed.parallelism import (
    Efficiency,
    IterationBreakdown,
    Strategy,
    StrategyRejected,
    evaluate,
)

__all__ = ["MeasuredRun", "MEASURED_RUNS", "MEGATRON_TABLE1", "megatron_flops", "predict", "implied_efficiency",
           "EfficiencyFit", "fit_compute_efficiency", "SPLITS", "METRICS",
           "LLAMA2_GPU_HOURS", "LLAMA2_TOKENS", "GEMMSizeRoofline", "CurveFit",
           "fit_gemm_curve"]

SPLITS = ("train", "held-out")
METRICS = ("tflops_per_gpu", "gpu_hours")

#: Touvron et al. 2023 (Llama 2), Table 2: pre-training A100-80GB GPU-hours, 2T tokens.
LLAMA2_GPU_HOURS = {"llama2-7b": 184_320, "llama2-13b": 368_640, "llama2-70b": 1_720_320}
LLAMA2_TOKENS = 2e12


def megatron_flops(batch: int, seq: int, layers: int, hidden: int, vocab: int) -> float:
    """FLOPs per iteration as Megatron counts them (with full recomputation), eq. (3) of
    Narayanan et al. 2021: ``96 B s l h^2 (1 + s/(6h) + V/(16 l h))``."""
    return (96 * batch * seq * layers * hidden**2
            * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden)))


@dataclass(frozen=True, kw_only=True)
class MeasuredRun:
    """One published training measurement and the setup our model runs it at.

    ``strategies`` are tried in order and the first that fits memory is used (for Llama 2,
    whose strategy is not published: MAD-Max's FSDP configuration without, then with, full
    recomputation). ``metric`` is ``"tflops_per_gpu"`` (Megatron's eq. (3) FLOPs over the
    iteration time) or ``"gpu_hours"`` (for ``tokens`` tokens).
    """

    name: str
    source: str
    model: TransformerConfig
    seq_len: int
    gpu: str
    network: str
    num_gpus: int
    strategies: tuple[Strategy, ...]
    global_batch: int
    metric: str
    published: float
    split: str
    tokens: float = 0.0
    notes: str = ""

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise ConfigError(f"unknown metric '{self.metric}'", field="metric", allowed=METRICS)
        if self.split not in SPLITS:
            raise ConfigError(f"unknown split '{self.split}'", field="split", allowed=SPLITS)
        if not self.published > 0:
            raise ConfigError(f"must be > 0, not {self.published!r}", field="published")
        if not self.strategies:
            raise ConfigError("needs at least one strategy", field="strategies")


#: Narayanan et al. 2021, Table 1: (parameters in billions, heads, hidden, layers, t, p, GPUs,
#: batch, achieved TFLOP/s per GPU).
MEGATRON_TABLE1 = [
    (1.7, 24, 2304, 24, 1, 1, 32, 512, 137.0),
    (3.6, 32, 3072, 30, 2, 1, 64, 512, 138.0),
    (7.5, 32, 4096, 36, 4, 1, 128, 512, 142.0),
    (18.4, 48, 6144, 40, 8, 1, 256, 1024, 135.0),
    (39.1, 64, 8192, 48, 8, 2, 512, 1536, 138.0),
    (76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140.0),
    (145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148.0),
    (310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155.0),
    (529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163.0),
    (1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163.0),
]


def _megatron_runs() -> list[MeasuredRun]:
    runs = []
    for i, (size, heads, hidden, layers, tp, pp, gpus, batch, tflops) in \
            enumerate(MEGATRON_TABLE1):
        name = "megatron-1t" if size > 1000 else f"megatron-{size}b"
        cfg = TransformerConfig(name=name, num_layers=layers, hidden=hidden, num_heads=heads,
                                ffn_hidden=4 * hidden, vocab=51200, max_seq_len=2048,
                                tied_embeddings=True,
                                source="Narayanan et al. 2021, Table 1")
        runs.append(MeasuredRun(
            name=name, source="Narayanan et al. 2021 (SC'21), Table 1", model=cfg, seq_len=2048,
            gpu="a100-80gb", network="ib-hdr", num_gpus=gpus,
            strategies=(Strategy(dp=gpus // (tp * pp), tp=tp, pp=pp, micro_batch=1,
                                 recompute="full"),),
            global_batch=batch, metric="tflops_per_gpu", published=tflops,
            split="train" if i % 2 == 0 else "held-out",
            notes="micro-batch 1 and the non-interleaved 1F1B schedule assumed (Table 1 does "
                  "not list them)"))
    return runs


def _llama2_runs() -> list[MeasuredRun]:
    # 1024 GPUs x one 4,096-token sequence = Llama 2's 4M-token global batch.
    gpus = 1024
    fsdp = (Strategy(dp=gpus, zero=3), Strategy(dp=gpus, zero=3, recompute="full"))
    shapes = {"llama2-7b": get_transformer("llama-2-7b"),
              # Llama 2 13B has Llama 1 13B's shape (Touvron et al. 2023, Table 1)
              "llama2-13b": get_transformer("llama-13b"),
              "llama2-70b": get_transformer("llama-70b")}
    return [MeasuredRun(
        name=name, source="Touvron et al. 2023 (Llama 2), Table 2", model=cfg, seq_len=4096,
        gpu="a100-80gb", network="ib-hdr", num_gpus=gpus, strategies=fsdp, global_batch=gpus,
        metric="gpu_hours", published=float(LLAMA2_GPU_HOURS[name]), tokens=LLAMA2_TOKENS,
        split="train" if name == "llama2-7b" else "held-out",
        notes="Meta's strategy is not published: FSDP over 1024 GPUs, micro-batch 1 (MAD-Max's "
              "llama2_70b task), recomputation only if memory forces it (assumed)")
        for name, cfg in shapes.items()]


#: Every published run, TRAIN and HELD-OUT (see the module docstring).
MEASURED_RUNS: list[MeasuredRun] = _megatron_runs() + _llama2_runs()


def _breakdown(run: MeasuredRun, compute: float, memory: float,
               curve: tuple[float, float] | None) -> IterationBreakdown:
    wl = LLMWorkload(model=run.model, seq_len=run.seq_len)
    cluster = make_cluster(gpu=run.gpu, num_gpus=run.num_gpus, network=run.network)
    eff = Efficiency(compute=compute, memory=memory)
    executor = (None if curve is None else
                GEMMSizeRoofline(spec=cluster.gpu, intercept=curve[0], slope=curve[1],
                                 memory_efficiency=memory))
    reason = ""
    for st in run.strategies:
        try:
            return evaluate(wl, cluster, st, global_batch=run.global_batch, efficiency=eff,
                            executor=executor)
        except StrategyRejected as exc:
            reason = exc.reason
    raise ConfigError(f"no strategy of run '{run.name}' fits: {reason}", field="strategies")


def predict(run: MeasuredRun, compute: float, *, memory: float = Efficiency().memory,
            curve: tuple[float, float] | None = None) -> tuple[float, IterationBreakdown]:
    """Our value of ``run.metric`` with kernels at ``compute`` of dense peak (or, given
    ``curve = (intercept, slope)``, at the :class:`GEMMSizeRoofline` fraction of each
    kernel's size), and the iteration it comes from."""
    r = _breakdown(run, compute, memory, curve)
    if run.metric == "tflops_per_gpu":
        cfg = run.model
        flops = megatron_flops(run.global_batch, run.seq_len, cfg.num_layers, cfg.hidden,
                               cfg.vocab)
        return flops / r.iteration_s / run.num_gpus / 1e12, r
    iterations = math.ceil(run.tokens / r.tokens_per_iteration)
    return iterations * r.iteration_s * run.num_gpus / 3600, r


def implied_efficiency(run: MeasuredRun, *, memory: float = Efficiency().memory,
                       lo: float = 0.05, hi: float = 1.0) -> float:
    """The compute fraction of peak at which our model reproduces ``run.published`` exactly.

    Throughput rises (GPU-hours fall) monotonically with the fraction, so the root of
    ``log(ours / published)`` on ``[lo, hi]`` is unique (Brent's method).

    Raises
    ------
    ConfigError
        When even ``hi`` (or ``lo``) cannot reach the published value (communication or
        memory-bound terms alone exceed it).
    """
    def gap(x: float) -> float:
        return math.log(predict(run, x, memory=memory)[0] / run.published)

    g_lo, g_hi = gap(lo), gap(hi)
    if g_lo * g_hi > 0:
        raise ConfigError(f"run '{run.name}': no compute fraction in [{lo}, {hi}] reproduces "
                          f"{run.published} (log gaps {g_lo:.3f}, {g_hi:.3f})", field="compute")
    return float(brentq(gap, lo, hi, xtol=1e-9, rtol=1e-9))


@dataclass
class EfficiencyFit:
    """The calibrated compute fraction of each GPU kind, the implied fraction of every run,
    and the relative error of the calibrated model on every run (``ours / published - 1``)."""

    compute: dict[str, float]
    implied: dict[str, float]
    error: dict[str, float]
    ours: dict[str, float]
    runs: list[MeasuredRun] = field(default_factory=list)

    def split_errors(self, split: str) -> dict[str, float]:
        """Relative errors of the runs in ``split``."""
        return {r.name: self.error[r.name] for r in self.runs if r.split == split}

    def mean_abs_error(self, split: str) -> float:
        errs = list(self.split_errors(split).values())
        return float(np.mean(np.abs(errs))) if errs else math.nan

    def rows(self) -> list[dict[str, str | float]]:
        return [{"run": r.name, "split": r.split, "gpu": r.gpu, "metric": r.metric,
                 "published": r.published, "ours": self.ours[r.name],
                 "relative_error": self.error[r.name],
                 "implied_compute_fraction": self.implied[r.name],
                 "calibrated_compute_fraction": self.compute[r.gpu], "source": r.source}
                for r in self.runs]


def fit_compute_efficiency(runs: list[MeasuredRun] | None = None, *,
                           memory: float = Efficiency().memory) -> EfficiencyFit:
    """Fit one compute fraction per GPU kind on the TRAIN runs: the least-squares constant of
    ``log(implied fraction)`` (the geometric mean), then evaluate every run at it."""
    runs = MEASURED_RUNS if runs is None else runs
    implied: dict[str, float] = {}
    for r in runs:
        try:
            implied[r.name] = implied_efficiency(r, memory=memory)
        except ConfigError:
            if r.split == "train":
                raise
            implied[r.name] = math.nan  # reported only: a held-out run never enters the fit
    compute: dict[str, float] = {}
    for gpu in sorted({r.gpu for r in runs}):
        train = [implied[r.name] for r in runs if r.gpu == gpu and r.split == "train"]
        if not train:
            raise ConfigError(f"no TRAIN run on GPU '{gpu}' to calibrate it", field="runs")
        compute[gpu] = float(np.exp(np.mean(np.log(train))))
    ours = {r.name: predict(r, compute[r.gpu], memory=memory)[0] for r in runs}
    error = {r.name: ours[r.name] / r.published - 1 for r in runs}
    return EfficiencyFit(compute=compute, implied=implied, error=error, ours=ours,
                         runs=list(runs))


class GEMMSizeRoofline:
    """A roofline whose compute fraction grows with the kernel's size (bf16 dense peak):
    ``fraction = clip(intercept + slope * log10(flops / 1e9), 0.05, 1)``.

    Large GEMMs fill the GPU and amortize their prologue; small ones do not -- the trend the
    implied fractions of Megatron's Table 1 show (46% at 1.7B, 71% at 1T). Written here
    rather than in ``hw.models.gpu`` because only this calibration fits it.
    """

    def __init__(self, *, spec: GPUSpec, intercept: float, slope: float,
                 memory_efficiency: float = Efficiency().memory, dtype: str = "bf16") -> None:
        if not (math.isfinite(intercept) and math.isfinite(slope)):
            raise ConfigError(f"intercept and slope must be finite, not {intercept!r}, "
                              f"{slope!r}", field="curve")
        if not 0 < memory_efficiency <= 1:
            raise ConfigError(f"must be in (0, 1], not {memory_efficiency!r}",
                              field="memory_efficiency")
        self.spec, self.intercept, self.slope = spec, float(intercept), float(slope)
        self.memory_efficiency = memory_efficiency
        self._peak = spec.peak(dtype)
        self.name = f"{spec.name}-gemm-size-roofline"

    def fraction(self, flops: float) -> float:
        """The compute fraction of peak of a kernel of ``flops``."""
        x = math.log10(max(flops, 1.0) / 1e9)
        return min(1.0, max(0.05, self.intercept + self.slope * x))

    def operator_cost(self, work: Work) -> OperatorCost:
        flops = work.flops
        compute_s = flops / (self._peak * self.fraction(flops)) if flops > 0 else 0.0
        memory_s = work.bytes_accessed / (self.spec.hbm_bw_bytes_per_s * self.memory_efficiency)
        if compute_s >= memory_s:
            return OperatorCost(latency_s=compute_s, bound="compute")
        return OperatorCost(latency_s=memory_s, bound="memory")


@dataclass
class CurveFit:
    """The fitted ``(intercept, slope)`` of :class:`GEMMSizeRoofline` and every run's
    relative error at it (``ours / published - 1``)."""

    intercept: float
    slope: float
    error: dict[str, float]
    runs: list[MeasuredRun] = field(default_factory=list)

    def mean_abs_error(self, split: str) -> float:
        errs = [abs(self.error[r.name]) for r in self.runs if r.split == split]
        return float(np.mean(errs)) if errs else math.nan


def fit_gemm_curve(runs: list[MeasuredRun], *, start: tuple[float, float] = (0.55, 0.0),
                   memory: float = Efficiency().memory) -> CurveFit:
    """Fit :class:`GEMMSizeRoofline`'s ``(intercept, slope)`` on the TRAIN runs: least squares
    of ``log(ours / published)`` (scipy's trust-region solver), then every run at it."""
    train = [r for r in runs if r.split == "train"]
    if len(train) < 2:
        raise ConfigError("a two-parameter curve needs at least two TRAIN runs", field="runs")

    def residuals(p: np.ndarray) -> np.ndarray:
        curve = (float(p[0]), float(p[1]))
        return np.array([math.log(predict(r, 1.0, memory=memory, curve=curve)[0]
                                  / r.published) for r in train])

    sol = least_squares(residuals, np.array(start, dtype=float), diff_step=1e-4,
                        xtol=1e-10, ftol=1e-10)
    a, b = float(sol.x[0]), float(sol.x[1])
    error = {r.name: predict(r, 1.0, memory=memory, curve=(a, b))[0] / r.published - 1
             for r in runs}
    return CurveFit(intercept=a, slope=b, error=error, runs=list(runs))
