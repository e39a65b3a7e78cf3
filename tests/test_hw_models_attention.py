"""Baseline vs Flash attention kernels: HBM bytes and FLOPs against closed forms."""

from __future__ import annotations

import math

import pytest

from archsim.compilers.graph.ir import TensorSpec
from archsim.compilers.graph.tti import attention_operator
from archsim.errors import ConfigError
from archsim.hw.models.attention import attention_bytes, attention_kernels


def _op(b=2, h=8, n=4096, kv=None, d=40):
    kv = n if kv is None else kv
    q = TensorSpec("q", (b * n, h * d), "fp16")
    k = TensorSpec("k", (b * kv, h * d), "fp16")
    return attention_operator("a", q, k, k, batch=b, heads=h, head_dim=d, q_len=n, kv_len=kv,
                              attention="spatial")


@pytest.mark.parametrize(("b", "h", "n", "kv", "d"), [(2, 8, 4096, 4096, 40),
                                                      (1, 64, 1, 777, 64),
                                                      (3, 4, 300, 77, 32)])
def test_bytes_against_closed_forms(b, h, n, kv, d):
    op = _op(b, h, n, kv, d)
    e = 2  # fp16
    qo, kvb = b * h * n * d, b * h * kv * d
    # standard attention: read Q, K, V; write O; write S, read S, write P, read P
    assert attention_bytes(op, impl="baseline") == e * (2 * qo + 2 * kvb + 4 * b * h * n * kv)
    # FlashAttention-2: Q read and O written once, K and V once per 128-row query block
    passes = -(-n // 128)
    assert attention_bytes(op, impl="flash") == e * (2 * qo + 2 * kvb * passes)


def test_flops_are_the_same_for_both():
    op = _op()
    base = math.fsum(k.flops for k in attention_kernels(op, impl="baseline"))
    flash = math.fsum(k.flops for k in attention_kernels(op, impl="flash"))
    scores = 2 * 8 * 4096 * 4096
    assert base == flash == pytest.approx(4 * scores * 40 + 5 * scores)
    assert [k.name for k in attention_kernels(op, impl="baseline")] == \
        ["scores", "softmax", "context"]


def test_padded_tiles_for_short_sequences():
    op = _op(b=100, h=4, n=16, d=64)  # temporal attention over 16 frames
    (k,) = attention_kernels(op, impl="flash", pad_tiles=True)
    padded = 100 * 4 * 128 * 64
    assert k.flops == pytest.approx(4 * padded * 64 + 5 * padded)
    (u,) = attention_kernels(op, impl="flash")
    assert k.flops / u.flops == pytest.approx(128 * 64 / (16 * 16))


def test_errors():
    op = _op()
    with pytest.raises(ConfigError, match="unknown attention implementation 'xformers'"):
        attention_kernels(op, impl="xformers")
    with pytest.raises(ConfigError, match="must be a positive integer, not 0"):
        attention_kernels(op, impl="flash", block_rows=0)
    from archsim.operators import Operator
    mm = Operator("mm", "matmul", (), (), 1.0)
    with pytest.raises(ConfigError, match="is a matmul, not an attention"):
        attention_kernels(mm, impl="flash")
