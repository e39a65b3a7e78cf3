"""Standard DSL kernels, ready to use as SoC accelerators.

``gemm_tile``
    An int8 GEMM tile with int32 accumulation: ``c = acc + a @ w.T`` on fixed
    ``M x K`` activations ``a``, ``N x K`` weights ``w`` (a layer's weights as stored:
    ``[out_features, in_features]``, a convolution's ``KCRS`` flattened to ``[K, C*R*S]``)
    and ``M x N`` partial sums. The reduction is unrolled ``K`` wide over ``K`` cyclic banks of
    ``a`` and ``w``, and the output loop is pipelined at II = 1, so the tile takes
    ``1 + M * (N - 1 + depth)`` cycles for ``M*N*K`` MACs. Partial sums come in through
    ``acc`` and leave through ``c`` (two buffers, used ping-pong by a caller that iterates
    the reduction): reading and writing one array in the same pipelined loop would make the
    scheduler assume a loop-carried dependence and raise the II.
    :func:`gemm_tile_kernel` builds the kernel for other tile sizes.
``vector_add``
    Element-wise int32 addition of two ``n``-element vectors (:func:`vector_add_kernel`).

>>> from archsim.dsl.library import gemm_tile
>>> design = gemm_tile.synthesize(clock_ns=2.0)
>>> design.static_cycles()                                 # doctest: +SKIP
305
"""

from __future__ import annotations

from functools import lru_cache

from .kernel import Array, Kernel, kernel, partition, pipeline, unroll
from .types import Int

__all__ = ["gemm_tile_kernel", "gemm_tile", "GEMM_TILE_SHAPE", "vector_add_kernel",
           "vector_add"]

#: ``(m, k, n)`` of :data:`gemm_tile`.
GEMM_TILE_SHAPE: tuple[int, int, int] = (16, 16, 16)


def _check_dim(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, not {value!r}")
    return value


@lru_cache(maxsize=32)
def gemm_tile_kernel(*, m: int, k: int, n: int) -> Kernel:
    """The int8 GEMM tile kernel ``c = acc + a @ w.T`` for an ``m x k`` by ``k x n`` tile.

    Parameters
    ----------
    m, k, n : int
        Rows of ``a``, the reduction length (the unroll width: ``k`` multipliers) and rows of
        ``w``. ``k`` must be a power of two (the cyclic partition of ``a`` and ``w``).

    Returns
    -------
    Kernel
        ``gemm_tile(a: Array[Int(8), m, k], w: Array[Int(8), n, k],
        acc: Array[Int(32), m, n], c: Array[Int(32), m, n])``; one kernel per shape (cached).
    """
    m, k, n = _check_dim("m", m), _check_dim("k", k), _check_dim("n", n)
    if k & (k - 1):
        raise ValueError(f"k must be a power of two (the cyclic partition factor), not {k}")

    @kernel
    def gemm_tile(a: Array[Int(8), m, k], w: Array[Int(8), n, k],
                  acc: Array[Int(32), m, n], c: Array[Int(32), m, n]):
        partition(a, factor=k, kind="cyclic")
        partition(w, factor=k, kind="cyclic")
        for i in range(m):
            for j in pipeline(range(n), ii=1):
                s = acc[i][j]
                for r in unroll(range(k)):
                    s += a[i][r] * w[j][r]
                c[i][j] = s

    return gemm_tile


@lru_cache(maxsize=32)
def vector_add_kernel(*, n: int) -> Kernel:
    """Element-wise ``z = x + y`` on ``n`` int32 elements, one per cycle (II = 1)."""
    n = _check_dim("n", n)

    @kernel
    def vector_add(x: Array[Int(32), n], y: Array[Int(32), n], z: Array[Int(32), n]):
        for i in pipeline(range(n), ii=1):
            z[i] = x[i] + y[i]

    return vector_add


#: The 16 x 16 x 16 GEMM tile (16 int8 multipliers).
gemm_tile: Kernel = gemm_tile_kernel(m=GEMM_TILE_SHAPE[0], k=GEMM_TILE_SHAPE[1],
                                     n=GEMM_TILE_SHAPE[2])
#: A 64-element vector add.
vector_add: Kernel = vector_add_kernel(n=64)
