"""How often EdgeBERT's 16-bit AdaptivFloat accumulator wraps, against 24 and 32 bits.

A random Gaussian linear layer (activations ``A[M, K]`` std 1, weights ``W[N, K]`` std 0.05,
``K = 384``, as a hidden-384 BERT layer) is quantised to AdaptivFloat(8, 3) with the biases
of :func:`~archsim.hw.accel.adpfloat_codec.adpfloat_choose_bias`, multiplied by
:class:`~archsim.hw.accel.adpfloat_gemm.AdaptivFloatGemm`'s golden view for each
``acc_width``, and compared with float64. Printed per width:

- ``products_wrapped``: the share of nonzero products ``P`` outside the signed range;
- ``outputs_wrapped``: the share of outputs whose exact sum is outside it (the wrap is
  modular, so exactly these accumulators are wrong);
- the relative RMS and max absolute error of ``y * 2**-F`` (16-bit outputs, ``F = 28 - b_a
  - b_w - shift`` fractional bits) and of the re-quantised codes, against ``A @ W.T`` in
  float64 on the unquantised floats, and the same for float64 on the quantised values.

Usage::

    python bench/adpfloat_gemm_wrap.py [--m 128] [--n 384] [--k 384] [--seed 0]
"""

from __future__ import annotations

import argparse

import numpy as np

from archsim.hw.accel.adpfloat_codec import (
    adpfloat_choose_bias,
    adpfloat_from_float,
    adpfloat_value,
)
from archsim.hw.accel.adpfloat_gemm import AdaptivFloatGemm
from archsim.hw.checks import silence_unused

__all__ = ["measure", "main"]


def measure(*, m: int = 128, n: int = 384, k: int = 384, seed: int = 0,
            widths: tuple[int, ...] = (16, 24, 32)) -> list[dict[str, float]]:
    """One row of figures per accumulator width (see the module docstring)."""
    rng = np.random.default_rng(seed)
    a_f = rng.normal(0.0, 1.0, (m, k))
    w_f = rng.normal(0.0, 0.05, (n, k))
    ba, bw = adpfloat_choose_bias(a_f), adpfloat_choose_bias(w_f)
    a_c, w_c = adpfloat_from_float(a_f, bias=ba), adpfloat_from_float(w_f, bias=bw)
    exact = a_f @ w_f.T
    quant = adpfloat_value(a_c, bias=ba) @ adpfloat_value(w_c, bias=bw).T
    out_bias = adpfloat_choose_bias(exact)
    # the largest F that keeps max|C| inside 16 bits: y = C * 2**F <= 32767
    frac = min(15, int(np.floor(np.log2(32767 / np.abs(exact).max()))))
    shift = 28 - ba - bw - frac
    # integer products at bias 0: sig * 2**exp per operand
    def scaled(codes: np.ndarray) -> np.ndarray:
        e, mn = (codes >> 4) & 7, codes & 15
        sig = np.where((e == 0) & (mn == 0), 0, 16 + mn) << e
        return np.where(codes >> 7 == 1, -sig, sig)
    products = scaled(a_c)[:, None, :] * scaled(w_c)[None, :, :]   # M x N x K
    nonzero = products != 0
    total = products.sum(axis=2)
    rows = []
    for width in widths:
        unit = AdaptivFloatGemm(size=16, acc_width=width, addr_width=20)
        silence_unused(unit)
        lim = 1 << (width - 1)
        args = dict(a_addr=0, b_addr=0, bias_addr=0, c_addr=0, c_fixed_addr=0, m=m, k=k,
                    n=n, a_stride=k, b_stride=k, c_stride=n, shift=shift, use_bias=0,
                    relu=0, out_fixed=1, transpose_c=0, out_frac=frac, out_bias=out_bias)
        bufs = {"a": a_c.ravel(), "b": w_c.ravel(), "bias": np.zeros(16, np.int64),
                "c": np.zeros(m * n, np.int64), "c_fixed": np.zeros(m * n, np.int64)}
        unit.golden(bufs, args)
        y = bufs["c_fixed"].reshape(m, n)
        y = y - ((y >> 15) << 16)
        y_real = np.ldexp(y.astype(np.float64), -frac)
        unit.golden(bufs, dict(args, out_fixed=0))
        c_real = adpfloat_value(bufs["c"].reshape(m, n), bias=out_bias)
        rms = float(np.sqrt(np.mean(exact**2)))
        rows.append({
            "acc_width": width, "bias_a": ba, "bias_w": bw, "shift": shift, "frac": frac,
            "out_bias": out_bias,
            "products_wrapped": float(((np.abs(products) >= lim) & nonzero).sum()
                                      / nonzero.sum()),
            "outputs_wrapped": float(((total < -lim) | (total >= lim)).mean()),
            "y_rel_rms_err": float(np.sqrt(np.mean((y_real - exact) ** 2)) / rms),
            "y_max_abs_err": float(np.abs(y_real - exact).max()),
            "code_rel_rms_err": float(np.sqrt(np.mean((c_real - exact) ** 2)) / rms),
            "quantised_inputs_rel_rms_err": float(np.sqrt(np.mean((quant - exact) ** 2)) / rms),
        })
    return rows


def main(argv: list[str] | None = None) -> None:
    """Print the figures of :func:`measure`."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--m", type=int, default=128)
    p.add_argument("--n", type=int, default=384)
    p.add_argument("--k", type=int, default=384)
    p.add_argument("--seed", type=int, default=0)
    ns = p.parse_args(argv)
    for row in measure(m=ns.m, n=ns.n, k=ns.k, seed=ns.seed):
        print("  ".join(f"{key}={value:.4g}" if isinstance(value, float) else f"{key}={value}"
                        for key, value in row.items()))


if __name__ == "__main__":
    main()
