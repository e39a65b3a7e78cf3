"""A small NPU written with the accelerator DSL, and a transformer layer programmed on it.

:func:`small_npu` declares an NPU of the kind EdgeBERT's is (a MAC array beside special-
function units, operand buffers and a host-programmed controller): an ``rows x cols`` int8
GEMM array, element-wise vector units that requantize and transpose between the buffers,
softmax and LayerNorm units in Q6.10, four buffers and the controller. With ``dvfs=True`` the
datapath and its buffers sit in a regulated ``core`` domain with four operating points,
changed by the DVFS controller (LDO + ADPLL) while the controller and bus stay in ``main``.

:func:`transformer_layer` writes the program of one post-LayerNorm encoder layer (single-head
self-attention, output projection and residual, LayerNorm, a ReLU feed-forward block and
residual, LayerNorm) for ``seq`` tokens of width ``d``; :func:`transformer_inputs` makes its
quantized inputs, and :func:`reference_layer` computes the same layer in float64 numpy.

Number formats (the program's shifts keep these scales): activations int8 with scale
``2**-4``, weights int8 with scale ``2**-6``, accumulators int32, the softmax/LayerNorm
buffer Q6.10 (scale ``2**-10``), probabilities as int8 with scale ``2**-7``.

>>> from archsim.dsl.examples.npu import small_npu, transformer_layer, transformer_inputs
>>> npu = small_npu()
>>> program, layout = transformer_layer(npu)
>>> buffers, params = transformer_inputs(layout, seed=0)
>>> out = npu.compile().golden(program, buffers)            # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..accel import MAIN_DOMAIN, Accelerator, Program

__all__ = ["small_npu", "dvfs_npu", "transformer_layer", "transformer_inputs",
           "reference_layer", "LayerLayout", "DVFS_POINTS", "read_output", "gemm_tile_program",
           "soc_npu",
           "layer_program", "layer_inputs"]

#: Operating points of the ``core`` domain of the DVFS NPU: ``(voltage_v, frequency_hz)``,
#: on the default V-f curve of :mod:`archsim.hw.models.dvfs` (f_max 486 / 686 / 855 /
#: 1000 MHz at 0.5 / 0.6 / 0.7 / 0.8 V; an assumed alpha-power law).
DVFS_POINTS: dict[str, tuple[float, float]] = {
    "nominal": (0.8, 1000e6), "mid": (0.7, 800e6), "low": (0.6, 600e6), "min": (0.5, 400e6)}

# Vector-unit opcodes (archsim.hw.accel.vector.VECTOR_OPS; repeated here because a
# description never imports the hardware). tests/test_dsl_examples_npu.py checks they agree.
_OP = {"relu": 4, "copy": 5, "requant": 6, "transpose": 8}


def small_npu(*, rows: int = 4, cols: int = 4, dvfs: bool = False, name: str = "npu",
              words: tuple[int, int, int, int] = (1024, 2304, 1344, 608)) -> Accelerator:
    """The NPU description (module docstring); ``rows x cols`` MACs and ``words`` elements in
    its ``act``, ``wgt``, ``acc`` and ``vec`` buffers (the default holds the example layer)."""
    act_words, wgt_words, acc_words, vec_words = words
    npu = Accelerator(name=name)
    domain = MAIN_DOMAIN
    if dvfs:
        domain = "core"
        npu.domain(domain, operating_points=DVFS_POINTS)
    npu.buffer("act", words=act_words, width=8, banks=rows, domain=domain)
    npu.buffer("wgt", words=wgt_words, width=8, banks=cols, domain=domain)
    npu.buffer("acc", words=acc_words, width=32, banks=cols, read_ports=3, write_ports=2,
               domain=domain)
    npu.buffer("vec", words=vec_words, width=16, read_ports=3, domain=domain)
    npu.unit("gemm", "gemm", rows=rows, cols=cols, domain=domain,
             bind={"a": "act", "b": "wgt", "c": "acc", "c_in": "acc"})
    vector = {"to_act": ("acc", "act", 32, 8), "to_wgt": ("acc", "wgt", 32, 8),
              "to_vec": ("acc", "vec", 32, 16), "vec_to_act": ("vec", "act", 16, 8),
              "vec_to_acc": ("vec", "acc", 16, 32), "vacc": ("acc", "acc", 32, 32)}
    for unit, (src, dst, in_w, out_w) in vector.items():
        npu.unit(unit, "vector", a_width=in_w, b_width=in_w, z_width=out_w, domain=domain,
                 bind={"a": src, "b": src, "z": dst})
    npu.unit("softmax", "softmax", domain=domain, bind={"src": "vec", "dst": "vec"})
    npu.unit("layernorm", "layernorm", domain=domain,
             bind={"src": "vec", "gamma": "vec", "beta": "vec", "dst": "vec"})
    return npu


@dataclass(frozen=True)
class LayerLayout:
    """Where the layer's tensors live: ``name -> (buffer, element address)``, and its sizes."""

    seq: int
    d: int
    d_ff: int
    places: dict[str, tuple[str, int]]

    def addr(self, name: str) -> int:
        """The element address of tensor ``name``."""
        return self.places[name][1]


def _layout(seq: int, d: int, d_ff: int) -> LayerLayout:
    sizes = {  # tensor -> (buffer, elements), in allocation order per buffer
        "xT": ("act", d * seq), "qT": ("act", d * seq), "pT": ("act", seq * seq),
        "oT": ("act", d * seq), "yT": ("act", d * seq), "hT": ("act", d_ff * seq),
        "wq": ("wgt", d * d), "wk": ("wgt", d * d), "wv": ("wgt", d * d), "wo": ("wgt", d * d),
        "w1": ("wgt", d * d_ff), "w2": ("wgt", d_ff * d), "kT": ("wgt", d * seq),
        "v8": ("wgt", seq * d),
        "q": ("acc", seq * d), "k": ("acc", seq * d), "v": ("acc", seq * d),
        "s": ("acc", seq * seq), "o": ("acc", seq * d), "x_res": ("acc", seq * d),
        "y_pre": ("acc", seq * d), "y_res": ("acc", seq * d), "h": ("acc", seq * d_ff),
        "z_pre": ("acc", seq * d),
        "s_q": ("vec", seq * seq), "y_q": ("vec", seq * d), "gamma": ("vec", d),
        "beta": ("vec", d), "y_ln": ("vec", seq * d), "z_q": ("vec", seq * d),
        "out": ("vec", seq * d),
    }
    nxt: dict[str, int] = {}
    places = {}
    for name, (buf, size) in sizes.items():
        places[name] = (buf, nxt.get(buf, 0))
        nxt[buf] = nxt.get(buf, 0) + size
    return LayerLayout(seq, d, d_ff, places)


def transformer_layer(npu: Accelerator, *, seq: int = 8, d: int = 16, d_ff: int = 32,
                      program: Program | None = None) -> tuple[Program, LayerLayout]:
    """The program of one encoder layer on ``npu`` (module docstring), appended to
    ``program`` if given. ``d`` must be 16 for the score scaling (``1 / sqrt(d)`` is a shift
    by 2) and all sizes multiples of the array's rows and columns."""
    if d != 16:
        raise ValueError(f"the layer's attention scaling assumes d = 16, not {d}")
    lay = _layout(seq, d, d_ff)
    a = lay.addr
    prog = program if program is not None else npu.program()

    def gemm(a_t: str, b: str, c: str, m: int, k: int, n: int, c_in: str | None = None) -> None:
        prog.run("gemm", a_addr=a(a_t), b_addr=a(b), c_addr=a(c),
                 c_in_addr=a(c_in) if c_in else 0, m=m, k=k, n=n,
                 accumulate=1 if c_in else 0)

    def vector(unit: str, op: str, src: str, dst: str, *, n: int = 0, shift: int = 0,
               rows: int = 0, cols: int = 0) -> None:
        prog.run(unit, a_addr=a(src), b_addr=a(src), z_addr=a(dst), op=_OP[op], n=n,
                 shift=shift, rows=rows, cols=cols)

    # attention: q, k, v = x wq, x wk, x wv (accumulator scale 2**-10)
    gemm("xT", "wq", "q", seq, d, d)
    gemm("xT", "wk", "k", seq, d, d)
    gemm("xT", "wv", "v", seq, d, d)
    vector("to_act", "transpose", "q", "qT", shift=6, rows=seq, cols=d)     # q^T, 2**-4
    vector("to_wgt", "transpose", "k", "kT", shift=6, rows=seq, cols=d)     # k^T, 2**-4
    vector("to_wgt", "requant", "v", "v8", n=seq * d, shift=6)              # v, 2**-4
    gemm("qT", "kT", "s", seq, d, seq)                                      # scores, 2**-8
    # scores / sqrt(16) in Q6.10: (s * 2**-8) / 4 * 2**10 = s
    vector("to_vec", "requant", "s", "s_q", n=seq * seq, shift=0)
    prog.run("softmax", src_addr=a("s_q"), dst_addr=a("s_q"), rows=seq, n=seq)
    vector("vec_to_act", "transpose", "s_q", "pT", shift=3, rows=seq, cols=seq)  # p^T, 2**-7
    gemm("pT", "v8", "o", seq, seq, d)                                      # o, 2**-11
    vector("to_act", "transpose", "o", "oT", shift=7, rows=seq, cols=d)     # o^T, 2**-4
    gemm("oT", "wo", "y_pre", seq, d, d, c_in="x_res")                      # o wo + x, 2**-10
    vector("to_vec", "requant", "y_pre", "y_q", n=seq * d, shift=0)         # Q6.10
    prog.run("layernorm", src_addr=a("y_q"), gamma_addr=a("gamma"), beta_addr=a("beta"),
             dst_addr=a("y_ln"), rows=seq, n=d)
    # feed-forward: relu(y w1) w2 + y
    vector("vec_to_act", "transpose", "y_ln", "yT", shift=6, rows=seq, cols=d)  # y^T, 2**-4
    vector("vec_to_acc", "copy", "y_ln", "y_res", n=seq * d)                # y, 2**-10
    gemm("yT", "w1", "h", seq, d, d_ff)                                     # h, 2**-10
    vector("vacc", "relu", "h", "h", n=seq * d_ff)
    vector("to_act", "transpose", "h", "hT", shift=6, rows=seq, cols=d_ff)  # h^T, 2**-4
    gemm("hT", "w2", "z_pre", seq, d_ff, d, c_in="y_res")                   # z, 2**-10
    vector("to_vec", "requant", "z_pre", "z_q", n=seq * d, shift=0)
    prog.run("layernorm", src_addr=a("z_q"), gamma_addr=a("gamma"), beta_addr=a("beta"),
             dst_addr=a("out"), rows=seq, n=d)
    return prog, lay


def _codes(values: np.ndarray, width: int) -> np.ndarray:
    """Signed ints -> raw unsigned words of ``width`` bits."""
    return np.asarray(values, dtype=np.int64) & ((1 << width) - 1)


def transformer_inputs(layout: LayerLayout, *, seed: int = 0
                       ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Random quantized inputs and weights of the layer, placed in the buffers.

    Returns the buffers' initial words and the float64 values they encode (``x``, ``wq``,
    ``wk``, ``wv``, ``wo``, ``w1``, ``w2``; LayerNorm's gamma = 1 and beta = 0).
    """
    rng = np.random.default_rng(seed)
    s, d, f = layout.seq, layout.d, layout.d_ff
    x = np.clip(np.round(rng.normal(0, 1.0, (s, d)) * 16), -128, 127)
    weights = {name: np.clip(np.round(rng.normal(0, 1 / np.sqrt(shape[0]), shape) * 64),
                             -128, 127)
               for name, shape in (("wq", (d, d)), ("wk", (d, d)), ("wv", (d, d)),
                                   ("wo", (d, d)), ("w1", (d, f)), ("w2", (f, d)))}
    words = {"act": np.zeros(1024, np.int64), "wgt": np.zeros(2304, np.int64),
             "acc": np.zeros(1344, np.int64), "vec": np.zeros(608, np.int64)}

    def put(name: str, values: np.ndarray, width: int) -> None:
        buf, addr = layout.places[name]
        flat = _codes(values.ravel(), width)
        words[buf][addr:addr + flat.size] = flat

    put("xT", x.T, 8)
    put("x_res", x * 64, 32)  # x at the accumulator's scale 2**-10
    for name, w in weights.items():
        put(name, w, 8)  # [in, out] row-major: the GEMM's K x N operand
    put("gamma", np.full(d, 1024), 16)
    put("beta", np.zeros(d), 16)
    floats = {"x": x / 16, **{k: v / 64 for k, v in weights.items()}}
    return words, floats


def read_output(layout: LayerLayout, buffers: dict[str, np.ndarray]) -> np.ndarray:
    """The layer's output (``seq x d`` float64) from the final buffer words."""
    buf, addr = layout.places["out"]
    n = layout.seq * layout.d
    raw = buffers[buf][addr:addr + n].astype(np.int64)
    signed = np.where(raw >= 1 << 15, raw - (1 << 16), raw)
    return (signed / 1024.0).reshape(layout.seq, layout.d)


def reference_layer(floats: dict[str, np.ndarray], *, eps: float = 2.0 ** -20) -> np.ndarray:
    """The same encoder layer in float64 (no quantization): the accuracy reference."""
    x = floats["x"]

    def layernorm(v: np.ndarray) -> np.ndarray:
        mu = v.mean(axis=-1, keepdims=True)
        return (v - mu) / np.sqrt(v.var(axis=-1, keepdims=True) + eps)

    q, k, v = x @ floats["wq"], x @ floats["wk"], x @ floats["wv"]
    scores = q @ k.T / np.sqrt(x.shape[1])
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    y = layernorm(p @ v @ floats["wo"] + x)
    h = np.maximum(y @ floats["w1"], 0)
    return layernorm(h @ floats["w2"] + y)


def gemm_tile_program(npu: Accelerator, *, m: int, k: int, n: int) -> Program:
    """One int8 GEMM tile with its output requantized to int8, as an SoC runs it: ``a``
    (``k x m``, transposed) at ``act[0]``, ``w`` (``k x n``) at ``wgt[0]``, the int32 result
    in ``acc[0]`` and its int8 copy (``>> 7``) at ``act[k * m]``."""
    prog = npu.program()
    prog.run("gemm", a_addr=0, b_addr=0, c_addr=0, c_in_addr=0, m=m, k=k, n=n, accumulate=0)
    prog.run("to_act", a_addr=0, b_addr=0, z_addr=k * m, op=_OP["requant"], n=m * n, shift=7,
             rows=0, cols=0)
    return prog


def soc_npu() -> Accelerator:
    """An 8 x 8 NPU with 32K-element buffers, large enough for an SoC's convolution tiles."""
    return small_npu(rows=8, cols=8, name="npu8", words=(32768, 32768, 32768, 1024))


def dvfs_npu() -> Accelerator:
    """:func:`small_npu` with its datapath in the regulated ``core`` domain."""
    return small_npu(dvfs=True, name="npu_dvfs")


def layer_program(npu: Accelerator) -> Program:
    """:func:`transformer_layer`'s program alone (for ``archsim accel --program``)."""
    return transformer_layer(npu)[0]


def layer_inputs(npu: Accelerator, *, seed: int = 0) -> dict[str, np.ndarray]:
    """:func:`transformer_inputs`'s buffer words alone (for ``archsim accel --inputs``)."""
    del npu
    return transformer_inputs(_layout(8, 16, 32), seed=seed)[0]
