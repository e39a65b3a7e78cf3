"""SSD model: config validation, page-read schedule vs closed forms, direct-mapped cache."""

from __future__ import annotations

import math

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.hw.models.ssd import (
    DeviceEmbeddingCache,
    PageBuffer,
    SSDConfig,
    channel_of_page,
    die_of_page,
    schedule_page_reads,
)

CFG = SSDConfig()
X16 = 16384 / 200e6  # one page over one channel at the default 200 MB/s


def test_defaults_match_authors_geometry() -> None:
    assert (CFG.channels, CFG.ways, CFG.dies, CFG.page_bytes) == (8, 8, 64, 16384)
    assert CFG.device_cache_entries == 2 ** 20 and CFG.host_cache_rows == 2000


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"channels": 0}, "field 'channels': channels must be an int >= 1, not 0"),
    ({"ways": 2.0}, "field 'ways': ways must be an int >= 1, not 2.0"),
    ({"page_read_s": 0.0}, "field 'page_read_s': page_read_s must be a positive finite "
                           "number, not 0.0"),
    ({"page_read_s": True}, "field 'page_read_s': page_read_s must be a positive finite "
                            "number, not True"),
    ({"sector_bytes": 5000}, "field 'page_bytes': page_bytes (16384) must be a multiple "
                             "of sector_bytes (5000)"),
    ({"device_cache_entries": 3}, "field 'device_cache_entries': device_cache_entries "
                                  "must be a power of two, not 3"),
])
def test_config_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        SSDConfig(**kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_striping_channel_first() -> None:
    assert [die_of_page(CFG, p) for p in (0, 1, 63, 64, 65)] == [0, 1, 63, 0, 1]
    assert [channel_of_page(CFG, p) for p in (0, 7, 8, 9, 64)] == [0, 7, 0, 1, 0]


def test_single_read_closed_form() -> None:
    (r,) = schedule_page_reads(CFG, [1e-3], [5], transfer_bytes=16384)
    assert r.start_s == 1e-3
    assert r.done_s == pytest.approx(1e-3 + 50e-6 + X16, rel=1e-12)
    assert r.done_s - r.release_s == pytest.approx(CFG.single_read_s(16384), rel=1e-12)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 64, 100])
def test_spread_pages_makespan(n: int) -> None:
    # Pages 0..n-1 land on distinct dies while n <= 64; each channel serializes its
    # transfers, all tR overlap: makespan = tR + ceil(n / 8) transfers (n <= 64); beyond
    # 64 a die reads again after its transfer, so the bound is the per-channel work.
    reads = schedule_page_reads(CFG, [0.0] * n, list(range(n)), transfer_bytes=16384)
    makespan = max(r.done_s for r in reads)
    per_channel = math.ceil(n / 8)
    lower = 50e-6 + per_channel * X16
    if n <= 64:
        assert makespan == pytest.approx(lower, rel=1e-12)
    else:
        assert makespan >= lower - 1e-15
        # A die's two reads never overlap: its second read starts after its first ends.
        assert makespan <= 2 * (50e-6 + X16) + per_channel * X16


def test_same_channel_transfers_queue() -> None:
    # 8 ways of channel 0: pages 0, 8, ..., 56; tR overlap, transfers one after another.
    reads = schedule_page_reads(CFG, [0.0] * 8, [8 * w for w in range(8)], transfer_bytes=4096)
    x = 4096 / 200e6
    assert [r.done_s for r in reads] == pytest.approx([50e-6 + (k + 1) * x for k in range(8)])


def test_same_die_serializes() -> None:
    reads = schedule_page_reads(CFG, [0.0] * 3, [64, 0, 128], transfer_bytes=16384)
    assert [r.done_s for r in reads] == pytest.approx([(k + 1) * (50e-6 + X16)
                                                       for k in range(3)])


def test_dispatch_post_and_window() -> None:
    d, post = 10e-6, 1e-6
    x = 4096 / 200e6
    # Distinct channels, no contention: read i is dispatched at (i+1)*d.
    reads = schedule_page_reads(CFG, [0.0] * 4, [0, 1, 2, 3], transfer_bytes=4096,
                                dispatch_s=d, post_s=post)
    assert [r.done_s for r in reads] == pytest.approx(
        [(i + 1) * d + 50e-6 + x + post for i in range(4)])
    # Window 1: each read waits for the previous one to finish (fully serial).
    one = d + 50e-6 + x + post
    reads = schedule_page_reads(CFG, [0.0] * 4, [0, 1, 2, 3], transfer_bytes=4096,
                                dispatch_s=d, post_s=post, window=1)
    assert [r.done_s for r in reads] == pytest.approx([(i + 1) * one for i in range(4)])


def test_schedule_argument_errors() -> None:
    with pytest.raises(ValueError, match="releases_s and pages must have the same length"):
        schedule_page_reads(CFG, [0.0], [1, 2], transfer_bytes=1)
    with pytest.raises(ValueError, match="window must be None or an int >= 1, not 0"):
        schedule_page_reads(CFG, [0.0], [1], transfer_bytes=1, window=0)


def _brute_direct_mapped(keys: list[tuple[int, int]]) -> list[bool]:
    # Independent model: each line remembers the full (table, id) it holds.
    lines: dict[int, tuple[int, int]] = {}
    hits = []
    for t, e in keys:
        line = (e * 32 + t) % 2 ** 20
        hits.append(lines.get(line) == (t, e))
        lines[line] = (t, e)
    return hits


def test_device_cache_vs_brute_force() -> None:
    rng = np.random.default_rng(3)
    # Ids that collide on the index (stride 2**15 keeps the low 20 bits of id<<5 fixed).
    ids = rng.integers(0, 40, 3000) * 2 ** 15 + rng.integers(0, 4, 3000)
    tabs = rng.integers(0, 3, 3000)
    keys = [(int(t), int(e)) for t, e in zip(tabs, ids, strict=True)]
    cache = DeviceEmbeddingCache(CFG)
    got = []
    for t, e in keys:
        got.append(cache.probe(t, e))
        cache.fill(t, e)
    want = _brute_direct_mapped(keys)
    assert got == want
    assert 0 < sum(want) < len(want)


def test_device_cache_table_range() -> None:
    with pytest.raises(ValueError, match=r"table_id must be in 0\.\.31, not 32"):
        DeviceEmbeddingCache(CFG).probe(32, 0)


def test_buffer_source_waits_for_its_read() -> None:
    # Read 1 reuses read 0's page (waits for its transfer); read 2 is resident already.
    reads = schedule_page_reads(CFG, [0.0, 0.0, 0.0], [3, 3, 9], transfer_bytes=16384,
                                source=[None, 0, 2])
    assert [r.done_s for r in reads] == pytest.approx([50e-6 + X16, 50e-6 + X16, 0.0])
    with pytest.raises(ValueError, match="source must have one entry per read"):
        schedule_page_reads(CFG, [0.0], [1], transfer_bytes=1, source=[1])


def test_page_buffer_lru_vs_brute_force() -> None:
    cfg = SSDConfig(channels=2, ways=1, page_buffer_pages_per_die=3)
    pages = [int(p) for p in np.random.default_rng(8).integers(0, 16, 400)]
    buf = PageBuffer(cfg)
    got = [buf.access(p) for p in pages]
    # Brute force: per die (page % 2) a list, most recent last, capped at 3.
    lists: dict[int, list[int]] = {0: [], 1: []}
    want = []
    for p in pages:
        lru = lists[p % 2]
        want.append(p in lru)
        if p in lru:
            lru.remove(p)
        lru.append(p)
        del lru[:-3]
    assert got == want and 0 < sum(want) < len(want)
