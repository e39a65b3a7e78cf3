"""The EMEF fine-tuning memory model of a LLaMA-style decoder (Chai et al., arXiv 2306.08162).

Memory of one fine-tuning step, in bytes, as the sum of five closed-form terms:

* **weights**: FP32 (4 B/param), FP16 (2 B), NF4 (QLoRA: 4 bits + double-quantized absmax,
  8/64 + 32/(64*256) = 0.127 bits/param, Dettmers et al. 2023) or INTk (k bits + one FP16
  scale and one k-bit zero point per group of ``group`` weights along the input). Only the
  block linear weights are quantized; embedding, head and norms stay FP16 (as GPTQ and QLoRA
  keep them; assumed).
* **adapters**: LoRA rank ``r`` on the chosen linear layers, ``r (in + out)`` parameters each,
  kept in FP32 (4 B).
* **gradients**: FP32, of the trainable parameters only (all of them in full fine-tuning;
  frozen base weights get none, the adapters' 4 B/param otherwise).
* **optimizer**: Adam, two FP32 moments (8 B) per trainable parameter.
* **activations**: what backward keeps, in FP16 (2 B/element). Per token and block, without
  checkpointing: the block input and normed input (2d), q/k/v (3d), the attention output
  (d), the FFN-norm input and output (2d), gate, up and their product (3 ffn) and the
  softmax probabilities (heads x seq, no fused attention): ``7 d + 3 ffn + heads seq``.
  With checkpointing at block boundaries: one ``d`` per token per block plus one block's
  full set (recomputed in backward). Plus the FP32 logits of the loss (``seq vocab``).
* **workspace** (quantized methods only): one dequantized FP16 copy of the largest linear
  weight, since EMEF/QLoRA dequantize layer by layer in forward and backward.

The counts are this module's (stated, not the paper's); the paper's 5.6x is next to the
ratio of FP16-weight LoRA to EMEF at the best bit width.
"""

from __future__ import annotations

from dataclasses import dataclass

from ....errors import ConfigError

__all__ = [
    "DecoderDims",
    "LLAMA_7B",
    "FineTuneSetup",
    "MemoryBreakdown",
    "linear_shapes",
    "param_count",
    "weight_bytes",
    "lora_param_count",
    "activation_bytes",
    "finetune_memory",
    "METHODS",
    "NF4_BITS_PER_PARAM",
]

#: QLoRA's NF4 with double quantization: 4 bits + 8-bit absmax per 64 + FP32 per 256 blocks.
NF4_BITS_PER_PARAM = 4.0 + 8.0 / 64 + 32.0 / (64 * 256)

#: The fine-tuning methods the model covers.
METHODS = ("full", "lora", "qlora", "emef")


@dataclass(frozen=True, kw_only=True)
class DecoderDims:
    """Dimensions of a LLaMA decoder (no GQA; untied head).

    Parameters
    ----------
    layers, dim, ffn_dim, heads, vocab : int
    """

    layers: int
    dim: int
    ffn_dim: int
    heads: int
    vocab: int

    def __post_init__(self) -> None:
        for name in ("layers", "dim", "ffn_dim", "heads", "vocab"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(f"{name} must be a positive integer, not {v!r}", field=name)


#: LLaMA-7B (Touvron et al. 2023): 32 layers, d = 4096, FFN 11008, 32 heads, vocab 32000.
LLAMA_7B = DecoderDims(layers=32, dim=4096, ffn_dim=11008, heads=32, vocab=32000)


def linear_shapes(dims: DecoderDims) -> dict[str, tuple[int, int]]:
    """``(out, in)`` of the seven linear weights of one block."""
    d, f = dims.dim, dims.ffn_dim
    return {"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d),
            "gate": (f, d), "up": (f, d), "down": (d, f)}


def param_count(dims: DecoderDims) -> tuple[int, int]:
    """``(block linear parameters, other parameters)``: embedding + head + norms."""
    lin = dims.layers * sum(o * i for o, i in linear_shapes(dims).values())
    other = 2 * dims.vocab * dims.dim + dims.layers * 2 * dims.dim + dims.dim
    return lin, other


def weight_bytes(dims: DecoderDims, fmt: str, *, bits: int = 4, group: int = 128) -> float:
    """Bytes of the weights in ``fmt`` ('fp32', 'fp16', 'nf4', 'int')."""
    lin, other = param_count(dims)
    if fmt == "fp32":
        return 4.0 * (lin + other)
    if fmt == "fp16":
        return 2.0 * (lin + other)
    if fmt == "nf4":
        return lin * NF4_BITS_PER_PARAM / 8 + 2.0 * other
    if fmt == "int":
        if not isinstance(bits, int) or not 1 <= bits <= 16:
            raise ConfigError(f"bits must be in 1..16, not {bits!r}", field="bits")
        if not isinstance(group, int) or group < 1:
            raise ConfigError(f"group must be a positive integer, not {group!r}",
                              field="group")
        return lin * (bits + (16 + bits) / group) / 8 + 2.0 * other
    raise ConfigError(f"unknown weight format {fmt!r}", field="fmt",
                      allowed=["fp32", "fp16", "nf4", "int"])


def lora_param_count(dims: DecoderDims, rank: int, targets: tuple[str, ...]) -> int:
    """LoRA parameters: ``rank (in + out)`` per targeted linear weight per block."""
    shapes = linear_shapes(dims)
    bad = [t for t in targets if t not in shapes]
    if bad or not targets:
        raise ConfigError(f"LoRA targets must be a non-empty subset of {list(shapes)}, "
                          f"not {targets!r}", field="targets", allowed=list(shapes))
    if not isinstance(rank, int) or rank < 1:
        raise ConfigError(f"rank must be a positive integer, not {rank!r}", field="rank")
    return dims.layers * sum(rank * (shapes[t][0] + shapes[t][1]) for t in targets)


def activation_bytes(dims: DecoderDims, *, seq: int, batch: int, checkpointing: bool) -> float:
    """Bytes backward keeps (FP16 activations, FP32 logits); see the module docstring."""
    for name, v in (("seq", seq), ("batch", batch)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ConfigError(f"{name} must be a positive integer, not {v!r}", field=name)
    tokens = seq * batch
    per_block = 7 * dims.dim + 3 * dims.ffn_dim + dims.heads * seq
    if checkpointing:
        elems = tokens * (dims.layers * dims.dim + per_block)
    else:
        elems = tokens * dims.layers * per_block
    return 2.0 * elems + 4.0 * tokens * dims.vocab


@dataclass(frozen=True, kw_only=True)
class FineTuneSetup:
    """One fine-tuning configuration of the memory model.

    Parameters
    ----------
    method : {'full', 'lora', 'qlora', 'emef'}
    base_format : {'fp32', 'fp16'}
        Weights of 'full' and 'lora' (QLoRA is NF4, EMEF INTk).
    bits, group : int
        EMEF's INTk and its group size.
    rank : int
        LoRA rank.
    targets : tuple of str
        LoRA targets among ``q k v o gate up down``.
    seq, batch : int
    checkpointing : bool
    """

    method: str
    base_format: str = "fp16"
    bits: int = 4
    group: int = 128
    rank: int = 8
    targets: tuple[str, ...] = ("q", "v")
    seq: int = 512
    batch: int = 1
    checkpointing: bool = True

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ConfigError(f"unknown method {self.method!r}", field="method",
                              allowed=list(METHODS))
        if self.base_format not in ("fp32", "fp16"):
            raise ConfigError(f"base_format must be fp32 or fp16, not {self.base_format!r}",
                              field="base_format", allowed=["fp32", "fp16"])


@dataclass(frozen=True, kw_only=True)
class MemoryBreakdown:
    """Bytes per term of one configuration."""

    weights_b: float
    adapters_b: float
    gradients_b: float
    optimizer_b: float
    activations_b: float
    workspace_b: float

    @property
    def total_b(self) -> float:
        return (self.weights_b + self.adapters_b + self.gradients_b + self.optimizer_b
                + self.activations_b + self.workspace_b)


def finetune_memory(dims: DecoderDims, setup: FineTuneSetup) -> MemoryBreakdown:
    """The memory of one fine-tuning step of ``setup`` on ``dims``."""
    act = activation_bytes(dims, seq=setup.seq, batch=setup.batch,
                           checkpointing=setup.checkpointing)
    if setup.method == "full":
        lin, other = param_count(dims)
        n = lin + other
        return MemoryBreakdown(weights_b=weight_bytes(dims, setup.base_format),
                               adapters_b=0.0, gradients_b=4.0 * n, optimizer_b=8.0 * n,
                               activations_b=act, workspace_b=0.0)
    n_lora = lora_param_count(dims, setup.rank, setup.targets)
    largest = max(o * i for o, i in linear_shapes(dims).values())
    if setup.method == "lora":
        w, ws = weight_bytes(dims, setup.base_format), 0.0
    elif setup.method == "qlora":
        w, ws = weight_bytes(dims, "nf4"), 2.0 * largest
    else:
        w, ws = weight_bytes(dims, "int", bits=setup.bits, group=setup.group), 2.0 * largest
    return MemoryBreakdown(weights_b=w, adapters_b=4.0 * n_lora, gradients_b=4.0 * n_lora,
                           optimizer_b=8.0 * n_lora, activations_b=act, workspace_b=ws)
