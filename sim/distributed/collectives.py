"""Alpha-beta cost models of collective operations.

Each function takes the message size in bytes and the group size ``p`` and
returns seconds. ``n_bytes`` is the full buffer: the vector all-reduced, the
gathered output of an all-gather, the input of a reduce-scatter, and the data
one rank sends in an all-to-all. Closed forms (Thakur, Rabenseifner & Gropp
2005; Chan et al. 2007; NCCL's algorithm notes):

=====================  =====================================================
ring all-reduce        ``2(p-1) a + 2 (p-1)/p n / b``
tree all-reduce        ``2 ceil(log2 p) a + 2 n / b`` (pipelined double binary tree)
reduce-scatter (ring)  ``(p-1) a + (p-1)/p n / b``
all-gather (ring)      ``(p-1) a + (p-1)/p n / b``
all-to-all (pairwise)  ``(p-1) a + (p-1)/p n / b``
point-to-point         ``a + n / b``
=====================  =====================================================

Hierarchical versions for groups spanning nodes run an intra-node phase over
NVLink and an inter-node phase over the ``local`` rails in parallel (one NIC
per GPU, rail-optimized): for all-reduce, reduce-scatter in the node, all-reduce
of ``n/local`` across nodes, all-gather in the node.
"""

from __future__ import annotations

import math

from ...errors import ConfigError
from .cluster import ClusterSpec, LinkSpec

__all__ = [
    "COLLECTIVES", "ring_all_reduce_s", "tree_all_reduce_s", "reduce_scatter_s", "all_gather_s",
    "all_to_all_s", "p2p_s", "hierarchical_all_reduce_s", "hierarchical_all_gather_s",
    "hierarchical_all_to_all_s", "collective_time_s",
]

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "p2p")


def _check(n_bytes: float, p: int) -> None:
    if n_bytes < 0:
        raise ConfigError(f"message size must be >= 0 bytes, not {n_bytes!r}", field="n_bytes")
    if not isinstance(p, int) or p < 1:
        raise ConfigError(f"group size must be a positive integer, not {p!r}", field="p")


def ring_all_reduce_s(n_bytes: float, p: int, link: LinkSpec) -> float:
    """Ring all-reduce: reduce-scatter then all-gather, ``2(p-1)`` steps of ``n/p``."""
    _check(n_bytes, p)
    if p == 1:
        return 0.0
    return 2 * (p - 1) * link.latency_s + 2 * (p - 1) / p * n_bytes / link.bw_bytes_per_s


def tree_all_reduce_s(n_bytes: float, p: int, link: LinkSpec) -> float:
    """Pipelined (double binary) tree all-reduce: log-depth latency, ``2n/b`` bandwidth term."""
    _check(n_bytes, p)
    if p == 1:
        return 0.0
    return 2 * math.ceil(math.log2(p)) * link.latency_s + 2 * n_bytes / link.bw_bytes_per_s


def reduce_scatter_s(n_bytes: float, p: int, link: LinkSpec) -> float:
    """Ring reduce-scatter of an ``n_bytes`` input."""
    _check(n_bytes, p)
    if p == 1:
        return 0.0
    return (p - 1) * link.latency_s + (p - 1) / p * n_bytes / link.bw_bytes_per_s


def all_gather_s(n_bytes: float, p: int, link: LinkSpec) -> float:
    """Ring all-gather producing an ``n_bytes`` output."""
    return reduce_scatter_s(n_bytes, p, link)


def all_to_all_s(n_bytes: float, p: int, link: LinkSpec) -> float:
    """Pairwise-exchange all-to-all; each rank sends ``n_bytes`` in total (``n/p`` to itself)."""
    return reduce_scatter_s(n_bytes, p, link)


def p2p_s(n_bytes: float, link: LinkSpec) -> float:
    """One point-to-point send."""
    _check(n_bytes, 1)
    return link.latency_s + n_bytes / link.bw_bytes_per_s


def hierarchical_all_reduce_s(n_bytes: float, local: int, nodes: int, intra: LinkSpec,
                              inter: LinkSpec) -> float:
    """Reduce-scatter in the node, all-reduce of ``n/local`` across nodes, all-gather in the node."""
    _check(n_bytes, local)
    _check(n_bytes, nodes)
    shard = n_bytes / local
    inter_s = min(ring_all_reduce_s(shard, nodes, inter), tree_all_reduce_s(shard, nodes, inter))
    return (reduce_scatter_s(n_bytes, local, intra) + inter_s
            + all_gather_s(n_bytes, local, intra))


def hierarchical_all_gather_s(n_bytes: float, local: int, nodes: int, intra: LinkSpec,
                              inter: LinkSpec) -> float:
    """All-gather across nodes on each rail (``n/local`` output), then inside the node."""
    _check(n_bytes, local)
    _check(n_bytes, nodes)
    return all_gather_s(n_bytes / local, nodes, inter) + all_gather_s(n_bytes, local, intra)


def hierarchical_all_to_all_s(n_bytes: float, local: int, nodes: int, intra: LinkSpec,
                              inter: LinkSpec) -> float:
    """All-to-all over ``local * nodes`` ranks: the off-node share ``(p-local)/p`` goes over the
    rank's NIC while the on-node share goes over NVLink at the same time; the slower wins."""
    _check(n_bytes, local)
    _check(n_bytes, nodes)
    p = local * nodes
    if p == 1:
        return 0.0
    off_s = ((p - local) * inter.latency_s + (p - local) / p * n_bytes / inter.bw_bytes_per_s
             if nodes > 1 else 0.0)
    on_s = ((local - 1) * intra.latency_s + (local - 1) / p * n_bytes / intra.bw_bytes_per_s
            if local > 1 else 0.0)
    return max(off_s, on_s)


def collective_time_s(
    kind: str,
    n_bytes: float,
    cluster: ClusterSpec,
    *,
    size: int,
    stride: int = 1,
    algorithm: str = "auto",
) -> float:
    """Time of one collective over a group of ``size`` ranks ``stride`` apart on ``cluster``.

    ``algorithm`` (all-reduce only): ``"ring"``, ``"tree"``, ``"hierarchical"`` or ``"auto"``
    (the fastest, as NCCL's tuner picks). A group inside one node uses NVLink; a group
    across nodes with one rank per node uses the per-GPU inter-node link.
    """
    if kind not in COLLECTIVES:
        raise ConfigError(f"unknown collective '{kind}'", field="kind", allowed=COLLECTIVES)
    algorithms = ("auto", "ring", "tree", "hierarchical")
    if algorithm not in algorithms:
        raise ConfigError(f"unknown algorithm '{algorithm}'", field="algorithm",
                          allowed=algorithms)
    _check(n_bytes, size)
    if size == 1:
        return 0.0
    pl = cluster.placement(size, stride)
    inter = cluster.inter_link(pl.cross_pod)
    intra = cluster.intra
    if kind == "p2p":
        return p2p_s(n_bytes, intra if pl.nodes == 1 else inter)
    if pl.nodes == 1:
        flat = intra
    elif pl.local == 1:
        flat = inter
    else:
        flat = None
    if kind == "all_reduce":
        if flat is not None:
            options = {"ring": ring_all_reduce_s(n_bytes, size, flat),
                       "tree": tree_all_reduce_s(n_bytes, size, flat)}
            options["hierarchical"] = options["ring"]
        else:
            # A flat ring over several GPUs per node crosses nodes on every rail in parallel.
            # (built from validated links, so skip validation on this hot path)
            ring_link = LinkSpec.model_construct(
                name="rails", bw_bytes_per_s=min(intra.bw_bytes_per_s,
                                                 inter.bw_bytes_per_s * pl.local),
                latency_s=inter.latency_s)
            options = {"ring": ring_all_reduce_s(n_bytes, size, ring_link),
                       "tree": tree_all_reduce_s(n_bytes, size, ring_link),
                       "hierarchical": hierarchical_all_reduce_s(n_bytes, pl.local, pl.nodes,
                                                                 intra, inter)}
        return min(options.values()) if algorithm == "auto" else options[algorithm]
    if kind == "all_to_all":
        if flat is not None:
            return all_to_all_s(n_bytes, size, flat)
        return hierarchical_all_to_all_s(n_bytes, pl.local, pl.nodes, intra, inter)
    # all-gather and reduce-scatter cost the same (one is the other reversed)
    if flat is not None:
        return all_gather_s(n_bytes, size, flat)
    return hierarchical_all_gather_s(n_bytes, pl.local, pl.nodes, intra, inter)
