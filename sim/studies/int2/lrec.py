"""Group-wise INTk quantization and low-rank error correction (LREC) of linear weights.

* :func:`quantize_groupwise`: asymmetric INTk per group of ``group`` consecutive weights
  along the input dimension, scale stored in FP16 and an integer zero point in
  ``0..2^k-1``. The clipping range is the group's min-max shrunk by the factor in
  :data:`CLIP_GRID` that minimizes the group's squared error ("min-max or better": factor 1
  is plain min-max and is always a candidate). It is the library's
  :class:`~archsim.dsl.formats.IntFormat` (asymmetric, group granularity, FP16 scales, a
  ``bits``-bit zero point and a clip search).
* :func:`svd_correction`: the data-free rank-``r`` correction, the truncated SVD of
  ``E = W - Q(W)`` (the Eckart-Young optimum of ``||E - A B||_F``).
* :func:`whitened_correction`: the rank-``r`` correction that minimizes the layer's output
  error on calibration inputs ``X``, ``||X E^T - X (A B)^T||_F``. With
  ``H = X^T X + lambda I = L L^T`` the error is ``||(E - A B) L||_F``, so the optimum is
  the truncated SVD of ``E L`` mapped back by ``L^-1`` (closed form; it is the limit a
  gradient or alternating least-squares refinement of the SVD start would reach).
* :func:`calibration_grams`: ``X^T X`` of every block linear input of the FP model on
  calibration tokens (one forward pass, via :meth:`Llama.forward`'s ``on_linear``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ....dsl.formats import IntFormat
from ....errors import ConfigError
from ...nn.llama import Llama

__all__ = [
    "CLIP_GRID",
    "DAMPING",
    "quantize_groupwise",
    "groupwise_bits_per_weight",
    "svd_correction",
    "whitened_correction",
    "output_error",
    "calibration_grams",
    "lowrank_bits",
    "sequential_corrections",
]

#: Candidate shrink factors of the min-max clipping range (1.0 = plain min-max).
CLIP_GRID: tuple[float, ...] = (1.0, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5)

#: Damping of ``X^T X`` for the whitened solve: ``lambda = DAMPING * mean(diag(X^T X))``
#: (GPTQ's percdamp default 0.01; assumed).
DAMPING = 0.01


def _check_bits_group(bits: int, group: int, cols: int) -> None:
    if isinstance(bits, bool) or not isinstance(bits, int) or not 2 <= bits <= 8:
        raise ConfigError(f"bits must be an integer in 2..8, not {bits!r}", field="bits")
    if isinstance(group, bool) or not isinstance(group, int) or group < 1 or cols % group:
        raise ConfigError(f"group must be a positive divisor of the input size {cols}, "
                          f"not {group!r}", field="group")


def quantize_groupwise(w: np.ndarray, *, bits: int, group: int,
                       clip_grid: Sequence[float] = CLIP_GRID) -> np.ndarray:
    """The dequantized INT``bits`` version of ``w`` ``(out, in)``, groups along ``in``.

    Per group: ``lo = min(group min, 0)``, ``hi = max(group max, 0)`` (0 stays in range, as
    in GPTQ), both scaled by a factor ``c`` of ``clip_grid``; scale
    ``s = fp16((hi - lo) / (2^bits - 1))``, zero ``z = clip(round(-lo / s), 0, 2^bits - 1)``,
    codes ``q = clip(round(w / s) + z, 0, 2^bits - 1)``, value ``s (q - z)``. The ``c`` with
    the least squared error of the group is kept.
    """
    w = np.asarray(w, np.float32)
    if w.ndim != 2:
        raise ConfigError(f"w must be a 2-D (out, in) matrix, not shape {w.shape}", field="w")
    _check_bits_group(bits, group, w.shape[1])
    if not clip_grid or any(not 0 < c <= 1 for c in clip_grid):
        raise ConfigError("clip_grid must be non-empty factors in (0, 1]", field="clip_grid")
    return _format(bits, group, tuple(clip_grid)).quantize(w).astype(np.float32)


def groupwise_bits_per_weight(bits: int, group: int) -> float:
    """Stored bits per weight: ``bits`` codes + (FP16 scale + ``bits``-bit zero) / group."""
    return _format(bits, group, CLIP_GRID).effective_bits()


def _format(bits: int, group: int, clip_grid: tuple[float, ...]) -> IntFormat:
    """The library format of :func:`quantize_groupwise` (groups along the input axis)."""
    return IntFormat(bits=bits, symmetric=False, granularity="group", axis=1, group_size=group,
                     scale_dtype="float16", scale_bits=16, zero_bits=bits, clip_grid=clip_grid)


def lowrank_bits(out_dim: int, in_dim: int, rank: int) -> int:
    """Bits of FP16 factors ``A (out, r)`` and ``B (r, in)``."""
    return 16 * rank * (out_dim + in_dim)


def _check_rank(rank: int, shape: tuple[int, ...]) -> None:
    if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= min(shape):
        raise ConfigError(f"rank must be in 1..{min(shape)}, not {rank!r}", field="rank")


def svd_correction(err: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """``A (out, r), B (r, in)`` with ``A B`` the best rank-``r`` approximation of ``err``."""
    err = np.asarray(err, np.float64)
    _check_rank(rank, err.shape)
    u, s, vt = np.linalg.svd(err, full_matrices=False)
    return u[:, :rank] * s[:rank], vt[:rank]


def whitened_correction(err: np.ndarray, gram: np.ndarray, rank: int, *,
                        damping: float = DAMPING) -> tuple[np.ndarray, np.ndarray]:
    """``A, B`` minimizing ``tr((E - A B) H (E - A B)^T)``, ``H = gram + lambda I``.

    Parameters
    ----------
    err : ndarray ``(out, in)``
        ``W - Q(W)``.
    gram : ndarray ``(in, in)``
        ``X^T X`` of the layer's calibration inputs.
    rank : int
    damping : float
        ``lambda = damping * mean(diag(gram))`` keeps ``H`` positive definite.
    """
    err = np.asarray(err, np.float64)
    _check_rank(rank, err.shape)
    gram = np.asarray(gram, np.float64)
    if gram.shape != (err.shape[1], err.shape[1]):
        raise ConfigError(f"gram must be ({err.shape[1]}, {err.shape[1]}), not {gram.shape}",
                          field="gram")
    if not damping > 0:
        raise ConfigError(f"damping must be > 0, not {damping!r}", field="damping")
    h = gram + damping * float(np.mean(np.diag(gram)) or 1.0) * np.eye(gram.shape[0])
    lower = np.linalg.cholesky(h)
    u, s, vt = np.linalg.svd(err @ lower, full_matrices=False)
    a = u[:, :rank] * s[:rank]
    # B = V_r^T L^-1, i.e. solve L^T B^T = V_r.
    b = np.linalg.solve(lower.T, vt[:rank].T).T
    return a, b


def output_error(err: np.ndarray, a: np.ndarray, b: np.ndarray, gram: np.ndarray) -> float:
    """``||X (E - A B)^T||_F^2 = tr((E - A B) X^T X (E - A B)^T)``."""
    r = np.asarray(err, np.float64) - np.asarray(a, np.float64) @ np.asarray(b, np.float64)
    return float(np.sum((r @ np.asarray(gram, np.float64)) * r))


def calibration_grams(model: Llama, ids: np.ndarray, *, window: int,
                      names: Sequence[str] | None = None,
                      weights: Mapping[str, np.ndarray] | None = None,
                      ) -> dict[str, np.ndarray]:
    """``X^T X`` (float64) of the inputs of each linear weight ``names`` over ``ids``.

    The tokens are run in independent windows of ``window`` tokens (as perplexity is);
    weights sharing an input (q/k/v, gate/up) share one product per window.
    """
    wanted = set(model.linear_weight_names() if names is None else names)
    grams: dict[str, np.ndarray] = {}
    last: list[tuple[np.ndarray, np.ndarray]] = []

    def hook(name: str, x: np.ndarray) -> None:
        if name not in wanted:
            return
        if last and last[0][0] is x:
            g = last[0][1]  # same input array as the previous linear: reuse its product
        else:
            x64 = np.asarray(x, np.float64)
            g = x64.T @ x64
            last[:] = [(x, g)]
        if name in grams and grams[name] is not g:
            grams[name] = grams[name] + g
        else:
            grams[name] = g

    ids = np.asarray(ids, np.int64)
    if not isinstance(window, int) or window < 1:
        raise ConfigError(f"window must be a positive integer, not {window!r}",
                          field="window")
    for s in range(0, ids.size, window):
        chunk = ids[s : s + window]
        last.clear()
        model.forward(chunk, weights=weights, on_linear=hook)
    missing = wanted - set(grams)
    if missing:
        raise ConfigError(f"no calibration input reached {sorted(missing)[0]!r}",
                          field="names")
    return grams


class _StopForward(Exception):
    """Raised by a hook to end a forward pass once the block of interest has been seen."""


def _block_inputs(model: Llama, ids: np.ndarray, window: int, block: int,
                  weights: Mapping[str, np.ndarray] | None) -> dict[str, list[np.ndarray]]:
    """The inputs of block ``block``'s linear weights, per window (the pass stops there)."""
    prefix = f"blk.{block}."
    last = f"{prefix}ffn_down.weight"
    got: dict[str, list[np.ndarray]] = {}

    def hook(name: str, x: np.ndarray) -> None:
        if name.startswith(prefix):
            got.setdefault(name, []).append(np.asarray(x, np.float64))
            if name == last:
                raise _StopForward

    for s in range(0, ids.size, window):
        try:
            model.forward(ids[s : s + window], weights=weights, on_linear=hook)
        except _StopForward:
            pass
    return got


def sequential_corrections(model: Llama, ids: np.ndarray, *, window: int,
                           quantized: Mapping[str, np.ndarray], rank: int,
                           damping: float = DAMPING) -> dict[str, np.ndarray]:
    """``Q + A B`` per block linear weight, fitted block by block with error propagation.

    For block ``i`` the inputs ``Xq`` come from the model whose blocks ``< i`` are already
    quantized and corrected (block ``i`` itself still FP), the targets from the FP model's
    inputs ``X``: ``A B`` minimizes ``||X W^T - Xq (Q + A B)^T||_F``. The unconstrained
    optimum, ridge-regularized towards ``W``, is ``T = W + W (G - Hq)^T Hd^-1`` (``G = Xq^T X``,
    ``Hq = Xq^T Xq``, ``Hd = Hq + lambda I``); the rank-``r`` optimum is
    :func:`whitened_correction` of ``T - Q`` in the ``Hd`` metric (exact: the objective is
    ``||(T - Q - A B) L||^2`` + a constant, ``Hd = L L^T``).
    """
    ids = np.asarray(ids, np.int64)
    out: dict[str, np.ndarray] = {}
    # The FP inputs of every block in one pass, kept in float32 (q/k/v and gate/up share
    # one array each).
    fp_all: dict[str, list[np.ndarray]] = {}

    def keep(name: str, x: np.ndarray) -> None:
        fp_all.setdefault(name, []).append(np.asarray(x, np.float32))

    for s in range(0, ids.size, window):
        model.forward(ids[s : s + window], on_linear=keep)
    for i in range(model.config.num_layers):
        q_in = _block_inputs(model, ids, window, i, out)
        for name, xq in q_in.items():
            xs = [np.asarray(x, np.float64) for x in fp_all.pop(name)]
            hq = sum(x.T @ x for x in xq)
            g = sum(a.T @ b for a, b in zip(xq, xs, strict=True))
            lam = damping * float(np.mean(np.diag(hq)) or 1.0)
            hd = hq + lam * np.eye(hq.shape[0])
            w = np.asarray(model.weights[name], np.float64)
            # Ridge towards W: min ||X W^T - Xq T^T||^2 + lambda ||T - W||^2 gives
            # T = W + W (G - Hq)^T Hd^-1 (Hd symmetric); T = W when Xq = X.
            target = w + np.linalg.solve(hd, (g - hq) @ w.T).T
            qn = np.asarray(quantized[name], np.float64)
            a, b = whitened_correction(target - qn, hq, rank, damping=damping)
            # Balance the factors (same product) so that neither overflows FP16.
            c = np.sqrt(np.linalg.norm(b, axis=1) / np.maximum(np.linalg.norm(a, axis=0),
                                                                 1e-300))
            a, b = a * c, b / c[:, None]
            a16 = a.astype(np.float16).astype(np.float64)
            b16 = b.astype(np.float16).astype(np.float64)
            out[name] = (qn + a16 @ b16).astype(np.float32)
    return out
