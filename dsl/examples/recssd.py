"""RecSSD's near-data SparseLengthsSum unit written with the accelerator DSL.

RecSSD (Wilkening et al., ASPLOS 2021) runs SparseLengthsSum in the SSD's FTL: the host sends
``(result_idx, embedding_id)`` pairs sorted by embedding id, the FTL groups them by 16 KiB
flash page and, for each page read back, adds each wanted embedding row into its zeroed fp32
result (RecSSD-OpenSSDFirmware ``trans_buffer.c``). :func:`recssd_ndp` declares that reduction
as an accelerator: the library ``gather_reduce`` unit (:mod:`archsim.hw.accel.gather_reduce`,
``lanes`` fp32 adders) bound to a page buffer, a pair buffer and a result buffer, clocked at
``clock_hz`` (200 MHz by default: assumed, a typical clock of the Cosmos+ board's Zynq-7045
programmable logic; not a figure from the paper).

=========== ================================ ===============================================
buffer      words x width, banks             holds
=========== ================================ ===============================================
``page``    ``page_slots * page_words`` x 32, the request's flash pages, one per slot
            ``lanes`` banks
``pairs``   ``max_pairs`` x 32                one word per lookup (``pack_pair``)
``result``  ``max_results * dim`` x 32,       the fp32 results
            ``lanes`` banks
=========== ================================ ===============================================

One NDP request (:func:`ndp_request_program`) is a ``clear`` of its results, then one
``accumulate`` per page, pages ascending, each with that page's pairs in order (the
firmware's order; :func:`group_by_page` makes it from the host's pairs).
:func:`reference_sls` is the independent oracle: ``np.float32`` sums in that order.

>>> from archsim.dsl.examples.recssd import recssd_ndp, group_by_page, ndp_request_program
>>> acc = recssd_ndp(dim=8, lanes=2, page_words=64, page_slots=2, max_results=4)
>>> req = group_by_page([0, 1, 0], [3, 9, 4], dim=8, page_words=64)
>>> program, layout = ndp_request_program(acc, req, n_results=2)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import ConfigError
from ...fields import is_positive_int
from ..accel import Accelerator, Program

__all__ = ["recssd_ndp", "NdpRequest", "NdpLayout", "group_by_page", "ndp_request_program",
           "ndp_inputs", "read_results", "reference_sls", "NDP_CLOCK_HZ", "NDP_VOLTAGE_V",
           "GR_OP_CODES"]

#: Clock of the unit: 200 MHz, assumed (a usual clock of Zynq-7000 programmable logic).
NDP_CLOCK_HZ = 200e6
#: Supply: 1.0 V, Zynq-7000 VCCINT nominal (unverified recollection of Xilinx DS191).
NDP_VOLTAGE_V = 1.0
#: ``op`` codes of the gather-reduce unit (repeated from
#: :data:`archsim.hw.accel.gather_reduce.GR_OPS`: a description never imports the hardware;
#: tests/test_dsl_examples_recssd.py checks they agree).
GR_OP_CODES: Mapping[str, int] = {"accumulate": 0, "clear": 1}

_UNIT = "gr"


def _positive(name: str, value: object) -> int:
    if not is_positive_int(value):
        raise ConfigError(f"{name} must be a positive int, not {value!r}", field=name)
    return value


def recssd_ndp(*, dim: int = 32, lanes: int = 4, max_results: int = 128,
               page_words: int = 4096, page_slots: int = 4, max_pairs: int = 1024,
               clock_hz: float = NDP_CLOCK_HZ, name: str = "recssd_ndp") -> Accelerator:
    """The near-data reduction accelerator (module docstring).

    Raises
    ------
    ConfigError
        A size not a positive int, ``dim`` not a multiple of ``lanes`` or ``page_words`` not
        a multiple of ``dim``.
    DSLError
        A clock the DSL rejects, or a unit the gather-reduce constructor rejects.
    """
    dim, lanes = _positive("dim", dim), _positive("lanes", lanes)
    for what, value in (("max_results", max_results), ("page_words", page_words),
                        ("page_slots", page_slots), ("max_pairs", max_pairs)):
        _positive(what, value)
    if dim % lanes:
        raise ConfigError(f"dim ({dim}) must be a multiple of lanes ({lanes})", field="dim")
    if page_words % dim:
        raise ConfigError(f"page_words ({page_words}) must be a multiple of dim ({dim})",
                          field="page_words")
    acc = Accelerator(name=name, main_point=(NDP_VOLTAGE_V, clock_hz))
    acc.buffer("page", words=page_slots * page_words, width=32, banks=lanes)
    acc.buffer("pairs", words=max_pairs, width=32)
    acc.buffer("result", words=max_results * dim, width=32, banks=lanes)
    acc.unit(_UNIT, "gather_reduce", dim=dim, lanes=lanes, max_results=max_results,
             page_words=page_words,
             bind={"page": "page", "pairs": "pairs", "acc_in": "result", "acc": "result"})
    return acc


@dataclass(frozen=True)
class NdpRequest:
    """One SLS request grouped by flash page, in the firmware's order.

    Attributes
    ----------
    pages : tuple of int
        Flash page numbers (of the table), ascending.
    pairs : tuple of tuple of (int, int)
        Per page, its ``(result_idx, row_in_page)`` pairs in order.
    dim, page_words : int
    """

    pages: tuple[int, ...]
    pairs: tuple[tuple[tuple[int, int], ...], ...]
    dim: int
    page_words: int

    @property
    def n_pairs(self) -> int:
        """Lookups in the request."""
        return sum(len(p) for p in self.pairs)


def group_by_page(result_idx: Sequence[int], embedding_id: Sequence[int], *, dim: int,
                  page_words: int) -> NdpRequest:
    """Sort the pairs by embedding id (stable) and group them by page
    ``embedding_id * dim // page_words`` (the firmware's steps 2 and 4)."""
    dim, page_words = _positive("dim", dim), _positive("page_words", page_words)
    res = np.asarray(result_idx, dtype=np.int64)
    emb = np.asarray(embedding_id, dtype=np.int64)
    if res.shape != emb.shape or res.ndim != 1:
        raise ConfigError("result_idx and embedding_id must be 1-D and of one length, not "
                          f"{res.shape} and {emb.shape}", field="result_idx")
    if res.size and (res.min() < 0 or emb.min() < 0):
        raise ConfigError("result_idx and embedding_id must be non-negative",
                          field="embedding_id")
    order = np.argsort(emb, kind="stable")
    rows_per_page = page_words // dim
    pages: list[int] = []
    groups: list[list[tuple[int, int]]] = []
    for i in order:
        page, row = divmod(int(emb[i]), rows_per_page)
        if not pages or pages[-1] != page:
            pages.append(page)
            groups.append([])
        groups[-1].append((int(res[i]), row))
    return NdpRequest(tuple(pages), tuple(tuple(g) for g in groups), dim, page_words)


@dataclass(frozen=True)
class NdpLayout:
    """Where a request's data sit: page ``pages[s]`` in page slot ``s``; each page's pairs
    from ``pair_offsets[s]`` in the pair buffer."""

    request: NdpRequest
    n_results: int
    pair_offsets: tuple[int, ...]


def _unit_params(acc: Accelerator) -> dict[str, int]:
    spec = acc.units.get(_UNIT)
    if spec is None or spec.source != "gather_reduce":
        raise ConfigError(f"accelerator {acc.name!r} is not a recssd_ndp (no unit {_UNIT!r})",
                          field="accelerator")
    return {k: int(v) for k, v in spec.params.items() if isinstance(v, int)}


def ndp_request_program(acc: Accelerator, request: NdpRequest, *,
                        n_results: int) -> tuple[Program, NdpLayout]:
    """The controller program of one NDP request: ``clear`` ``n_results`` results, then one
    ``accumulate`` per page.

    Raises
    ------
    ConfigError
        ``request`` made for another ``dim`` or ``page_words``, more pages than page slots,
        more pairs than the pair buffer, ``n_results`` out of ``1..max_results`` or a pair's
        result index not below it.
    """
    p = _unit_params(acc)
    dim, page_words, max_results = p["dim"], p["page_words"], p["max_results"]
    if (request.dim, request.page_words) != (dim, page_words):
        raise ConfigError(f"request is for dim {request.dim}, page_words "
                          f"{request.page_words}; the accelerator has {dim}, {page_words}",
                          field="request")
    if isinstance(n_results, bool) or not isinstance(n_results, int) \
            or not 1 <= n_results <= max_results:
        raise ConfigError(f"n_results must be an int in 1..{max_results}, not {n_results!r}",
                          field="n_results", allowed=f"1..{max_results}")
    slots = acc.buffers["page"].words // page_words
    if len(request.pages) > slots:
        raise ConfigError(f"request reads {len(request.pages)} pages; the page buffer has "
                          f"{slots} slots", field="page_slots")
    if request.n_pairs > acc.buffers["pairs"].words:
        raise ConfigError(f"request has {request.n_pairs} pairs; the pair buffer holds "
                          f"{acc.buffers['pairs'].words}", field="max_pairs")
    if any(r >= n_results for g in request.pairs for r, _ in g):
        raise ConfigError(f"a pair's result_idx is not below n_results ({n_results})",
                          field="n_results")
    program = acc.program()
    program.run(_UNIT, op=GR_OP_CODES["clear"], n=n_results, page_addr=0, pairs_addr=0,
                acc_addr=0, acc_in_addr=0)
    offsets, at = [], 0
    for slot, group in enumerate(request.pairs):
        offsets.append(at)
        program.run(_UNIT, op=GR_OP_CODES["accumulate"], n=len(group),
                    page_addr=slot * page_words, pairs_addr=at, acc_addr=0, acc_in_addr=0)
        at += len(group)
    return program, NdpLayout(request, n_results, tuple(offsets))


def ndp_inputs(layout: NdpLayout, table: np.ndarray) -> dict[str, np.ndarray]:
    """The buffers' initial words: each page of ``table`` (``rows x dim`` float32) in its
    slot (rows past the table's end zero), the pairs packed."""
    req = layout.request
    t = np.asarray(table, dtype=np.float32)
    if t.ndim != 2 or t.shape[1] != req.dim:
        raise ConfigError(f"table must be rows x {req.dim} float32, not shape {t.shape}",
                          field="table")
    flat = t.view(np.uint32).astype(np.int64).ravel()
    pages = np.zeros(len(req.pages) * req.page_words, dtype=np.int64)
    for slot, page in enumerate(req.pages):
        words = flat[page * req.page_words:(page + 1) * req.page_words]
        pages[slot * req.page_words:slot * req.page_words + words.size] = words
    pairs = np.array([row | res << 16 for g in req.pairs for res, row in g], dtype=np.int64)
    return {"page": pages, "pairs": pairs}


def read_results(layout: NdpLayout, buffers: Mapping[str, np.ndarray]) -> np.ndarray:
    """The request's results, ``n_results x dim`` float32, from the final buffer words."""
    n, dim = layout.n_results, layout.request.dim
    words = np.asarray(buffers["result"][:n * dim], dtype=np.int64)
    return words.astype(np.uint32).view(np.float32).reshape(n, dim)


def reference_sls(request: NdpRequest, table: np.ndarray, *, n_results: int) -> np.ndarray:
    """SparseLengthsSum in the firmware's order with ``np.float32`` additions: results start
    at zero; pages ascending, each page's pairs in order, ``result[r] += table[row]``."""
    t = np.asarray(table, dtype=np.float32)
    out = np.zeros((n_results, request.dim), dtype=np.float32)
    rows_per_page = request.page_words // request.dim
    for page, group in zip(request.pages, request.pairs, strict=True):
        for res, row in group:
            out[res] = out[res] + t[page * rows_per_page + row]
    return out
