"""CAMEL's training engine written with the accelerator DSL, and a reversible block trained on it.

:func:`camel_engine` declares an engine of the kind CAMEL (Zhang et al., arXiv 2305.03148)
describes: a GEMM array (the library ``gemm`` unit, an output-stationary systolic array)
fed from small SRAM scratchpads, vector units that move and combine tensors, and an eDRAM
global buffer (``technology="edram"`` at ``temperature_c``) that holds the block's
activations, gradients and weights between steps. The engine's size (``rows x cols``,
buffer words) is a parameter; :func:`soc_camel` is a 16 x 16 instance for the SoC simulator
(its model view), :func:`gemm_tile_program` one training GEMM tile on it.

Buffers and units
-----------------
=========== ============================== ================================================
buffer      technology, width, banks       holds
=========== ============================== ================================================
``gb``      eDRAM, 16 bits, ``gb_banks``   activations, gradients, weights (the block's
                                           state between steps)
``spa``     SRAM, 16 bits, ``rows``        the GEMM's ``A`` operand, stored transposed
``spb``     SRAM, 16 bits, ``cols``        the GEMM's ``B`` operand
``acc``     SRAM, 32 bits, ``cols``        the GEMM's results (pre-activations, weight
                                           gradients, products)
=========== ============================== ================================================

=========== ====================== ========================================================
unit        reads -> writes        does
=========== ====================== ========================================================
``gemm``    spa, spb -> acc        ``C = A @ B`` (int16 x int16, 32-bit accumulators)
``load_a``  gb -> spa              copy, or transpose (the GEMM's ``A`` is stored ``A^T``)
``load_b``  gb -> spb              copy, or transpose (``W^T`` for the backward products)
``drain``   acc -> gb              requantize (round half up, saturate to int16)
``gvec``    gb, gb -> gb           add, sub, ReLU (the couplings and the SGD step)
``rgrad``   gb, acc -> gb          ``relu_grad``: the gradient where the pre-activation > 0
=========== ====================== ========================================================

Transposes are made by the vector unit's ``transpose`` while a tensor moves from the global
buffer into a scratchpad, or are free: the GEMM reads ``A`` as ``A^T`` (``k x m`` row-major),
so the weight gradients ``y1^T gG`` and ``x2'^T gF`` take ``y1`` and ``x2'`` as they are
stored (``batch x d`` row-major *is* ``(y1^T)^T``); ``x2^T``, ``y1^T``, ``gG^T``, ``gF^T``
(the ``A`` of the forward and input-gradient products) and ``WG^T``, ``WF^T`` (their ``B``)
are transposed on the way in.

Number formats (why)
--------------------
Two's-complement integers with a fixed scale each (a code ``c`` of ``f`` fractional bits is
the value ``c * 2**-f``); every scale change is a shift by a vector unit (round half up,
saturate):

* activations ``x, y, x'`` and the branch outputs ``F, G``: int16, ``f = 8`` (Q7.8,
  :data:`ACT_FRAC_BITS`): range +-128 with a resolution of 0.004 -- the additive coupling
  ``y = x + F`` grows activations, and int8 would leave 3-4 bits for a unit-variance input;
* weights: int16, ``f = 12`` (Q3.12, :data:`WEIGHT_FRAC_BITS`): range +-8 (a ``d x d``
  weight of He scale is ``~sqrt(2/d)``) with room for SGD steps of 2**-12;
* gradients ``dy, dx, gF, gG``: int16, ``f = 14`` (Q1.14, :data:`GRAD_FRAC_BITS`): range
  +-2, resolution 6e-5 -- a loss gradient per element is small, and 16 bits are the least
  that keeps it from rounding to zero;
* accumulators: 32 bits (the GEMM's ``acc_width``): a forward product is ``2**-(8 + 12)``,
  a backward product ``2**-(14 + 12)`` and a weight gradient ``2**-(8 + 14)``; at batch 32,
  ``d = 64`` with unit-variance inputs, He-scaled weights and gradients of 0.05 the sums
  stay below ``2**24`` and the 16-bit words below 4400 (measured, five seeds): 7x headroom.

Shifts: a forward product to an activation ``>> 12``; a backward product to a gradient
``>> 12``; a weight gradient times ``lr = 2**-s`` to a weight step ``>> (8 + 14 - 12 + s)``.

The reversible block
--------------------
RevNet's additive coupling (Gomez et al. 2017) on ``batch`` rows of ``2 d`` features,
``x = [x1, x2]``, ``F(u) = relu(u WF)``, ``G(u) = relu(u WG)`` (:func:`reversible_block_program`):

* forward: ``y1 = x1 + F(x2)``, ``y2 = x2 + G(y1)``;
* recompute (from the outputs only): ``x2' = y2 - G(y1)``, ``x1' = y1 - F(x2')``; in integers
  this is exact (``x' == x``) unless a sum saturates;
* backward, given ``dy1, dy2``: ``gG = relu_grad(dy2, zG)`` with ``zG = y1 WG``,
  ``dWG = y1^T gG``, ``dy1t = dy1 + gG WG^T``; ``gF = relu_grad(dy1t, zF)`` with ``zF = x2' WF``,
  ``dWF = x2'^T gF``, ``dx2 = dy2 + gF WF^T``, ``dx1 = dy1t`` (the same words: no copy);
  ``zG`` and ``zF`` are the recompute's products, kept in the accumulator scratchpad;
* update (SGD): ``WF -= dWF * 2**-s``, ``WG -= dWG * 2**-s``.

:func:`reference_block_fixed` computes the same integers independently (numpy ``int64``,
its own rounding and saturation) and :func:`reference_block_float` the block in float64.

>>> from archsim.dsl.examples.camel import camel_engine, BlockShape, reversible_block_program
>>> engine = camel_engine()
>>> program, layout = reversible_block_program(engine, BlockShape(batch=4, d=8))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from ...errors import ConfigError
from ..accel import Accelerator, Program

if TYPE_CHECKING:
    from ...compilers.accel.model import ProgramReport

__all__ = ["camel_engine", "soc_camel", "soc_camel_25c", "gemm_tile_program", "BlockShape",
           "BlockLayout", "block_layout", "reversible_block_program", "block_inputs", "read_block_outputs",
           "reference_block_fixed", "reference_block_float", "quantize", "PHASES", "phase_cycles",
           "ACT_FRAC_BITS", "WEIGHT_FRAC_BITS", "GRAD_FRAC_BITS", "OUTPUT_FRAC_BITS",
           "WORD_BITS", "ACC_BITS"]

#: Fractional bits of the activations (int16, Q7.8).
ACT_FRAC_BITS = 8
#: Fractional bits of the weights (int16, Q3.12).
WEIGHT_FRAC_BITS = 12
#: Fractional bits of the gradients (int16, Q1.14).
GRAD_FRAC_BITS = 14
#: Bits of the operands (global buffer and scratchpads) and of the accumulators.
WORD_BITS = 16
ACC_BITS = 32
#: The program's phases, in the order they run.
PHASES = ("forward", "recompute", "backward", "update")

#: Fractional bits of each output of :func:`read_block_outputs`.
OUTPUT_FRAC_BITS: Mapping[str, int] = {
    "y1": ACT_FRAC_BITS, "y2": ACT_FRAC_BITS, "x1r": ACT_FRAC_BITS, "x2r": ACT_FRAC_BITS,
    "dx1": GRAD_FRAC_BITS, "dx2": GRAD_FRAC_BITS,
    "dwf": ACT_FRAC_BITS + GRAD_FRAC_BITS, "dwg": ACT_FRAC_BITS + GRAD_FRAC_BITS,
    "wf_new": WEIGHT_FRAC_BITS, "wg_new": WEIGHT_FRAC_BITS,
}

# Vector-unit opcodes (archsim.hw.accel.vector.VECTOR_OPS; repeated here because a
# description never imports the hardware). tests/test_dsl_examples_camel.py checks them.
_OP = {"add": 0, "sub": 1, "relu": 4, "copy": 5, "requant": 6, "transpose": 8,
       "relu_grad": 12}

# A product of an activation (or gradient) and a weight back to the activation (gradient)
# scale, and a weight gradient to a weight step before the learning rate.
_PRODUCT_SHIFT = WEIGHT_FRAC_BITS
_WGRAD_SHIFT = ACT_FRAC_BITS + GRAD_FRAC_BITS - WEIGHT_FRAC_BITS


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name} must be a positive int, not {value!r}", field=name)
    return value


def camel_engine(*, rows: int = 4, cols: int = 4, gb_words: int = 1024, gb_banks: int = 16,
                 sp_words: int = 256, acc_words: int = 512, temperature_c: float = 65.0,
                 name: str = "camel") -> Accelerator:
    """The CAMEL training engine (module docstring): a ``rows x cols`` int16 GEMM array, an
    eDRAM global buffer of ``gb_words`` 16-bit words in ``gb_banks`` banks at
    ``temperature_c``, scratchpads of ``sp_words`` (``spa``, ``spb``) and ``acc_words``
    (``acc``) words.

    ``gb_banks`` sets the eDRAM's refresh rows (``gb_words / gb_banks``, one address across
    the banks): the buffer model (:mod:`archsim.hw.models.memtech`) refreshes every row once
    per refresh period, which at 65 C is about 0.5 us for 16 kbit (253 cycles at 500 MHz), so
    the default 64 rows are refreshed one every 3 cycles -- the conventional always-refresh
    timer of an accelerator buffer (each refresh freezes the units bound to it for a cycle).

    Raises
    ------
    ConfigError
        ``rows``, ``cols``, ``sp_words`` or ``acc_words`` not a positive int, or a scratchpad
        not a multiple of the array's banks.
    DSLError
        A buffer the DSL rejects (``gb_words`` not a multiple of ``gb_banks``, a bad
        ``temperature_c``, ...).
    """
    rows, cols = _positive("rows", rows), _positive("cols", cols)
    sp_words, acc_words = _positive("sp_words", sp_words), _positive("acc_words", acc_words)
    for what, words, banks in (("sp_words", sp_words, max(rows, cols)),
                               ("acc_words", acc_words, cols)):
        if words % banks:
            raise ConfigError(f"{what} ({words}) must be a multiple of the array's "
                              f"{'rows and cols' if what == 'sp_words' else 'cols'} ({banks})",
                              field=what)
    engine = Accelerator(name=name)
    engine.buffer("gb", words=gb_words, width=WORD_BITS, banks=gb_banks, read_ports=2,
                  technology="edram", temperature_c=temperature_c)
    engine.buffer("spa", words=sp_words, width=WORD_BITS, banks=rows)
    engine.buffer("spb", words=sp_words, width=WORD_BITS, banks=cols)
    engine.buffer("acc", words=acc_words, width=ACC_BITS, banks=cols, read_ports=3)
    engine.unit("gemm", "gemm", rows=rows, cols=cols, input_width=WORD_BITS,
                acc_width=ACC_BITS, bind={"a": "spa", "b": "spb", "c": "acc", "c_in": "acc"})
    vector = {"load_a": ("gb", "gb", "spa", WORD_BITS, WORD_BITS),
              "load_b": ("gb", "gb", "spb", WORD_BITS, WORD_BITS),
              "drain": ("acc", "acc", "gb", ACC_BITS, ACC_BITS),
              "gvec": ("gb", "gb", "gb", WORD_BITS, WORD_BITS),
              "rgrad": ("gb", "acc", "gb", WORD_BITS, ACC_BITS)}
    for unit, (a, b, z, a_width, b_width) in vector.items():
        engine.unit(unit, "vector", a_width=a_width, b_width=b_width, z_width=WORD_BITS,
                    bind={"a": a, "b": b, "z": z})
    return engine


def soc_camel(*, temperature_c: float = 65.0, gb_banks: int = 1024) -> Accelerator:
    """A 16 x 16 engine with a 64K-word (1 Mbit) eDRAM global buffer and 4K/16K-word
    scratchpads: it holds a block of ``batch 32, d 64`` (for the SoC simulator's model view).

    At 65 C the buffer model's refresh period of 1 Mbit is 0.32 us (160 cycles at 500 MHz),
    which leaves room for at most 78 refresh rows: the default 1024 banks give 64 rows,
    refreshed one every 2 cycles (the conventional always-refresh baseline at that
    temperature; a cooler die or a lifetime-aware controller refreshes far less).
    """
    return camel_engine(rows=16, cols=16, gb_words=65536, gb_banks=gb_banks, sp_words=4096,
                        acc_words=16384, temperature_c=temperature_c, name="camel16")


def _array(engine: Accelerator) -> tuple[int, int]:
    """The GEMM array's ``(rows, cols)`` of a :func:`camel_engine` description."""
    missing = [u for u in ("gemm", "load_a", "load_b", "drain", "gvec", "rgrad")
               if u not in engine.units]
    if missing:
        raise ConfigError(f"accelerator {engine.name!r} is not a camel_engine(): it has no "
                          f"unit {missing[0]!r}", field="engine")
    params = engine.units["gemm"].params
    return int(params["rows"]), int(params["cols"])  # type: ignore[call-overload]


def gemm_tile_program(engine: Accelerator, *, m: int, k: int, n: int) -> Program:
    """One training GEMM tile as the SoC runs it on the engine: ``A^T`` (``k x m``) at
    ``gb[0]`` and ``B`` (``k x n``) at ``gb[k * m]`` are copied into the scratchpads, ``C =
    A @ B`` goes to ``acc[0]`` and its int16 requantization (``>> 12``, a product to an
    activation or gradient) to ``gb[k * (m + n)]``: the eDRAM traffic, its refresh stalls and
    the array's folds, priced by the engine's model."""
    _array(engine)
    prog = engine.program()
    prog.run("load_a", a_addr=0, b_addr=0, z_addr=0, op=_OP["copy"], n=k * m, shift=0,
             rows=0, cols=0)
    prog.run("load_b", a_addr=k * m, b_addr=k * m, z_addr=0, op=_OP["copy"], n=k * n, shift=0,
             rows=0, cols=0)
    prog.run("gemm", a_addr=0, b_addr=0, c_addr=0, c_in_addr=0, m=m, k=k, n=n, accumulate=0)
    prog.run("drain", a_addr=0, b_addr=0, z_addr=k * (m + n), op=_OP["requant"], n=m * n,
             shift=_PRODUCT_SHIFT, rows=0, cols=0)
    return prog


@dataclass(frozen=True)
class BlockShape:
    """A reversible block's size: ``batch`` rows of ``2 d`` features, weights ``d x d``, and
    the SGD learning rate ``2**-lr_shift``."""

    batch: int
    d: int
    lr_shift: int = 4

    def __post_init__(self) -> None:
        _positive("batch", self.batch)
        _positive("d", self.d)
        if isinstance(self.lr_shift, bool) or not isinstance(self.lr_shift, int) \
                or not 0 <= self.lr_shift <= 63 - _WGRAD_SHIFT:
            raise ConfigError(f"lr_shift must be an int in 0..{63 - _WGRAD_SHIFT}, not "
                              f"{self.lr_shift!r}", field="lr_shift")


#: Tensors of the block: name -> (buffer, elements as a function of (batch, d)), in
#: allocation order per buffer.
def _tensors(batch: int, d: int) -> dict[str, tuple[str, int]]:
    act, sq = batch * d, d * d
    return {
        "x1": ("gb", act), "x2": ("gb", act), "y1": ("gb", act), "y2": ("gb", act),
        "x2r": ("gb", act), "x1r": ("gb", act), "dy1": ("gb", act), "dy2": ("gb", act),
        "dy1t": ("gb", act), "dx2": ("gb", act), "h": ("gb", act), "t": ("gb", act),
        "gg": ("gb", act), "gf": ("gb", act),
        "wf": ("gb", sq), "wg": ("gb", sq), "tw": ("gb", sq), "wf_new": ("gb", sq),
        "wg_new": ("gb", sq),
        "spa": ("spa", act), "spb": ("spb", max(sq, act)),
        "zf": ("acc", act), "zg": ("acc", act), "p": ("acc", act), "dwf": ("acc", sq),
        "dwg": ("acc", sq),
    }


@dataclass(frozen=True)
class BlockLayout:
    """Where a block's tensors live.

    Attributes
    ----------
    shape : BlockShape
    places : dict of str to (str, int)
        Tensor -> (buffer, element address). ``dx1`` shares ``dy1t``'s words.
    words : dict of str to int
        Words each buffer must hold.
    phase_steps : dict of str to (int, int)
        Per phase of the program it came with, its ``[first, end)`` program step indices
        (empty for a layout from :func:`block_layout`).
    """

    shape: BlockShape
    places: dict[str, tuple[str, int]]
    words: dict[str, int]
    phase_steps: dict[str, tuple[int, int]] = field(default_factory=dict)

    def addr(self, name: str) -> int:
        """The element address of tensor ``name``."""
        return self.places[name][1]


def block_layout(shape: BlockShape) -> BlockLayout:
    """The tensors' places for a block of ``shape`` (the module docstring's buffers)."""
    places: dict[str, tuple[str, int]] = {}
    nxt: dict[str, int] = {}
    for name, (buf, size) in _tensors(shape.batch, shape.d).items():
        places[name] = (buf, nxt.get(buf, 0))
        nxt[buf] = nxt.get(buf, 0) + size
    places["dx1"] = places["dy1t"]
    return BlockLayout(shape, places, nxt)


def reversible_block_program(engine: Accelerator, shape: BlockShape, *,
                             phases: Sequence[str] = PHASES) -> tuple[Program, BlockLayout]:
    """The program of one reversible block (module docstring) on a :func:`camel_engine`.

    Parameters
    ----------
    engine : Accelerator
        A :func:`camel_engine` description.
    shape : BlockShape
        ``batch`` a multiple of the array's rows, ``d`` a multiple of its rows and cols.
    phases : sequence of str
        The phases to run: a prefix of :data:`PHASES` (each phase reads what the earlier
        ones wrote: the recompute the outputs, the backward the recompute's ``x2'``, ``zF``,
        ``zG``, the update the weight gradients).

    Returns
    -------
    (Program, BlockLayout)
        The program and the layout, whose ``phase_steps`` give each phase's steps.

    Raises
    ------
    ConfigError
        The engine is not a :func:`camel_engine`, a size the array cannot tile, tensors that
        do not fit a buffer, or ``phases`` not a non-empty prefix of :data:`PHASES`.
    """
    rows, cols = _array(engine)
    if not isinstance(shape, BlockShape):
        raise ConfigError(f"shape must be a BlockShape, not {shape!r}", field="shape")
    b, d = shape.batch, shape.d
    if b % rows:
        raise ConfigError(f"batch ({b}) must be a multiple of the array's rows ({rows})",
                          field="batch")
    if d % rows or d % cols:
        raise ConfigError(f"d ({d}) must be a multiple of the array's rows ({rows}) and "
                          f"cols ({cols})", field="d")
    phases = tuple(phases)
    if not phases or phases != PHASES[:len(phases)]:
        raise ConfigError(f"phases must be a non-empty prefix of {PHASES}, not {phases}",
                          field="phases", allowed=[list(PHASES[:i + 1])
                                                   for i in range(len(PHASES))])
    layout = block_layout(shape)
    for buf, need in layout.words.items():
        have = engine.buffers[buf].words
        if need > have:
            raise ConfigError(f"a block of batch {b} and d {d} needs {need} words of buffer "
                              f"{buf!r}; accelerator {engine.name!r} has {have}",
                              field=f"{buf}_words")
    at = layout.addr
    prog = engine.program()

    def vec(unit: str, op: str, a: str, z: str, *, src_b: str | None = None, n: int = 0,
            shift: int = 0, t_rows: int = 0, t_cols: int = 0) -> None:
        prog.run(unit, a_addr=at(a), b_addr=at(src_b or a), z_addr=at(z), op=_OP[op], n=n,
                 shift=shift, rows=t_rows, cols=t_cols)

    def load(unit: str, src: str, dst: str, *, transpose: tuple[int, int] | None = None,
             n: int = 0) -> None:
        if transpose is None:
            vec(unit, "copy", src, dst, n=n)
        else:
            vec(unit, "transpose", src, dst, t_rows=transpose[0], t_cols=transpose[1])

    def gemm(c: str, m: int, k: int, n: int) -> None:
        prog.run("gemm", a_addr=at("spa"), b_addr=at("spb"), c_addr=at(c), c_in_addr=0,
                 m=m, k=k, n=n, accumulate=0)

    def branch(u: str, w: str, z: str) -> None:
        """``z = u @ w`` into acc; ``h = relu(rshift(z, 12))`` in the global buffer."""
        load("load_a", u, "spa", transpose=(b, d))       # u^T: the GEMM's A is stored A^T
        load("load_b", w, "spb", n=d * d)
        gemm(z, b, d, d)
        vec("drain", "requant", z, "h", n=b * d, shift=_PRODUCT_SHIFT)
        vec("gvec", "relu", "h", "h", n=b * d)           # relu commutes with the rounding

    def input_grad(g: str, w: str, dy: str, out: str) -> None:
        """``out = dy + rshift(g @ w^T, 12)``."""
        load("load_a", g, "spa", transpose=(b, d))
        load("load_b", w, "spb", transpose=(d, d))       # w^T
        gemm("p", b, d, d)
        vec("drain", "requant", "p", "t", n=b * d, shift=_PRODUCT_SHIFT)
        vec("gvec", "add", dy, out, src_b="t", n=b * d)

    def weight_grad(u: str, g: str, dw: str) -> None:
        """``dw = u^T @ g``: u row-major is (u^T) stored transposed, so no transpose."""
        load("load_a", u, "spa", n=b * d)
        load("load_b", g, "spb", n=b * d)
        gemm(dw, d, b, d)

    steps: dict[str, tuple[int, int]] = {}
    for phase in phases:
        first = len(prog)
        if phase == "forward":
            branch("x2", "wf", "zf")
            vec("gvec", "add", "x1", "y1", src_b="h", n=b * d)
            branch("y1", "wg", "zg")
            vec("gvec", "add", "x2", "y2", src_b="h", n=b * d)
        elif phase == "recompute":
            branch("y1", "wg", "zg")
            vec("gvec", "sub", "y2", "x2r", src_b="h", n=b * d)
            branch("x2r", "wf", "zf")
            vec("gvec", "sub", "y1", "x1r", src_b="h", n=b * d)
        elif phase == "backward":
            vec("rgrad", "relu_grad", "dy2", "gg", src_b="zg", n=b * d)
            weight_grad("y1", "gg", "dwg")
            input_grad("gg", "wg", "dy1", "dy1t")
            vec("rgrad", "relu_grad", "dy1t", "gf", src_b="zf", n=b * d)
            weight_grad("x2r", "gf", "dwf")
            input_grad("gf", "wf", "dy2", "dx2")
        else:  # update: w_new = w - rshift(dw, 10 + s)
            for w, dw in (("wg", "dwg"), ("wf", "dwf")):
                vec("drain", "requant", dw, "tw", n=d * d, shift=_WGRAD_SHIFT + shape.lr_shift)
                vec("gvec", "sub", w, f"{w}_new", src_b="tw", n=d * d)
        steps[phase] = (first, len(prog))
    return prog, replace(layout, phase_steps=steps)


def phase_cycles(report: ProgramReport, layout: BlockLayout) -> dict[str, int]:
    """Cycles of each phase of a block program in ``report`` (its model,
    ``compiled.model(program)``): the sum of the phase's steps' cycles, the sequencer's
    argument loads and the refresh stalls included (the HALT's few cycles are in none)."""
    return {phase: sum(s.cycles for s in report.steps[first:end])
            for phase, (first, end) in layout.phase_steps.items()}


# -- numbers in and out -------------------------------------------------------------------------

def quantize(values: np.ndarray, frac_bits: int, width: int = WORD_BITS) -> np.ndarray:
    """Float values -> signed ``width``-bit codes of ``frac_bits`` fractional bits (round half
    up, saturate): ``clip(floor(v * 2**frac_bits + 1/2))``."""
    codes = np.floor(np.asarray(values, dtype=np.float64) * 2.0 ** frac_bits + 0.5)
    lim = 1 << (width - 1)
    return np.clip(codes, -lim, lim - 1).astype(np.int64)


def _check_inputs(batch: int, d: int, x: np.ndarray, wf: np.ndarray, wg: np.ndarray,
                  dy1: np.ndarray, dy2: np.ndarray) -> None:
    for what, arr, shape in (("x", x, (batch, 2 * d)), ("wf", wf, (d, d)), ("wg", wg, (d, d)),
                             ("dy1", dy1, (batch, d)), ("dy2", dy2, (batch, d))):
        if np.shape(arr) != shape:
            raise ConfigError(f"{what} must have shape {shape}, not {np.shape(arr)}",
                              field=what)


def block_inputs(layout: BlockLayout, x: np.ndarray, wf: np.ndarray, wg: np.ndarray,
                 dy1: np.ndarray, dy2: np.ndarray) -> dict[str, np.ndarray]:
    """The global buffer's initial words: ``x`` (``batch x 2d``), the weights (``d x d``,
    ``[in, out]``) and the output gradients (``batch x d`` each), quantized (:func:`quantize`)
    to the module's formats; the other buffers start at zero."""
    b, d = layout.shape.batch, layout.shape.d
    _check_inputs(b, d, x, wf, wg, dy1, dy2)
    words = np.zeros(layout.words["gb"], np.int64)
    mask = (1 << WORD_BITS) - 1
    x = np.asarray(x, dtype=np.float64)
    for name, values, frac in (("x1", x[:, :d], ACT_FRAC_BITS), ("x2", x[:, d:], ACT_FRAC_BITS),
                               ("wf", wf, WEIGHT_FRAC_BITS), ("wg", wg, WEIGHT_FRAC_BITS),
                               ("dy1", dy1, GRAD_FRAC_BITS), ("dy2", dy2, GRAD_FRAC_BITS)):
        flat = quantize(values, frac).ravel() & mask
        addr = layout.addr(name)
        words[addr:addr + flat.size] = flat
    return {"gb": words}


def read_block_outputs(layout: BlockLayout,
                       buffers: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The block's results from the final buffer words: ``y1, y2, x1r, x2r, dx1, dx2`` (``batch
    x d``), ``dwf, dwg, wf_new, wg_new`` (``d x d``) as signed integer codes, and each as
    float64 values under ``<name>_f`` (scales: :data:`OUTPUT_FRAC_BITS`)."""
    b, d = layout.shape.batch, layout.shape.d
    out: dict[str, np.ndarray] = {}
    for name, frac in OUTPUT_FRAC_BITS.items():
        buf, addr = layout.places[name]
        width = ACC_BITS if buf == "acc" else WORD_BITS
        shape = (d, d) if name.startswith(("dw", "w")) else (b, d)
        raw = np.asarray(buffers[buf][addr:addr + shape[0] * shape[1]], dtype=np.int64)
        raw = raw & ((1 << width) - 1)
        codes = np.where(raw >= 1 << (width - 1), raw - (1 << width), raw).reshape(shape)
        out[name] = codes
        out[f"{name}_f"] = codes * 2.0 ** -frac
    return out


# -- references ----------------------------------------------------------------------------------

def _half_up(x: np.ndarray, shift: int) -> np.ndarray:
    """``floor(x / 2**shift + 1/2)`` by floor division (an independent spelling)."""
    if shift == 0:
        return x.copy()
    return (x + (1 << (shift - 1))) // (1 << shift)


def _clip16(x: np.ndarray) -> np.ndarray:
    return np.clip(x, -(1 << 15), (1 << 15) - 1)


def _wrap32(x: np.ndarray) -> np.ndarray:
    return (x + (1 << 31)) % (1 << 32) - (1 << 31)


def reference_block_fixed(x: np.ndarray, wf: np.ndarray, wg: np.ndarray, dy1: np.ndarray,
                          dy2: np.ndarray, *, lr_shift: int = 4) -> dict[str, np.ndarray]:
    """The block in the engine's integer formats, written from the math (numpy ``int64``):
    the integer codes :func:`read_block_outputs` gives (keys without ``_f``), bit for bit.

    Inputs are floats, quantized by :func:`quantize` as :func:`block_inputs` does.
    """
    batch, d = np.shape(x)[0], np.shape(x)[1] // 2
    _check_inputs(batch, d, x, wf, wg, dy1, dy2)
    xq = quantize(x, ACT_FRAC_BITS)
    x1, x2 = xq[:, :d], xq[:, d:]
    wfq, wgq = quantize(wf, WEIGHT_FRAC_BITS), quantize(wg, WEIGHT_FRAC_BITS)
    dy1q, dy2q = quantize(dy1, GRAD_FRAC_BITS), quantize(dy2, GRAD_FRAC_BITS)
    s = WEIGHT_FRAC_BITS  # a product of any operand and a weight back to its own scale

    def branch(u: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        z = _wrap32(u @ w)
        return z, np.maximum(_clip16(_half_up(z, s)), 0)

    _, f = branch(x2, wfq)
    y1 = _clip16(x1 + f)
    _, g = branch(y1, wgq)
    y2 = _clip16(x2 + g)
    zg, g = branch(y1, wgq)
    x2r = _clip16(y2 - g)
    zf, f = branch(x2r, wfq)
    x1r = _clip16(y1 - f)
    gg = _clip16(np.where(zg > 0, dy2q, 0))
    dwg = _wrap32(y1.T @ gg)
    dy1t = _clip16(dy1q + _clip16(_half_up(_wrap32(gg @ wgq.T), s)))
    gf = _clip16(np.where(zf > 0, dy1t, 0))
    dwf = _wrap32(x2r.T @ gf)
    dx2 = _clip16(dy2q + _clip16(_half_up(_wrap32(gf @ wfq.T), s)))
    step = ACT_FRAC_BITS + GRAD_FRAC_BITS - WEIGHT_FRAC_BITS + lr_shift
    wg_new = _clip16(wgq - _clip16(_half_up(dwg, step)))
    wf_new = _clip16(wfq - _clip16(_half_up(dwf, step)))
    return {"y1": y1, "y2": y2, "x1r": x1r, "x2r": x2r, "dx1": dy1t, "dx2": dx2,
            "dwf": dwf, "dwg": dwg, "wf_new": wf_new, "wg_new": wg_new}


def reference_block_float(x: np.ndarray, wf: np.ndarray, wg: np.ndarray, dy1: np.ndarray,
                          dy2: np.ndarray, *, lr_shift: int = 4) -> dict[str, np.ndarray]:
    """The same block in float64 (no quantization), keyed as :func:`read_block_outputs`'s
    float values (``<name>_f``)."""
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[1] // 2
    x1, x2 = x[:, :d], x[:, d:]
    wf, wg = np.asarray(wf, np.float64), np.asarray(wg, np.float64)
    dy1, dy2 = np.asarray(dy1, np.float64), np.asarray(dy2, np.float64)
    y1 = x1 + np.maximum(x2 @ wf, 0)
    y2 = x2 + np.maximum(y1 @ wg, 0)
    zg = y1 @ wg
    x2r = y2 - np.maximum(zg, 0)
    zf = x2r @ wf
    x1r = y1 - np.maximum(zf, 0)
    gg = dy2 * (zg > 0)
    dwg = y1.T @ gg
    dy1t = dy1 + gg @ wg.T
    gf = dy1t * (zf > 0)
    dwf = x2r.T @ gf
    dx2 = dy2 + gf @ wf.T
    lr = 2.0 ** -lr_shift
    return {"y1_f": y1, "y2_f": y2, "x1r_f": x1r, "x2r_f": x2r, "dx1_f": dy1t, "dx2_f": dx2,
            "dwf_f": dwf, "dwg_f": dwg, "wf_new_f": wf - lr * dwf, "wg_new_f": wg - lr * dwg}


def soc_camel_25c() -> Accelerator:
    """:func:`soc_camel` at 25 C (the CAMEL study's temperature), as a factory the SoC
    simulator's ``description`` field can name."""
    return soc_camel(temperature_c=25.0)
