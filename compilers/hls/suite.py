"""Reference kernels at chosen shapes: 2-D convolution and MachSuite's stencil2d/stencil3d.

Each function returns a fresh :class:`~archsim.dsl.kernel.Kernel` for the given shape (the
shapes are closure constants of the kernel source), so tests can run small shapes under pysim
and the benchmark MachSuite's shapes under Verilator.

* :func:`conv2d`: a true 2-D convolution (kernel flipped, "valid" output, like
  ``scipy.signal.convolve2d(x, w, mode="valid")``) of an int8 image with a 3x3 int8 kernel
  into int32. The column loop is pipelined two outputs at a time (``unroll`` by 2), the
  image and the output are cyclically partitioned by 2 (an even width keeps every row's
  banks aligned) and the kernel completely, so one iteration reads 12 image words over 2
  banks: II = 6 for 2 outputs, against 9 per output unpartitioned.
* :func:`stencil2d`: MachSuite ``stencil/stencil2d`` (``sol[r][c] = sum filter[k1][k2] *
  orig[r + k1][c + k2]`` over the valid region; MachSuite's shape is 128 x 64 int32).
* :func:`stencil3d`: MachSuite ``stencil/stencil3d``: boundary faces copied, interior
  ``C0 * orig[i][j][k] + C1 * (sum of the 6 neighbours)``; MachSuite's shape is height 32,
  columns 32, rows 16 (``orig[32][32][16]``).
* :func:`spmv_ellpack`: sparse matrix-vector product in ELLPACK form (indirect reads
  ``x[cols[i][j]]``), one pipelined loop over each row's ``width`` entries.
* :func:`needleman_wunsch`: the 2-D dynamic-programming alignment score of two sequences of
  2-bit symbols (match +1, mismatch and gap -1), the whole score matrix written back; the
  inner loop is pipelined (the row above is never written in it: the dependence analysis
  proves it; two reads of ``m`` per cell on one port give II = 2).
* :func:`oddeven_sort`: odd-even transposition sort of ``n`` int16 in place (``n // 2``
  rounds of an even and an odd phase), each phase pipelined (its compare-exchange pairs
  are disjoint: II = 2 from two reads and two writes of one port each).
* :func:`histogram`: ``h[x[i]] += 1`` (read-modify-write through memory), pipelined.
* :func:`collatz`: Collatz steps of a 16-bit start value, a ``while bounded(...)`` loop.
"""

# no `from __future__ import annotations`: the kernels' Array[...] annotations read the
# shape arguments, which must be evaluated while the closure exists

from ...dsl import Array, Int, UInt, bounded, kernel, partition, pipeline, unroll
from ...dsl.kernel import Kernel

__all__ = ["conv2d", "stencil2d", "stencil3d", "MACHSUITE_STENCIL2D", "MACHSUITE_STENCIL3D",
           "spmv_ellpack", "needleman_wunsch", "oddeven_sort", "histogram", "collatz"]

#: MachSuite's stencil2d shape: (rows, columns).
MACHSUITE_STENCIL2D = (128, 64)
#: MachSuite's stencil3d shape: (height, columns, rows).
MACHSUITE_STENCIL3D = (32, 32, 16)


def conv2d(h: int, w: int) -> Kernel:
    """A 3x3 convolution of an ``h x w`` int8 image (``w`` even)."""
    if h < 3 or w < 4 or w % 2:
        raise ValueError(f"conv2d needs h >= 3 and an even w >= 4, not {h} x {w}")
    oh, ow = h - 2, w - 2

    @kernel
    def conv2d(x: Array[Int(8), h, w], k: Array[Int(8), 3, 3], y: Array[Int(32), oh, ow]):
        partition(x, factor=2, kind="cyclic")
        partition(y, factor=2, kind="cyclic")
        partition(k, kind="complete")
        for r in range(oh):
            for c in pipeline(range(0, ow, 2), ii=1):
                acc0 = Int(32)(0)
                acc1 = Int(32)(0)
                for k1 in unroll(range(3)):
                    for q in unroll(range(4)):  # each of the 4 columns is read once
                        v = x[r + k1][c + q]
                        if q <= 2:
                            acc0 += k[2 - k1][2 - q] * v
                        if q >= 1:
                            acc1 += k[2 - k1][3 - q] * v
                y[r][c] = acc0
                y[r][c + 1] = acc1

    return conv2d


def stencil2d(rows: int, cols: int) -> Kernel:
    """MachSuite stencil2d on an ``rows x cols`` int32 grid with a 3x3 int32 filter."""
    if rows < 3 or cols < 3:
        raise ValueError(f"stencil2d needs at least 3 x 3, not {rows} x {cols}")

    @kernel
    def stencil2d(orig: Array[Int(32), rows, cols], filt: Array[Int(32), 3, 3],
                  sol: Array[Int(32), rows, cols]):
        partition(filt, kind="complete")
        for r in range(rows - 2):
            for c in pipeline(range(cols - 2), ii=1):
                t = Int(32)(0)
                for k1 in unroll(range(3)):
                    for k2 in unroll(range(3)):
                        t += filt[k1][k2] * orig[r + k1][c + k2]
                sol[r][c] = t

    return stencil2d


def stencil3d(height: int, cols: int, rows: int) -> Kernel:
    """MachSuite stencil3d on an ``orig[height][cols][rows]`` int32 grid, ``coef = (C0, C1)``."""
    if min(height, cols, rows) < 3:
        raise ValueError(f"stencil3d needs at least 3 x 3 x 3, not {height} x {cols} x {rows}")
    hh, cc, rr = height, cols, rows

    @kernel
    def stencil3d(orig: Array[Int(32), hh, cc, rr], coef: Array[Int(32), 2],
                  sol: Array[Int(32), hh, cc, rr]):
        partition(coef, kind="complete")
        # boundary faces are copied, as in MachSuite
        for j in range(cc):
            for k in pipeline(range(rr), ii=1):
                sol[0][j][k] = orig[0][j][k]
                sol[hh - 1][j][k] = orig[hh - 1][j][k]
        for i in range(1, hh - 1):
            for k in pipeline(range(rr), ii=1):
                sol[i][0][k] = orig[i][0][k]
                sol[i][cc - 1][k] = orig[i][cc - 1][k]
        for i in range(1, hh - 1):
            for j in pipeline(range(1, cc - 1), ii=1):
                sol[i][j][0] = orig[i][j][0]
                sol[i][j][rr - 1] = orig[i][j][rr - 1]
        for i in range(1, hh - 1):
            for j in range(1, cc - 1):
                for k in pipeline(range(1, rr - 1), ii=1):
                    s1 = (orig[i + 1][j][k] + orig[i - 1][j][k] + orig[i][j + 1][k] +
                          orig[i][j - 1][k] + orig[i][j][k + 1] + orig[i][j][k - 1])
                    sol[i][j][k] = Int(32)(orig[i][j][k] * coef[0] + s1 * coef[1])

    return stencil3d


def spmv_ellpack(rows: int, width: int, x_len: int) -> Kernel:
    """ELLPACK SpMV: ``y[i] = sum_j val[i][j] * x[cols[i][j]]`` (int16 values, int32 sums)."""
    if min(rows, width, x_len) < 1:
        raise ValueError(f"spmv_ellpack needs positive sizes, not {rows}, {width}, {x_len}")
    col_bits = max(1, (x_len - 1).bit_length())

    @kernel
    def spmv_ell(val: Array[Int(16), rows, width], cols: Array[UInt(col_bits), rows, width],
                 x: Array[Int(16), x_len], y: Array[Int(32), rows]):
        for i in range(rows):
            s = Int(32)(0)
            for j in pipeline(range(width), ii=1):
                s += val[i][j] * x[cols[i][j]]
            y[i] = s

    return spmv_ell


def needleman_wunsch(length: int) -> Kernel:
    """Needleman-Wunsch score matrix of two ``length``-symbol sequences; returns the score."""
    if length < 1:
        raise ValueError(f"needleman_wunsch needs a positive length, not {length}")

    @kernel
    def nw(a: Array[UInt(2), length], b: Array[UInt(2), length],
           m: Array[Int(16), length + 1, length + 1]) -> Int(16):
        for i in range(length + 1):
            m[i][0] = Int(16)(0) - i
        for j in range(length + 1):
            m[0][j] = Int(16)(0) - j
        for i in range(1, length + 1):
            left = m[i][0]
            for j in pipeline(range(1, length + 1), ii=1):
                match = m[i - 1][j - 1] + (1 if a[i - 1] == b[j - 1] else -1)
                v = max(match, max(m[i - 1][j] - 1, left - 1))
                m[i][j] = v
                left = v
        return m[length][length]

    return nw


def oddeven_sort(n: int) -> Kernel:
    """Odd-even transposition sort of ``n`` int16 values in place."""
    if n < 2:
        raise ValueError(f"oddeven_sort needs at least 2 elements, not {n}")

    @kernel
    def oddeven_sort(a: Array[Int(16), n]):
        for _p in range(n // 2):
            for k in pipeline(range(0, n - 1, 2), ii=1):
                x = a[k]
                y = a[k + 1]
                a[k] = min(x, y)
                a[k + 1] = max(x, y)
            for k in pipeline(range(1, n - 1, 2), ii=1):
                x = a[k]
                y = a[k + 1]
                a[k] = min(x, y)
                a[k + 1] = max(x, y)

    return oddeven_sort


def histogram(n: int, bins: int = 16) -> Kernel:
    """``h[x[i]] += 1`` over ``n`` samples into ``bins`` (a power of two) 16-bit counters."""
    if n < 1 or bins < 2 or bins & (bins - 1):
        raise ValueError(f"histogram needs n >= 1 and a power-of-two bins >= 2, not {n}, {bins}")
    bin_bits = (bins - 1).bit_length()

    @kernel
    def histogram(x: Array[UInt(bin_bits), n], h: Array[UInt(16), bins]):
        for i in pipeline(range(n), ii=1):
            h[x[i]] += 1

    return histogram


def collatz(max_steps: int = 200) -> Kernel:
    """Collatz steps of a 16-bit start value (at most ``max_steps``): a bounded while loop."""

    @kernel
    def collatz(x: UInt(16)) -> UInt(8):
        n = UInt(32)(x)
        steps = UInt(8)(0)
        while bounded(n != 1, max_iter=max_steps):
            if n & 1:
                n = n * 3 + 1
            else:
                n = n >> 1
            steps += 1
        return steps

    return collatz
