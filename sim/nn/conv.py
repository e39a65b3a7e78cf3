"""Convolution windows as strided numpy views: the im2col / col2im pair the numpy nets share.

``conv_windows`` is a zero-copy ``(N, C, H', W', kh, kw)`` view of an NCHW tensor's windows
(stride and dilation applied); ``im2col`` copies it into the GEMM layout; ``col2im`` is the
adjoint that sums patch gradients back onto the input's pixels.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import DTypeLike, NDArray

__all__ = ["col2im", "conv_windows", "im2col"]

Array = NDArray[np.floating]


def conv_windows(x: Array, *, kh: int, kw: int, stride: int = 1, dilation: int = 1,
                 oh: int | None = None, ow: int | None = None) -> Array:
    """The windows of an (already padded) NCHW ``x`` as a ``(N, C, oh, ow, kh, kw)`` view.

    Parameters
    ----------
    x : ndarray
        ``(N, C, H, W)`` input, padding included.
    kh, kw : int
        Kernel height and width.
    stride, dilation : int
        Window step and tap spacing.
    oh, ow : int, optional
        Keep only the first ``oh x ow`` windows (all that fit when omitted).
    """
    eff_h, eff_w = dilation * (kh - 1) + 1, dilation * (kw - 1) + 1
    v = sliding_window_view(x, (eff_h, eff_w), axis=(2, 3))
    v = v[:, :, ::stride, ::stride, ::dilation, ::dilation]
    return v[:, :, :oh, :ow]


def im2col(x: Array, *, k: int, stride: int = 1) -> Array:
    """``(N, C, H, W)`` -> ``(N, H', W', C*k*k)`` patches of a valid ``k x k`` convolution."""
    win = conv_windows(x, kh=k, kw=k, stride=stride)
    n, c, h, w = win.shape[:4]
    return np.ascontiguousarray(win.transpose(0, 2, 3, 1, 4, 5)).reshape(n, h, w, c * k * k)


def col2im(dcols: Array, x_shape: tuple[int, int, int, int], *, k: int, stride: int = 1,
           dtype: DTypeLike | None = None) -> Array:
    """The adjoint of :func:`im2col`: patch gradients summed back into ``x_shape``.

    Parameters
    ----------
    dcols : ndarray
        Gradients of the patches, any shape that reshapes to ``(N, H', W', C, k, k)``.
    x_shape : tuple of int
        ``(N, C, H, W)`` of the (padded) input.
    k, stride : int
        Kernel size and stride of the forward :func:`im2col`.
    dtype : dtype, optional
        Accumulation dtype (``dcols.dtype`` when omitted).
    """
    n, c, h, w = x_shape
    ho, wo = (h - k) // stride + 1, (w - k) // stride + 1
    d6 = dcols.reshape(n, ho, wo, c, k, k)
    dx = np.zeros(x_shape, dcols.dtype if dtype is None else dtype)
    for i in range(k):  # each kernel tap scatters back to the input pixels it read
        for j in range(k):
            dx[:, :, i : i + stride * (ho - 1) + 1 : stride,
               j : j + stride * (wo - 1) + 1 : stride] += d6[..., i, j].transpose(0, 3, 1, 2)
    return dx
