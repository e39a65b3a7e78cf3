"""The models a sweep can run: a registry of named functions with a parameter schema.

One small interface, no special cases: a sweep model is a function
``(params: dict, seed: int) -> dict[str, float]`` returning its objectives, plus
a pydantic model describing (and validating) its parameters. Both are named by
import path (``"package.module:attribute"``) and imported lazily, so the
registry costs nothing to import and worker processes load only the function
they run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...errors import ConfigError
from ...loading import load_object

__all__ = [
    "SweepModel", "MODELS", "register_model", "get_model", "import_path",
    "GPURooflineParams", "gpu_roofline", "ServingParams", "serving", "SERVING_OBJECTIVES",
    "TrainingParams", "training", "TRAINING_OBJECTIVES", "SoCParams", "soc", "SOC_OBJECTIVES",
    "HLSGemmParams", "hls_gemm", "HLS_GEMM_OBJECTIVES",
]

ModelFunction = Callable[[dict[str, Any], int], Mapping[str, float]]


@lru_cache(maxsize=64)
def import_path(path: str, *, field: str = "function", what: str = "model function") -> object:
    """Import ``"package.module:attribute"`` and return the attribute (cached per process).

    :func:`archsim.loading.load_object`, cached because a worker process looks the same
    model function up for every batch it runs; errors name ``field``.
    """
    return load_object(path, field=field, what=what)


@dataclass(frozen=True)
class SweepModel:
    """A registered sweep model.

    Parameters
    ----------
    name
        Registry name used in sweep specs (``model = "gpu-roofline"``).
    function
        Import path of the function ``(params: dict, seed: int) -> dict[str, float]``.
        Paths, not objects, so that worker processes can import it themselves.
    params
        The pydantic model of the parameters (or its import path). Every
        parameter must have a default or be given by the spec; unknown
        parameters are rejected.
    objectives
        Names of the objectives the function returns.
    description
        One line for listings.
    """

    name: str
    function: str
    params: str | type[BaseModel]
    objectives: tuple[str, ...]
    description: str = ""

    def load_function(self) -> ModelFunction:
        """Import and return the model function."""
        function = import_path(self.function)
        if not callable(function):
            raise ConfigError(f"function of model '{self.name}' is not callable: "
                              f"{function!r}", field="function")
        return cast(ModelFunction, function)

    def schema(self) -> type[BaseModel]:
        """The pydantic parameter model (imported on first use)."""
        schema = (import_path(self.params, field="params", what="parameter schema")
                  if isinstance(self.params, str) else self.params)
        if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
            raise ConfigError(f"parameter schema of model '{self.name}' is not a pydantic "
                              f"model: {schema!r}", field="params")
        return schema

    @property
    def parameter_names(self) -> tuple[str, ...]:
        return tuple(self.schema().model_fields)

    def validate_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Validate ``params`` against the schema; return them with defaults filled in.

        Raises
        ------
        ConfigError
            Naming the first offending parameter as ``field``.
        """
        try:
            return self.schema().model_validate(dict(params)).model_dump(mode="json")
        except ValidationError as exc:
            err = exc.errors()[0]
            name = ".".join(str(p) for p in err["loc"]) or "params"
            if err["type"] == "missing":
                raise ConfigError(f"model '{self.name}' needs parameter '{name}'",
                                  field=name) from None
            if err["type"] == "extra_forbidden":
                raise ConfigError(f"model '{self.name}' has no parameter '{name}'", field=name,
                                  allowed=self.parameter_names) from None
            # pydantic prefixes messages of our own ValueErrors with "Value error, ".
            message = err["msg"].removeprefix("Value error, ")
            raise ConfigError(f"{message} (value {err.get('input')!r})", field=name) from None


MODELS: dict[str, SweepModel] = {}


def register_model(
    name: str,
    *,
    function: str,
    params: str | type[BaseModel],
    objectives: Sequence[str],
    description: str = "",
    replace: bool = False,
) -> SweepModel:
    """Register a sweep model under ``name`` and return its entry.

    Registering a name twice is a :class:`ValueError` unless ``replace`` is true
    (tests re-register their models when their module is imported again).
    """
    if not name or not isinstance(name, str):
        raise ValueError(f"model name must be a non-empty string, not {name!r}")
    if ":" not in function:
        raise ValueError(f"function must be an import path 'package.module:attribute', "
                         f"not {function!r}")
    objectives = tuple(objectives)
    if not objectives or not all(isinstance(o, str) and o for o in objectives):
        raise ValueError(f"objectives must be non-empty strings, not {objectives!r}")
    if name in MODELS and not replace:
        raise ValueError(f"sweep model '{name}' is already registered")
    entry = SweepModel(name=name, function=function, params=params, objectives=objectives,
                       description=description)
    MODELS[name] = entry
    return entry


def get_model(name: str) -> SweepModel:
    """Look up a registered model; an unknown name is a :class:`ConfigError` on ``model``."""
    try:
        return MODELS[name]
    except KeyError:
        raise ConfigError(f"unknown sweep model '{name}'", field="model",
                          allowed=sorted(MODELS)) from None


# -- gpu-roofline ---------------------------------------------------------------------------


def _transformer_name(value: str) -> str:
    from ...compilers.graph import TRANSFORMER_PRESETS

    if value.lower() not in TRANSFORMER_PRESETS:
        raise ValueError(f"unknown transformer '{value}' "
                         f"(allowed: {', '.join(sorted(TRANSFORMER_PRESETS))})")
    return value.lower()


def _gpu_name(value: str) -> str:
    from ...hw.models.gpu import get_gpu

    try:
        return get_gpu(value).name
    except ConfigError as exc:
        raise ValueError(f"{exc.reason} (allowed: {', '.join(exc.allowed)})") from None


#: Arrival processes of :func:`archsim.sim.serving.generate_requests`.
ARRIVALS = ("poisson", "bursty")
#: Activation-recompute policies of :class:`archsim.sim.distributed.Strategy`.
RECOMPUTE_POLICIES = ("none", "full")


def _one_of(value: str, allowed: Sequence[str], what: str) -> str:
    if value not in allowed:
        raise ValueError(f"unknown {what} '{value}' (allowed: {', '.join(allowed)})")
    return value


class _ModelOnGPU(BaseModel):
    """Validators shared by the parameter models that name a transformer and a GPU."""

    @field_validator("model", check_fields=False)
    @classmethod
    def _known_model(cls, value: str) -> str:
        return _transformer_name(value)

    @field_validator("gpu", check_fields=False)
    @classmethod
    def _known_gpu(cls, value: str) -> str:
        return _gpu_name(value)


class GPURooflineParams(_ModelOnGPU):
    """Parameters of :func:`gpu_roofline`: one transformer forward pass on one GPU.

    ``model`` is a :data:`~archsim.compilers.graph.TRANSFORMER_PRESETS` name and
    ``gpu`` a :data:`~archsim.hw.models.gpu.GPU_SPECS` name (or alias); the
    efficiencies and ``power_fraction`` are those of
    :class:`~archsim.hw.models.gpu.GPURoofline`.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    model: str = "llama-7b"
    gpu: str = "a100-80gb"
    batch: int = Field(1, ge=1)
    new_tokens: int = Field(1, ge=1)
    context_len: int | None = Field(None, ge=1)
    dtype: str = "fp16"
    compute_efficiency: float = Field(1.0, gt=0, le=1)
    memory_efficiency: float = Field(1.0, gt=0, le=1)
    launch_overhead_s: float = Field(0.0, ge=0)
    power_fraction: float = Field(1.0, gt=0, le=1)



def gpu_roofline(params: dict[str, Any], seed: int) -> dict[str, float]:
    """One forward pass of a transformer on a GPU roofline (deterministic; ``seed`` unused).

    Every operator of :func:`~archsim.compilers.graph.transformer_graph` is
    priced by :class:`~archsim.hw.models.gpu.GPURoofline` and run one after another:
    ``latency_s`` and ``energy_j`` are the sums over operators and
    ``tokens_per_s = batch * new_tokens / latency_s``.
    """
    from ...compilers.graph import get_transformer, transformer_graph
    from ...hw.models.gpu import GPURoofline, get_gpu

    p = GPURooflineParams.model_validate(params)
    graph = transformer_graph(get_transformer(p.model), batch=p.batch, new_tokens=p.new_tokens,
                              context_len=p.context_len, dtype=p.dtype)
    hw = GPURoofline(get_gpu(p.gpu), dtype=p.dtype, compute_efficiency=p.compute_efficiency,
                     memory_efficiency=p.memory_efficiency,
                     launch_overhead_s=p.launch_overhead_s, power_fraction=p.power_fraction)
    costs = [hw.operator_cost(op) for op in graph]
    latency_s = math.fsum(c.latency_s for c in costs)
    energy_j = math.fsum(c.energy_j for c in costs)
    return {"latency_s": latency_s, "energy_j": energy_j,
            "tokens_per_s": p.batch * p.new_tokens / latency_s}


register_model(
    "gpu-roofline",
    function=f"{__name__}:gpu_roofline",
    params=GPURooflineParams,
    objectives=("latency_s", "energy_j", "tokens_per_s"),
    description="one transformer forward pass on a GPU roofline (archsim.hw.models.gpu)",
)


# -- adapters to the serving and distributed-training models -----------------------------------


#: The objectives of the ``serving`` model: the fields of ``ServingMetrics``.
SERVING_OBJECTIVES = (
    "requests", "output_tokens", "makespan_s", "throughput_tokens_per_s",
    "throughput_requests_per_s", "ttft_p50_s", "ttft_p90_s", "ttft_p99_s", "tbt_mean_s",
    "tbt_p99_s", "e2e_p50_s", "e2e_p90_s", "e2e_p99_s", "slo_attainment", "mean_batch_size",
    "max_batch_size", "mean_memory_reserved_frac", "mean_memory_used_frac",
    "peak_memory_reserved_frac", "preemptions", "wasted_tokens", "iterations",
)


class ServingParams(_ModelOnGPU):
    """Parameters of :func:`serving`: one run of :func:`archsim.sim.serving.simulate`.

    ``rate_per_s = None`` puts every arrival at t = 0 (offline batch); ``accuracy``
    and ``num_buckets`` configure the S3 predictor.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    model: str = "llama-13b"
    gpu: str = "a100-80gb"
    tp: int = Field(1, ge=1)
    dtype: str = "fp16"
    memory_fraction: float = Field(0.9, gt=0, le=1)
    policy: str = "s3"
    accuracy: float = Field(0.986, ge=0, le=1)
    num_buckets: int = Field(10, ge=1)
    requests: int = Field(1000, ge=1)
    rate_per_s: float | None = Field(5.0, gt=0)
    dataset: str = "alpaca"
    arrival: str = "poisson"
    max_batch_size: int | None = Field(None, ge=1)

    # Closed sets checked here, so a sweep spec naming an unknown one fails when it is loaded
    # (SweepSpec checks each value), not in every point.
    @field_validator("policy")
    @classmethod
    def _known_policy(cls, value: str) -> str:
        from ..serving.policies import POLICY_NAMES

        return _one_of(value, POLICY_NAMES, "KV-cache policy")

    @field_validator("dataset")
    @classmethod
    def _known_dataset(cls, value: str) -> str:
        from ..serving.requests import DATASETS

        return _one_of(value, sorted(DATASETS), "dataset")

    @field_validator("arrival")
    @classmethod
    def _known_arrival(cls, value: str) -> str:
        return _one_of(value, ARRIVALS, "arrival process")



def serving(params: dict[str, Any], seed: int) -> dict[str, float]:
    """LLM serving (:mod:`archsim.sim.serving`): requests drawn and served under ``seed``."""
    from ..serving import Deployment, generate_requests, make_policy, simulate

    p = ServingParams.model_validate(params)
    dep = Deployment.build(model=p.model, gpu=p.gpu, tp=p.tp, dtype=p.dtype,
                           memory_fraction=p.memory_fraction)
    reqs = generate_requests(p.requests, rate_per_s=p.rate_per_s, dataset=p.dataset,
                             arrival=p.arrival, seed=seed)
    policy = make_policy(p.policy, accuracy=p.accuracy, num_buckets=p.num_buckets)
    metrics = simulate(dep, reqs, policy, seed=seed, max_batch_size=p.max_batch_size).metrics
    return {name: float(getattr(metrics, name)) for name in SERVING_OBJECTIVES}


TRAINING_OBJECTIVES = (
    "iteration_s", "compute_s", "recompute_s", "bubble_s", "exposed_comm_s",
    "exposed_comm_fraction", "samples_per_s", "tokens_per_s", "mfu", "memory_gib",
)


class TrainingParams(_ModelOnGPU):
    """Parameters of :func:`training`: one LLM iteration by
    :func:`archsim.sim.distributed.evaluate` on ``dp * tp * pp * cp`` GPUs.

    A strategy the model rejects (e.g. out of memory) makes the point fail with
    the reason.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    model: str = "llama-7b"
    gpu: str = "h100-80gb"
    gpus_per_node: int = Field(8, ge=1)
    network: str = "ib-ndr"
    seq_len: int | None = Field(None, ge=1)
    global_batch: int = Field(512, ge=1)
    mode: str = "training"
    dp: int = Field(1, ge=1)
    tp: int = Field(1, ge=1)
    pp: int = Field(1, ge=1)
    cp: int = Field(1, ge=1)
    zero: int = Field(0, ge=0, le=3)
    micro_batch: int = Field(1, ge=1)
    recompute: str = "none"
    sequence_parallel: bool = False
    compute_efficiency: float = Field(0.75, gt=0, le=1)
    memory_efficiency: float = Field(0.8, gt=0, le=1)

    @field_validator("network")
    @classmethod
    def _known_network(cls, value: str) -> str:
        from ..distributed.cluster import NETWORKS

        return _one_of(value, sorted(NETWORKS), "network")

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, value: str) -> str:
        from ..distributed.parallelism import MODES

        return _one_of(value, MODES, "mode")

    @field_validator("recompute")
    @classmethod
    def _known_recompute(cls, value: str) -> str:
        return _one_of(value, RECOMPUTE_POLICIES, "recompute policy")



def training(params: dict[str, Any], seed: int) -> dict[str, float]:
    """Distributed LLM training/inference iteration (:mod:`archsim.sim.distributed`);
    deterministic (``seed`` unused)."""
    from ..distributed import Efficiency, Strategy, evaluate, get_workload, make_cluster

    p = TrainingParams.model_validate(params)
    strategy = Strategy(dp=p.dp, tp=p.tp, pp=p.pp, cp=p.cp, zero=p.zero,
                        micro_batch=p.micro_batch, recompute=p.recompute,
                        sequence_parallel=p.sequence_parallel)
    cluster = make_cluster(gpu=p.gpu, num_gpus=strategy.num_gpus,
                           gpus_per_node=p.gpus_per_node, network=p.network)
    eff = Efficiency(compute=p.compute_efficiency, memory=p.memory_efficiency)
    row = evaluate(get_workload(p.model, seq_len=p.seq_len), cluster, strategy,
                   global_batch=p.global_batch, mode=p.mode, efficiency=eff).to_row()
    return {name: float(row[name]) for name in TRAINING_OBJECTIVES}


register_model(
    "serving", function=f"{__name__}:serving", params=ServingParams,
    objectives=SERVING_OBJECTIVES,
    description="LLM serving with continuous batching and KV-cache policies (archsim.sim.serving)",
)
register_model(
    "training", function=f"{__name__}:training", params=TrainingParams,
    objectives=TRAINING_OBJECTIVES,
    description="one distributed LLM training/inference iteration (archsim.sim.distributed)",
)


# -- adapter to the SoC simulator ---------------------------------------------------------------


def _soc_config_path(value: str) -> str:
    """A shipped SoC description's name (``smaug_baseline``) or a path to a TOML file."""
    from importlib.resources import files

    if value.endswith(".toml") or "/" in value:
        return value
    shipped = sorted(p.name.removesuffix(".toml") for p in files("archsim.soc_configs").iterdir()
                     if p.name.endswith(".toml") and not p.name.startswith("sweep_"))
    if value not in shipped:
        raise ValueError(f"unknown SoC description '{value}' (allowed: {', '.join(shipped)}, "
                         f"or a path to a .toml file)")
    return str(files("archsim.soc_configs") / f"{value}.toml")


@lru_cache(maxsize=16)
def _soc_config(path: str) -> Any:
    from ..soc import load_soc_config

    return load_soc_config(path)


SOC_OBJECTIVES = ("latency_s", "energy_j", "accelerator_share", "area_mm2")


class SoCParams(BaseModel):
    """Parameters of :func:`soc`: one inference on the SoC simulator (:mod:`archsim.sim.soc`).

    ``config`` is a shipped description (``smaug_baseline``, ``systolic_soc``) or a
    path to a TOML file (absolute when workers run elsewhere); ``workload`` a
    :func:`~archsim.compilers.graph.build_workload` name with its ``batch``. The
    SMAUG knobs ``accelerators`` (count per accelerator entry), ``policy`` (host
    memory for every tensor class: ``dma`` or ``acp``) and ``threads`` (data
    preparation) override the description when given.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    config: str = "smaug_baseline"
    workload: str = "resnet50"
    batch: int | None = Field(None, ge=1)
    accelerators: int | None = Field(None, ge=1)
    policy: str | None = None
    threads: int | None = Field(None, ge=1)

    @field_validator("config")
    @classmethod
    def _known_config(cls, value: str) -> str:
        _soc_config_path(value)
        return value

    @field_validator("policy")
    @classmethod
    def _known_policy(cls, value: str | None) -> str | None:
        from ..soc import HOST_MEMORY_POLICIES

        if value is not None and value not in HOST_MEMORY_POLICIES:
            raise ValueError(f"unknown host-memory policy '{value}' "
                             f"(allowed: {', '.join(HOST_MEMORY_POLICIES)})")
        return value

    @field_validator("workload")
    @classmethod
    def _known_workload(cls, value: str) -> str:
        from ...compilers.graph.registry import WORKLOADS

        if value not in WORKLOADS:
            raise ValueError(f"unknown workload '{value}' (allowed: {', '.join(WORKLOADS)})")
        return value


def soc(params: dict[str, Any], seed: int) -> dict[str, float]:
    """One inference of a workload on an SoC (deterministic; ``seed`` unused)."""
    from ...compilers.graph import build_workload
    from ..soc import simulate, soc_area_mm2

    p = SoCParams.model_validate(params)
    config = _soc_config(_soc_config_path(p.config))
    if p.accelerators is not None or p.policy is not None or p.threads is not None:
        config = config.with_changes(accelerators=p.accelerators, policy=p.policy,
                                     threads=p.threads)
    graph = build_workload(p.workload, **({} if p.batch is None else {"batch": p.batch}))
    result = simulate(config, graph)
    return {"latency_s": result.latency_s, "energy_j": result.energy.total_j,
            "accelerator_share": result.accelerator_share, "area_mm2": soc_area_mm2(config)}


register_model(
    "soc", function=f"{__name__}:soc", params=SoCParams, objectives=SOC_OBJECTIVES,
    description="one DNN inference on the SoC simulator (archsim.sim.soc)",
)


# -- adapter to the HLS compiler -----------------------------------------------------------------

HLS_GEMM_OBJECTIVES = ("cycles", "latency_s", "energy_j", "area_um2", "macs_per_cycle",
                       "measured_cycles")


class HLSGemmParams(BaseModel):
    """Parameters of :func:`hls_gemm`: one design point of the DSL GEMM tile.

    The tile ``c = acc + a @ w.T`` (:func:`archsim.dsl.library.gemm_tile_kernel`) with
    ``m x k`` activations and ``n x k`` weights (``k`` a power of two: the unroll width),
    compiled at ``clock_ns``. ``backend = "model"`` evaluates the model view only;
    ``"pysim"`` or ``"verilator"`` also simulates the RTL on random int8 inputs drawn
    from ``input_seed`` and checks the product against numpy. Verilator builds go
    through the shared build cache, so workers on one machine build each design once.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    m: int = Field(16, ge=1, le=256)
    k: int = Field(16, ge=1, le=64)
    n: int = Field(16, ge=1, le=256)
    clock_ns: float = Field(2.0, gt=0)
    backend: str = "model"
    input_seed: int = 0

    @field_validator("k")
    @classmethod
    def _power_of_two(cls, value: int) -> int:
        if value & (value - 1):
            raise ValueError(f"k must be a power of two (the unroll width), not {value}")
        return value

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        if value not in ("model", "pysim", "verilator"):
            raise ValueError(f"unknown backend '{value}' (allowed: model, pysim, verilator)")
        return value


@lru_cache(maxsize=32)
def _gemm_design(m: int, k: int, n: int, clock_ns: float) -> Any:
    from ...dsl.library import gemm_tile_kernel

    return gemm_tile_kernel(m=m, k=k, n=n).synthesize(clock_ns=clock_ns)


def hls_gemm(params: dict[str, Any], seed: int) -> dict[str, float]:
    """Predicted cycles, latency, energy and area of one GEMM-tile design; with an RTL
    backend also the measured cycles (``measured_cycles`` is NaN for ``"model"``).

    The tile is priced through the hardware-model seam: the compiled Design's own
    ``operator_cost()`` for one invocation of its ``m x k x n`` tile, at
    ``1 / max(clock_ns, critical path)``.
    """
    import numpy as np

    from ...errors import SimulationError

    p = HLSGemmParams.model_validate(params)
    design = _gemm_design(p.m, p.k, p.n, p.clock_ns)
    cost = design.operator_cost()
    cycles = cost.cycles
    assert cycles is not None  # a Design's cost always carries its cycles
    measured = math.nan
    if p.backend != "model":
        rng = np.random.default_rng(p.input_seed)
        a = rng.integers(-128, 128, (p.m, p.k))
        w = rng.integers(-128, 128, (p.n, p.k))
        acc = rng.integers(-2**20, 2**20, (p.m, p.n))
        run = design.simulate(a, w, acc, np.zeros((p.m, p.n), dtype=np.int64),
                              backend=p.backend)
        if not np.array_equal(run.outputs["c"], acc + a @ w.T):
            raise SimulationError(f"GEMM tile {p.m}x{p.k}x{p.n}: RTL product differs from numpy")
        measured = float(run.cycles)
    return {"cycles": float(cycles), "latency_s": float(cost.latency_s),
            "energy_j": float(cost.energy_j), "area_um2": float(design.estimate().area_um2),
            "macs_per_cycle": p.m * p.k * p.n / cycles, "measured_cycles": measured}


register_model(
    "hls-gemm", function=f"{__name__}:hls_gemm", params=HLSGemmParams,
    objectives=HLS_GEMM_OBJECTIVES,
    description="a DSL GEMM-tile design point: model view, optionally checked on its RTL",
)
