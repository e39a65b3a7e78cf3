"""A Bloomier filter: a static table that maps inserted keys to small values, lossily.

Chazelle, Kilian, Rubinfeld & Tal (SODA 2004), as Weightless (Reagen et al., ICML 2018)
uses it for DNN weights. The table ``X`` has ``m`` cells of ``t`` bits; ``k`` hash functions
``H_0 .. H_{k-1}`` map a key to ``k`` cells and a mask hash ``H_M`` gives ``t`` bits. A query
returns ``H_M(key) ^ X[H_0(key)] ^ ... ^ X[H_{k-1}(key)]``. Every inserted key decodes to its
value exactly; any other key decodes to a uniformly random ``t``-bit word, which reads as a
valid value (a *false positive*) with probability ``num_values / 2**t`` (``2**-(t - r)`` for
``r``-bit values) and as "absent" otherwise.

Construction peels the 3-hypergraph of keys (a key that is the only one hashing to some cell
is removed, repeatedly) and assigns cells in the reverse order. As in the Xor filter (Graf &
Lemire, 2020) the table is split into ``k`` equal segments, ``H_j`` hashing into segment
``j``, so a key's cells are distinct; with ``k = 3`` peeling succeeds with high probability
for ``m >= 1.23 n + 32``. On failure the filter rehashes with the next seed.
"""

from __future__ import annotations

import lzma
import math
from dataclasses import dataclass

import numpy as np

from ...errors import ConfigError, SimulationError

__all__ = ["BloomierFilter", "false_positive_rate", "splitmix64", "ABSENT",
           "DEFAULT_CELLS_PER_KEY", "DEFAULT_EXTRA_CELLS", "SEED_BITS", "MAX_SEED"]

#: What :meth:`BloomierFilter.query` returns for a key that decodes outside the value range.
ABSENT = -1
#: Cells per key: the load threshold of peeling a random 3-hypergraph is ~1.222 n cells
#: (Molloy 2005; the Xor filter's 1.23).
DEFAULT_CELLS_PER_KEY = 1.23
#: Extra cells so that small tables peel too (the Xor filter's ``+ 32``).
DEFAULT_EXTRA_CELLS = 32
#: Bits of the stored hash seed, counted in :attr:`BloomierFilter.size_bits`.
SEED_BITS = 64

#: The largest hash seed (salts are ``splitmix64(16 seed + j)`` in 64 bits).
MAX_SEED = 2**59

_U64 = np.uint64
_MAX_CELL_BITS = 32


def splitmix64(x: np.ndarray) -> np.ndarray:
    """The SplitMix64 finalizer (Steele, Lea & Flood 2014) of uint64 ``x``, elementwise.

    A bijection on 64-bit words whose outputs pass BigCrush; hand-written here because numpy
    exposes no vectorized integer hash (uint64 arithmetic wraps modulo 2**64).
    """
    z = np.asarray(x, dtype=_U64) + _U64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return z ^ (z >> _U64(31))


def false_positive_rate(*, cell_bits: int, num_values: int) -> float:
    """The closed-form probability that a key never inserted decodes to a valid value.

    A non-inserted key reads a uniformly random ``cell_bits``-bit word, so the rate is
    ``num_values / 2**cell_bits`` (``2**-(t - r)`` when ``num_values = 2**r``).
    """
    _check_bits(cell_bits, num_values)
    return num_values / 2.0**cell_bits


def _check_bits(cell_bits: int, num_values: int) -> None:
    if isinstance(cell_bits, bool) or not isinstance(cell_bits, int) \
            or not 1 <= cell_bits <= _MAX_CELL_BITS:
        raise ConfigError(f"cell_bits must be an int in 1..{_MAX_CELL_BITS}, not "
                          f"{cell_bits!r}", field="cell_bits")
    if isinstance(num_values, bool) or not isinstance(num_values, int) \
            or not 1 <= num_values <= 2**cell_bits:
        raise ConfigError(f"num_values must be an int in 1..2**cell_bits = {2**cell_bits}, "
                          f"not {num_values!r}", field="num_values")


def _keys_array(keys: object, field: str) -> np.ndarray:
    arr = np.asarray(keys)
    if arr.ndim != 1:
        raise ConfigError(f"{field} must be a 1-D array, not shape {arr.shape}", field=field)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ConfigError(f"{field} must be integers, not dtype {arr.dtype}", field=field)
    if arr.size and int(arr.min()) < 0:
        raise ConfigError(f"{field} must be non-negative, found {int(arr.min())}", field=field)
    return arr.astype(_U64)


@dataclass(frozen=True, kw_only=True, eq=False)
class BloomierFilter:
    """A built filter; make one with :meth:`build`.

    Attributes
    ----------
    table : numpy.ndarray
        ``(num_cells,)`` uint32 cells, each below ``2**cell_bits``.
    cell_bits : int
        ``t``, bits per cell.
    num_values : int
        Values are ``0 .. num_values - 1``; a decoded word ``>= num_values`` means absent.
    num_hashes : int
        ``k``, cells per key (one per table segment).
    seed : int
        The hash seed that peeled (``build``'s seed plus the number of rehashes).
    num_keys : int
        Keys inserted.
    attempts : int
        Hash seeds tried (1 when the first one peeled).
    """

    table: np.ndarray
    cell_bits: int
    num_values: int
    num_hashes: int
    seed: int
    num_keys: int
    attempts: int = 1

    @property
    def num_cells(self) -> int:
        """``m``, the number of cells."""
        return int(self.table.shape[0])

    @property
    def table_bits(self) -> int:
        """``m * t``, the bits of the table."""
        return self.num_cells * self.cell_bits

    @property
    def size_bits(self) -> int:
        """The table's bits plus the stored hash seed (:data:`SEED_BITS`)."""
        return self.table_bits + SEED_BITS

    @property
    def false_positive_rate(self) -> float:
        """The closed form ``num_values / 2**cell_bits``."""
        return false_positive_rate(cell_bits=self.cell_bits, num_values=self.num_values)

    @classmethod
    def build(cls, keys: np.ndarray, values: np.ndarray, *, cell_bits: int, num_values: int,
              num_hashes: int = 3, cells_per_key: float = DEFAULT_CELLS_PER_KEY,
              extra_cells: int = DEFAULT_EXTRA_CELLS, seed: int = 0,
              max_attempts: int = 32) -> BloomierFilter:
        """Build a filter mapping each ``keys[i]`` to ``values[i]``.

        Parameters
        ----------
        keys : numpy.ndarray
            ``(n,)`` distinct non-negative integers (below 2**64).
        values : numpy.ndarray
            ``(n,)`` integers in ``0 .. num_values - 1``.
        cell_bits : int
            ``t`` in 1..32.
        num_values : int
            The size of the value range, ``1 .. 2**cell_bits``.
        num_hashes : int
            ``k`` in 2..8 (3 in Weightless).
        cells_per_key : float
            ``m ~= cells_per_key * n + extra_cells``, rounded up to a multiple of ``k``;
            at least 1.
        extra_cells : int
            Cells added to ``cells_per_key * n`` (>= 0).
        seed : int
            The first hash seed, ``0 .. MAX_SEED``; a failed peel retries with
            ``seed + 1``, ...
        max_attempts : int
            Seeds to try before giving up (>= 1).

        Raises
        ------
        ConfigError
            A bad argument (duplicate keys, a value out of range, ...), naming it.
        SimulationError
            No seed peeled in ``max_attempts`` (the table is too small for ``k``).
        """
        _check_bits(cell_bits, num_values)
        if isinstance(num_hashes, bool) or not isinstance(num_hashes, int) \
                or not 2 <= num_hashes <= 8:
            raise ConfigError(f"num_hashes must be an int in 2..8, not {num_hashes!r}",
                              field="num_hashes")
        if not isinstance(cells_per_key, int | float) or isinstance(cells_per_key, bool) \
                or not math.isfinite(cells_per_key) or cells_per_key < 1.0:
            raise ConfigError(f"cells_per_key must be a number >= 1, not {cells_per_key!r}",
                              field="cells_per_key")
        for name, v, low, high in (("extra_cells", extra_cells, 0, 2**40),
                                   ("seed", seed, 0, MAX_SEED),
                                   ("max_attempts", max_attempts, 1, 2**16)):
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise ConfigError(f"{name} must be an int in {low}..{high}, not {v!r}",
                                  field=name)
        k_arr = _keys_array(keys, "keys")
        v_arr = np.asarray(values)
        if v_arr.shape != k_arr.shape:
            raise ConfigError(f"values has shape {v_arr.shape} but keys has {k_arr.shape}",
                              field="values")
        if v_arr.size and not np.issubdtype(v_arr.dtype, np.integer):
            raise ConfigError(f"values must be integers, not dtype {v_arr.dtype}",
                              field="values")
        if v_arr.size and (int(v_arr.min()) < 0 or int(v_arr.max()) >= num_values):
            raise ConfigError(f"values must be in 0..{num_values - 1}, found "
                              f"{int(v_arr.min())}..{int(v_arr.max())}", field="values")
        if np.unique(k_arr).size != k_arr.size:
            raise ConfigError("keys must be distinct", field="keys")
        n = int(k_arr.size)
        segment = max(1, math.ceil((cells_per_key * n + extra_cells) / num_hashes))
        m = segment * num_hashes
        vals = v_arr.astype(np.uint32)
        for attempt in range(max_attempts):
            s = seed + attempt
            cells = _cells(k_arr, s, num_hashes, segment)
            rounds = _peel(cells, m)
            if rounds is None:
                continue
            table = np.zeros(m, np.uint32)
            mask = _mask(k_arr, s, cell_bits)
            # Reverse peeling order: a key's own cell was free of every key peeled after
            # it, and keys peeled in one round never touch each other's own cells, so a
            # whole round is assigned at once.
            for idx, own in reversed(rounds):
                acc = vals[idx] ^ mask[idx]
                for j in range(num_hashes):
                    acc ^= table[cells[idx, j]]
                table[own] = acc  # table[own] was 0, so acc already excludes it
            return cls(table=table, cell_bits=cell_bits, num_values=num_values,
                       num_hashes=num_hashes, seed=s, num_keys=n, attempts=attempt + 1)
        raise SimulationError(f"no hash seed in {seed}..{seed + max_attempts - 1} peeled "
                              f"{n} keys into {m} cells with {num_hashes} hashes; raise "
                              "cells_per_key (>= 1.23 for 3 hashes) or max_attempts")

    def decode(self, keys: np.ndarray) -> np.ndarray:
        """The raw ``t``-bit word of each key (uint32), before the value-range check."""
        k_arr = _keys_array(keys, "keys")
        segment = self.num_cells // self.num_hashes
        cells = _cells(k_arr, self.seed, self.num_hashes, segment)
        out = _mask(k_arr, self.seed, self.cell_bits)
        for j in range(self.num_hashes):
            out ^= self.table[cells[:, j]]
        return out

    def query(self, keys: np.ndarray) -> np.ndarray:
        """The value of each key (int64), :data:`ABSENT` where the word is out of range.

        Inserted keys give their value exactly; other keys give a random valid value
        with probability :attr:`false_positive_rate`.
        """
        word = self.decode(keys).astype(np.int64)
        return np.where(word < self.num_values, word, ABSENT)

    def packed_table(self) -> bytes:
        """The table as a bit stream of ``t``-bit cells, most significant bit first
        (``ceil(m t / 8)`` bytes)."""
        shifts = np.arange(self.cell_bits - 1, -1, -1, dtype=np.uint32)
        bits = ((self.table[:, None] >> shifts) & np.uint32(1)).astype(np.uint8)
        return np.packbits(bits.ravel()).tobytes()

    def lzma_table(self) -> bytes:
        """:meth:`packed_table` compressed with LZMA (xz, preset 9 extreme), as the paper
        compresses its filters with a standard lossless coder."""
        return lzma.compress(self.packed_table(), preset=9 | lzma.PRESET_EXTREME)

    @property
    def lzma_bits(self) -> int:
        """Bits of :meth:`lzma_table` plus the stored seed."""
        return 8 * len(self.lzma_table()) + SEED_BITS

    def with_packed_table(self, data: bytes) -> BloomierFilter:
        """This filter with its table read back from :meth:`packed_table` bytes (or their
        LZMA-compressed form)."""
        if data[:6] == b"\xfd7zXZ\x00":
            data = lzma.decompress(data)
        need = math.ceil(self.table_bits / 8)
        if len(data) != need:
            raise ConfigError(f"a packed table of {self.num_cells} cells of {self.cell_bits} "
                              f"bits has {need} bytes, not {len(data)}", field="data")
        bits = np.unpackbits(np.frombuffer(data, np.uint8))[: self.table_bits]
        weights = (np.uint32(1) << np.arange(self.cell_bits - 1, -1, -1, dtype=np.uint32))
        table = (bits.reshape(-1, self.cell_bits).astype(np.uint32) * weights).sum(
            axis=1, dtype=np.uint32)
        return BloomierFilter(table=table, cell_bits=self.cell_bits, num_values=self.num_values,
                              num_hashes=self.num_hashes, seed=self.seed,
                              num_keys=self.num_keys, attempts=self.attempts)


def _salt(seed: int, j: int) -> np.uint64:
    return _U64(int(splitmix64(np.array([seed * 16 + j], dtype=_U64))[0]))


def _cells(keys: np.ndarray, seed: int, k: int, segment: int) -> np.ndarray:
    """``(n, k)`` int64 cells: ``H_j(key)`` in segment ``j``."""
    out = np.empty((keys.size, k), np.int64)
    for j in range(k):
        h = splitmix64(keys ^ _salt(seed, j))
        # Lemire's multiply-shift range reduction of the high 32 bits (no modulo bias
        # beyond 2**-32).
        out[:, j] = ((h >> _U64(32)) * _U64(segment)) >> _U64(32)
        out[:, j] += j * segment
    return out


def _mask(keys: np.ndarray, seed: int, cell_bits: int) -> np.ndarray:
    """``H_M(key)``: the low ``cell_bits`` bits of an independent hash, uint32."""
    h = splitmix64(keys ^ _salt(seed, 15))
    return (h & _U64((1 << cell_bits) - 1)).astype(np.uint32)


def _peel(cells: np.ndarray, m: int) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Peel in rounds: each round removes every key that alone hashes to some cell.

    Returns the rounds as (key indices, the cell each key owns), or ``None`` when a
    non-empty 2-core remains (peeling failed).
    """
    remaining = np.arange(cells.shape[0])
    rounds: list[tuple[np.ndarray, np.ndarray]] = []
    count = np.bincount(cells.ravel(), minlength=m)
    while remaining.size:
        sub = cells[remaining]
        single = count[sub] == 1  # (r, k): this key is alone in this cell
        has = single.any(axis=1)
        if not has.any():
            return None
        first = single.argmax(axis=1)[has]
        idx = remaining[has]
        own = sub[has, first]
        rounds.append((idx, own))
        count -= np.bincount(sub[has].ravel(), minlength=m)
        remaining = remaining[~has]
    return rounds
