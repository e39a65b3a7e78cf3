"""RecSSD's two SparseLengthsSum paths over the SSD model, and the authors' locality traces.

* :func:`baseline_sls` -- the COTS-SSD path: the host checks its static cache, then reads
  every missing row with one NVMe block read of the 4 KiB sector holding it
  (``unvme_read_embedding``, one embedding per block read: RecSSD-UNVMeDriver
  ``test/unvme/unvme_embed_lib.c``), at most ``queue_depth`` outstanding, and pools on the
  host. No OS page cache (the authors' user-space driver); the firmware's LRU page buffer
  (``lru_buffer.h``) serves repeated pages.
* :func:`recssd_sls` -- the NDP path (RecSSD-OpenSSDFirmware ``trans_buffer.c``): one
  request per table and per 128 results (``dlrm_s_caffe2.py``), at most 8 at once
  (``TRANS_BUF_ENTRY_NUM``). The FTL probes the in-SSD cache for every input, groups the
  misses by flash page, reads each page once, accumulates into zeroed results, fills the
  cache, and returns the pooled vectors through a second command; the host adds the rows
  its static cache held.
* :func:`locality_trace` -- the authors' reuse-distance trace generator.

Latency is the makespan of an exact schedule (:func:`archsim.hw.models.ssd.schedule_page_reads`
for flash; the firmware core serial). The breakdown fields are busy times of each resource
summed (they overlap, so they do not add up to the latency).
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import ConfigError
from ...fields import is_positive_int
from ...hw.models.ssd import DeviceEmbeddingCache, PageBuffer, SSDConfig, schedule_page_reads

__all__ = ["SLSResult", "baseline_sls", "recssd_sls", "locality_trace", "host_static_cache",
           "group_by_page", "row_page", "reuse_locality_of_k", "REUSE_BINS"]

#: Stack-distance bins of the authors' histogram (``nbins = 50``, ``gen_dist.py``).
REUSE_BINS = 50


@dataclass(frozen=True)
class SLSResult:
    """Latency and traffic of one batched SLS over all tables.

    Attributes
    ----------
    latency_s : float
        End-to-end makespan, host request to pooled vectors on the host.
    nvme_s, pcie_s, flash_s, channel_s, compute_s : float
        Busy time summed: NVMe command overheads, PCIe transfers, die array reads (tR),
        channel transfers, FTL plus host arithmetic.
    pcie_bytes : int
        Bytes over PCIe (both directions).
    nvme_commands, pages_read, host_hits, device_hits : int
        Commands issued, flash page reads, host static-cache hits, in-SSD cache hits.
    pooled : numpy.ndarray or None
        ``(tables, batch, dim)`` float32 pooled vectors when tables were given.
    """

    latency_s: float
    nvme_s: float
    pcie_s: float
    flash_s: float
    channel_s: float
    compute_s: float
    pcie_bytes: int
    nvme_commands: int
    pages_read: int
    host_hits: int
    device_hits: int
    pooled: np.ndarray | None = None


def row_page(config: SSDConfig, table_id: int, row: int, *, rows_per_table: int,
             dim: int) -> tuple[int, int]:
    """Logical ``(page, sector)`` holding ``row`` of table ``table_id``.

    Tables are laid out one after the other, each starting on a page boundary (assumed);
    the row's byte offset in its table is ``row * dim * attribute_bytes`` (the firmware's
    ``page = embID * attrSize * len / 16 KiB``).
    """
    row_bytes = dim * config.attribute_bytes
    table_pages = math.ceil(rows_per_table * row_bytes / config.page_bytes)
    offset = row * row_bytes
    page = table_id * table_pages + offset // config.page_bytes
    sector = (table_id * table_pages * config.page_bytes + offset) // config.sector_bytes
    return page, sector


def group_by_page(config: SSDConfig, table_id: int, rows: Sequence[int], *,
                  rows_per_table: int, dim: int) -> dict[int, list[int]]:
    """Group input positions by flash page, pages ascending, positions in input order."""
    groups: dict[int, list[int]] = {}
    for pos, row in enumerate(rows):
        page, _ = row_page(config, table_id, int(row), rows_per_table=rows_per_table, dim=dim)
        groups.setdefault(page, []).append(pos)
    return dict(sorted(groups.items()))


def host_static_cache(indices: np.ndarray, rows: int) -> frozenset[tuple[int, int]]:
    """The host's static cache: the ``rows`` most frequent ``(table, row)`` of a trace.

    Pre-filled by profiling the trace ("Static partitioning", RecSSD-RecInfra
    ``models/dlrm_s_caffe2.py``); ties broken by smaller ``(table, row)`` (assumed).
    """
    idx = _check_indices(indices)
    counts: Counter[tuple[int, int]] = Counter()
    for t in range(idx.shape[0]):
        counts.update((t, int(r)) for r in idx[t].ravel())
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return frozenset(k for k, _ in ranked[:rows])


def _check_indices(indices: np.ndarray) -> np.ndarray:
    idx = np.asarray(indices)
    if idx.ndim != 3 or not np.issubdtype(idx.dtype, np.integer):
        raise ConfigError(f"indices must be an integer array (tables, batch, lookups), not "
                          f"shape {idx.shape} dtype {idx.dtype}", field="indices")
    return idx


def _check_common(config: SSDConfig, indices: np.ndarray, rows_per_table: int, dim: int,
                  tables: np.ndarray | None) -> np.ndarray:
    if not isinstance(config, SSDConfig):
        raise ConfigError(f"config must be an SSDConfig, not {type(config).__name__}",
                          field="config")
    for name, value in (("rows_per_table", rows_per_table), ("dim", dim)):
        if not is_positive_int(value):
            raise ConfigError(f"{name} must be an int >= 1, not {value!r}", field=name)
    idx = _check_indices(indices)
    if idx.size and (idx.min() < 0 or idx.max() >= rows_per_table):
        raise ConfigError(f"indices must be in 0..{rows_per_table - 1}", field="indices")
    if config.page_bytes % (dim * config.attribute_bytes):
        raise ConfigError(f"a row of {dim * config.attribute_bytes} B must divide the "
                          f"{config.page_bytes} B page", field="dim")
    if tables is not None and np.shape(tables) != (idx.shape[0], rows_per_table, dim):
        raise ConfigError(f"tables must have shape {(idx.shape[0], rows_per_table, dim)}, "
                          f"not {np.shape(tables)}", field="tables")
    return idx


def baseline_sls(config: SSDConfig, indices: np.ndarray, *, rows_per_table: int, dim: int,
                 host_cache: frozenset[tuple[int, int]] = frozenset(),
                 page_buffer: PageBuffer | None = None,
                 tables: np.ndarray | None = None) -> SLSResult:
    """The COTS-SSD path: one 4 KiB block read per host-cache miss, SLS on the host.

    Parameters
    ----------
    config : SSDConfig
        The SSD.
    indices : numpy.ndarray
        ``(tables, batch, lookups)`` row ids.
    rows_per_table, dim : int
        Rows per table and embedding length (fp32).
    host_cache : frozenset of (table, row)
        The host's static cache (:func:`host_static_cache`).
    page_buffer : PageBuffer, optional
        The firmware's page buffer, carried across calls; ``None`` starts an empty one.
    tables : numpy.ndarray, optional
        ``(tables, rows_per_table, dim)`` values; when given the pooled vectors are returned.
    """
    idx = _check_common(config, indices, rows_per_table, dim, tables)
    buffer = PageBuffer(config) if page_buffer is None else page_buffer
    n_tables, batch, lookups = idx.shape
    pages: list[int] = []
    host_hits = 0
    for t in range(n_tables):
        for r in idx[t].ravel():
            if (t, int(r)) in host_cache:
                host_hits += 1
            else:
                pages.append(row_page(config, t, int(r), rows_per_table=rows_per_table,
                                      dim=dim)[0])
    # Buffer hits in command order (the firmware core decodes the commands in order).
    source: list[int | None] = []
    last_read: dict[int, int] = {}
    for i, page in enumerate(pages):
        if buffer.access(page):
            source.append(last_read.get(page, i))  # resident from an earlier call: i
        else:
            source.append(None)
            last_read[page] = i
    sector_pcie_s = config.sector_bytes / config.pcie_bandwidth_bps
    reads = schedule_page_reads(config, [0.0] * len(pages), pages,
                                transfer_bytes=config.page_bytes,
                                dispatch_s=config.nvme_command_s, post_s=sector_pcie_s,
                                window=config.queue_depth, source=source)
    flash_reads = sum(j is None for j in source)
    io_end = max((r.done_s for r in reads), default=0.0)
    compute_s = idx.size * dim * config.host_add_s
    pooled = None
    if tables is not None:
        pooled = np.asarray(tables, dtype=np.float32)[
            np.arange(n_tables)[:, None, None], idx].sum(axis=2, dtype=np.float32)
    n = len(pages)
    return SLSResult(
        latency_s=io_end + compute_s, nvme_s=n * config.nvme_command_s,
        pcie_s=n * sector_pcie_s, flash_s=flash_reads * config.page_read_s,
        channel_s=flash_reads * config.page_bytes / config.channel_bandwidth_bps,
        compute_s=compute_s, pcie_bytes=n * config.sector_bytes, nvme_commands=n,
        pages_read=flash_reads, host_hits=host_hits, device_hits=0, pooled=pooled)


def recssd_sls(config: SSDConfig, indices: np.ndarray, *, rows_per_table: int, dim: int,
               host_cache: frozenset[tuple[int, int]] = frozenset(),
               device_cache: DeviceEmbeddingCache | None = None,
               page_buffer: PageBuffer | None = None,
               tables: np.ndarray | None = None,
               reduce_s: Callable[[int, int], float] | None = None) -> SLSResult:
    """The NDP path: the FTL groups lookups by page, reads each once, pools in the SSD.

    Parameters
    ----------
    config, indices, rows_per_table, dim, host_cache, tables
        As :func:`baseline_sls`.
    device_cache : DeviceEmbeddingCache, optional
        The in-SSD cache, carried across calls (warm); ``None`` starts a cold one. Rows
        larger than a cache line bypass it (assumed).
    page_buffer : PageBuffer, optional
        The firmware's page buffer, carried across calls; ``None`` starts an empty one.
    reduce_s : callable, optional
        ``reduce_s(rows, dim)``: seconds to accumulate ``rows`` embedding rows of ``dim``
        elements into their results, for one returned page or one request's cache hits.
        ``None`` is the FTL's ARM core, ``rows * dim * config.ftl_add_s``; a near-data
        unit passes its model's timing instead.

    Notes
    -----
    Per request the firmware core (serial) takes the config command (``nvme_command_s``
    plus its pairs over PCIe), probes the cache (``ftl_lookup_s`` per input, hits added
    by ``reduce_s``) and releases its missed pages, each read whole into the
    page buffer unless it is there already. Returned pages are reduced in completion order
    (``reduce_s``), then each request's result read (``nvme_command_s`` plus
    the pooled vectors over PCIe) runs in completion order. Requests beyond 8 wait for
    the previous group of 8 to finish.
    """
    idx = _check_common(config, indices, rows_per_table, dim, tables)
    if reduce_s is not None and not callable(reduce_s):
        raise ConfigError(f"reduce_s must be a callable (rows, dim) -> seconds, not "
                          f"{reduce_s!r}", field="reduce_s")
    reduce_time = reduce_s or (lambda rows, d: rows * d * config.ftl_add_s)
    cache = DeviceEmbeddingCache(config) if device_cache is None else device_cache
    buffer = PageBuffer(config) if page_buffer is None else page_buffer
    cacheable = dim * config.attribute_bytes <= config.device_cache_line_bytes
    n_tables, batch, lookups = idx.shape
    values = None if tables is None else np.asarray(tables, dtype=np.float32)
    pooled = None if values is None else np.zeros((n_tables, batch, dim), np.float32)
    # One request per table and per ndp_max_results samples.
    requests = [(t, b0, min(batch, b0 + config.ndp_max_results))
                for t in range(n_tables) for b0 in range(0, batch, config.ndp_max_results)]
    clock = 0.0
    totals = dict.fromkeys(("nvme", "pcie", "flash", "channel", "compute"), 0.0)
    host_hits = device_hits = pages_read = commands = pcie_bytes = 0
    for g0 in range(0, len(requests), config.ndp_max_requests):
        group = requests[g0:g0 + config.ndp_max_requests]
        core = clock
        releases: list[float] = []
        pages: list[int] = []
        source: list[int | None] = []
        page_jobs: list[tuple[int, int]] = []  # (request in group, inputs gathered)
        last_read: dict[int, int] = {}  # page -> its flash read in this group
        skipped: set[int] = set()
        probe_end: list[float] = []
        for k, (t, b0, b1) in enumerate(group):
            pairs = [(b, int(r)) for b in range(b0, b1) for r in idx[t, b]]
            misses = []
            for b, r in pairs:
                if (t, r) in host_cache:
                    host_hits += 1
                    if pooled is not None and values is not None:
                        pooled[t, b] += values[t, r]
                else:
                    misses.append((b, r))
            if not misses:
                # The host held every row: it sends no request (dlrm_s_caffe2.py sends
                # only the misses).
                skipped.add(k)
                probe_end.append(core)
                continue
            # Sorted by embedding id, as the host sends them (trans_buffer.c transConfig).
            misses.sort(key=lambda br: br[1])
            cfg_bytes = len(misses) * config.pair_bytes
            core += config.nvme_command_s + cfg_bytes / config.pcie_bandwidth_bps
            commands += 1
            pcie_bytes += cfg_bytes
            totals["nvme"] += config.nvme_command_s
            totals["pcie"] += cfg_bytes / config.pcie_bandwidth_bps
            # Step 1: probe every input before any fill (fills come with the pages).
            hit = [cacheable and cache.probe(t, r) for _, r in misses]
            n_hit = sum(hit)
            device_hits += n_hit
            probe_s = len(misses) * config.ftl_lookup_s + (reduce_time(n_hit, dim)
                                                           if n_hit else 0.0)
            core += probe_s
            totals["compute"] += probe_s
            probe_end.append(core)
            # Step 2: group the misses by flash page.
            by_page: dict[int, list[tuple[int, int]]] = {}
            for (b, r), h in zip(misses, hit, strict=True):
                if pooled is not None and values is not None and h:
                    pooled[t, b] += values[t, r]
                if not h:
                    page, _ = row_page(config, t, r, rows_per_table=rows_per_table, dim=dim)
                    by_page.setdefault(page, []).append((b, r))
            for page, members in sorted(by_page.items()):
                if buffer.access(page):
                    # Resident before this group, or wait for this group's read of it.
                    source.append(last_read.get(page, len(pages)))
                else:
                    source.append(None)
                    last_read[page] = len(pages)
                releases.append(core)
                pages.append(page)
                page_jobs.append((k, len(members)))
                for b, r in members:
                    if pooled is not None and values is not None:
                        pooled[t, b] += values[t, r]
                    if cacheable:
                        cache.fill(t, r)
        reads = schedule_page_reads(config, releases, pages, transfer_bytes=config.page_bytes,
                                    source=source)
        flash_reads = sum(j is None for j in source)
        pages_read += flash_reads
        totals["flash"] += flash_reads * config.page_read_s
        totals["channel"] += flash_reads * config.page_bytes / config.channel_bandwidth_bps
        req_done = list(probe_end)
        for j in sorted(range(len(reads)), key=lambda j: (reads[j].done_s, j)):
            k, n_in = page_jobs[j]
            page_reduce_s = reduce_time(n_in, dim)
            core = max(core, reads[j].done_s) + page_reduce_s
            totals["compute"] += page_reduce_s
            req_done[k] = max(req_done[k], core)
        for k in sorted(range(len(group)), key=lambda k: (req_done[k], k)):
            if k in skipped:
                continue
            t, b0, b1 = group[k]
            out_bytes = (b1 - b0) * dim * config.attribute_bytes
            core = (max(core, req_done[k]) + config.nvme_command_s
                    + out_bytes / config.pcie_bandwidth_bps)
            commands += 1
            pcie_bytes += out_bytes
            totals["nvme"] += config.nvme_command_s
            totals["pcie"] += out_bytes / config.pcie_bandwidth_bps
        clock = core
    # The host adds its cached rows and merges the returned vectors.
    host_s = (host_hits + n_tables * batch) * dim * config.host_add_s
    totals["compute"] += host_s
    return SLSResult(
        latency_s=clock + host_s, nvme_s=totals["nvme"], pcie_s=totals["pcie"],
        flash_s=totals["flash"], channel_s=totals["channel"], compute_s=totals["compute"],
        pcie_bytes=pcie_bytes, nvme_commands=commands, pages_read=pages_read,
        host_hits=host_hits, device_hits=device_hits, pooled=pooled)


def locality_trace(num_rows: int, lookups: int, *, reuse_locality: float,
                   seed: int) -> np.ndarray:
    """A trace of row ids with the authors' stack-distance (reuse-distance) locality.

    RecSSD-RecInfra ``models/input/gen_dist.py`` builds a histogram of 50 bins from
    exponential samples (scale 1) and adds ``K * nsamples`` to bin 0; bin ``i`` is stack
    distance ``i`` and distance 0 means a new row. The trace is then drawn as DLRM's
    ``trace_generate_lru`` does (facebookresearch/dlrm ``dlrm_data_pytorch.py``): distance
    0 takes the next row of a list of all rows (here a seeded permutation, as one variant
    does) and moves it to the back; distance ``d`` re-takes the ``d``-th most recent row;
    distances are limited to the new rows seen so far.

    Here ``reuse_locality`` in ``[0, 1]`` is the probability of a reuse (distance >= 1),
    the reuse distances following the authors' exponential histogram over bins 1..49; the
    authors' knob ``K`` corresponds to ``reuse_locality = (S - c0) / (S + K * S)`` with
    ``c0 / S`` the share of bin 0 in the raw histogram (:func:`reuse_locality_of_k`
    computes it: about 0.87 for ``K = 0``, 0.44 for the default ``K = 1``).

    Parameters
    ----------
    num_rows : int
        Rows in the table.
    lookups : int
        Length of the trace.
    reuse_locality : float
        Probability that a lookup reuses a recent row, ``0 <= reuse_locality <= 1``.
    seed : int
        Seed of the row permutation, the histogram samples and the draws.

    Returns
    -------
    numpy.ndarray
        ``(lookups,)`` int64 row ids.
    """
    for name, value in (("num_rows", num_rows), ("lookups", lookups)):
        if not is_positive_int(value):
            raise ConfigError(f"{name} must be an int >= 1, not {value!r}", field=name)
    if (isinstance(reuse_locality, bool) or not isinstance(reuse_locality, (int, float))
            or not 0.0 <= reuse_locality <= 1.0):
        raise ConfigError(f"reuse_locality must be a number in [0, 1], not "
                          f"{reuse_locality!r}", field="reuse_locality")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"seed must be an int, not {seed!r}", field="seed")
    rng = np.random.default_rng(seed)
    # The authors' histogram: 1000 exponential samples (scale 1) in 50 bins.
    counts, _ = np.histogram(rng.exponential(1.0, 1000), REUSE_BINS)
    reuse = counts[1:].astype(float)
    if reuse.sum() == 0:
        reuse[0] = 1.0
    cum_reuse = np.cumsum(reuse) / reuse.sum()
    order = deque(int(r) for r in rng.permutation(num_rows))
    out = np.empty(lookups, dtype=np.int64)
    seen = 0
    draws = rng.random((lookups, 2))
    for n in range(lookups):
        distance = 0
        if seen and draws[n, 0] < reuse_locality:
            # Limit to the distances possible so far (bins 1..seen), renormalised.
            top = min(seen, REUSE_BINS - 1, num_rows)
            u = draws[n, 1] * cum_reuse[top - 1]
            distance = int(np.searchsorted(cum_reuse, u, side="left")) + 1
            distance = min(distance, top)
        if distance == 0:
            row = order.popleft()
            seen += 1
        else:
            row = order[-distance]
            del order[-distance]
        order.append(row)
        out[n] = row
    return out


def reuse_locality_of_k(k: float, *, seed: int) -> float:
    """The reuse probability of the authors' locality knob ``K`` (``gen_dist.py``).

    ``gen_dist.py`` takes a density histogram (50 bins) of 1000 exponential samples, sums
    it to ``S``, adds ``int(S * K)`` to bin 0 (new rows) and normalises; the reuse
    probability is one minus bin 0's share. Drawn from the same seeded generator as
    :func:`locality_trace`'s histogram, so ``locality_trace(..., reuse_locality=
    reuse_locality_of_k(k, seed=s), seed=s)`` follows the authors' distribution for ``K``.
    Larger ``K`` means more new rows, i.e. *less* locality.
    """
    if isinstance(k, bool) or not isinstance(k, (int, float)) or not k >= 0:
        raise ConfigError(f"k must be a number >= 0, not {k!r}", field="k")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"seed must be an int, not {seed!r}", field="seed")
    rng = np.random.default_rng(seed)
    density, _ = np.histogram(rng.exponential(1.0, 1000), REUSE_BINS, density=True)
    total = float(density.sum())
    added = int(total * k)
    return 1.0 - (float(density[0]) + added) / (total + added)
