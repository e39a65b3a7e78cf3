"""im2col / col2im / conv_windows against explicit loops and the adjoint identity."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.sim.nn.conv import col2im, conv_windows, im2col


@pytest.mark.parametrize(("k", "stride"), [(1, 1), (3, 1), (3, 2), (2, 3)])
def test_im2col_convolution_matches_a_direct_loop(k: int, stride: int) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 8, 7))
    w = rng.standard_normal((4, 3, k, k))
    cols = im2col(x, k=k, stride=stride)
    y = cols @ w.reshape(4, -1).T  # (N, H', W', cout)
    ho, wo = (8 - k) // stride + 1, (7 - k) // stride + 1
    assert y.shape == (2, ho, wo, 4)
    ref = np.zeros_like(y)
    for n in range(2):
        for i in range(ho):
            for j in range(wo):
                patch = x[n, :, i * stride:i * stride + k, j * stride:j * stride + k]
                ref[n, i, j] = np.einsum("chw,ochw->o", patch, w)
    np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("k", "stride"), [(3, 1), (3, 2), (1, 2)])
def test_col2im_is_the_adjoint_of_im2col(k: int, stride: int) -> None:
    # <im2col(x), g> == <x, col2im(g)> for every x and g defines the adjoint.
    rng = np.random.default_rng(1)
    shape = (2, 3, 9, 8)
    x = rng.standard_normal(shape)
    cols = im2col(x, k=k, stride=stride)
    g = rng.standard_normal(cols.shape)
    lhs = float(np.sum(cols * g))
    rhs = float(np.sum(x * col2im(g, shape, k=k, stride=stride)))
    assert lhs == pytest.approx(rhs, rel=1e-12)


def test_col2im_accumulates_in_the_dtype_asked_for() -> None:
    g = np.ones((1, 2, 2, 1 * 2 * 2), np.float64)
    dx = col2im(g, (1, 1, 3, 3), k=2, dtype=np.float32)
    assert dx.dtype == np.float32
    # the centre pixel is read by all four 2x2 windows, the corners by one
    np.testing.assert_array_equal(dx[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


def test_conv_windows_dilation_and_crop() -> None:
    x = np.arange(2 * 1 * 7 * 7, dtype=float).reshape(2, 1, 7, 7)
    v = conv_windows(x, kh=2, kw=3, stride=2, dilation=2, oh=2, ow=1)
    assert v.shape == (2, 1, 2, 1, 2, 3)
    for i in range(2):
        for a in range(2):
            for b in range(3):
                assert v[1, 0, i, 0, a, b] == x[1, 0, 2 * i + 2 * a, 2 * b]
