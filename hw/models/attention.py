"""Attention as GPU kernels: baseline (materialized scores) vs Flash Attention (tiled).

A fused ``attention`` operator (:mod:`archsim.compilers.graph`) computes
``softmax(Q K^T / sqrt(d)) V`` for ``batch`` independent sequences of ``heads`` heads. How
much memory traffic it costs depends on the implementation:

- **baseline** (standard attention, Algorithm 0 of Dao et al. 2022, *FlashAttention*):
  three kernels -- ``S = Q K^T`` writes the ``q_len x kv_len`` score matrix of every head to
  HBM, the softmax reads ``S`` and writes ``P``, ``O = P V`` reads ``P``. Traffic
  ``Q + K + V + O + 4 * batch * heads * q_len * kv_len`` elements.
- **flash** (FlashAttention-2's forward pass, Dao 2023): one kernel; each block of
  ``block_rows`` query rows stays on chip while K and V stream past it, so scores never
  reach HBM. Traffic ``Q + O + (K + V) * ceil(q_len / block_rows)`` elements.

FLOPs are the same for both: ``4 * batch * heads * q_len * kv_len * head_dim`` for the two
products plus the operator's ``softmax_flops``. With ``pad_tiles`` the Flash kernel instead
computes whole ``block_rows x block_cols`` tiles (a sequence shorter than a block still costs
a full block of tensor-core work): its FLOPs use ``q_len`` and ``kv_len`` rounded up to the
block sizes. That matters for temporal attention, whose sequences are a few frames long.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import ConfigError
from ...operators import Operator, dtype_bytes

__all__ = ["ATTENTION_IMPLS", "FLASH_BLOCK_ROWS", "FLASH_BLOCK_COLS", "AttentionKernel", "attention_kernels",
           "attention_bytes"]

#: The implementations :func:`attention_kernels` knows.
ATTENTION_IMPLS: tuple[str, ...] = ("baseline", "flash")
#: Query rows per thread block of FlashAttention-2's forward kernel on A100 (its block
#: sizes are 64 or 128 rows; 128 is used for head dims up to 128 -- a recollection of the
#: paper's section 3.3, not verified here).
FLASH_BLOCK_ROWS = 128
#: Key/value rows per inner-loop block of the same kernel (64; same caveat).
FLASH_BLOCK_COLS = 64


@dataclass(frozen=True, slots=True)
class AttentionKernel:
    """One GPU kernel of an attention implementation: its FLOPs and HBM bytes."""

    name: str
    flops: float
    bytes_accessed: float


def _shape(op: Operator) -> tuple[int, int, int, int, int, int, float]:
    if op.kind != "attention":
        raise ConfigError(f"operator '{op.name}' is a {op.kind}, not an attention",
                          field="kind")
    a = op.attrs
    try:
        b, h, d, q, kv = (int(a[k]) for k in ("batch", "heads", "head_dim", "q_len", "kv_len"))
    except KeyError as exc:
        raise ConfigError(f"attention '{op.name}' lacks attribute {exc.args[0]!r}",
                          field="attrs") from None
    kvh = int(a.get("kv_heads") or h)
    elem = dtype_bytes(op.inputs[0].dtype) if op.inputs else 2.0
    return b, h, kvh, d, q, kv, elem


def attention_kernels(op: Operator, *, impl: str, block_rows: int = FLASH_BLOCK_ROWS,
                      block_cols: int = FLASH_BLOCK_COLS,
                      pad_tiles: bool = False) -> tuple[AttentionKernel, ...]:
    """The kernels ``impl`` runs for attention operator ``op`` (module docstring).

    Raises
    ------
    ConfigError
        ``op`` is not an attention with the shape attributes, ``impl`` is unknown or
        ``block_rows`` or ``block_cols`` is not a positive integer.
    """
    if impl not in ATTENTION_IMPLS:
        raise ConfigError(f"unknown attention implementation '{impl}'", field="impl",
                          allowed=list(ATTENTION_IMPLS))
    for f, val in (("block_rows", block_rows), ("block_cols", block_cols)):
        if isinstance(val, bool) or not isinstance(val, int) or val < 1:
            raise ConfigError(f"must be a positive integer, not {val!r}", field=f)
    b, h, kvh, d, q, kv, e = _shape(op)
    q_el, kv_el = b * h * q * d, b * kvh * kv * d
    scores = b * h * q * kv
    mm = 2.0 * scores * d
    soft = float(op.attrs.get("softmax_flops", 5.0 * scores))
    if impl == "baseline":
        return (AttentionKernel("scores", mm, e * (q_el + kv_el + scores)),
                AttentionKernel("softmax", soft, e * 2 * scores),
                AttentionKernel("context", mm, e * (scores + kv_el + q_el)))
    passes = math.ceil(q / block_rows)
    flops = 2 * mm + soft
    if pad_tiles:
        padded = b * h * passes * block_rows * math.ceil(kv / block_cols) * block_cols
        flops = 4.0 * padded * d + soft * padded / scores
    return (AttentionKernel("flash", flops, e * (2 * q_el + 2 * kv_el * passes)),)


def attention_bytes(op: Operator, *, impl: str, block_rows: int = FLASH_BLOCK_ROWS) -> float:
    """HBM bytes of ``op`` under ``impl``: the sum over :func:`attention_kernels`."""
    return math.fsum(k.bytes_accessed
                     for k in attention_kernels(op, impl=impl, block_rows=block_rows))
