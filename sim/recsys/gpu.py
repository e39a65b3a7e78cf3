"""A recommendation model's forward pass on a GPU, priced operator by operator on a roofline.

No GPU is available on this machine and the authors' measured GTX 1080 Ti tables
(``accelerator/predict_execution.py`` of harvard-acc/DeepRecSys) are not in the stored copy
of their repository, so the GPU side of the recommendation studies is this model, with every
parameter that is not a datasheet figure labelled "assumed" (:attr:`GpuRecModel.assumptions`).

Each operator of :func:`archsim.compilers.graph.recsys.recsys_graph` is one kernel (Caffe2
launches one per operator): its roofline time on the GPU's datasheet peaks
(:class:`archsim.hw.models.gpu.GPURoofline`) plus a launch overhead. An embedding
(SparseLengthsSum) kernel moves the rows it gathers, its indices and its pooled output --
not its table -- at a further ``gather_efficiency`` of the memory bandwidth (rows of 128-256
B at random addresses). A recurrent layer runs its steps one after another (Caffe2's
RecurrentNetwork runs a step net per time step): each step is its own kernels
(``recurrent_kernels_per_step``, each launched) moving the layer's weights and that step's
activations. The batch's inputs (dense features, indices, lengths) go to the
device and the model's outputs come back over PCIe, each copy with a fixed latency.

Operator groups follow :data:`archsim.sim.recsys.measure.GROUP_OPS` (the CPU side's timed
groups ``sls``, ``fc``, ``attention``, ``gru``, ``concat``), plus ``other`` (activations and
element-wise operators), ``transfer`` (PCIe copies) and ``launch`` (kernel launches).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...compilers.graph.recsys import (
    RecModelConfig,
    gathered_bytes,
    operator_group,
    recsys_graph,
)
from ...errors import ConfigError
from ...fields import is_positive_int
from ...hw.models.gpu import GPURoofline, get_gpu
from ...operators import Operator

__all__ = ["GPU_GROUPS", "GpuRecModel", "operator_group"]

#: The groups :meth:`GpuRecModel.group_s` reports, in order.
GPU_GROUPS: tuple[str, ...] = ("sls", "fc", "attention", "gru", "concat", "other",
                               "transfer", "launch")


def _embedding_bytes(op: Operator) -> float:
    """Bytes an SLS kernel moves: the rows it gathers, its index and length inputs and its
    pooled output (the table stays in device memory, read only where gathered)."""
    small_inputs = sum(t.nbytes for t in op.inputs if t.role != "weight")
    return gathered_bytes(op) + small_inputs + op.output_bytes


def _fraction(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise ConfigError(f"{name} must be in (0, 1], not {value!r}", field=name)
    return float(value)


def _non_negative(name: str, value: object) -> float:
    if (isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0
            or not math.isfinite(value)):
        raise ConfigError(f"{name} must be a finite number >= 0, not {value!r}", field=name)
    return float(value)


@dataclass(frozen=True, kw_only=True)
class GpuRecModel:
    """A recommendation model's forward time on one GPU (module docstring).

    Parameters
    ----------
    roofline : GPURoofline
        The GPU's peaks and achieved fractions; its ``launch_overhead_s`` must be 0 (launches
        are counted here, in their own group).
    kernel_launch_s : float
        Per operator kernel: launch plus framework dispatch.
    gather_efficiency : float
        Fraction of the roofline's memory bandwidth an SLS gather reaches, in (0, 1].
    pcie_bw_bytes_per_s : float
        Host <-> device copy bandwidth per direction.
    copy_latency_s : float
        Fixed cost of each of the two copies (inputs in, outputs out).
    recurrent_kernels_per_step : int
        Kernels per time step of a recurrent layer (each one launch).
    assumed : tuple of str
        Which of the figures above are assumptions, as text (listed by a study).
    """

    roofline: GPURoofline
    kernel_launch_s: float
    gather_efficiency: float = 1.0
    pcie_bw_bytes_per_s: float
    copy_latency_s: float = 0.0
    recurrent_kernels_per_step: int = 1
    assumed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.roofline, GPURoofline):
            raise ConfigError(f"roofline must be a GPURoofline, not "
                              f"{type(self.roofline).__name__}", field="roofline")
        if self.roofline.launch_overhead_s != 0:
            raise ConfigError("roofline.launch_overhead_s must be 0: kernel launches are "
                              "kernel_launch_s", field="roofline.launch_overhead_s")
        _non_negative("kernel_launch_s", self.kernel_launch_s)
        _fraction("gather_efficiency", self.gather_efficiency)
        _non_negative("copy_latency_s", self.copy_latency_s)
        k = self.recurrent_kernels_per_step
        if not is_positive_int(k):
            raise ConfigError(f"recurrent_kernels_per_step must be an int >= 1, not {k!r}",
                              field="recurrent_kernels_per_step")
        if not _non_negative("pcie_bw_bytes_per_s", self.pcie_bw_bytes_per_s) > 0:
            raise ConfigError(f"pcie_bw_bytes_per_s must be > 0, not "
                              f"{self.pcie_bw_bytes_per_s!r}", field="pcie_bw_bytes_per_s")

    @classmethod
    def gtx_1080_ti(cls) -> GpuRecModel:
        """DeepRecSys's GPU: the GTX 1080 Ti's datasheet peaks (:mod:`archsim.hw.models.gpu`)
        with labelled, assumed efficiencies and overheads."""
        spec = get_gpu("gtx-1080-ti")
        return cls(
            roofline=GPURoofline(spec=spec, dtype="fp32", compute_efficiency=0.6,
                                 memory_efficiency=0.8, name="gtx-1080-ti-recsys"),
            kernel_launch_s=10e-6, gather_efficiency=0.5,
            pcie_bw_bytes_per_s=spec.pcie_bw_bytes_per_s * 0.75, copy_latency_s=10e-6,
            recurrent_kernels_per_step=2,
            assumed=(
                "GPU compute efficiency 0.6 of the 11.3 TFLOP/s fp32 peak (assumed; "
                "cuBLAS SGEMM reaches more on large square GEMMs, less on skinny ones)",
                "GPU memory efficiency 0.8 of 484 GB/s on streaming kernels (assumed)",
                "SLS gathers at a further 0.5 of that bandwidth (assumed: random rows)",
                "10 us per operator kernel: launch plus Caffe2 dispatch (assumed)",
                "PCIe copies at 0.75 of the 15.75 GB/s link, 10 us fixed each (assumed)",
                "2 kernels per recurrent time step: the step's matrix product and its "
                "cell's point-wise update (assumed)",
            ))

    @property
    def assumptions(self) -> tuple[str, ...]:
        """The assumed figures, as text, for a study's list of assumptions."""
        return self.assumed

    def group_s(self, config: RecModelConfig, batch: int, *,
                launches_in_groups: bool = False) -> dict[str, float]:
        """Seconds per operator group (:data:`GPU_GROUPS`) of one forward pass at ``batch``.

        With ``launches_in_groups`` each kernel's launch is counted in its operator's group
        (as a per-operator profiler reports it) and there is no ``launch`` group.
        """
        graph = recsys_graph(config, batch=batch)
        out = dict.fromkeys(GPU_GROUPS, 0.0)
        host_in = 0.0
        host_out = 0.0
        consumed: set[str] = set()
        for op in graph:
            group = operator_group(op)
            kernel_s, launches = self._kernels(op, group)
            out[group] += kernel_s
            out[group if launches_in_groups else "launch"] += launches * self.kernel_launch_s
            host_in += sum(t.nbytes for t in op.inputs if t.role == "input")
            consumed.update(t.name for t in op.inputs)
        # The graph's results (tensors nobody consumes) come back to the host.
        for op in graph:
            host_out += sum(t.nbytes for t in op.outputs if t.name not in consumed)
        out["transfer"] = (2 * self.copy_latency_s
                           + (host_in + host_out) / self.pcie_bw_bytes_per_s)
        if launches_in_groups:
            del out["launch"]
        return out

    def _kernels(self, op: Operator, group: str) -> tuple[float, int]:
        """Roofline seconds and kernel launches of one operator (module docstring)."""
        if op.kind == "recurrent":
            steps = int(op.attrs["steps"]) * int(op.attrs.get("directions", 1))
            weights = op.weight_bytes
            step_s, _ = self.roofline.time_s(op.flops / steps,
                                             weights + (op.bytes_accessed - weights) / steps)
            return steps * step_s, steps * self.recurrent_kernels_per_step
        bytes_moved = (_embedding_bytes(op) / self.gather_efficiency if group == "sls"
                       else op.bytes_accessed)
        return self.roofline.time_s(op.flops, bytes_moved)[0], 1

    def predict_s(self, config: RecModelConfig, batch: int) -> float:
        """Seconds of one forward pass at ``batch``: every group summed."""
        return math.fsum(self.group_s(config, batch).values())
