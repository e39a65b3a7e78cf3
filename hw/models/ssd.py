"""RecSSD's SSD: flash geometry, NVMe/PCIe overheads, an exact page-read schedule, caches.

The geometry and cache parameters follow the authors' Cosmos+ OpenSSD firmware
(wilkening-mark/RecSSD-OpenSSDFirmware, ``init_ftl.h``, ``trans_buffer.c``) and host code
(wilkening-mark/RecSSD-RecInfra, ``models/dlrm_s_caffe2.py``); the timing numbers are not in
that code and are labelled "unverified recollection" or "assumed" where they are set (see
:class:`SSDConfig`).

Page-read schedule (exact, deterministic)
-----------------------------------------
Logical pages are striped over dies channel-first (die ``p % (channels * ways)``, channel
``die % channels``, way ``die // channels``; the Cosmos+ greedy FTL's striping, assumed).
A read occupies its die for ``page_read_s`` (cell array to page register) and then for the
transfer of ``transfer_bytes`` over its channel at ``channel_bandwidth_bps``; the die is
busy until the transfer ends (no cache-read mode, assumed). Dies and channels serve their
requests first come first served by ready time, ties by request order
(:func:`schedule_page_reads`). A lone read therefore takes
``page_read_s + transfer_bytes / channel_bandwidth_bps``. Optional serial stages before
(the firmware core decoding each NVMe command) and after (the PCIe link) and a window
(the queue depth) model the host interface; a read whose page the firmware's LRU page
buffer (:class:`PageBuffer`) holds skips the flash.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, fields

from ...errors import ConfigError

__all__ = ["SSDConfig", "DeviceEmbeddingCache", "PageBuffer", "PageRead", "schedule_page_reads",
           "die_of_page", "channel_of_page"]

_INT_FIELDS = ("channels", "ways", "page_bytes", "sector_bytes", "device_cache_entries",
               "device_cache_line_bytes", "device_cache_tag_bits", "table_id_bits",
               "host_cache_rows", "queue_depth", "ndp_max_results", "ndp_max_requests",
               "pair_bytes", "attribute_bytes", "page_buffer_pages_per_die")
_MAY_BE_ZERO = ("host_cache_rows", "page_buffer_pages_per_die")


@dataclass(frozen=True, kw_only=True)
class SSDConfig:
    """The SSD and host-interface parameters of RecSSD (every figure with its source).

    Parameters
    ----------
    channels, ways : int
        Flash channels and ways per channel: 8 and 8, 64 dies (``CHANNEL_NUM``,
        ``WAY_NUM`` in RecSSD-OpenSSDFirmware ``init_ftl.h``).
    page_bytes : int
        Flash page: 16 KiB SLC (``PAGE_SIZE 16384``, ``init_ftl.h``).
    sector_bytes : int
        FTL sector / host block: 4 KiB, 4 per page (``init_ftl.h``).
    page_read_s : float
        Page read time tR: 50 us (unverified recollection: "about 50-100 us", not in code).
    channel_bandwidth_bps : float
        Flash channel bus, bytes per second: 200 MB/s (unverified recollection: "about
        200-400 MB/s", not in code).
    pcie_bandwidth_bps : float
        Host link, bytes per second: 4 GB/s, PCIe Gen2 x8 (unverified recollection of the
        Cosmos+ board).
    nvme_command_s : float
        Per NVMe command: host submission, firmware decode and completion, serial on the
        firmware core: 10 us (assumed).
    ftl_lookup_s : float
        FTL per-lookup ARM bookkeeping (cache probe, page grouping, result index): 0.2 us
        (assumed; one Cortex-A9 core at about 1 GHz, unverified recollection).
    ftl_add_s : float
        FTL time per fp32 accumulate on the ARM core: 4 ns (assumed).
    host_add_s : float
        Host time per fp32 accumulate of the host-side SLS: 0.5 ns (assumed).
    device_cache_entries, device_cache_line_bytes, device_cache_tag_bits, table_id_bits : int
        In-SSD embedding cache: direct-mapped, 2^20 entries of 128 B with a 12-bit tag,
        ``fullindex = (embeddingID << 5) | tableID`` (RecSSD-OpenSSDFirmware
        ``trans_buffer.c``).
    host_cache_rows : int
        Host static cache of hot rows: 2000, pre-filled with the most frequent indices
        (RecSSD-RecInfra ``models/dlrm_s_caffe2.py``).
    queue_depth : int
        Outstanding block reads of the baseline: 32 (assumed).
    ndp_max_results : int
        Results per NDP request: 128, larger batches split (``dlrm_s_caffe2.py``).
    ndp_max_requests : int
        Concurrent NDP requests: 8 (``TRANS_BUF_ENTRY_NUM 8``, ``trans_buffer.h``).
    pair_bytes : int
        Bytes per ``(result_idx, embeddingID)`` pair of the config write: 8 (assumed, two
        32-bit words).
    attribute_bytes : int
        Bytes per embedding element: 4, fp32 (``attributeSize``, ``trans_buffer.c``).
    page_buffer_pages_per_die : int
        The firmware's LRU page buffer in the SSD's DRAM: 10 pages per die
        (RecSSD-OpenSSDFirmware ``lru_buffer.h``); 0 disables it. Flash reads go through
        it a whole page at a time, so every read moves ``page_bytes`` over its channel.
    """

    channels: int = 8
    ways: int = 8
    page_bytes: int = 16384
    sector_bytes: int = 4096
    page_read_s: float = 50e-6
    channel_bandwidth_bps: float = 200e6
    pcie_bandwidth_bps: float = 4e9
    nvme_command_s: float = 10e-6
    ftl_lookup_s: float = 0.2e-6
    ftl_add_s: float = 4e-9
    host_add_s: float = 0.5e-9
    device_cache_entries: int = 2 ** 20
    device_cache_line_bytes: int = 128
    device_cache_tag_bits: int = 12
    table_id_bits: int = 5
    host_cache_rows: int = 2000
    queue_depth: int = 32
    ndp_max_results: int = 128
    ndp_max_requests: int = 8
    pair_bytes: int = 8
    attribute_bytes: int = 4
    page_buffer_pages_per_die: int = 10

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _INT_FIELDS:
                low = 0 if f.name in _MAY_BE_ZERO else 1
                if isinstance(value, bool) or not isinstance(value, int) or value < low:
                    raise ConfigError(f"{f.name} must be an int >= {low}, not {value!r}",
                                      field=f.name)
            else:
                if (isinstance(value, bool) or not isinstance(value, (int, float))
                        or not value > 0 or value == float("inf")):
                    raise ConfigError(f"{f.name} must be a positive finite number, "
                                      f"not {value!r}", field=f.name)
        if self.page_bytes % self.sector_bytes:
            raise ConfigError(f"page_bytes ({self.page_bytes}) must be a multiple of "
                              f"sector_bytes ({self.sector_bytes})", field="page_bytes")
        entries = self.device_cache_entries
        if entries & (entries - 1):
            raise ConfigError(f"device_cache_entries must be a power of two, not {entries}",
                              field="device_cache_entries")

    @property
    def dies(self) -> int:
        """Number of flash dies (channels x ways)."""
        return self.channels * self.ways

    def single_read_s(self, transfer_bytes: int) -> float:
        """Latency of one page read on an idle array, transferring ``transfer_bytes``."""
        return self.page_read_s + transfer_bytes / self.channel_bandwidth_bps


def die_of_page(config: SSDConfig, page: int) -> int:
    """Die holding logical ``page`` (striped channel-first, assumed)."""
    return page % config.dies


def channel_of_page(config: SSDConfig, page: int) -> int:
    """Channel of the die holding logical ``page``."""
    return die_of_page(config, page) % config.channels


@dataclass(frozen=True)
class PageRead:
    """One scheduled page read: when it was released, started on its die, and finished."""

    page: int
    release_s: float
    start_s: float
    done_s: float


def schedule_page_reads(config: SSDConfig, releases_s: Sequence[float], pages: Sequence[int],
                        *, transfer_bytes: int | Sequence[int], dispatch_s: float = 0.0,
                        post_s: float = 0.0, window: int | None = None,
                        source: Sequence[int | None] | None = None) -> list[PageRead]:
    """Exact event-driven schedule of page reads over the dies and channels.

    Parameters
    ----------
    config : SSDConfig
        Geometry and timing.
    releases_s : sequence of float
        Time each read is submitted.
    pages : sequence of int
        Logical page of each read (same length as ``releases_s``).
    transfer_bytes : int or sequence of int
        Bytes moved over the channel per read (one for all, or one per read).
    dispatch_s : float
        Service time of a serial dispatcher (the firmware core decoding an NVMe command)
        every read passes before reaching its die; 0 for none.
    post_s : float
        Service time of a serial stage after the channel (the PCIe transfer to the host);
        0 for none.
    window : int or None
        Most reads between dispatch and the end of the post stage (the queue depth);
        ``None`` for no limit.
    source : sequence of (int or None), optional
        Per read, ``None`` to read flash, or the index ``j`` of the read whose page-buffer
        copy it uses (a buffer hit skips die and channel): ``j == i`` for a page already
        resident, ``j < i`` to wait until read ``j``'s transfer ends.

    Returns
    -------
    list of PageRead
        In the order of the inputs. Every stage serves first come first served by ready
        time, ties by input order; a die is held until its transfer ends.
    """
    n = len(pages)
    if len(releases_s) != n:
        raise ValueError(f"releases_s and pages must have the same length, not "
                         f"{len(releases_s)} and {n}")
    if isinstance(transfer_bytes, int):
        xfer_s = [transfer_bytes / config.channel_bandwidth_bps] * n
    else:
        if len(transfer_bytes) != n:
            raise ValueError(f"transfer_bytes must have one entry per read ({n}), not "
                             f"{len(transfer_bytes)}")
        xfer_s = [b / config.channel_bandwidth_bps for b in transfer_bytes]
    src: list[int | None] = [None] * n if source is None else list(source)
    if len(src) != n or any(j is not None and not 0 <= j <= i for i, j in enumerate(src)):
        raise ValueError("source must have one entry per read, each None or an index "
                         "no later than its own")
    flash_done = [False] * n
    waiters: list[list[int]] = [[] for _ in range(n)]
    if window is not None and (isinstance(window, bool) or not isinstance(window, int)
                               or window < 1):
        raise ValueError(f"window must be None or an int >= 1, not {window!r}")
    limit = n + 1 if window is None else window
    start = [0.0] * n
    done = [0.0] * n
    die_queue: list[deque[int]] = [deque() for _ in range(config.dies)]
    die_busy = [False] * config.dies
    chan_ready: list[list[tuple[float, int]]] = [[] for _ in range(config.channels)]
    chan_busy = [False] * config.channels
    pending: deque[int] = deque()
    post_queue: deque[int] = deque()
    state = {"core": False, "link": False, "out": 0}
    # Event kinds, ordered so that at equal times stages free before new grants.
    post_done, xfer_done, dispatch_done, read_done, release = 0, 1, 2, 3, 4
    events: list[tuple[float, int, int]] = [
        (float(t), release, i) for i, t in enumerate(releases_s)]
    heapq.heapify(events)

    def try_dispatch(now: float) -> None:
        if not state["core"] and pending and state["out"] < limit:
            i = pending.popleft()
            state["core"] = True
            state["out"] += 1
            heapq.heappush(events, (now + dispatch_s, dispatch_done, i))

    def start_die(d: int, now: float) -> None:
        if not die_busy[d] and die_queue[d]:
            i = die_queue[d].popleft()
            die_busy[d] = True
            start[i] = now
            heapq.heappush(events, (now + config.page_read_s, read_done, i))

    def start_chan(c: int, now: float) -> None:
        if not chan_busy[c] and chan_ready[c]:
            _, i = heapq.heappop(chan_ready[c])
            chan_busy[c] = True
            heapq.heappush(events, (now + xfer_s[i], xfer_done, i))

    def start_post(now: float) -> None:
        if not state["link"] and post_queue:
            i = post_queue.popleft()
            state["link"] = True
            heapq.heappush(events, (now + post_s, post_done, i))

    while events:
        now, kind, i = heapq.heappop(events)
        d = die_of_page(config, pages[i])
        c = d % config.channels
        if kind == release:
            pending.append(i)
            try_dispatch(now)
        elif kind == dispatch_done:
            state["core"] = False
            j = src[i]
            if j is None:
                die_queue[d].append(i)
                start_die(d, now)
            else:
                start[i] = now
                if j == i or flash_done[j]:
                    post_queue.append(i)
                    start_post(now)
                else:
                    waiters[j].append(i)
            try_dispatch(now)
        elif kind == read_done:
            heapq.heappush(chan_ready[c], (now, i))
            start_chan(c, now)
        elif kind == xfer_done:
            chan_busy[c] = False
            die_busy[d] = False
            flash_done[i] = True
            post_queue.append(i)
            post_queue.extend(waiters[i])
            start_chan(c, now)
            start_die(d, now)
            start_post(now)
        else:
            done[i] = now
            state["link"] = False
            state["out"] -= 1
            start_post(now)
            try_dispatch(now)
    return [PageRead(int(pages[i]), float(releases_s[i]), start[i], done[i])
            for i in range(n)]


class DeviceEmbeddingCache:
    """RecSSD's in-SSD direct-mapped embedding cache (RecSSD-OpenSSDFirmware trans_buffer.c).

    ``fullindex = (embedding_id << table_id_bits) | table_id``; the entry is
    ``fullindex mod entries`` and the tag the next ``tag_bits`` bits. A fill overwrites
    whatever the entry held.
    """

    def __init__(self, config: SSDConfig) -> None:
        self.config = config
        self._index_bits = config.device_cache_entries.bit_length() - 1
        self._tags: dict[int, int] = {}

    def _split(self, table_id: int, embedding_id: int) -> tuple[int, int]:
        cfg = self.config
        if not 0 <= table_id < 2 ** cfg.table_id_bits:
            raise ValueError(f"table_id must be in 0..{2 ** cfg.table_id_bits - 1}, "
                             f"not {table_id}")
        full = (embedding_id << cfg.table_id_bits) | table_id
        index = full & (cfg.device_cache_entries - 1)
        tag = (full >> self._index_bits) & ((1 << cfg.device_cache_tag_bits) - 1)
        return index, tag

    def probe(self, table_id: int, embedding_id: int) -> bool:
        """Whether ``(table_id, embedding_id)`` hits (the tag at its entry matches)."""
        index, tag = self._split(table_id, embedding_id)
        return self._tags.get(index) == tag

    def fill(self, table_id: int, embedding_id: int) -> None:
        """Insert ``(table_id, embedding_id)``, overwriting its entry."""
        index, tag = self._split(table_id, embedding_id)
        self._tags[index] = tag


class PageBuffer:
    """The firmware's LRU page buffer: ``page_buffer_pages_per_die`` pages per die.

    RecSSD-OpenSSDFirmware ``lru_buffer.h``; a page is buffered on its own die's list.
    """

    def __init__(self, config: SSDConfig) -> None:
        self.config = config
        self._dies: list[OrderedDict[int, None]] = [OrderedDict() for _ in range(config.dies)]

    def access(self, page: int) -> bool:
        """Touch ``page``: return whether it was buffered, and make it most recent."""
        lru = self._dies[die_of_page(self.config, page)]
        if page in lru:
            lru.move_to_end(page)
            return True
        capacity = self.config.page_buffer_pages_per_die
        if capacity:
            lru[page] = None
            if len(lru) > capacity:
                lru.popitem(last=False)
        return False
