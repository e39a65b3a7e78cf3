"""SMAUG-style tiling of operators into an accelerator's three scratchpads.

Every accelerated operator becomes a loop nest over *jobs* (independent output tiles, the unit
dispatched round-robin across the accelerator pool) and, inside a job, *steps* (blocks of the
reduction dimension accumulated in the output scratchpad). As in SMAUG, the tiler searches
the legal tilings -- input, weight and output tiles each fit their scratchpad -- for the one
with the largest total tile size (ties: fewer tiles, then larger reduction blocks).

Convolutions (NCHW, weights KCRS) tile output rows ``h`` (the input tile keeps the halo
rows), input channels ``c`` and output channels ``k``; loops run ``n, g, h, k`` (jobs) then
``c`` (steps). Matmuls ``[m, k] x [k, n]`` tile ``m``, ``k`` and ``n`` the same way;
recurrent layers run their per-step matmul ``steps`` times in sequence. Element-wise,
pooling, normalization and softmax operators are cut into element blocks for the vector unit;
reshapes and embeddings run on the CPU.

Tiles carry *keys*: a tile whose key equals the one resident in that accelerator's scratchpad
is not loaded again (SMAUG's tile reuse).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ...errors import ConfigError
from ...hw.models import Tile
from ...hw.models.accelerators import GEMM_KINDS, HOST_KINDS, VECTOR_KINDS
from ...operators import Operator
from .config import ScratchpadConfig

__all__ = ["ConvGeometry", "conv_geometry", "Step", "Job", "OperatorPlan", "LoopTiling", "plan_operator", "best_tiling",
           "ScratchpadTiler", "CPU_KINDS", "VECTOR_KINDS"]

#: Operator kinds run on the CPU (they move bytes, compute nothing on an accelerator).
CPU_KINDS = HOST_KINDS


@dataclass(frozen=True, slots=True)
class Step:
    """One reduction block of a job: what it loads (unless resident) and what it computes.

    ``tile`` is the work (:class:`~archsim.hw.models.Tile`: the operator, the step's
    ``(m, k, n)`` GEMM shape -- convolutions as implicit im2col, ``m`` output pixels,
    ``k = c * kh * kw``, ``n`` output channels -- the ``(pixels, c, k, kh * kw)`` shape a
    convolution dataflow needs, MACs, vector operations and bytes); accelerators price it
    with ``operator_cost(step.tile)``. The keys name the input and weight tiles, so a tile
    already resident in a scratchpad is not loaded again.
    """

    input_key: tuple
    weight_key: tuple | None
    tile: Tile

    @property
    def input_bytes(self) -> float:
        return self.tile.input_bytes

    @property
    def weight_bytes(self) -> float:
        return self.tile.weight_bytes

    @property
    def macs(self) -> int:
        return self.tile.macs

    @property
    def vector_ops(self) -> float:
        return self.tile.vector_ops

    @property
    def gemm(self) -> tuple[int, int, int] | None:
        return self.tile.gemm


@dataclass(frozen=True, slots=True)
class Job:
    """An independent output tile: its steps run on one accelerator, then the output is stored."""

    steps: tuple[Step, ...]
    output_bytes: float
    group: int = 0


@dataclass(frozen=True)
class LoopTiling:
    """Block sizes of a 3-loop tiling (rows, reduction, columns) and their counts."""

    rows: int
    reduction: int
    cols: int
    n_rows: int
    n_reduction: int
    n_cols: int
    total_tile_elements: int


@dataclass(frozen=True)
class OperatorPlan:
    """How one operator runs: on the ``"cpu"``, or as ``jobs`` on the accelerators.

    With ``sequential``, the jobs of group ``g + 1`` depend on those of group ``g`` (the time
    steps of a recurrent layer); otherwise every job is independent.
    """

    op_name: str
    kind: str
    target: str
    jobs: tuple[Job, ...]
    tiling: LoopTiling | None
    prep_bytes: float
    output_bytes: float
    cpu_bytes: float = 0.0
    sequential: bool = False

    @property
    def num_groups(self) -> int:
        return (self.jobs[-1].group + 1) if self.jobs else 0

    @property
    def num_tiles(self) -> int:
        return sum(len(j.steps) for j in self.jobs)


def _candidates(size: int) -> np.ndarray:
    """Distinct block sizes ``ceil(size / j)``: every block count a tiling can have."""
    j = np.arange(1, size + 1)
    return np.unique(-(-size // j))


@lru_cache(maxsize=4096)
def best_tiling(*, rows: int, reduction: int, cols: int, in_per_row: int, in_fixed_rows: int,
                w_per: int, out_per_row: int, in_cap: int, w_cap: int, out_cap: int,
                row_stride: int = 1, row_align: int = 1, reduction_align: int = 1,
                col_align: int = 1) -> LoopTiling | None:
    """The legal 3-loop tiling with the largest total tile size (elements), or ``None``.

    Tile footprints (elements), for ``r`` rows, ``c`` reduction and ``k`` columns:
    input ``c * ((r - 1) * row_stride + in_fixed_rows) * in_per_row``, weight ``k * c * w_per``,
    output ``k * r * out_per_row``. A matmul uses ``in_per_row = 1``, ``in_fixed_rows = 1``,
    ``row_stride = 1``, ``w_per = 1``, ``out_per_row = 1``.

    The search is exact: the total grows with ``k``, so for every ``(r, c)`` the best ``k`` is
    the largest one the weight and output scratchpads allow; every ``r`` and ``c`` is tried
    (when ``rows * reduction`` exceeds 4M pairs, only the block sizes ``ceil(size / j)`` are,
    to bound memory). Ties go to fewer tiles, then to the larger reduction block.

    With ``*_align`` > 1 (an accelerator with a fixed tile, e.g. a DSL kernel), blocks are
    first restricted to multiples of the alignment or the whole dimension, so that blocks do
    not leave partly empty kernel tiles; when no such tiling fits, the unaligned search runs.
    """
    if rows * reduction <= (1 << 22):
        r_all = np.arange(1, rows + 1)
        c_all = np.arange(1, reduction + 1)
    else:
        r_all = _candidates(rows)
        c_all = _candidates(reduction)
    args = (rows, reduction, cols, in_per_row, in_fixed_rows, w_per, out_per_row, in_cap, w_cap,
            out_cap, row_stride)
    if max(row_align, reduction_align, col_align) > 1:
        found = _search(_aligned(r_all, rows, row_align), _aligned(c_all, reduction,
                                                                   reduction_align),
                        col_align, *args)
        if found is not None:
            return found
    return _search(r_all, c_all, 1, *args)


def _aligned(cands: np.ndarray, size: int, align: int) -> np.ndarray:
    """The multiples of ``align`` next to each candidate block size, and the whole ``size``
    (as many as the candidates, at most twice)."""
    if align <= 1:
        return cands
    down = cands // align * align
    up = -(-cands // align) * align
    both = np.concatenate([down, up, [size]])
    return np.unique(both[(both >= align) & (both <= size) | (both == size)])


def _search(r_c: np.ndarray, c_c: np.ndarray, col_align: int, rows: int, reduction: int,
            cols: int, in_per_row: int, in_fixed_rows: int, w_per: int, out_per_row: int,
            in_cap: int, w_cap: int, out_cap: int, row_stride: int) -> LoopTiling | None:
    r = r_c[:, None]
    c = c_c[None, :]
    in_el = c * ((r - 1) * row_stride + in_fixed_rows) * in_per_row
    k = np.minimum(np.minimum(cols, w_cap // (c * w_per)), out_cap // (r * out_per_row))
    ok = (in_el <= in_cap) & (k >= 1)
    if col_align > 1:
        k = np.where(k < cols, k - k % col_align, k)
        ok &= k >= 1
    if not ok.any():
        return None
    k = np.maximum(k, 1)
    total = np.where(ok, in_el + k * c * w_per + k * r * out_per_row, -1)
    ntiles = (-(-rows // r)) * (-(-reduction // c)) * (-(-cols // k))
    shape = total.shape
    flat_total = total.ravel()
    tiles_b = ntiles.ravel()
    c_b = np.broadcast_to(c, shape).ravel()
    idx = np.lexsort((-c_b, tiles_b, -flat_total))[0]
    i, j = np.unravel_index(idx, shape)
    rr, cc, kk = int(r[i, 0]), int(c[0, j]), int(k[i, j])
    return LoopTiling(rr, cc, kk, -(-rows // rr), -(-reduction // cc), -(-cols // kk),
                      int(flat_total[idx]))


def _blocks(size: int, block: int) -> list[tuple[int, int]]:
    return [(s, min(block, size - s)) for s in range(0, size, block)]


def _no_tiling(op: Operator, spads: ScratchpadConfig) -> ConfigError:
    return ConfigError(
        f"operator '{op.name}' ({op.kind}) has no tiling that fits scratchpads of "
        f"{spads.input_elements}/{spads.weight_elements}/{spads.output_elements} elements",
        field="accelerators.scratchpads")


class ConvGeometry(NamedTuple):
    """A convolution's shape as the tilers cut it: per group channels, padded input size,
    the height components of stride and dilation (the tiler cuts output rows) and the
    effective kernel height ``dilation * (kernel_h - 1) + 1``."""

    batch: int
    groups: int
    in_channels: int  # per group
    out_channels: int  # per group
    kernel_h: int
    kernel_w: int
    stride_h: int
    out_h: int
    out_w: int
    in_h: int  # padded
    in_w: int  # padded
    eff_kernel_h: int


def conv_geometry(op: Operator) -> ConvGeometry:
    """The :class:`ConvGeometry` of a ``conv2d`` operator's attributes."""
    a = op.attrs
    g = a["groups"]
    # Stride and dilation are an int, or (height, width) when they differ (ONNX); only the
    # height components matter here (widths are in in_w/out_w).
    s, dil = (v[0] if isinstance(v, tuple) else v for v in (a["stride"], a["dilation"]))
    pad = a["padding"]
    return ConvGeometry(
        batch=a["batch"], groups=g, in_channels=a["in_channels"] // g,
        out_channels=a["out_channels"] // g, kernel_h=a["kernel_h"], kernel_w=a["kernel_w"],
        stride_h=s, out_h=a["out_h"], out_w=a["out_w"], in_h=a["in_h"] + pad[0] + pad[1],
        in_w=a["in_w"] + pad[2] + pad[3], eff_kernel_h=dil * (a["kernel_h"] - 1) + 1)


def _plan_conv(op: Operator, spads: ScratchpadConfig, eb: float,
               align: tuple[int, int, int] = (1, 1, 1)) -> OperatorPlan:
    n, g, cin, cout, kh, kw, s, oh, ow, in_h_pad, in_w, eff_kh = conv_geometry(op)
    # The step's implicit GEMM is (rows * ow, c * kh * kw, k): align input channels so that
    # c * kh * kw is a multiple of the kernel tile, and output channels; rows are not aligned
    # (with an odd output width that would leave whole images per job, too few to share).
    t = best_tiling(rows=oh, reduction=cin, cols=cout, in_per_row=in_w, in_fixed_rows=eff_kh,
                    w_per=kh * kw, out_per_row=ow, in_cap=spads.input_elements,
                    w_cap=spads.weight_elements, out_cap=spads.output_elements, row_stride=s,
                    reduction_align=align[1] // math.gcd(align[1], kh * kw),
                    col_align=align[2])
    if t is None:
        raise _no_tiling(op, spads)
    jobs: list[Job] = []
    prep = 0.0
    for b in range(n):
        for gi in range(g):
            for h0, hs in _blocks(oh, t.rows):
                rows_in = min((hs - 1) * s + eff_kh, in_h_pad - h0 * s)
                for k0, ks in _blocks(cout, t.cols):
                    steps = []
                    for c0, cs in _blocks(cin, t.reduction):
                        steps.append(Step(
                            input_key=(op.name, "i", b, gi, h0, c0),
                            weight_key=(op.name, "w", gi, k0, c0),
                            tile=Tile(op=op, gemm=(hs * ow, cs * kh * kw, ks),
                                      conv=(hs * ow, cs, ks, kh * kw),
                                      macs=hs * ow * cs * kh * kw * ks,
                                      input_bytes=cs * rows_in * in_w * eb,
                                      weight_bytes=ks * cs * kh * kw * eb,
                                      output_bytes=ks * hs * ow * eb)))
                    jobs.append(Job(tuple(steps), output_bytes=ks * hs * ow * eb))
    # The CPU tiles every distinct input and weight tile once (SMAUG's tiled tensors).
    seen: set[tuple | None] = set()  # Step.weight_key is Optional
    for job in jobs:
        for st in job.steps:
            for key, nbytes in ((st.input_key, st.input_bytes), (st.weight_key, st.weight_bytes)):
                if key not in seen:
                    seen.add(key)
                    prep += nbytes
    out_bytes = sum(j.output_bytes for j in jobs)
    return OperatorPlan(op.name, op.kind, "accelerator", tuple(jobs), t, prep, out_bytes)


def _plan_gemm(op: Operator, spads: ScratchpadConfig, eb: float, *, m: int, k: int, n: int,
               repeats: int, sequential: bool, extra_vector_ops: float,
               shared_weight: bool = True, tag: str = "",
               align: tuple[int, int, int] = (1, 1, 1)) -> OperatorPlan:
    t = best_tiling(rows=m, reduction=k, cols=n, in_per_row=1, in_fixed_rows=1, w_per=1,
                    out_per_row=1, in_cap=spads.input_elements, w_cap=spads.weight_elements,
                    out_cap=spads.output_elements, row_align=align[0],
                    reduction_align=align[1], col_align=align[2])
    if t is None:
        raise _no_tiling(op, spads)
    jobs: list[Job] = []
    seen: set[tuple | None] = set()  # Step.weight_key is Optional
    prep = 0.0
    per_job_vec = extra_vector_ops / max(repeats * t.n_rows * t.n_cols, 1)
    for rep in range(repeats):
        for m0, ms in _blocks(m, t.rows):
            for n0, ns in _blocks(n, t.cols):
                steps = []
                blocks = _blocks(k, t.reduction)
                for i, (k0, ks) in enumerate(blocks):
                    st = Step(input_key=(op.name + tag, "i", rep, m0, k0),
                              weight_key=(op.name + tag, "w", 0 if shared_weight else rep, n0,
                                          k0),
                              tile=Tile(op=op, gemm=(ms, ks, ns), conv=(ms, ks, ns, 1),
                                        macs=ms * ks * ns,
                                        vector_ops=per_job_vec if i == len(blocks) - 1
                                        else 0.0,
                                        input_bytes=ms * ks * eb, weight_bytes=ks * ns * eb,
                                        output_bytes=ms * ns * eb))
                    steps.append(st)
                    for key, nb in ((st.input_key, st.input_bytes),
                                    (st.weight_key, st.weight_bytes)):
                        if key not in seen:
                            seen.add(key)
                            prep += nb
                jobs.append(Job(tuple(steps), output_bytes=ms * ns * eb, group=rep))
    out_bytes = sum(j.output_bytes for j in jobs)
    return OperatorPlan(op.name, op.kind, "accelerator", tuple(jobs), t, prep, out_bytes,
                        sequential=sequential)


def _plan_vector(op: Operator, spads: ScratchpadConfig, eb: float) -> OperatorPlan:
    acts = [t for t in op.inputs if t.role != "weight"]
    out_el = sum(t.numel for t in op.outputs)
    in_el = acts[0].numel if acts else out_el
    second_el = sum(t.numel for t in acts[1:])
    # Output elements per block such that the (first) input fits the input scratchpad, a
    # second operand the weight scratchpad and the result the output scratchpad.
    ratio_in = in_el / out_el if out_el else 1.0
    ratio_w = second_el / out_el if out_el else 0.0
    cap = spads.output_elements
    cap = min(cap, int(spads.input_elements / ratio_in)) if ratio_in > 0 else cap
    if ratio_w > 0:
        cap = min(cap, int(spads.weight_elements / ratio_w))
    if cap < 1 or out_el == 0:
        raise _no_tiling(op, spads)
    jobs = []
    flops_per_el = op.flops / out_el
    for i, (_, es) in enumerate(_blocks(out_el, cap)):
        steps = (Step(input_key=(op.name, "i", i),
                      weight_key=(op.name, "w", i) if ratio_w else None,
                      tile=Tile(op=op, vector_ops=es * flops_per_el,
                                input_bytes=es * ratio_in * eb, weight_bytes=es * ratio_w * eb,
                                output_bytes=es * eb)),)
        jobs.append(Job(steps, output_bytes=es * eb))
    prep = sum(s.input_bytes + s.weight_bytes for j in jobs for s in j.steps)
    return OperatorPlan(op.name, op.kind, "accelerator", tuple(jobs), None, prep,
                        out_el * eb)


def _plan_attention(op: Operator, spads: ScratchpadConfig, eb: float,
                    align: tuple[int, int, int] = (1, 1, 1)) -> OperatorPlan:
    """Fused attention as its two batched GEMMs per head, ``Q K^T`` then ``P V``, with the
    softmax on the vector unit; without shape attributes, one GEMM of ``flops / 2`` MACs."""
    a = op.attrs
    if all(key in a for key in ("batch", "heads", "head_dim", "q_len", "kv_len")):
        reps = a["batch"] * a["heads"]
        scores = _plan_gemm(op, spads, eb, m=a["q_len"], k=a["head_dim"], n=a["kv_len"],
                            repeats=reps, sequential=False,
                            extra_vector_ops=float(a.get("softmax_flops", 0.0)),
                            shared_weight=False, tag=".qk", align=align)
        context = _plan_gemm(op, spads, eb, m=a["q_len"], k=a["kv_len"], n=a["head_dim"],
                             repeats=reps, sequential=False, extra_vector_ops=0.0,
                             shared_weight=False, tag=".pv", align=align)
        return OperatorPlan(op.name, op.kind, "accelerator", scores.jobs + context.jobs,
                            scores.tiling, scores.prep_bytes + context.prep_bytes,
                            scores.output_bytes + context.output_bytes)
    macs = max(int(op.flops // 2), 1)
    side = max(int(round(macs ** (1 / 3))), 1)
    return _plan_gemm(op, spads, eb, m=side, k=side, n=max(macs // (side * side), 1),
                      repeats=1, sequential=False, extra_vector_ops=0.0, align=align)


def plan_operator(op: Operator, spads: ScratchpadConfig, *,
                  align: tuple[int, int, int] = (1, 1, 1)) -> OperatorPlan:
    """Tile ``op`` into ``spads`` (into half of each when ``spads.double_buffered``); element
    sizes are the scratchpads' ``element_bytes``. ``align`` is the ``(m, k, n)`` tile of an
    accelerator with a fixed GEMM tile: GEMM blocks are preferably multiples of it
    (:func:`best_tiling`).

    Raises
    ------
    ConfigError
        No tiling fits the scratchpads.
    """
    spads = spads.buffer()  # half of each scratchpad when double-buffered
    eb = float(spads.element_bytes)
    if op.kind in CPU_KINDS:
        nbytes = op.output_bytes
        return OperatorPlan(op.name, op.kind, "cpu", (), None, 0.0, 0.0, cpu_bytes=nbytes)
    if op.kind == "conv2d":
        return _plan_conv(op, spads, eb, align)
    if op.kind == "matmul":
        a = op.attrs
        # A batched product of two activations (attention scores) has a B operand per batch
        # element; a layer's weight is one tensor shared by every row block.
        shared = len(op.inputs) > 1 and op.inputs[1].role == "weight"
        return _plan_gemm(op, spads, eb, m=a["m"], k=a["k"], n=a["n"],
                          repeats=a.get("batch", 1), sequential=False, extra_vector_ops=0.0,
                          shared_weight=shared, align=align)
    if op.kind == "recurrent":
        a = op.attrs
        return _plan_gemm(op, spads, eb, m=a["m"], k=a["k"], n=a["n"],
                          repeats=a["steps"] * a["directions"], sequential=True,
                          extra_vector_ops=a["pointwise_flops"], align=align)
    if op.kind == "attention":
        return _plan_attention(op, spads, eb, align)
    if op.kind in VECTOR_KINDS:
        return _plan_vector(op, spads, eb)
    raise ConfigError(f"operator '{op.name}' has kind '{op.kind}' the SoC simulator cannot map",
                      field="kind", allowed=sorted(CPU_KINDS | VECTOR_KINDS | GEMM_KINDS))


@dataclass(frozen=True)
class ScratchpadTiler:
    """A :data:`~archsim.hw.models.Tiler` for accelerators with these scratchpads: the tiles
    of :func:`plan_operator` (none for an operator the CPU runs)."""

    scratchpads: ScratchpadConfig

    def __call__(self, op: Operator, align: tuple[int, int, int]) -> Sequence[Tile]:
        plan = plan_operator(op, self.scratchpads, align=align)
        return [st.tile for job in plan.jobs for st in job.steps]
