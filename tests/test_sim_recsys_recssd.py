"""RecSSD's SLS paths and locality traces, against brute force and numpy."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.hw.models.ssd import DeviceEmbeddingCache, PageBuffer, SSDConfig
from archsim.sim.recsys.recssd import (
    baseline_sls,
    group_by_page,
    host_static_cache,
    locality_trace,
    recssd_sls,
    reuse_locality_of_k,
)

CFG = SSDConfig()
ROWS, DIM = 4096, 32  # 128 rows of 128 B per 16 KiB page, 32 pages per table


def _indices(seed: int, tables: int = 3, batch: int = 4, lookups: int = 20) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, ROWS, (tables, batch, lookups))


def test_group_by_page_vs_brute_force() -> None:
    rows = [int(r) for r in np.random.default_rng(0).integers(0, ROWS, 300)]
    groups = group_by_page(CFG, 2, rows, rows_per_table=ROWS, dim=DIM)
    # Brute force: table 2 starts at page 2 * 32; a page holds rows 128 k .. 128 k + 127.
    want: dict[int, list[int]] = {}
    for page in range(64, 96):
        members = [i for i, r in enumerate(rows) if 64 + r // 128 == page]
        if members:
            want[page] = members
    assert groups == want


def test_recssd_reads_each_page_once() -> None:
    idx = _indices(1)
    res = recssd_sls(CFG, idx, rows_per_table=ROWS, dim=DIM)
    distinct = {(t, int(r) // 128) for t in range(idx.shape[0]) for r in idx[t].ravel()}
    assert res.pages_read == len(distinct)
    assert res.device_hits == 0 and res.host_hits == 0
    # One config write and one result read per table (batch <= 128).
    assert res.nvme_commands == 2 * idx.shape[0]


def test_recssd_splits_batches_over_128() -> None:
    idx = np.zeros((1, 300, 1), dtype=np.int64)
    res = recssd_sls(CFG, idx, rows_per_table=ROWS, dim=DIM)
    assert res.nvme_commands == 2 * 3  # ceil(300 / 128) requests
    # Row 0 misses in the first request; the later requests hit the filled cache.
    assert res.pages_read == 1 and res.device_hits == 300 - 128


def test_device_cache_warm_across_calls() -> None:
    idx = _indices(2)
    cache = DeviceEmbeddingCache(CFG)
    recssd_sls(CFG, idx, rows_per_table=ROWS, dim=DIM, device_cache=cache)
    again = recssd_sls(CFG, idx, rows_per_table=ROWS, dim=DIM, device_cache=cache)
    assert again.pages_read == 0 and again.device_hits == idx.size


def test_pooled_vectors_both_paths() -> None:
    rng = np.random.default_rng(4)
    idx = _indices(5)
    tables = rng.standard_normal((3, ROWS, DIM)).astype(np.float32)
    want = np.zeros((3, 4, DIM))
    for t in range(3):
        for b in range(4):
            for r in idx[t, b]:
                want[t, b] += tables[t, r].astype(np.float64)
    hc = host_static_cache(idx, 10)
    for fn in (baseline_sls, recssd_sls):
        res = fn(CFG, idx, rows_per_table=ROWS, dim=DIM, host_cache=hc, tables=tables)
        assert res.pooled is not None
        np.testing.assert_allclose(res.pooled, want, rtol=1e-5, atol=1e-5)


def test_host_static_cache_top_k() -> None:
    idx = np.array([[[5, 5, 5, 7, 7, 9]], [[5, 1, 1, 1, 1, 2]]])
    assert host_static_cache(idx, 2) == frozenset({(1, 1), (0, 5)})
    assert host_static_cache(idx, 3) == frozenset({(1, 1), (0, 5), (0, 7)})


def test_baseline_counts_and_single_read_latency() -> None:
    idx = _indices(6)
    hc = host_static_cache(idx, 15)
    res = baseline_sls(CFG, idx, rows_per_table=ROWS, dim=DIM, host_cache=hc)
    misses = sum((t, int(r)) not in hc for t in range(3) for r in idx[t].ravel())
    assert res.nvme_commands == misses == idx.size - res.host_hits
    assert res.pcie_bytes == 4096 * misses
    # One lookup: command + tR + page over the channel + sector over PCIe + one pool.
    one = baseline_sls(CFG, np.array([[[7]]]), rows_per_table=ROWS, dim=DIM)
    assert one.latency_s == pytest.approx(10e-6 + 50e-6 + 16384 / 200e6 + 4096 / 4e9
                                          + 32 * 0.5e-9, rel=1e-12)


def test_baseline_page_buffer_hit_closed_form() -> None:
    # Rows 7 and 9 share page 0: the second command finds the page in the firmware buffer,
    # waits for the first read, and only crosses PCIe (serial after the first sector).
    two = baseline_sls(CFG, np.array([[[7, 9]]]), rows_per_table=ROWS, dim=DIM)
    assert two.pages_read == 1 and two.nvme_commands == 2
    first = 10e-6 + 50e-6 + 16384 / 200e6 + 4096 / 4e9
    assert two.latency_s == pytest.approx(first + 4096 / 4e9 + 2 * 32 * 0.5e-9, rel=1e-12)
    off = SSDConfig(page_buffer_pages_per_die=0)
    assert baseline_sls(off, np.array([[[7, 9]]]), rows_per_table=ROWS,
                        dim=DIM).pages_read == 2


def test_recssd_page_buffer_across_calls() -> None:
    # 256 B rows bypass the 128 B device cache, so a repeat is served by the page buffer.
    idx = np.array([[[0, 1, 64]]])  # 64 rows of 256 B per page: pages 0 and 1
    buf = PageBuffer(CFG)
    first = recssd_sls(CFG, idx, rows_per_table=ROWS, dim=64, page_buffer=buf)
    again = recssd_sls(CFG, idx, rows_per_table=ROWS, dim=64, page_buffer=buf)
    assert (first.pages_read, again.pages_read, again.device_hits) == (2, 0, 0)
    assert again.latency_s < first.latency_s


def test_recssd_requests_share_a_page_read() -> None:
    # 200 samples of one 256 B-row table: two requests (128 + 72) in one group, both on
    # page 0. The second uses the first's buffered page and waits for its read.
    idx = np.zeros((1, 200, 1), dtype=np.int64)
    res = recssd_sls(CFG, idx, rows_per_table=ROWS, dim=64)
    assert res.pages_read == 1 and res.nvme_commands == 4
    assert res.latency_s > 2 * 10e-6 + 50e-6 + 16384 / 200e6


def test_recssd_single_lookup_closed_form() -> None:
    one = recssd_sls(CFG, np.array([[[7]]]), rows_per_table=ROWS, dim=DIM)
    # Config write (8 B of pairs), probe, one page read, reduce, result read, host merge.
    want = (10e-6 + 8 / 4e9 + 0.2e-6 + 50e-6 + 16384 / 200e6 + 32 * 4e-9
            + 10e-6 + 128 / 4e9 + 32 * 0.5e-9)
    assert one.latency_s == pytest.approx(want, rel=1e-12)
    assert one.pcie_bytes == 8 + 128


def test_grouping_beats_baseline_on_shared_pages() -> None:
    # 80 lookups of one table, all in one page: one NDP read against 80 block reads.
    idx = np.arange(80).reshape(1, 1, 80)
    base = baseline_sls(CFG, idx, rows_per_table=ROWS, dim=DIM)
    ndp = recssd_sls(CFG, idx, rows_per_table=ROWS, dim=DIM)
    assert ndp.pages_read == 1 and base.nvme_commands == 80
    assert ndp.latency_s < base.latency_s


def test_locality_trace_deterministic_and_in_range() -> None:
    a = locality_trace(1000, 500, reuse_locality=0.5, seed=9)
    b = locality_trace(1000, 500, reuse_locality=0.5, seed=9)
    c = locality_trace(1000, 500, reuse_locality=0.5, seed=10)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert a.min() >= 0 and a.max() < 1000
    # No reuse: every row is new until the table is exhausted.
    assert len(set(locality_trace(1000, 1000, reuse_locality=0.0, seed=1))) == 1000
    assert len(set(locality_trace(1000, 300, reuse_locality=1.0, seed=1))) == 1


def _lru_hit_rate(trace: np.ndarray, size: int) -> float:
    lru: list[int] = []
    hits = 0
    for r in trace:
        if r in lru:
            hits += 1
            lru.remove(r)
        lru.append(int(r))
        del lru[:-size]
    return hits / len(trace)


def test_locality_knob_monotone_in_hit_rate() -> None:
    rates = [_lru_hit_rate(locality_trace(100000, 3000, reuse_locality=p, seed=3), 64)
             for p in (0.0, 0.25, 0.5, 0.75, 0.95)]
    assert rates == sorted(rates) and rates[0] == 0.0
    # Reuse distances are below 50, so a 64-row LRU catches every reuse.
    assert rates[2] == pytest.approx(0.5, abs=0.03)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"num_rows": 0}, "field 'num_rows': num_rows must be an int >= 1, not 0"),
    ({"reuse_locality": 1.5}, "field 'reuse_locality': reuse_locality must be a number "
                              "in [0, 1], not 1.5"),
    ({"seed": 1.0}, "field 'seed': seed must be an int, not 1.0"),
])
def test_locality_trace_errors(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"num_rows": 10, "lookups": 5, "reuse_locality": 0.5,
                               "seed": 0, **kwargs}
    with pytest.raises(ConfigError) as info:
        locality_trace(**args)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_sls_errors() -> None:
    with pytest.raises(ConfigError) as info:
        recssd_sls(CFG, np.array([[[ROWS]]]), rows_per_table=ROWS, dim=DIM)
    assert str(info.value) == "field 'indices': indices must be in 0..4095"
    with pytest.raises(ConfigError) as info:
        baseline_sls(CFG, np.zeros((2, 2)), rows_per_table=ROWS, dim=DIM)
    assert "indices must be an integer array (tables, batch, lookups)" in str(info.value)
    with pytest.raises(ConfigError) as info:
        baseline_sls(CFG, np.zeros((1, 1, 1), dtype=int), rows_per_table=ROWS, dim=3)
    assert str(info.value) == "field 'dim': a row of 12 B must divide the 16384 B page"


def test_reuse_locality_of_k() -> None:
    # Independent recomputation of gen_dist.py's bin-0 share from the same samples.
    samples = np.random.default_rng(5).exponential(1.0, 1000)
    counts, edges = np.histogram(samples, 50)
    width = edges[1] - edges[0]
    dens = counts / (1000 * width)
    for k in (0, 1, 3):
        added = int(dens.sum() * k)
        want = 1 - (dens[0] + added) / (dens.sum() + added)
        assert reuse_locality_of_k(k, seed=5) == pytest.approx(want, rel=1e-9)
    assert reuse_locality_of_k(0, seed=5) > reuse_locality_of_k(1, seed=5) > 0


def test_recssd_sends_nothing_when_host_holds_all() -> None:
    idx = np.array([[[3, 4]], [[5, 5]]])
    hc = host_static_cache(idx, 3)
    assert hc == frozenset({(0, 3), (0, 4), (1, 5)})
    res = recssd_sls(CFG, idx, rows_per_table=ROWS, dim=DIM, host_cache=hc)
    assert (res.nvme_commands, res.pcie_bytes, res.pages_read) == (0, 0, 0)
    # Only the host pooling: 4 cached rows and 2 result merges of 32 elements.
    assert res.latency_s == pytest.approx((4 + 2) * 32 * 0.5e-9, rel=1e-12)


def test_recssd_reduce_hook_closed_form() -> None:
    # A near-data unit taking 1 us per row: the single lookup's reduce term 32 * 4 ns
    # becomes 1 us; everything else is unchanged.
    one = recssd_sls(CFG, np.array([[[7]]]), rows_per_table=ROWS, dim=DIM,
                     reduce_s=lambda rows, dim: rows * 1e-6)
    want = (10e-6 + 8 / 4e9 + 0.2e-6 + 50e-6 + 16384 / 200e6 + 1e-6
            + 10e-6 + 128 / 4e9 + 32 * 0.5e-9)
    assert one.latency_s == pytest.approx(want, rel=1e-12)
    idx = _indices(5)
    default = recssd_sls(CFG, idx, rows_per_table=ROWS, dim=DIM)
    same = recssd_sls(CFG, idx, rows_per_table=ROWS, dim=DIM,
                      reduce_s=lambda rows, dim: rows * dim * CFG.ftl_add_s)
    assert same.latency_s == default.latency_s
    with pytest.raises(ConfigError, match="reduce_s must be a callable"):
        recssd_sls(CFG, idx, rows_per_table=ROWS, dim=DIM, reduce_s=3)  # type: ignore[arg-type]
