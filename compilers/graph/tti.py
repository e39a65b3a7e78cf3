"""Text-to-image and text-to-video model graphs (the Golden et al. 2023 suite's families).

Each model is a :class:`TTIPipeline`: the independently trained components chained at
inference (text encoder, denoiser or token transformer repeated over its steps, image
decoder), each a :class:`~archsim.compilers.graph.ir.WorkloadGraph` with a repeat count.

Families and presets (:data:`TTI_MODELS`):

- diffusion TTI: ``stable-diffusion`` (latent diffusion: CLIP text encoder, the v1 U-Net,
  the KL-f8 VAE decoder; configuration of CompVis ``v1-inference.yaml``) and ``imagen``
  (T5-XXL encoder and a three-stage pixel cascade 64 -> 256 -> 1024);
- transformer TTI: ``muse`` (T5-XXL, a masked token transformer decoded in parallel,
  VQGAN decoder) and ``parti`` (an encoder-decoder transformer decoding 32 x 32 image
  tokens autoregressively);
- TTV: ``make-a-video`` (a pseudo-3D U-Net: a temporal convolution after each spatial one,
  temporal attention after each spatial attention) and ``phenaki`` (a masked token
  transformer over spatio-temporal video tokens).

Sizes that are recollections or assumptions, not verified published configurations, are
listed in each pipeline's ``assumptions`` (and so in the study's output).

Sequence length is the paper's: every spatial position of the feature map at a U-Net
attention block is one token (``H x W``), so it changes by 4x at each 2x down/up-sampling;
temporal attention attends across frames at each position (length = frames). Attention
operators carry ``attrs["attention"]`` (``"spatial"``, ``"temporal"``, ``"cross"``,
``"self"``, ``"causal"``, ``"spatiotemporal"``) and the shape attributes ``batch`` (the
number of independent sequences), ``heads``, ``head_dim``, ``q_len``, ``kv_len``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ...errors import ConfigError
from .cnn import conv2d, positive_int
from .ir import Operator, TensorSpec, WorkloadGraph
from .transformer import TransformerConfig, transformer_graph

__all__ = [
    "ATTENTION_TYPES", "FAMILIES", "UNetConfig", "VAEDecoderConfig", "TokenTransformerConfig", "TTIStage",
    "TTIPipeline", "attention_operator", "unet_graph", "vae_decoder_graph",
    "token_transformer_graph", "text_encoder_graph", "SD_UNET", "SD_VAE_DECODER",
    "CLIP_VIT_L14_TEXT", "T5_XXL_ENCODER", "IMAGEN_BASE_UNET", "IMAGEN_SR256_UNET",
    "IMAGEN_SR1024_UNET", "MAKE_A_VIDEO_UNET", "MUSE_VQGAN_DECODER", "MUSE_BASE",
    "PARTI_ENCODER", "PARTI_DECODER", "PHENAKI_TRANSFORMER", "stable_diffusion", "imagen",
    "muse", "parti", "make_a_video", "phenaki", "TTI_MODELS", "tti_pipeline",
]

#: The values of an attention operator's ``attrs["attention"]``.
ATTENTION_TYPES: frozenset[str] = frozenset({"spatial", "temporal", "cross", "self", "causal",
                                             "spatiotemporal"})


# -- configurations ----------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class UNetConfig:
    """A text-conditioned diffusion U-Net (the ``ldm`` ``UNetModel`` layout).

    Level ``i`` has ``model_channels * channel_mult[i]`` channels and ``num_res_blocks``
    residual blocks going down (one more going up); a level in ``attention_levels`` follows
    each residual block with a transformer block (self-attention over ``H x W``,
    cross-attention to the text, a GEGLU MLP); the middle block has one when
    ``mid_attention``. ``temporal`` inflates it to pseudo-3D (Make-A-Video): a kernel-3
    temporal convolution after every 3x3 convolution of a residual block and a temporal
    attention after every spatial one. Heads: ``num_heads`` per block, or channels /
    ``head_dim`` when ``num_heads`` is 0.
    """

    name: str
    in_channels: int
    out_channels: int
    model_channels: int
    channel_mult: tuple[int, ...]
    num_res_blocks: int
    attention_levels: tuple[int, ...]
    context_dim: int
    num_heads: int = 0
    head_dim: int = 64
    mid_attention: bool = True
    temporal: bool = False
    norm_groups: int = 32
    source: str = ""

    def __post_init__(self) -> None:
        for f in ("in_channels", "out_channels", "model_channels", "num_res_blocks",
                  "context_dim", "head_dim", "norm_groups"):
            positive_int(f, getattr(self, f))
        if not self.channel_mult:
            raise ConfigError("channel_mult must not be empty", field="channel_mult")
        for m in self.channel_mult:
            positive_int("channel_mult", m)
        bad = [lv for lv in self.attention_levels if not 0 <= lv < len(self.channel_mult)]
        if bad:
            raise ConfigError(f"attention levels {bad} are not levels of channel_mult "
                              f"{self.channel_mult}", field="attention_levels")
        if self.num_heads < 0:
            raise ConfigError(f"num_heads must be >= 0, not {self.num_heads}", field="num_heads")

    def heads(self, channels: int) -> tuple[int, int]:
        """``(heads, head_dim)`` of an attention block over ``channels`` channels."""
        if self.num_heads:
            if channels % self.num_heads:
                raise ConfigError(f"{channels} channels do not split into {self.num_heads} "
                                  "heads", field="num_heads")
            return self.num_heads, channels // self.num_heads
        if channels % self.head_dim:
            raise ConfigError(f"{channels} channels do not split into heads of "
                              f"{self.head_dim}", field="head_dim")
        return channels // self.head_dim, self.head_dim


@dataclass(frozen=True, kw_only=True)
class VAEDecoderConfig:
    """A convolutional image decoder (the ``ldm``/taming ``Decoder``): ``conv_in``, a middle
    block (residual, single-head attention over ``H x W``, residual), then per level from
    the deepest ``num_res_blocks + 1`` residual blocks (single-head attention after each at
    ``attention_levels``) and a 2x nearest upsample with a 3x3 convolution, ``conv_out``."""

    name: str
    z_channels: int
    out_channels: int
    base_channels: int
    channel_mult: tuple[int, ...]
    num_res_blocks: int
    attention_levels: tuple[int, ...] = ()
    post_quant_conv: bool = True
    norm_groups: int = 32
    source: str = ""

    def __post_init__(self) -> None:
        for f in ("z_channels", "out_channels", "base_channels", "num_res_blocks"):
            positive_int(f, getattr(self, f))
        if not self.channel_mult:
            raise ConfigError("channel_mult must not be empty", field="channel_mult")


@dataclass(frozen=True, kw_only=True)
class TokenTransformerConfig:
    """A pre-norm transformer over image/video tokens with cross-attention to text.

    Each layer: self-attention (``causal`` for autoregressive decoding), cross-attention
    to ``text_dim``-wide text states (``cross_attention``), an MLP of ``ffn_hidden``.
    ``vocab`` is the token codebook (input embedding and output logits). ``video``: the
    tokens span frames and positions, so self-attention is ``"spatiotemporal"``.
    """

    name: str
    num_layers: int
    hidden: int
    num_heads: int
    ffn_hidden: int
    vocab: int
    text_dim: int
    causal: bool = False
    cross_attention: bool = True
    video: bool = False
    source: str = ""

    def __post_init__(self) -> None:
        for f in ("num_layers", "hidden", "num_heads", "ffn_hidden", "vocab", "text_dim"):
            positive_int(f, getattr(self, f))
        if self.hidden % self.num_heads:
            raise ConfigError(f"hidden {self.hidden} is not divisible by num_heads "
                              f"{self.num_heads}", field="num_heads")

    @property
    def head_dim(self) -> int:
        return self.hidden // self.num_heads

    @property
    def params_per_layer(self) -> int:
        """Projection and MLP weights of one layer (norms and biases ignored)."""
        cross = 2 * self.hidden * self.hidden + 2 * self.text_dim * self.hidden \
            if self.cross_attention else 0
        return 4 * self.hidden * self.hidden + cross + 2 * self.hidden * self.ffn_hidden


#: The families of the suite.
FAMILIES: tuple[str, ...] = ("diffusion-tti", "transformer-tti", "diffusion-ttv", "transformer-ttv")


@dataclass(frozen=True)
class TTIStage:
    """One component's graph and how many times it runs per generated image/video."""

    name: str
    graph: WorkloadGraph
    repeats: int = 1

    def __post_init__(self) -> None:
        positive_int("repeats", self.repeats)


@dataclass(frozen=True)
class TTIPipeline:
    """A text-to-image/video model at inference: its stages, family and assumptions."""

    name: str
    family: str
    stages: tuple[TTIStage, ...]
    assumptions: tuple[str, ...] = ()
    published_params: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ConfigError(f"unknown family '{self.family}'", field="family",
                              allowed=list(FAMILIES))
        if not self.stages:
            raise ConfigError(f"pipeline '{self.name}' has no stages", field="stages")

    @property
    def total_flops(self) -> float:
        return sum(s.graph.total_flops * s.repeats for s in self.stages)

    def parameter_counts(self) -> dict[str, int]:
        """Parameters of each distinct component (``graph.metadata["component"]``; stages of
        one component count once). A stage graph holding only part of its component (one
        decoder layer) carries the whole component's count in ``metadata["parameters"]``."""
        out: dict[str, int] = {}
        for s in self.stages:
            md = s.graph.metadata
            out.setdefault(md.get("component", s.name),
                           int(md.get("parameters", s.graph.parameter_count)))
        return out


# -- operator helpers --------------------------------------------------------------------

def attention_operator(name: str, q: TensorSpec, k: TensorSpec, v: TensorSpec, *,
                       batch: int, heads: int, head_dim: int, q_len: int, kv_len: int,
                       attention: str, out: str | None = None) -> Operator:
    """A fused attention (scores, softmax, context) over ``batch`` independent sequences.

    FLOPs are ``4 * batch * heads * q_len * kv_len * head_dim`` (``QK^T`` and ``PV``);
    ``attrs["softmax_flops"]`` holds the softmax's five per score.
    """
    for f, val in (("batch", batch), ("heads", heads), ("head_dim", head_dim),
                   ("q_len", q_len), ("kv_len", kv_len)):
        positive_int(f, val)
    if attention not in ATTENTION_TYPES:
        raise ConfigError(f"unknown attention type '{attention}'", field="attention",
                          allowed=sorted(ATTENTION_TYPES))
    o = TensorSpec(out or f"{name}.out", (batch * q_len, heads * head_dim), q.dtype)
    scores = batch * heads * q_len * kv_len
    return Operator(name, "attention", (q, k, v), (o,), 4.0 * scores * head_dim,
                    {"batch": batch, "heads": heads, "kv_heads": heads, "head_dim": head_dim,
                     "q_len": q_len, "kv_len": kv_len, "attention": attention,
                     "softmax_flops": 5.0 * scores})


class _Net:
    """Appends operators to one graph with unique names; activations NCHW or (rows, C)."""

    def __init__(self, g: WorkloadGraph, dtype: str) -> None:
        self.g, self.dtype, self._n = g, dtype, 0

    def name(self, base: str) -> str:
        self._n += 1
        return f"{base}#{self._n}"

    def add(self, op: Operator) -> TensorSpec:
        self.g.add(op)
        return op.outputs[0]

    def w(self, name: str, *shape: int) -> TensorSpec:
        return TensorSpec(name, shape, self.dtype, role="weight")

    def act(self, name: str, shape: Sequence[int]) -> TensorSpec:
        return TensorSpec(name, tuple(shape), self.dtype)

    def conv(self, x: TensorSpec, cout: int, k: int, *, stride: int = 1, base: str = "conv",
             kernel: tuple[int, int] | None = None, padding: int | tuple[int, ...] | None = None
             ) -> TensorSpec:
        kk = kernel or (k, k)
        pad = padding if padding is not None else (kk[0] // 2, kk[1] // 2)
        return self.add(conv2d(self.name(base), x, out_channels=cout, kernel=kk, stride=stride,
                               padding=pad, bias=True))

    def linear(self, x: TensorSpec, n: int, *, bias: bool = True, base: str = "linear"
               ) -> TensorSpec:
        nm = self.name(base)
        rows, k = x.shape[0] if len(x.shape) == 2 else x.numel // x.shape[-1], x.shape[-1]
        inputs = [x, self.w(f"{nm}.weight", k, n)]
        if bias:
            inputs.append(self.w(f"{nm}.bias", n))
        y = self.act(f"{nm}.out", (rows, n))
        return self.add(Operator(nm, "matmul", tuple(inputs), (y,), 2.0 * rows * n * k,
                                 {"m": rows, "n": n, "k": k, "batch": 1, "macs": rows * n * k}))

    def norm(self, x: TensorSpec, kind: str, *, groups: int = 32) -> TensorSpec:
        """Group norm over axis 1 (NCHW) or layer norm over the last axis; gamma and beta;
        five FLOPs per element."""
        nm = self.name(f"{kind}_norm")
        c = x.shape[1] if kind == "group" else x.shape[-1]
        y = self.act(f"{nm}.out", x.shape)
        attrs = {"norm": kind, "channels": c}
        if kind == "group":
            attrs["groups"] = groups
        return self.add(Operator(nm, "norm", (x, self.w(f"{nm}.gamma", c),
                                              self.w(f"{nm}.beta", c)), (y,),
                                 5.0 * x.numel, attrs))

    def ew(self, *xs: TensorSpec, kind: str = "elementwise", fn: str = "add") -> TensorSpec:
        nm = self.name(fn)
        y = self.act(f"{nm}.out", xs[0].shape)
        return self.add(Operator(nm, kind, tuple(xs), (y,),
                                 float(xs[0].numel * max(len(xs) - 1, 1)), {"fn": fn}))

    def move(self, xs: Sequence[TensorSpec], shape: Sequence[int], fn: str) -> TensorSpec:
        nm = self.name(fn)
        return self.add(Operator(nm, "data_movement", tuple(xs), (self.act(f"{nm}.out", shape),),
                                 0.0, {"fn": fn}))

    def attention(self, q: TensorSpec, k: TensorSpec, v: TensorSpec, *, batch: int, heads: int,
                  head_dim: int, q_len: int, kv_len: int, attention: str) -> TensorSpec:
        return self.add(attention_operator(self.name(f"{attention}_attn"), q, k, v, batch=batch,
                                           heads=heads, head_dim=head_dim, q_len=q_len,
                                           kv_len=kv_len, attention=attention))


# -- diffusion U-Net ---------------------------------------------------------------------

def _res_block(net: _Net, x: TensorSpec, cout: int, *, emb: TensorSpec | None, frames: int,
               temporal: bool, groups: int) -> TensorSpec:
    n, cin, h, w = x.shape
    y = net.ew(net.norm(x, "group", groups=groups), kind="activation", fn="silu")
    y = net.conv(y, cout, 3)
    if temporal:
        y = _temporal_conv(net, y, frames)
    if emb is not None:
        t = net.linear(net.ew(emb, kind="activation", fn="silu"), cout, base="time_proj")
        y = net.ew(y, net.move([t], y.shape, "broadcast"), fn="add")
    y = net.ew(net.norm(y, "group", groups=groups), kind="activation", fn="silu")
    y = net.conv(y, cout, 3)
    if temporal:
        y = _temporal_conv(net, y, frames)
    skip = x if cin == cout else net.conv(x, cout, 1, base="skip_conv")
    return net.ew(skip, y, fn="add")


def _temporal_conv(net: _Net, x: TensorSpec, frames: int) -> TensorSpec:
    """A kernel-3 convolution across frames at every position (Make-A-Video's pseudo-3D
    convolution), written as a (3, 1) convolution over a ``(B*H*W, C, F, 1)`` view."""
    n, c, h, w = x.shape
    b = n // frames
    view = net.move([x], (b * h * w, c, frames, 1), "rearrange")
    y = net.conv(view, c, 3, kernel=(3, 1), padding=(1, 0), base="temporal_conv")
    return net.move([y], (n, c, h, w), "rearrange")


def _transformer_block(net: _Net, x: TensorSpec, text: TensorSpec, cfg: UNetConfig, *,
                       frames: int, text_len: int) -> TensorSpec:
    n, c, h, w = x.shape
    heads, hd = cfg.heads(c)
    tokens = n * h * w
    y = net.norm(x, "group", groups=cfg.norm_groups)
    y = net.conv(y, c, 1, base="proj_in")
    s = net.move([y], (tokens, c), "rearrange")
    # self-attention over the H x W positions of each frame
    z = net.norm(s, "layer")
    q, k, v = (net.linear(z, c, bias=False, base=p) for p in ("to_q", "to_k", "to_v"))
    a = net.attention(q, k, v, batch=n, heads=heads, head_dim=hd, q_len=h * w, kv_len=h * w,
                      attention="spatial")
    s = net.ew(s, net.linear(a, c, base="to_out"), fn="add")
    # cross-attention to the text encoder's states
    z = net.norm(s, "layer")
    q = net.linear(z, c, bias=False, base="to_q")
    k = net.linear(text, c, bias=False, base="to_k")
    v = net.linear(text, c, bias=False, base="to_v")
    a = net.attention(q, k, v, batch=n, heads=heads, head_dim=hd, q_len=h * w, kv_len=text_len,
                      attention="cross")
    s = net.ew(s, net.linear(a, c, base="to_out"), fn="add")
    # GEGLU feed-forward (inner width 4C; the first projection gives value and gate)
    z = net.norm(s, "layer")
    u = net.linear(z, 8 * c, base="ff_in")
    g = net.ew(net.move([u], (tokens, 4 * c), "split"), kind="activation", fn="gelu_mul")
    s = net.ew(s, net.linear(g, c, base="ff_out"), fn="add")
    if cfg.temporal:
        # temporal attention across the frames at every spatial position
        z = net.norm(net.move([s], (tokens, c), "rearrange"), "layer")
        q, k, v = (net.linear(z, c, bias=False, base=p) for p in ("to_q", "to_k", "to_v"))
        a = net.attention(q, k, v, batch=(n // frames) * h * w, heads=heads, head_dim=hd,
                          q_len=frames, kv_len=frames, attention="temporal")
        s = net.ew(s, net.move([net.linear(a, c, base="to_out")], (tokens, c), "rearrange"),
                   fn="add")
    y = net.conv(net.move([s], (n, c, h, w), "rearrange"), c, 1, base="proj_out")
    return net.ew(x, y, fn="add")


def unet_graph(cfg: UNetConfig, *, batch: int, height: int, width: int, text_len: int,
               frames: int = 1, dtype: str = "fp16") -> WorkloadGraph:
    """One denoising step of ``cfg`` on ``batch`` samples of ``frames`` frames of
    ``height x width`` (the latent or pixel size the U-Net sees).

    Raises
    ------
    ConfigError
        A non-positive size, a size not divisible by the U-Net's total downsampling, or
        ``frames`` > 1 on a U-Net without temporal layers.
    """
    for f, val in (("batch", batch), ("height", height), ("width", width),
                   ("text_len", text_len), ("frames", frames)):
        positive_int(f, val)
    down = 2 ** (len(cfg.channel_mult) - 1)
    if height % down or width % down:
        raise ConfigError(f"{height}x{width} is not divisible by the U-Net's downsampling "
                          f"{down}", field="height")
    if frames > 1 and not cfg.temporal:
        raise ConfigError(f"U-Net '{cfg.name}' has no temporal layers for {frames} frames",
                          field="frames")
    g = WorkloadGraph(f"{cfg.name}-b{batch}-f{frames}-{height}x{width}",
                      metadata={"model": cfg.name, "component": cfg.name, "batch": batch,
                                "frames": frames, "height": height, "width": width})
    net = _Net(g, dtype)
    n = batch * frames
    mc, temb_dim = cfg.model_channels, 4 * cfg.model_channels
    text = TensorSpec("text_states", (batch * text_len, cfg.context_dim), dtype, role="input")
    if frames > 1:  # every frame attends to its clip's prompt
        text = net.move([text], (n * text_len, cfg.context_dim), "broadcast")
    t = TensorSpec("timestep_embedding", (batch, mc), dtype, role="input")
    emb = net.linear(net.ew(net.linear(t, temb_dim, base="time_embed"), kind="activation",
                            fn="silu"), temb_dim, base="time_embed")
    if frames > 1:
        emb = net.move([emb], (n, temb_dim), "broadcast")
    x = TensorSpec("x_t", (n, cfg.in_channels, height, width), dtype, role="input")
    h = net.conv(x, mc, 3, base="conv_in")
    skips = [h]
    def res(x: TensorSpec, cout: int) -> TensorSpec:
        return _res_block(net, x, cout, emb=emb, frames=frames, temporal=cfg.temporal,
                          groups=cfg.norm_groups)

    levels = len(cfg.channel_mult)
    for lv, mult in enumerate(cfg.channel_mult):
        for _ in range(cfg.num_res_blocks):
            h = res(h, mc * mult)
            if lv in cfg.attention_levels:
                h = _transformer_block(net, h, text, cfg, frames=frames, text_len=text_len)
            skips.append(h)
        if lv != levels - 1:
            h = net.conv(h, h.shape[1], 3, stride=2, base="downsample")
            skips.append(h)
    h = res(h, h.shape[1])
    if cfg.mid_attention:
        h = _transformer_block(net, h, text, cfg, frames=frames, text_len=text_len)
    h = res(h, h.shape[1])
    for lv in reversed(range(levels)):
        mult = cfg.channel_mult[lv]
        for _ in range(cfg.num_res_blocks + 1):
            s = skips.pop()
            nb, c1, hh, ww = h.shape
            h = net.move([h, s], (nb, c1 + s.shape[1], hh, ww), "concat")
            h = res(h, mc * mult)
            if lv in cfg.attention_levels:
                h = _transformer_block(net, h, text, cfg, frames=frames, text_len=text_len)
        if lv != 0:
            nb, c1, hh, ww = h.shape
            h = net.move([h], (nb, c1, 2 * hh, 2 * ww), "upsample_nearest")
            h = net.conv(h, c1, 3, base="upsample")
    h = net.ew(net.norm(h, "group", groups=cfg.norm_groups), kind="activation", fn="silu")
    net.conv(h, cfg.out_channels, 3, base="conv_out")
    return g


# -- image decoders ----------------------------------------------------------------------

def _single_head_attention(net: _Net, x: TensorSpec, groups: int) -> TensorSpec:
    n, c, h, w = x.shape
    y = net.norm(x, "group", groups=groups)
    q, k, v = (net.conv(y, c, 1, base=p) for p in ("q", "k", "v"))
    a = net.attention(q, k, v, batch=n, heads=1, head_dim=c, q_len=h * w, kv_len=h * w,
                      attention="spatial")
    a = net.move([a], (n, c, h, w), "rearrange")
    return net.ew(x, net.conv(a, c, 1, base="proj_out"), fn="add")


def vae_decoder_graph(cfg: VAEDecoderConfig, *, batch: int, height: int, width: int,
                      dtype: str = "fp16") -> WorkloadGraph:
    """The decoder ``cfg`` from a ``height x width`` latent to the image."""
    for f, val in (("batch", batch), ("height", height), ("width", width)):
        positive_int(f, val)
    g = WorkloadGraph(f"{cfg.name}-b{batch}-{height}x{width}",
                      metadata={"model": cfg.name, "component": cfg.name, "batch": batch})
    net = _Net(g, dtype)
    def res(x: TensorSpec, cout: int) -> TensorSpec:
        return _res_block(net, x, cout, emb=None, frames=1, temporal=False,
                          groups=cfg.norm_groups)

    z = TensorSpec("latent", (batch, cfg.z_channels, height, width), dtype, role="input")
    if cfg.post_quant_conv:
        z = net.conv(z, cfg.z_channels, 1, base="post_quant_conv")
    top = cfg.base_channels * cfg.channel_mult[-1]
    h = net.conv(z, top, 3, base="conv_in")
    h = res(h, top)
    h = _single_head_attention(net, h, cfg.norm_groups)
    h = res(h, top)
    for lv in reversed(range(len(cfg.channel_mult))):
        for _ in range(cfg.num_res_blocks + 1):
            h = res(h, cfg.base_channels * cfg.channel_mult[lv])
            if lv in cfg.attention_levels:
                h = _single_head_attention(net, h, cfg.norm_groups)
        if lv != 0:
            nb, c1, hh, ww = h.shape
            h = net.move([h], (nb, c1, 2 * hh, 2 * ww), "upsample_nearest")
            h = net.conv(h, c1, 3, base="upsample")
    h = net.ew(net.norm(h, "group", groups=cfg.norm_groups), kind="activation", fn="silu")
    net.conv(h, cfg.out_channels, 3, base="conv_out")
    return g


# -- token transformers ------------------------------------------------------------------

def token_transformer_graph(cfg: TokenTransformerConfig, *, batch: int, new_tokens: int,
                            context_len: int, text_len: int, layers: int | None = None,
                            include_head: bool = True, dtype: str = "fp16") -> WorkloadGraph:
    """One forward pass of ``cfg`` over ``new_tokens`` tokens per sequence attending to
    ``context_len`` tokens (a masked-token step: both the whole grid; an autoregressive
    decode step: 1 new token and the KV cache) and to ``text_len`` text states.

    The cross-attention's text K/V are projected in every pass (a decode step that caches
    them over-counts ``4 * text_len * text_dim * hidden`` FLOPs per layer, under 1% here).
    ``layers`` builds only the first layers (the layers are identical, so a stage may
    repeat a one-layer graph).
    """
    for f, val in (("batch", batch), ("new_tokens", new_tokens), ("context_len", context_len),
                   ("text_len", text_len)):
        positive_int(f, val)
    if context_len < new_tokens:
        raise ConfigError(f"context_len {context_len} is shorter than new_tokens {new_tokens}",
                          field="context_len")
    n_layers = cfg.num_layers if layers is None else positive_int("layers", layers)
    g = WorkloadGraph(f"{cfg.name}-b{batch}-t{new_tokens}-c{context_len}",
                      metadata={"model": cfg.name, "component": cfg.name, "batch": batch,
                                "new_tokens": new_tokens, "context_len": context_len})
    net = _Net(g, dtype)
    h, hd, heads = cfg.hidden, cfg.head_dim, cfg.num_heads
    ids = TensorSpec("image_tokens", (batch, new_tokens), "int32", role="input")
    x = net.add(Operator("embed", "embedding", (ids, net.w("token_embedding", cfg.vocab, h)),
                         (net.act("x0", (batch * new_tokens, h)),), 0.0,
                         {"rows": batch * new_tokens}))
    text = TensorSpec("text_states", (batch * text_len, cfg.text_dim), dtype, role="input")
    self_kind = "causal" if cfg.causal else "spatiotemporal" if cfg.video else "self"
    for _ in range(n_layers):
        z = net.norm(x, "layer")
        q, k, v = (net.linear(z, h, bias=False, base=p) for p in ("to_q", "to_k", "to_v"))
        if context_len > new_tokens:  # earlier positions' K/V come from the cache
            cache = TensorSpec(net.name("kv_cache"), (2, batch * context_len, h), dtype,
                               role="kv_cache")
            k = v = cache
        a = net.attention(q, k, v, batch=batch, heads=heads, head_dim=hd, q_len=new_tokens,
                          kv_len=context_len, attention=self_kind)
        x = net.ew(x, net.linear(a, h, bias=False, base="to_out"), fn="add")
        if cfg.cross_attention:
            z = net.norm(x, "layer")
            q = net.linear(z, h, bias=False, base="to_q")
            k = net.linear(text, h, bias=False, base="to_k")
            v = net.linear(text, h, bias=False, base="to_v")
            a = net.attention(q, k, v, batch=batch, heads=heads, head_dim=hd, q_len=new_tokens,
                              kv_len=text_len, attention="cross")
            x = net.ew(x, net.linear(a, h, bias=False, base="to_out"), fn="add")
        z = net.norm(x, "layer")
        u = net.ew(net.linear(z, cfg.ffn_hidden, bias=False, base="mlp_in"), kind="activation",
                   fn="gelu")
        x = net.ew(x, net.linear(u, h, bias=False, base="mlp_out"), fn="add")
    if include_head:
        net.linear(net.norm(x, "layer"), cfg.vocab, bias=False, base="logits")
    return g


def text_encoder_graph(cfg: TransformerConfig, *, batch: int, text_len: int,
                       dtype: str = "fp16") -> WorkloadGraph:
    """An encoder-only text transformer over ``text_len`` tokens (no output head)."""
    g = transformer_graph(cfg, batch=batch, new_tokens=text_len, dtype=dtype,
                          include_lm_head=False)
    g.metadata["component"] = cfg.name
    return g


# -- presets -----------------------------------------------------------------------------

#: Stable Diffusion v1 U-Net: CompVis ``configs/stable-diffusion/v1-inference.yaml``
#: (model_channels 320, channel_mult 1,2,4,4, 2 res blocks, attention_resolutions 4,2,1,
#: 8 heads, transformer depth 1, context 768); 860M parameters (CompVis model card).
SD_UNET = UNetConfig(name="sd-v1-unet", in_channels=4, out_channels=4, model_channels=320,
                     channel_mult=(1, 2, 4, 4), num_res_blocks=2, attention_levels=(0, 1, 2),
                     context_dim=768, num_heads=8,
                     source="CompVis v1-inference.yaml; 860M (model card)")
#: The KL-f8 autoencoder's decoder (``ddconfig``: ch 128, ch_mult 1,2,4,4, 2 res blocks,
#: z 4, no attention outside the middle block).
SD_VAE_DECODER = VAEDecoderConfig(name="sd-vae-decoder", z_channels=4, out_channels=3,
                                  base_channels=128, channel_mult=(1, 2, 4, 4),
                                  num_res_blocks=2, source="CompVis v1-inference.yaml ddconfig")
#: CLIP ViT-L/14 text encoder (Radford et al. 2021): 12 layers, width 768, 12 heads, 77
#: tokens; 123M parameters (Stable Diffusion model card).
CLIP_VIT_L14_TEXT = TransformerConfig(name="clip-vit-l14-text", num_layers=12, hidden=768,
                                      num_heads=12, ffn_hidden=3072, vocab=49408,
                                      decoder=False, tied_embeddings=True, max_seq_len=77,
                                      source="Radford et al. 2021; OpenAI CLIP ViT-L/14")
#: T5-XXL v1.1 encoder (Raffel et al. 2020; released config: d_model 4096, d_ff 10240
#: gated-GELU, 64 heads, 24 layers, vocab 32128); Imagen quotes 4.6B parameters.
T5_XXL_ENCODER = TransformerConfig(name="t5-xxl-encoder", num_layers=24, hidden=4096,
                                   num_heads=64, ffn_hidden=10240, vocab=32128, gated_mlp=True,
                                   decoder=False, tied_embeddings=True, max_seq_len=128,
                                   source="T5 v1.1 XXL released config")
#: Imagen's 64x64 base U-Net (2B parameters, Saharia et al. 2022). The layout is assumed
#: (an ADM-style U-Net with attention at 32, 16, 8, its width chosen to come near the
#: published total), not the published one.
IMAGEN_BASE_UNET = UNetConfig(name="imagen-base-unet", in_channels=3, out_channels=3,
                              model_channels=384, channel_mult=(1, 2, 3, 4), num_res_blocks=3,
                              attention_levels=(1, 2, 3), context_dim=4096, head_dim=64,
                              source="assumed layout; 2B published (Saharia et al. 2022)")
#: Imagen's 64 -> 256 super-resolution U-Net (600M published): assumed layout, attention
#: only at the deepest level (Efficient U-Net keeps attention at low resolution).
IMAGEN_SR256_UNET = UNetConfig(name="imagen-sr256-unet", in_channels=6, out_channels=3,
                               model_channels=128, channel_mult=(1, 2, 4, 8), num_res_blocks=3,
                               attention_levels=(3,), context_dim=4096, head_dim=64,
                               source="assumed layout; 600M published")
#: Imagen's 256 -> 1024 super-resolution U-Net (400M published): assumed layout, no
#: self-attention (text cross-attention only in the middle block).
IMAGEN_SR1024_UNET = UNetConfig(name="imagen-sr1024-unet", in_channels=6, out_channels=3,
                                model_channels=160, channel_mult=(1, 2, 4, 8),
                                num_res_blocks=2, attention_levels=(), context_dim=4096,
                                head_dim=64, source="assumed layout; 400M published")
#: Make-A-Video's spatiotemporal decoder: assumed to be the Imagen-style 64x64 U-Net above
#: inflated to pseudo-3D (the paper's sizes are not verified).
MAKE_A_VIDEO_UNET = UNetConfig(name="make-a-video-unet", in_channels=3, out_channels=3,
                               model_channels=384, channel_mult=(1, 2, 3, 4), num_res_blocks=3,
                               attention_levels=(1, 2, 3), context_dim=768, head_dim=64,
                               temporal=True, source="assumed: pseudo-3D Imagen-style U-Net")
#: Muse's VQGAN decoder (f16, taming-transformers layout: ch 128, ch_mult 1,1,2,2,4,
#: 2 res blocks, attention at the 16x16 level); recollected, not verified.
MUSE_VQGAN_DECODER = VAEDecoderConfig(name="muse-vqgan-decoder", z_channels=256,
                                      out_channels=3, base_channels=128,
                                      channel_mult=(1, 1, 2, 2, 4), num_res_blocks=2,
                                      attention_levels=(4,),
                                      source="recollected taming VQGAN f16 layout")
#: Muse-3B base transformer (Chang et al. 2023): 48 layers, width 2048, 32 heads, MLP 8192,
#: cross-attention to T5-XXL; recollected, consistent with the published 3B.
MUSE_BASE = TokenTransformerConfig(name="muse-3b-base", num_layers=48, hidden=2048,
                                   num_heads=32, ffn_hidden=8192, vocab=8192, text_dim=4096,
                                   source="recollected; 3B published (Chang et al. 2023)")
#: Parti-20B (Yu et al. 2022): 16 encoder and 64 decoder layers, width 4096, 64 heads,
#: MLP 16384, ViT-VQGAN codebook 8192, text vocab 16000; recollected, consistent with 20B.
PARTI_ENCODER = TransformerConfig(name="parti-20b-encoder", num_layers=16, hidden=4096,
                                  num_heads=64, ffn_hidden=16384, vocab=16000, decoder=False,
                                  tied_embeddings=True, max_seq_len=128,
                                  source="recollected; 20B total published (Yu et al. 2022)")
PARTI_DECODER = TokenTransformerConfig(name="parti-20b-decoder", num_layers=64, hidden=4096,
                                       num_heads=64, ffn_hidden=16384, vocab=8192,
                                       text_dim=4096, causal=True,
                                       source="recollected; 20B total published")
#: Phenaki's masked video-token transformer (Villegas et al. 2022; 1.8B published): the
#: layout is assumed (24 layers, width 2048).
PHENAKI_TRANSFORMER = TokenTransformerConfig(name="phenaki-transformer", num_layers=24,
                                             hidden=2048, num_heads=32, ffn_hidden=8192,
                                             vocab=8192, text_dim=4096, video=True,
                                             source="assumed layout; 1.8B published")


# -- pipelines ---------------------------------------------------------------------------

def _cfg_batch(batch: int, guidance: bool) -> int:
    return 2 * batch if guidance else batch  # classifier-free guidance doubles the batch


def stable_diffusion(*, batch: int = 1, image_size: int = 512, steps: int = 50,
                     guidance: bool = True, dtype: str = "fp16") -> TTIPipeline:
    """Stable Diffusion v1: CLIP text encoder, ``steps`` U-Net denoising steps on the
    ``image_size / 8`` latent, the VAE decoder."""
    positive_int("steps", steps)
    lat = image_size // 8
    b2 = _cfg_batch(batch, guidance)
    return TTIPipeline(
        name="stable-diffusion", family="diffusion-tti",
        stages=(TTIStage("text_encoder", text_encoder_graph(CLIP_VIT_L14_TEXT, batch=b2,
                                                            text_len=77, dtype=dtype)),
                TTIStage("unet", unet_graph(SD_UNET, batch=b2, height=lat, width=lat,
                                            text_len=77, dtype=dtype), steps),
                TTIStage("vae_decoder", vae_decoder_graph(SD_VAE_DECODER, batch=batch,
                                                          height=lat, width=lat,
                                                          dtype=dtype))),
        assumptions=(f"Stable Diffusion: {steps} denoising steps, classifier-free guidance "
                     f"{'on' if guidance else 'off'}, {image_size}x{image_size} (assumed "
                     "sampler settings)",),
        published_params={"sd-v1-unet": 860e6, "clip-vit-l14-text": 123e6})


def imagen(*, batch: int = 1, steps: int = 50, guidance: bool = True,
           dtype: str = "fp16") -> TTIPipeline:
    """Imagen: T5-XXL encoder, then the 64x64 base U-Net and the 256 and 1024
    super-resolution U-Nets, each run ``steps`` times (pixel space)."""
    positive_int("steps", steps)
    b2 = _cfg_batch(batch, guidance)
    return TTIPipeline(
        name="imagen", family="diffusion-tti",
        stages=(TTIStage("text_encoder", text_encoder_graph(T5_XXL_ENCODER, batch=b2,
                                                            text_len=128, dtype=dtype)),
                TTIStage("base_unet", unet_graph(IMAGEN_BASE_UNET, batch=b2, height=64,
                                                 width=64, text_len=128, dtype=dtype), steps),
                TTIStage("sr256_unet", unet_graph(IMAGEN_SR256_UNET, batch=b2, height=256,
                                                  width=256, text_len=128, dtype=dtype),
                         steps),
                TTIStage("sr1024_unet", unet_graph(IMAGEN_SR1024_UNET, batch=b2, height=1024,
                                                   width=1024, text_len=128, dtype=dtype),
                         steps)),
        assumptions=("Imagen: U-Net layouts assumed (ADM-style; published are only the "
                     "2B / 600M / 400M totals); 128 text tokens; "
                     f"{steps} steps per stage with guidance (assumed)",),
        published_params={"imagen-base-unet": 2e9, "imagen-sr256-unet": 600e6,
                          "imagen-sr1024-unet": 400e6, "t5-xxl-encoder": 4.6e9})


def muse(*, batch: int = 1, steps: int = 24, guidance: bool = True,
         dtype: str = "fp16") -> TTIPipeline:
    """Muse: T5-XXL encoder, ``steps`` parallel-decoding passes of the base transformer
    over 16 x 16 image tokens, the VQGAN decoder (the 512 super-resolution transformer is
    not modelled)."""
    positive_int("steps", steps)
    b2 = _cfg_batch(batch, guidance)
    return TTIPipeline(
        name="muse", family="transformer-tti",
        stages=(TTIStage("text_encoder", text_encoder_graph(T5_XXL_ENCODER, batch=b2,
                                                            text_len=128, dtype=dtype)),
                TTIStage("base_transformer",
                         token_transformer_graph(MUSE_BASE, batch=b2, new_tokens=256,
                                                 context_len=256, text_len=128, dtype=dtype),
                         steps),
                TTIStage("vqgan_decoder", vae_decoder_graph(MUSE_VQGAN_DECODER, batch=batch,
                                                            height=16, width=16,
                                                            dtype=dtype))),
        assumptions=("Muse: base-transformer layout recollected (48 x 2048); 24 decoding "
                     "steps (recollection); super-resolution transformer not modelled",),
        published_params={"muse-3b-base": 3e9})


def parti(*, batch: int = 1, image_tokens: int = 1024, context_bin: int = 64,
          dtype: str = "fp16") -> TTIPipeline:
    """Parti: the text encoder, then ``image_tokens`` autoregressive decode steps with a
    KV cache (the ViT-VQGAN detokenizer is not modelled).

    A decode step's attention grows linearly with its context; steps are grouped in bins
    of ``context_bin`` tokens, each priced at its mid-bin context (exact for the FLOPs'
    sum; the decoder's identical layers are one-layer graphs repeated).
    """
    positive_int("image_tokens", image_tokens)
    positive_int("context_bin", context_bin)
    stages = [TTIStage("text_encoder", text_encoder_graph(PARTI_ENCODER, batch=batch,
                                                          text_len=128, dtype=dtype))]
    # The whole decoder's parameters (embedding, 64 layers, head), for parameter_counts.
    decoder_params = token_transformer_graph(PARTI_DECODER, batch=1, new_tokens=1,
                                             context_len=1, text_len=1).parameter_count
    for start in range(0, image_tokens, context_bin):
        width = min(context_bin, image_tokens - start)
        mid = start + (width + 1) // 2
        layer = token_transformer_graph(PARTI_DECODER, batch=batch, new_tokens=1,
                                        context_len=max(mid, 1), text_len=128, layers=1,
                                        include_head=False, dtype=dtype)
        layer.metadata["parameters"] = decoder_params
        stages.append(TTIStage(f"decode_c{mid}", layer, width * PARTI_DECODER.num_layers))
    stages.append(TTIStage("decode_head", _logits_graph(PARTI_DECODER, batch=batch,
                                                        dtype=dtype), image_tokens))
    return TTIPipeline(
        name="parti", family="transformer-tti", stages=tuple(stages),
        assumptions=("Parti: 20B layout recollected (16 + 64 layers x 4096); 1024 image "
                     f"tokens decoded one at a time, context priced per {context_bin}-token "
                     "bin; ViT-VQGAN detokenizer not modelled",),
        published_params={"parti-20b-encoder+decoder": 20e9})


def _logits_graph(cfg: TokenTransformerConfig, *, batch: int, dtype: str) -> WorkloadGraph:
    """The final norm and codebook logits of one decode step."""
    g = WorkloadGraph(f"{cfg.name}-head-b{batch}",
                      metadata={"model": cfg.name, "component": cfg.name})
    net = _Net(g, dtype)
    x = TensorSpec("decoder_out", (batch, cfg.hidden), dtype, role="input")
    net.linear(net.norm(x, "layer"), cfg.vocab, bias=False, base="logits")
    return g


def make_a_video(*, batch: int = 1, frames: int = 16, size: int = 64, steps: int = 50,
                 guidance: bool = True, dtype: str = "fp16") -> TTIPipeline:
    """Make-A-Video's spatiotemporal decoder: ``steps`` passes of the pseudo-3D U-Net over
    ``frames`` frames of ``size x size`` pixels, conditioned on CLIP text states (frame
    interpolation and the super-resolution stages are not modelled)."""
    positive_int("steps", steps)
    b2 = _cfg_batch(batch, guidance)
    return TTIPipeline(
        name="make-a-video", family="diffusion-ttv",
        stages=(TTIStage("text_encoder", text_encoder_graph(CLIP_VIT_L14_TEXT, batch=b2,
                                                            text_len=77, dtype=dtype)),
                TTIStage("unet_3d", unet_graph(MAKE_A_VIDEO_UNET, batch=b2, height=size,
                                               width=size, text_len=77, frames=frames,
                                               dtype=dtype), steps)),
        assumptions=(f"Make-A-Video: pseudo-3D inflation of an assumed Imagen-style 64x64 "
                     f"U-Net, {frames} frames, {steps} steps with guidance (assumed); "
                     "interpolation and super-resolution stages not modelled",))


def phenaki(*, batch: int = 1, frames: int = 11, steps: int = 48, guidance: bool = True,
            dtype: str = "fp16") -> TTIPipeline:
    """Phenaki: T5-XXL encoder and ``steps`` masked-decoding passes of the video-token
    transformer over ``(1 + (frames - 1) / 2) x 16 x 16`` tokens (C-ViViT patches of 2
    frames after the first); the C-ViViT decoder is not modelled."""
    positive_int("steps", steps)
    positive_int("frames", frames)
    tokens = (1 + (frames - 1) // 2) * 256
    b2 = _cfg_batch(batch, guidance)
    return TTIPipeline(
        name="phenaki", family="transformer-ttv",
        stages=(TTIStage("text_encoder", text_encoder_graph(T5_XXL_ENCODER, batch=b2,
                                                            text_len=128, dtype=dtype)),
                TTIStage("transformer", token_transformer_graph(
                    PHENAKI_TRANSFORMER, batch=b2, new_tokens=tokens, context_len=tokens,
                    text_len=128, dtype=dtype), steps)),
        assumptions=(f"Phenaki: transformer layout assumed (24 x 2048), {tokens} video tokens "
                     f"({frames} frames), {steps} steps (assumed); C-ViViT not modelled",),
        published_params={"phenaki-transformer": 1.8e9})


#: Every preset pipeline builder by name.
TTI_MODELS: dict[str, Callable[..., TTIPipeline]] = {
    "stable-diffusion": stable_diffusion, "imagen": imagen, "muse": muse, "parti": parti,
    "make-a-video": make_a_video, "phenaki": phenaki,
}


def tti_pipeline(name: str, **params: object) -> TTIPipeline:
    """Build the preset ``name`` of :data:`TTI_MODELS` with its keyword ``params``."""
    try:
        builder = TTI_MODELS[name.lower()]
    except KeyError:
        raise ConfigError(f"unknown TTI/TTV model '{name}'", field="model",
                          allowed=sorted(TTI_MODELS)) from None
    return builder(**params)
