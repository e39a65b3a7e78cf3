"""SCALE-Sim's fold model of an R x C systolic array: cycles of one matmul.

For ``C[M, N] = A[M, K] @ B[K, N]`` the array computes one R x C tile (a *fold*) at a time,
folds one after another without overlap, as SCALE-Sim assumes (Samajdar et al., ISPASS
2020; SCALE-Sim v2/v3):

``"os"`` (output-stationary)
    ``ceil(M / R) * ceil(N / C)`` folds (output tiles) of ``R + C + T - 2`` cycles, ``T = K``.
``"ws"`` (weight-stationary)
    ``ceil(K / R) * ceil(N / C)`` folds (weight tiles) of ``2R + C + T - 2`` cycles, ``T = M``
    (``R`` more for preloading the weight tile).

Pure Python on ints (the SoC simulator calls it in inner loops), and the formula the RTL
array of :mod:`archsim.hw.systolic` is tested against: its measured cycles per fold are
exactly these. Which dimensions fold over the array's rows and columns is
:func:`fold_dims` (the SoC tiler aligns its blocks to them).
"""

from __future__ import annotations

from ..checks import check_positive

__all__ = ["DATAFLOWS", "check_dataflow", "fold_count", "fold_t", "fold_cycles",
           "matmul_cycles", "fold_dims"]

#: The dataflows the fold model (and :class:`~archsim.hw.systolic.SystolicArray`) support.
DATAFLOWS: tuple[str, ...] = ("os", "ws")


def check_dataflow(dataflow: object) -> str:
    """Return ``dataflow`` if it is one of :data:`DATAFLOWS`, else raise ``ValueError``."""
    if not isinstance(dataflow, str) or dataflow not in DATAFLOWS:
        raise ValueError(f"dataflow must be one of 'os', 'ws', not {dataflow!r}")
    return dataflow


def _ceil_div(x: int, y: int) -> int:
    return -(-x // y)


def fold_count(*, rows: int, cols: int, m: int, k: int, n: int, dataflow: str) -> int:
    """Number of folds (array-sized tiles run one after another) of ``A[m, k] @ B[k, n]``.

    ``ceil(m / rows) * ceil(n / cols)`` for ``"os"`` (output tiles);
    ``ceil(k / rows) * ceil(n / cols)`` for ``"ws"`` (weight tiles).
    """
    rows, cols = check_positive("rows", rows), check_positive("cols", cols)
    m, k, n = check_positive("m", m), check_positive("k", k), check_positive("n", n)
    if check_dataflow(dataflow) == "os":
        return _ceil_div(m, rows) * _ceil_div(n, cols)
    return _ceil_div(k, rows) * _ceil_div(n, cols)


def fold_t(*, m: int, k: int, n: int, dataflow: str) -> int:
    """The ``T`` of :func:`fold_cycles` for ``A[m, k] @ B[k, n]``.

    ``k`` for ``"os"`` (operand pairs each PE accumulates), ``m`` for ``"ws"`` (rows of ``A``
    streamed past each weight tile). ``n`` only takes part in the validation.
    """
    m, k = check_positive("m", m), check_positive("k", k)
    check_positive("n", n)
    return k if check_dataflow(dataflow) == "os" else m


def fold_cycles(*, rows: int, cols: int, t: int, dataflow: str) -> int:
    """Cycles of one fold: ``rows + cols + t - 2`` (OS) or ``2 * rows + cols + t - 2`` (WS).

    Parameters
    ----------
    rows, cols : int
        Array size ``R`` x ``C``.
    t : int
        Temporal length of the fold (see :func:`fold_t`): ``K`` for OS, ``M`` for WS.
    dataflow : str
        ``"os"`` or ``"ws"``.
    """
    rows, cols = check_positive("rows", rows), check_positive("cols", cols)
    t = check_positive("t", t)
    if check_dataflow(dataflow) == "os":
        return rows + cols + t - 2
    return 2 * rows + cols + t - 2


def matmul_cycles(*, rows: int, cols: int, m: int, k: int, n: int, dataflow: str) -> int:
    """Cycles of ``A[m, k] @ B[k, n]`` on an R x C array: folds x cycles per fold."""
    folds = fold_count(rows=rows, cols=cols, m=m, k=k, n=n, dataflow=dataflow)
    t = fold_t(m=m, k=k, n=n, dataflow=dataflow)
    return folds * fold_cycles(rows=rows, cols=cols, t=t, dataflow=dataflow)


def fold_dims(*, rows: int, cols: int, dataflow: str) -> tuple[int, int, int]:
    """The ``(m, k, n)`` granularity the folds cut a GEMM at: ``(rows, 1, cols)`` for
    ``"os"`` (``m`` over the rows, ``n`` over the columns) and ``(1, rows, cols)`` for
    ``"ws"`` (``k`` over the rows). A block that is a multiple of these in every dimension
    leaves no partly filled fold except where the whole dimension is not a multiple."""
    rows, cols = check_positive("rows", rows), check_positive("cols", cols)
    if check_dataflow(dataflow) == "os":
        return (rows, 1, cols)
    return (1, rows, cols)
