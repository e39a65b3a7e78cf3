"""Execution models of tiled accelerators: cycles and energy per tile, summed per operator.

Every model here answers :meth:`~archsim.hw.models.HardwareModel.operator_cost` for a
:class:`~archsim.hw.models.Tile` (one step of a tiled operator: its GEMM, convolution and
vector work at the accelerator's clock) and for a whole
:class:`~archsim.operators.Operator` (cut into tiles by the model's ``tiler`` -- the SoC
simulator passes its scratchpad tiler -- and summed). A tile's cycles are its GEMM (or
convolution) cycles, plus ``ceil(vector_ops / vector_lanes)`` on the vector unit, plus
``pipeline_cycles`` of fill and drain; its energy is ``macs * mac_pj + vector_ops *
vector_op_pj`` (Horowitz 45 nm defaults, :mod:`archsim.hw.models.energy`) unless the model
has its own (a DSL design's estimate).

:class:`SystolicModel`
    An R x C systolic array under SCALE-Sim's fold model (:mod:`archsim.hw.models.systolic`),
    the formula the RTL array's measured cycles are tested against.
:class:`SMVModel`
    SMAUG's SMV engine: ``pes`` PEs each with a ``macs_per_pe``-wide MAC tree, NVDLA-like
    convolution dataflow -- each PE owns one output channel, its MAC tree reduces
    ``macs_per_pe`` input channels of one output pixel per cycle, so a tile of ``P`` output
    pixels, ``c`` input channels, ``k`` output channels and ``kh*kw`` window positions takes
    ``ceil(k / pes) * ceil(c / macs_per_pe) * P * kh*kw`` cycles.
:class:`CallableModel`
    Any design whose model view is a function ``cycles(*, m, k, n) -> int`` of a GEMM tile.
:class:`DSLModel`
    A compiled GEMM-tile design (a :class:`CompiledTile`: cycles and energy of one invocation
    on a static ``M x K x N`` tile, and its clock). A tile's ``(m, k, n)`` GEMM runs as
    ``ceil(m / M) * ceil(k / K) * ceil(n / N)`` invocations, edge blocks zero-padded.

A model built with ``tiler=None`` prices a whole operator untiled (:func:`untiled_tiles`:
each independent GEMM of the operator as one tile) -- the reference the SoC's scratchpad
tiling is compared against.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

from ...errors import ConfigError, SimulationError
from ...operators import Operator
from .base import OperatorCost, Tile, Work
from .energy import HOROWITZ_45NM
from .systolic import check_dataflow, fold_dims, matmul_cycles

__all__ = ["GemmCycles", "CompiledTile", "Tiler", "TileModel", "SystolicModel", "SMVModel",
           "CallableModel", "DSLModel", "untiled_tiles", "GEMM_KINDS", "VECTOR_KINDS",
           "HOST_KINDS"]

#: Operator kinds whose work is GEMMs (a convolution as its implicit im2col GEMM).
GEMM_KINDS = frozenset({"conv2d", "matmul", "recurrent", "attention"})
#: Operator kinds run on an accelerator's vector unit.
VECTOR_KINDS = frozenset({"pool", "elementwise", "activation", "norm", "softmax", "reduce"})
#: Operator kinds that only move bytes: run on the host, not on an accelerator.
HOST_KINDS = frozenset({"data_movement", "embedding"})


class GemmCycles(Protocol):
    """A design's model view of one GEMM tile: ``cycles(m=, k=, n=) -> int``."""

    def __call__(self, *, m: int, k: int, n: int) -> int: ...


@runtime_checkable
class CompiledTile(Protocol):
    """A compiled design that computes one static GEMM tile per invocation.

    :class:`DSLModel` needs only these three figures, so this layer never imports the
    compiler; the SoC simulator adapts a DSL ``Design`` to it.
    """

    @property
    def invocation_cycles(self) -> int:
        """Cycles of one invocation, ``start`` to ``done``."""
        ...

    @property
    def invocation_energy_j(self) -> float:
        """Energy of one invocation (at the reference node), joules."""
        ...

    @property
    def frequency_hz(self) -> float:
        """The clock it runs at."""
        ...


#: Cuts an operator into tiles aligned to ``(m, k, n)`` granularity (the SoC simulator's
#: scratchpad tiler, or :func:`untiled_tiles`).
Tiler = Callable[[Operator, tuple[int, int, int]], Sequence[Tile]]


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"must be a positive int, not {value!r}", field=name)
    return value


def _non_negative(name: str, value: object, *, integer: bool = False) -> None:
    number = isinstance(value, int) if integer else isinstance(value, int | float)
    if isinstance(value, bool) or not number or not isinstance(value, int | float) or \
            not (value >= 0 and math.isfinite(value)):
        kind = "int" if integer else "number"
        raise ConfigError(f"must be a finite {kind} >= 0, not {value!r}", field=name)


def _gemm_tile(op: Operator, m: int, k: int, n: int, eb: float, *,
               vector_ops: float = 0.0) -> Tile:
    return Tile(op=op, gemm=(m, k, n), conv=(m, k, n, 1), macs=m * k * n,
                vector_ops=vector_ops, input_bytes=m * k * eb, weight_bytes=k * n * eb,
                output_bytes=m * n * eb)


def untiled_tiles(op: Operator, align: tuple[int, int, int] = (1, 1, 1)) -> list[Tile]:
    """``op`` as its independent GEMMs, each one tile (no scratchpad limits; ``align`` is
    accepted for the :data:`Tiler` signature and does not matter without tiling).

    A convolution is one im2col GEMM per image and group, a (batched) matmul one per batch
    element, a recurrent layer one per time step and direction (its point-wise math on the
    vector unit), an attention operator its ``Q K^T`` and ``P V`` per head; element-wise
    kinds are one vector tile of ``op.flops`` operations; host kinds (reshapes, embeddings)
    have no tiles.

    Raises
    ------
    ConfigError
        An operator kind no accelerator runs.
    """
    del align
    a = op.attrs
    out = op.outputs[0] if op.outputs else None
    eb = out.nbytes / out.numel if out is not None and out.numel else 2.0
    if op.kind in HOST_KINDS:
        return []
    if op.kind == "conv2d":
        g = a["groups"]
        cin, cout = a["in_channels"] // g, a["out_channels"] // g
        window = a["kernel_h"] * a["kernel_w"]
        pixels = a["out_h"] * a["out_w"]
        one = Tile(op=op, gemm=(pixels, cin * window, cout), conv=(pixels, cin, cout, window),
                   macs=pixels * cin * window * cout, input_bytes=op.input_bytes -
                   op.weight_bytes, weight_bytes=op.weight_bytes, output_bytes=op.output_bytes)
        return [one] * (a["batch"] * g)
    if op.kind == "matmul":
        return [_gemm_tile(op, a["m"], a["k"], a["n"], eb)] * a.get("batch", 1)
    if op.kind == "recurrent":
        reps = a["steps"] * a["directions"]
        return [_gemm_tile(op, a["m"], a["k"], a["n"], eb,
                           vector_ops=a["pointwise_flops"] / reps)] * reps
    if op.kind == "attention":
        if all(key in a for key in ("batch", "heads", "head_dim", "q_len", "kv_len")):
            reps = a["batch"] * a["heads"]
            scores = _gemm_tile(op, a["q_len"], a["head_dim"], a["kv_len"], eb,
                                vector_ops=float(a.get("softmax_flops", 0.0)) / reps)
            context = _gemm_tile(op, a["q_len"], a["kv_len"], a["head_dim"], eb)
            return [scores, context] * reps
        macs = max(int(op.flops // 2), 1)
        side = max(int(round(macs ** (1 / 3))), 1)
        return [_gemm_tile(op, side, side, max(macs // (side * side), 1), eb)]
    if op.kind in VECTOR_KINDS:
        return [Tile(op=op, vector_ops=op.flops, input_bytes=op.input_bytes,
                     output_bytes=op.output_bytes)]
    raise ConfigError(f"operator '{op.name}' has kind '{op.kind}' no accelerator model runs",
                      field="kind", allowed=sorted(GEMM_KINDS | VECTOR_KINDS | HOST_KINDS))


@dataclass(frozen=True, kw_only=True)
class TileModel:
    """What every tiled accelerator shares (see the module docstring); subclasses give
    :meth:`gemm_cycles` (and optionally :meth:`conv_cycles`).

    Parameters
    ----------
    name
        The executor's name (the SoC uses the accelerator's label).
    frequency_hz
        Clock.
    vector_lanes
        Vector operations per cycle.
    pipeline_cycles
        Fill/drain cycles added to every tile.
    mac_pj, vector_op_pj
        Energy per multiply-accumulate and per vector operation, picojoules.
    tiler
        Cuts a whole operator into tiles (``None``: :func:`untiled_tiles`).
    """

    name: str = ""
    frequency_hz: float = 1e9
    vector_lanes: int = 8
    pipeline_cycles: int = 0
    mac_pj: float = HOROWITZ_45NM.mac_pj
    vector_op_pj: float = HOROWITZ_45NM.vector_op_pj
    tiler: Tiler | None = None

    #: Whether a host charges scratchpad reads for this model's compute (a DSL design's own
    #: energy estimate already counts its memory accesses).
    counts_scratchpad_reads: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise ConfigError(f"must be a str, not {self.name!r}", field="name")
        if not self.name:
            object.__setattr__(self, "name", self.default_name)
        _non_negative("frequency_hz", self.frequency_hz)
        if not self.frequency_hz > 0:
            raise ConfigError(f"must be > 0, not {self.frequency_hz!r}", field="frequency_hz")
        _positive_int("vector_lanes", self.vector_lanes)
        _non_negative("pipeline_cycles", self.pipeline_cycles, integer=True)
        _non_negative("mac_pj", self.mac_pj)
        _non_negative("vector_op_pj", self.vector_op_pj)

    @property
    def default_name(self) -> str:
        return "accelerator"

    @property
    def tile_align(self) -> tuple[int, int, int]:
        """``(m, k, n)`` granularity a tiler should align GEMM blocks to (1: none)."""
        return (1, 1, 1)

    def gemm_cycles(self, m: int, k: int, n: int) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def conv_cycles(self, pixels: int, c: int, k: int, window: int) -> int:
        """Cycles of a convolution tile (default: its implicit-im2col GEMM)."""
        return self.gemm_cycles(pixels, c * window, k)

    def vector_cycles(self, ops: float) -> int:
        return _ceil_div(int(round(ops)), self.vector_lanes) if ops > 0 else 0

    def tile_cycles(self, tile: Tile) -> int:
        """Cycles of one tile: its GEMM/convolution plus its vector work and pipeline fill."""
        cycles = self.vector_cycles(tile.vector_ops)
        if tile.conv is not None and tile.conv[3] > 1:
            cycles += self.conv_cycles(*tile.conv)
        elif tile.gemm is not None:
            cycles += self.gemm_cycles(*tile.gemm)
        return cycles + self.pipeline_cycles

    def tile_energy_j(self, tile: Tile) -> float:
        """Dynamic compute energy of one tile at the reference node."""
        return (tile.macs * self.mac_pj + tile.vector_ops * self.vector_op_pj) * 1e-12

    def tiles(self, op: Operator) -> Sequence[Tile]:
        """``op`` cut by :attr:`tiler` (aligned to :attr:`tile_align`)."""
        tiler = self.tiler if self.tiler is not None else untiled_tiles
        return tiler(op, self.tile_align)

    def operator_cost(self, work: Work) -> OperatorCost:
        """A tile's cycles at the clock and its energy; a whole operator's summed over its
        tiles (compute only: no transfers), bound ``"overhead"`` when it has none (host work)."""
        if isinstance(work, Tile):
            cycles = self.tile_cycles(work)
            return OperatorCost(latency_s=cycles / self.frequency_hz,
                                energy_j=self.tile_energy_j(work), bound="compute",
                                cycles=cycles)
        tiles = self.tiles(work)
        cycles = sum(self.tile_cycles(t) for t in tiles)
        return OperatorCost(latency_s=cycles / self.frequency_hz,
                            energy_j=sum(self.tile_energy_j(t) for t in tiles),
                            bound="compute" if tiles else "overhead", cycles=cycles)


@dataclass(frozen=True, kw_only=True)
class SystolicModel(TileModel):
    """SCALE-Sim fold model of a ``rows x cols`` array (:mod:`archsim.hw.models.systolic`).

    Blocks are aligned to the array (:func:`~archsim.hw.models.systolic.fold_dims`): for
    ``"os"`` ``m`` to ``rows`` and ``n`` to ``cols``, for ``"ws"`` ``k`` to ``rows`` and
    ``n`` to ``cols``, so a tiler does not cut a dimension into partly filled folds.
    """

    rows: int = 16
    cols: int = 16
    dataflow: str = "os"

    def __post_init__(self) -> None:
        super().__post_init__()
        _positive_int("rows", self.rows)
        _positive_int("cols", self.cols)
        try:
            check_dataflow(self.dataflow)
        except ValueError:
            raise ConfigError(f"unknown dataflow {self.dataflow!r}", field="dataflow",
                              allowed=["os", "ws"]) from None

    @property
    def default_name(self) -> str:
        return f"systolic-{self.rows}x{self.cols}-{self.dataflow}"

    @property
    def tile_align(self) -> tuple[int, int, int]:
        return fold_dims(rows=self.rows, cols=self.cols, dataflow=self.dataflow)

    def gemm_cycles(self, m: int, k: int, n: int) -> int:
        return matmul_cycles(rows=self.rows, cols=self.cols, m=m, k=k, n=n,
                             dataflow=self.dataflow)


@dataclass(frozen=True, kw_only=True)
class SMVModel(TileModel):
    """SMAUG's SMV: PEs split output channels, MAC trees reduce input channels."""

    pes: int = 8
    macs_per_pe: int = 32

    def __post_init__(self) -> None:
        super().__post_init__()
        _positive_int("pes", self.pes)
        _positive_int("macs_per_pe", self.macs_per_pe)

    @property
    def default_name(self) -> str:
        return "smv"

    def gemm_cycles(self, m: int, k: int, n: int) -> int:
        return _ceil_div(n, self.pes) * _ceil_div(k, self.macs_per_pe) * m

    def conv_cycles(self, pixels: int, c: int, k: int, window: int) -> int:
        return _ceil_div(k, self.pes) * _ceil_div(c, self.macs_per_pe) * pixels * window


@dataclass(frozen=True, kw_only=True)
class CallableModel(TileModel):
    """A design's own model view: ``cycles(m=, k=, n=)`` gives a GEMM tile's cycles.

    ``cycles_name`` names the function in error messages (e.g. its import path).
    """

    cycles: GemmCycles
    cycles_name: str = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not callable(self.cycles):
            raise ConfigError(f"cycles model {self.cycles!r} is not callable", field="cycles")

    @property
    def default_name(self) -> str:
        return "model"

    def gemm_cycles(self, m: int, k: int, n: int) -> int:
        raw = self.cycles(m=m, k=k, n=n)
        # Any integer (numpy's too); a bool, a float or a negative count is the model's bug.
        try:
            cycles = -1 if isinstance(raw, bool) else operator.index(raw)
        except TypeError:
            cycles = -1
        if cycles < 0:
            raise SimulationError(f"cycles model '{self.cycles_name or repr(self.cycles)}' returned "
                                  f"{raw!r} for m={m}, k={k}, n={n}; expected a "
                                  f"non-negative int")
        return cycles


@dataclass(frozen=True, kw_only=True)
class DSLModel(TileModel):
    """A compiled GEMM-tile design through its model view (see the module docstring).

    Parameters
    ----------
    design
        Cycles and energy of one invocation and the clock (:class:`CompiledTile`); the
        model's clock is the design's (``frequency_hz`` is ignored).
    tile
        The design's static ``(M, K, N)``.
    """

    design: CompiledTile
    tile: tuple[int, int, int]

    counts_scratchpad_reads: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "frequency_hz", float(self.design.frequency_hz))
        super().__post_init__()
        if len(self.tile) != 3:
            raise ConfigError(f"must be three positive ints (m, k, n), not {self.tile!r}",
                              field="tile")
        for name, value in zip("mkn", self.tile, strict=True):
            _positive_int(f"tile.{name}", value)
        _non_negative("invocation_cycles", self.design.invocation_cycles, integer=True)
        _non_negative("invocation_energy_j", self.design.invocation_energy_j)

    @property
    def default_name(self) -> str:
        return "dsl"

    @property
    def tile_align(self) -> tuple[int, int, int]:
        return self.tile

    @property
    def invocation_cycles(self) -> int:
        """Cycles of one invocation, ``start`` to ``done``."""
        return int(self.design.invocation_cycles)

    @property
    def invocation_energy_j(self) -> float:
        """Energy of one invocation (reference node)."""
        return float(self.design.invocation_energy_j)

    def invocations(self, m: int, k: int, n: int) -> int:
        """Invocations of an ``(m, k, n)`` GEMM (edge blocks padded)."""
        tm, tk, tn = self.tile
        return _ceil_div(m, tm) * _ceil_div(k, tk) * _ceil_div(n, tn)

    def gemm_cycles(self, m: int, k: int, n: int) -> int:
        return self.invocations(m, k, n) * self.invocation_cycles

    def tile_energy_j(self, tile: Tile) -> float:
        gemm = self.invocations(*tile.gemm) * self.invocation_energy_j \
            if tile.gemm is not None else 0.0
        return gemm + tile.vector_ops * self.vector_op_pj * 1e-12
