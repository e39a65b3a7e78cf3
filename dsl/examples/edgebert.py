"""EdgeBERT's accelerator written in the DSL, and the program of one BERT encoder layer on it.

:func:`edgebert_accelerator` follows the authors' configuration (Tambe et al., MICRO 2021;
harvard-acc/EdgeBERT ``hw/cmod``, the files named below): a processing unit of ``size x size``
= 256 AdaptivFloat(8, 3) MACs with a ``acc_width``-bit accumulator (``Datapath``/``Accum``;
``kAccumWordWidth = 16`` in ``include/Spec.h``), a bitmask decoder for pruned weights
(``Decode``, ``Xbar_Dec``), the global buffer's special-function units -- LayerNorm, softmax,
element-wise add (and GELU), entropy -- in 16-bit fixed point with 10 fractional bits
(``GBModule``; ``kActNumFrac = 10``) with AdaptivFloat <-> fixed conversions around them
(``PPU.h``: ``Adpfloat2Fixed`` / ``Fixed2Adpfloat``), the entropy-driven DVFS unit (``Dvfs``:
entropy -> 16 bins -> a host-programmed table), and its memories:

========== ====== ===== ======= =========== ===============================================
buffer     bits   banks words   technology  holds
========== ====== ===== ======= =========== ===============================================
input      8      16    65536   SRAM        activations and the current weight tile
                                            (``Spec.h``: 16 banks x 4096 x 8 b)
gb         16     16    65536   SRAM        fixed-point tensors, biases, LayerNorm's
                                            gamma/beta (the GB units' working store; size
                                            assumed: the authors' GB buffers are not sized
                                            in ``Spec.h``)
envm       8      16    2**24   ReRAM       the shared parameters (the eNVM): an encoder
                                            layer's weights and the word-embedding table,
                                            bitmask-encoded (packed nonzero codes)
envm_mask  16     1     2**20   ReRAM       their 16-bit row masks (``Spec.h``'s mask memory
                                            is 4096 x 16 b beside the input buffer for
                                            AXI-loaded tiles; here every mask of the layer
                                            stays on chip: a stated deviation)
dvfs_mem   8      1     256     SRAM        the DVFS table (``Spec.h``: 256 x 8 b)
========== ====== ===== ======= =========== ===============================================

The datapath, its buffers, the global-buffer units and the entropy-DVFS unit with its table
sit in the regulated ``core`` domain (an LDO and an ADPLL driven by the DVFS controller); the
controller and the bus in ``main``. A program switches the core's point from the DVFS unit's
result (``set_operating_point("core", from_unit="dvfs")``): EdgeBERT's per-sentence DVFS.
The aux buffer of ``Spec.h`` (16 x 256 x 8 b, for the adaptive attention span and LayerNorm
parameters) is left out: gamma/beta sit in ``gb`` and the attention span is not used.
:func:`embedding_program` gathers a sentence's rows of the word-embedding table from the
eNVM and computes the first layer's input on chip.

:func:`encoder_layer_program` writes one post-LayerNorm BERT encoder layer (12-head
self-attention with biases, output projection and residual, LayerNorm, a GELU feed-forward
block and residual, LayerNorm) for ``seq`` tokens of width ``d`` on it. Its tensors are
AdaptivFloat(8, 3) codes with one 3-bit exponent bias each (:class:`LayerBiases`) in
``input`` and Q6.10 words in ``gb``; every GEMM's 16-bit result is Q6.10 (shift ``18 -
bias_a - bias_b``), converted to codes where the next GEMM reads it. Weight matrices are
decoded from ``envm`` into the input buffer's weight slot one chunk of output rows at a time,
then multiplied. The host side -- quantizing a real model's layer into these buffers -- is
:mod:`archsim.sim.studies.edgebert.layer`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..accel import Accelerator, Program

__all__ = ["edgebert_accelerator", "encoder_layer_program", "LayerBiases", "LayerShape",
           "LayerLayout", "EDGEBERT_POINTS", "MINILM_SHAPE", "GELU_OP", "ADD_OP",
           "weight_chunks", "offramp_program", "OFFRAMP_PLACES", "TANH_OP", "soc_edgebert",
           "gemm_tile_program", "embedding_program", "layer_layout", "dense_weight_rows",
           "MINILM_LAYER1_BIASES", "layer_program"]

#: Operating points of the ``core`` domain, ``(voltage_v, frequency_hz)``, highest first (a
#: run starts at the first): eight LDO codes evenly spread over the default LDO's 0.5-0.8 V
#: (codes 255, 219, 182, 146, 109, 73, 36, 0 of 256), each with the fastest ADPLL frequency
#: (of its 64 codes, 100 MHz - 1 GHz) under the default V-f curve's f_max at that voltage.
#: The defaults are :mod:`archsim.hw.models.dvfs`'s (an assumed alpha-power law, 1 GHz at
#: 0.8 V); EdgeBERT's LDO and ADPLL ranges are recollections (~0.5-0.8 V, up to ~1 GHz),
#: not verified.
EDGEBERT_POINTS: dict[str, tuple[float, float]] = {
    "v800": (0.8000000000, 1000.0000000e6), "v758": (0.7576470588, 928.5714286e6),
    "v714": (0.7141176471, 871.4285714e6), "v672": (0.6717647059, 800.0000000e6),
    "v628": (0.6282352941, 728.5714286e6), "v586": (0.5858823529, 657.1428571e6),
    "v542": (0.5423529412, 571.4285714e6), "v500": (0.5000000000, 485.7142857e6)}

# Vector-unit opcodes (archsim.hw.accel.vector.VECTOR_OPS; repeated because a description
# never imports the hardware; tests/test_dsl_examples_edgebert.py checks they agree).
ADD_OP = 0
GELU_OP = 10
TANH_OP = 11

_WEIGHT_SLOT = 24576  # input-buffer elements of the weight tile (16 rows of W2 at K = 1536)


@dataclass(frozen=True)
class LayerShape:
    """The encoder layer's sizes: ``seq`` tokens, width ``d``, ``heads`` heads, ``d_ff``."""

    seq: int
    d: int
    heads: int
    d_ff: int

    @property
    def head_dim(self) -> int:
        """``d / heads``."""
        return self.d // self.heads


#: MiniLM-L6's layer (all-MiniLM-L6-v2: hidden 384, 12 heads, FFN 1536) at 16 tokens.
MINILM_SHAPE = LayerShape(seq=16, d=384, heads=12, d_ff=1536)


@dataclass(frozen=True)
class LayerBiases:
    """The 3-bit AdaptivFloat exponent bias (0..7) of each tensor held as codes.

    Inputs ``x``; weights ``wq``, ``wk``, ``wv``, ``wo``, ``w1``, ``w2``; and the codes the
    layer makes: ``q``, ``k``, ``v``, ``p`` (attention probabilities), ``ctx``, ``x1`` (after
    the first LayerNorm) and ``h`` (after GELU).
    """

    x: int
    wq: int
    wk: int
    wv: int
    wo: int
    w1: int
    w2: int
    q: int
    k: int
    v: int
    p: int
    ctx: int
    x1: int
    h: int

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 7:
                raise ValueError(f"LayerBiases.{name} must be an int in 0..7, not {value!r}")


@dataclass(frozen=True)
class LayerLayout:
    """Where the layer's tensors live: ``name -> (buffer, element address)``, its shape, and
    the weights' chunks: ``chunks[w]`` lists ``(mask_addr, packed_addr, rows)`` per chunk of
    output rows of weight ``w`` (``rows`` dense 16-element rows decoded)."""

    shape: LayerShape
    places: dict[str, tuple[str, int]]
    chunks: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)

    def addr(self, name: str) -> int:
        """The element address of tensor ``name``."""
        return self.places[name][1]


def edgebert_accelerator(*, size: int = 16, acc_width: int = 16, envm_words: int = 1 << 24,
                         name: str = "edgebert") -> Accelerator:
    """The EdgeBERT description (module docstring): ``size x size`` MACs with an
    ``acc_width``-bit accumulator and ``envm_words`` elements of eNVM."""
    acc = Accelerator(name=name, program_words=8192)
    core = "core"
    acc.domain(core, operating_points=EDGEBERT_POINTS)
    acc.buffer("input", words=16 * 4096, width=8, banks=size, read_ports=2, write_ports=1,
               domain=core)
    acc.buffer("gb", words=65536, width=16, banks=size, read_ports=5, write_ports=2,
               domain=core)
    acc.buffer("envm", words=envm_words, width=8, banks=size, technology="reram", domain=core)
    acc.buffer("envm_mask", words=envm_words // size, width=size, technology="reram",
               domain=core)
    acc.buffer("dvfs_mem", words=256, width=8, domain=core)
    acc.unit("pu", "adaptivfloat_gemm", size=size, acc_width=acc_width, domain=core,
             bind={"a": "input", "b": "input", "bias": "gb", "c": "input", "c_fixed": "gb"})
    acc.unit("decode", "bitmask_decode", lanes=size, domain=core,
             bind={"mask": "envm_mask", "packed": "envm", "dst": "input"})
    acc.unit("to_fixed", "adaptivfloat_convert", direction="to_fixed", lanes=size,
             domain=core, bind={"src": "input", "dst": "gb"})
    acc.unit("to_adpf", "adaptivfloat_convert", direction="to_adaptivfloat", lanes=size,
             domain=core, bind={"src": "gb", "dst": "input"})
    acc.unit("eadd", "vector", lanes=size, a_width=16, b_width=16, z_width=16, domain=core,
             bind={"a": "gb", "b": "gb", "z": "gb"})
    acc.unit("softmax", "softmax", domain=core, bind={"src": "gb", "dst": "gb"})
    acc.unit("layernorm", "layernorm", domain=core,
             bind={"src": "gb", "gamma": "gb", "beta": "gb", "dst": "gb"})
    acc.unit("entropy", "entropy", domain=core, bind={"src": "gb", "dst": "gb"})
    # EdgeBERT's Dvfs unit: layer 1's entropy -> one of 16 bins -> the table's point
    acc.unit("dvfs", "entropy_dvfs", domain=core, bind={"entropy": "gb", "table": "dvfs_mem"})
    return acc


def layer_layout(shape: LayerShape, weight_rows: dict[str, list[int]]) -> LayerLayout:
    """Tensor places (module docstring) and the weights' chunks, from the dense rows of
    packed nonzeros each chunk of each weight takes (``weight_rows[w][c]``), as
    :func:`encoder_layer_program` lays them out."""
    s, d, f = shape.seq, shape.d, shape.d_ff
    act = s * d
    inp = {"x": 0, "q": act, "k": 2 * act, "vT": 3 * act, "p": 4 * act,
           "ctx": 4 * act + shape.heads * s * s, "wt": 65536 - _WEIGHT_SLOT,
           # the feed-forward phase reuses the attention tensors' space
           "x1": act, "h": 2 * act}
    if inp["ctx"] + act > inp["wt"] or inp["h"] + s * f > inp["wt"]:
        raise ValueError(f"layer shape {shape} does not fit the 64K-element input buffer")
    names = [("xf", act), ("s", shape.heads * s * s), ("o", act), ("ln1", act),
             ("hf", s * f), ("y2", act), ("out", act), ("bq", d), ("bk", d), ("bv", d),
             ("bo", d), ("b1", f), ("b2", d), ("g1", d), ("be1", d), ("g2", d), ("be2", d),
             ("ge", d), ("bee", d)]
    places = {k: ("input", v) for k, v in inp.items()}
    nxt = 0
    for name, size in names:
        places[name] = ("gb", nxt)
        nxt += -(-size // 16) * 16
    if nxt > 65536:
        raise ValueError(f"layer shape {shape} does not fit the 64K-word global buffer")
    chunks: dict[str, list[tuple[int, int, int]]] = {}
    mask_at, packed_at = 0, 0
    for w in ("wq", "wk", "wv", "wo", "w1", "w2"):
        k_dim = f if w == "w2" else d
        dense_rows = _chunk_rows(shape, w) * k_dim // 16
        chunks[w] = []
        for rows_packed in weight_rows[w]:
            chunks[w].append((mask_at, packed_at, dense_rows))
            mask_at += dense_rows
            packed_at += rows_packed * 16
    # The embedding stage (embedding_program) runs before the layer and uses the space of
    # tensors the layer writes later: the gathered codes in q, their Q6.10 sum in o, the
    # position + token-type rows in hf, the LayerNorm output in ln1.
    places["emb_codes"] = ("input", inp["q"])
    places["emb_sum"] = places["o"]
    places["emb_pos"] = places["hf"]
    places["emb_ln"] = places["ln1"]
    places["envm"] = ("envm", 0)
    places["envm_end"] = ("envm", packed_at)
    places["envm_mask_end"] = ("envm_mask", mask_at)
    return LayerLayout(shape, places, chunks)


def _chunk_rows(shape: LayerShape, weight: str) -> int:
    """Output rows of ``weight`` per decoded chunk: as many as fill the weight slot."""
    k_dim = shape.d_ff if weight == "w2" else shape.d
    n_dim = shape.d_ff if weight == "w1" else shape.d
    rows = min(n_dim, _WEIGHT_SLOT // k_dim) // 16 * 16
    if rows < 16 or n_dim % rows:
        raise ValueError(f"weight {weight!r} ({n_dim} x {k_dim}) cannot be cut into chunks "
                         f"of whole 16-row tiles that fit the {_WEIGHT_SLOT}-element slot")
    return rows


def dense_weight_rows(shape: LayerShape) -> dict[str, list[int]]:
    """``weight_rows`` of dense weights: every chunk's rows packed whole."""
    out = {}
    for w in ("wq", "wk", "wv", "wo", "w1", "w2"):
        n_chunks, rows = weight_chunks(shape, w)
        k_dim = shape.d_ff if w == "w2" else shape.d
        out[w] = [rows * k_dim // 16] * n_chunks
    return out


def weight_chunks(shape: LayerShape, weight: str) -> tuple[int, int]:
    """``(chunks, output rows per chunk)`` of ``weight`` (``"wq"`` ... ``"w2"``)."""
    rows = _chunk_rows(shape, weight)
    n_dim = shape.d_ff if weight == "w1" else shape.d
    return n_dim // rows, rows


def encoder_layer_program(acc: Accelerator, biases: LayerBiases, *,
                          shape: LayerShape = MINILM_SHAPE,
                          weight_rows: dict[str, list[int]] | None = None,
                          program: Program | None = None) -> tuple[Program, LayerLayout]:
    """The program of one encoder layer (module docstring) and its layout.

    ``weight_rows[w][c]`` is the number of 16-element rows of packed nonzeros chunk ``c`` of
    weight ``w`` takes in ``envm`` (default: dense weights, every row packed whole); the host
    side computes it from the real encoding.
    """
    s, d, f, nh, dh = shape.seq, shape.d, shape.d_ff, shape.heads, shape.head_dim
    if weight_rows is None:
        weight_rows = dense_weight_rows(shape)
    lay = layer_layout(shape, weight_rows)
    a = lay.addr
    b = biases
    prog = program if program is not None else acc.program()

    def projection(w: str, src: str, src_bias: int, w_bias: int, k_dim: int, *,
                   bias: str, dst: str, dst_stride: int, out_fixed: int = 0,
                   out_bias: int = 0, transpose_c: int = 0) -> None:
        rows = weight_chunks(shape, w)[1]
        for c, (mask_addr, packed_addr, dense_rows) in enumerate(lay.chunks[w]):
            prog.run("decode", mask_addr=mask_addr, packed_addr=packed_addr,
                     dst_addr=a("wt"), rows=dense_rows)
            n0 = c * rows
            dst_at = a(dst) + (n0 * dst_stride if transpose_c else n0)
            prog.run("pu", a_addr=a(src), b_addr=a("wt"), bias_addr=a(bias) + n0,
                     c_addr=0 if out_fixed else dst_at, c_fixed_addr=dst_at if out_fixed else 0,
                     m=s, k=k_dim, n=rows, a_stride=k_dim, b_stride=k_dim,
                     c_stride=dst_stride, shift=18 - src_bias - w_bias, use_bias=1, relu=0,
                     out_fixed=out_fixed, transpose_c=transpose_c, out_frac=10,
                     out_bias=out_bias)

    # x (codes) -> Q6.10 for the first residual
    prog.run("to_fixed", src_addr=a("x"), dst_addr=a("xf"), n=s * d, frac=10, bias=b.x)
    # q, k, v = x W^T + b (1 / sqrt(head_dim) folded into wq, bq by the host); v transposed
    projection("wq", "x", b.x, b.wq, d, bias="bq", dst="q", dst_stride=d, out_bias=b.q)
    projection("wk", "x", b.x, b.wk, d, bias="bk", dst="k", dst_stride=d, out_bias=b.k)
    projection("wv", "x", b.x, b.wv, d, bias="bv", dst="vT", dst_stride=s, out_bias=b.v,
               transpose_c=1)
    for h in range(nh):  # scores_h = q_h k_h^T (Q6.10)
        prog.run("pu", a_addr=a("q") + h * dh, b_addr=a("k") + h * dh, bias_addr=0,
                 c_addr=0, c_fixed_addr=a("s") + h * s * s, m=s, k=dh, n=s, a_stride=d,
                 b_stride=d, c_stride=s, shift=18 - b.q - b.k, use_bias=0, relu=0,
                 out_fixed=1, transpose_c=0, out_frac=10, out_bias=0)
    prog.run("softmax", src_addr=a("s"), dst_addr=a("s"), rows=nh * s, n=s)
    prog.run("to_adpf", src_addr=a("s"), dst_addr=a("p"), n=nh * s * s, frac=10, bias=b.p)
    for h in range(nh):  # ctx_h = p_h v_h (v_h^T rows are v^T's rows h*dh ...)
        prog.run("pu", a_addr=a("p") + h * s * s, b_addr=a("vT") + h * dh * s, bias_addr=0,
                 c_addr=a("ctx") + h * dh, c_fixed_addr=0, m=s, k=s, n=dh, a_stride=s,
                 b_stride=s, c_stride=d, shift=18 - b.p - b.v, use_bias=0, relu=0,
                 out_fixed=0, transpose_c=0, out_frac=10, out_bias=b.ctx)
    projection("wo", "ctx", b.ctx, b.wo, d, bias="bo", dst="o", dst_stride=d, out_fixed=1)
    prog.run("eadd", a_addr=a("o"), b_addr=a("xf"), z_addr=a("o"), op=ADD_OP, n=s * d,
             shift=0, rows=0, cols=0)
    prog.run("layernorm", src_addr=a("o"), gamma_addr=a("g1"), beta_addr=a("be1"),
             dst_addr=a("ln1"), rows=s, n=d)
    prog.run("to_adpf", src_addr=a("ln1"), dst_addr=a("x1"), n=s * d, frac=10, bias=b.x1)
    # feed-forward: gelu(x1 W1^T + b1) W2^T + b2, + x1, LayerNorm
    projection("w1", "x1", b.x1, b.w1, d, bias="b1", dst="hf", dst_stride=f, out_fixed=1)
    prog.run("eadd", a_addr=a("hf"), b_addr=a("hf"), z_addr=a("hf"), op=GELU_OP, n=s * f,
             shift=0, rows=0, cols=0)
    prog.run("to_adpf", src_addr=a("hf"), dst_addr=a("h"), n=s * f, frac=10, bias=b.h)
    projection("w2", "h", b.h, b.w2, f, bias="b2", dst="y2", dst_stride=d, out_fixed=1)
    prog.run("eadd", a_addr=a("y2"), b_addr=a("ln1"), z_addr=a("y2"), op=ADD_OP, n=s * d,
             shift=0, rows=0, cols=0)
    prog.run("layernorm", src_addr=a("y2"), gamma_addr=a("g2"), beta_addr=a("be2"),
             dst_addr=a("out"), rows=s, n=d)
    return prog, lay


#: Where :func:`offramp_program` keeps its tensors: ``name -> (buffer, element address)``.
#: The pooled layer state enters as codes in ``input`` (row 0 of a 16-row tile: the
#: processing unit works on whole 16-row tiles), the logits leave as Q6.10 in ``gb`` and the
#: entropy as one Q6.10 word; the off-ramp's weights follow the layer's in ``envm``.
OFFRAMP_PLACES: dict[str, tuple[str, int]] = {
    "pooled": ("input", 0), "t": ("input", 6144), "pool_fixed": ("gb", 0),
    "logits": ("gb", 6144), "entropy": ("gb", 6400), "bp": ("gb", 6416), "bc": ("gb", 6800),
    "wt": ("input", 65536 - _WEIGHT_SLOT)}


def offramp_program(acc: Accelerator, *, d: int = 384, envm_addr: int = 0,
                    mask_addr: int = 0, pooled_bias: int = 5, pool_weight_bias: int = 3,
                    tanh_bias: int = 7, classifier_bias: int = 3,
                    program: Program | None = None) -> Program:
    """The program of one off-ramp (EdgeBERT's ``AlbertHighway``: ``Linear(d, d)`` -> tanh ->
    ``Linear(d, 2)`` on the pooled layer state) and the entropy of its logits, whose result
    the ``entropy`` unit writes at ``OFFRAMP_PLACES["entropy"]``.

    The weights are dense-encoded in ``envm`` from ``envm_addr`` (masks from ``mask_addr``):
    the pooler's ``d x d`` in chunks of 64 rows, then the classifier's 2 rows padded to a
    16-row tile. The pooled state is taken as given in ``input`` (its mean over the tokens is
    not part of the program).
    """
    at = {k: v[1] for k, v in OFFRAMP_PLACES.items()}
    prog = program if program is not None else acc.program()
    rows = _WEIGHT_SLOT // d // 16 * 16
    dense_rows = rows * d // 16
    for c in range(d // rows):  # pooler: t = tanh(pooled Wp^T + bp)
        prog.run("decode", mask_addr=mask_addr + c * dense_rows,
                 packed_addr=envm_addr + c * dense_rows * 16, dst_addr=at["wt"],
                 rows=dense_rows)
        prog.run("pu", a_addr=at["pooled"], b_addr=at["wt"], bias_addr=at["bp"] + c * rows,
                 c_addr=0, c_fixed_addr=at["pool_fixed"] + c * rows, m=16, k=d, n=rows,
                 a_stride=d, b_stride=d, c_stride=d, shift=18 - pooled_bias - pool_weight_bias,
                 use_bias=1, relu=0, out_fixed=1, transpose_c=0, out_frac=10, out_bias=0)
    prog.run("eadd", a_addr=at["pool_fixed"], b_addr=at["pool_fixed"], z_addr=at["pool_fixed"],
             op=TANH_OP, n=16 * d, shift=0, rows=0, cols=0)
    prog.run("to_adpf", src_addr=at["pool_fixed"], dst_addr=at["t"], n=16 * d, frac=10,
             bias=tanh_bias)
    base = d // rows
    prog.run("decode", mask_addr=mask_addr + base * dense_rows,
             packed_addr=envm_addr + base * dense_rows * 16, dst_addr=at["wt"], rows=d)
    prog.run("pu", a_addr=at["t"], b_addr=at["wt"], bias_addr=at["bc"], c_addr=0,
             c_fixed_addr=at["logits"], m=16, k=d, n=16, a_stride=d, b_stride=d, c_stride=16,
             shift=18 - tanh_bias - classifier_bias, use_bias=1, relu=0, out_fixed=1,
             transpose_c=0, out_frac=10, out_bias=0)
    prog.run("entropy", src_addr=at["logits"], dst_addr=at["entropy"], rows=1, n=2)
    return prog


def soc_edgebert() -> Accelerator:
    """The EdgeBERT accelerator as an SoC's tile engine (``soc_configs/edgebert.toml``): a
    32-bit accumulator (Spec.h's 16 bits wrap on real layers: see
    ``bench/adpfloat_gemm_wrap.py``) and 1M elements of eNVM for the tiles' weights."""
    return edgebert_accelerator(acc_width=32, envm_words=1 << 20, name="edgebert_soc")


def gemm_tile_program(acc: Accelerator, *, m: int, k: int, n: int) -> Program:
    """One ``[m, k] x [k, n]`` GEMM tile as an SoC runs it: the weights (``n`` rows of ``k``
    codes, dense-encoded in ``envm`` from element 0, masks from 0) decoded into the input
    buffer's weight slot, then ``C = A W^T`` as codes, ``A`` at ``input[0]`` and ``C`` at
    ``input[m * k]``."""
    if n * k > _WEIGHT_SLOT or m * k + m * n > 65536 - _WEIGHT_SLOT:
        raise ValueError(f"a [{m}, {k}] x [{k}, {n}] tile does not fit the input buffer")
    wt = 65536 - _WEIGHT_SLOT
    prog = acc.program()
    prog.run("decode", mask_addr=0, packed_addr=0, dst_addr=wt, rows=n * k // 16)
    prog.run("pu", a_addr=0, b_addr=wt, bias_addr=0, c_addr=m * k, c_fixed_addr=0, m=m, k=k,
             n=n, a_stride=k, b_stride=k, c_stride=n, shift=10, use_bias=0, relu=0,
             out_fixed=0, transpose_c=0, out_frac=10, out_bias=4)
    return prog


def embedding_program(acc: Accelerator, layout: LayerLayout, token_ids: list[int], *,
                      table_addr: int, table_mask_addr: int, embedding_bias: int,
                      x_bias: int, program: Program | None = None) -> Program:
    """BERT's embedding stage on the accelerator, ahead of :func:`encoder_layer_program`
    (pass its ``layout``): each token's row of the word-embedding table, held as codes in
    the eNVM (rows of ``d`` codes from element ``table_addr``, each placed where a dense row
    would be, masks from ``table_mask_addr``), is gathered by a decode run into the input
    buffer; the rows are converted to Q6.10, the position + token-type rows (``emb_pos``, put
    in ``gb`` by the host) are added, and the embedding LayerNorm (``ge``, ``bee``) makes the
    layer's input ``x`` (codes with exponent bias ``x_bias``).

    The host turns the token ids into the table's addresses when it writes the program, as
    it writes every address; the table itself never leaves the eNVM.
    """
    shape = layout.shape
    s, d = shape.seq, shape.d
    if len(token_ids) != s:
        raise ValueError(f"{len(token_ids)} token ids for a {s}-token layer")
    a = layout.addr
    prog = program if program is not None else acc.program()
    rows = d // 16
    for t, tok in enumerate(token_ids):
        prog.run("decode", mask_addr=table_mask_addr + tok * rows,
                 packed_addr=table_addr + tok * d, dst_addr=a("emb_codes") + t * d, rows=rows)
    prog.run("to_fixed", src_addr=a("emb_codes"), dst_addr=a("emb_sum"), n=s * d, frac=10,
             bias=embedding_bias)
    prog.run("eadd", a_addr=a("emb_sum"), b_addr=a("emb_pos"), z_addr=a("emb_sum"), op=ADD_OP,
             n=s * d, shift=0, rows=0, cols=0)
    prog.run("layernorm", src_addr=a("emb_sum"), gamma_addr=a("ge"), beta_addr=a("bee"),
             dst_addr=a("emb_ln"), rows=s, n=d)
    prog.run("to_adpf", src_addr=a("emb_ln"), dst_addr=a("x"), n=s * d, frac=10, bias=x_bias)
    return prog


#: The exponent biases :mod:`archsim.sim.studies.edgebert.layer` chooses for MiniLM-L6's
#: first layer on its first 16-token test sentence (each tensor's largest magnitude in the
#: top exponent); :func:`layer_program` uses them.
MINILM_LAYER1_BIASES = LayerBiases(x=5, wq=0, wk=2, wv=1, wo=3, w1=3, w2=5, q=3, k=5, v=4,
                                   p=2, ctx=4, x1=7, h=7)


def layer_program(acc: Accelerator) -> Program:
    """:func:`encoder_layer_program` of MiniLM-L6's layer shape with dense weights and
    :data:`MINILM_LAYER1_BIASES` (for ``archsim accel report --program``)."""
    return encoder_layer_program(acc, MINILM_LAYER1_BIASES)[0]
