"""Clusters: GPUs by datasheet, nodes on NVLink/NVSwitch, an inter-node network.

A cluster is ``num_gpus`` GPUs in nodes of ``gpus_per_node``; GPUs inside a node
talk over NVLink through NVSwitch (full bandwidth between any pair), nodes talk
over a rail-optimized InfiniBand/RoCE network with one NIC per GPU. Nodes are
grouped into pods (leaf switches of a two-level fat tree); traffic that leaves
a pod sees the spine's oversubscription.

Network figures (per direction, per GPU) are stated with their source in
:data:`NETWORKS`; latencies are typical one-hop end-to-end figures used as the
alpha of the alpha-beta model, and are assumptions.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import InstanceOf, model_validator

from ...errors import ConfigError
from ...hw.models.gpu import GPUSpec, get_gpu
from ._fields import Config, NonNegative, Positive, PositiveInt

__all__ = ["LinkSpec", "NETWORKS", "ClusterSpec", "GroupPlacement", "make_cluster"]


class LinkSpec(Config):
    """One level of the network: per-GPU bandwidth (per direction) and latency."""

    name: str
    bw_bytes_per_s: Positive
    latency_s: NonNegative


#: Inter-node networks, per GPU (one NIC per GPU) and per direction.
NETWORKS: dict[str, LinkSpec] = {
    # 200 Gb/s HDR InfiniBand: DGX A100 / Selene (8 HDR NICs per node).
    "ib-hdr": LinkSpec(name="ib-hdr", bw_bytes_per_s=200e9 / 8, latency_s=5e-6),
    # 400 Gb/s NDR InfiniBand: DGX H100 (8 ConnectX-7 per node).
    "ib-ndr": LinkSpec(name="ib-ndr", bw_bytes_per_s=400e9 / 8, latency_s=5e-6),
    # 400 Gb/s RoCE (e.g. Meta's RoCE training clusters); higher latency assumed.
    "roce-400": LinkSpec(name="roce-400", bw_bytes_per_s=400e9 / 8, latency_s=10e-6),
    # 100 Gb/s RoCE, a commodity data-centre network.
    "roce-100": LinkSpec(name="roce-100", bw_bytes_per_s=100e9 / 8, latency_s=10e-6),
    # MAD-Max's effective inter-node bandwidth of its dc_A cluster (samhsia/MADMax
    # system_cfgs/dc_A, systems/gpus.py): 8 ports x (25 GB/s / 2) x 56% utilization / 8 GPUs.
    "ib-hdr-madmax": LinkSpec(name="ib-hdr-madmax", bw_bytes_per_s=8 * 25e9 / 2 * 0.56 / 8,
                              latency_s=5e-6),
}

#: NVLink one-hop latency through NVSwitch (assumption).
NVLINK_LATENCY_S = 2e-6


@dataclass(frozen=True)
class GroupPlacement:
    """How a communication group of ``size`` ranks sits on the cluster.

    ``local`` ranks share each node, spread over ``nodes`` nodes;
    ``cross_pod`` tells whether the group leaves one pod.
    """

    size: int
    local: int
    nodes: int
    cross_pod: bool


class ClusterSpec(Config):
    """GPUs, node size and the two network levels of a cluster.

    Parameters
    ----------
    gpu
        The GPU datasheet (``archsim.hw.models.gpu``).
    num_gpus
        GPUs in the job; a multiple of ``gpus_per_node`` when above one node.
    gpus_per_node
        GPUs on one NVSwitch.
    intra
        The NVLink level (defaults to the GPU's datasheet NVLink bandwidth).
    inter
        The inter-node level, per GPU.
    nodes_per_pod
        Nodes under one leaf switch group; beyond it the spine applies.
    oversubscription
        Spine oversubscription (1.0 = non-blocking fat tree).
    """

    gpu: InstanceOf[GPUSpec]
    num_gpus: PositiveInt
    gpus_per_node: PositiveInt
    intra: LinkSpec
    inter: LinkSpec
    nodes_per_pod: PositiveInt = 32
    oversubscription: float = 1.0

    @model_validator(mode="after")
    def _check(self) -> ClusterSpec:
        if self.num_gpus > self.gpus_per_node and self.num_gpus % self.gpus_per_node:
            raise ConfigError(
                f"{self.num_gpus} GPUs is not a whole number of {self.gpus_per_node}-GPU nodes",
                field="num_gpus")
        if self.oversubscription < 1:
            raise ConfigError(f"must be >= 1, not {self.oversubscription!r}",
                              field="oversubscription")
        return self

    @property
    def num_nodes(self) -> int:
        return max(1, self.num_gpus // self.gpus_per_node)

    @property
    def memory_bytes(self) -> float:
        """HBM per GPU."""
        return self.gpu.hbm_capacity_bytes

    def placement(self, size: int, stride: int) -> GroupPlacement:
        """Placement of a group of ``size`` ranks whose members are ``stride`` ranks apart.

        Ranks are numbered node by node, so a group of consecutive ranks stays
        inside a node as long as it fits.
        """
        if size < 1 or stride < 1:
            raise ConfigError(f"group size and stride must be >= 1, not {size}, {stride}",
                              field="group")
        if size * stride > self.num_gpus:
            raise ConfigError(f"a group of {size} ranks {stride} apart needs {size * stride} "
                              f"GPUs but the cluster has {self.num_gpus}", field="group")
        g = self.gpus_per_node
        local = max(1, min(size, g // stride)) if stride < g else 1
        nodes = -(-size // local)
        span_nodes = -(-(size * stride) // g)
        return GroupPlacement(size=size, local=local, nodes=nodes,
                              cross_pod=span_nodes > self.nodes_per_pod)

    def inter_link(self, cross_pod: bool) -> LinkSpec:
        """The inter-node link, derated by the spine's oversubscription when leaving a pod."""
        if not cross_pod or self.oversubscription == 1:
            return self.inter
        # Derived from a validated link: no need to validate again on this hot path.
        return LinkSpec.model_construct(name=self.inter.name + "-spine",
                                        bw_bytes_per_s=self.inter.bw_bytes_per_s
                                        / self.oversubscription,
                                        latency_s=self.inter.latency_s)

    def describe(self) -> str:
        return (f"{self.num_gpus} x {self.gpu.name} ({self.num_nodes} nodes of "
                f"{self.gpus_per_node}, NVLink {self.intra.bw_bytes_per_s / 1e9:.0f} GB/s, "
                f"{self.inter.name} {self.inter.bw_bytes_per_s / 1e9:.0f} GB/s per GPU)")


def make_cluster(
    *,
    gpu: str | GPUSpec = "h100",
    num_gpus: int,
    gpus_per_node: int = 8,
    network: str = "ib-ndr",
    nodes_per_pod: int = 32,
    oversubscription: float = 1.0,
) -> ClusterSpec:
    """A cluster of named parts: ``make_cluster(gpu="h100", num_gpus=1024)``."""
    spec = gpu if isinstance(gpu, GPUSpec) else get_gpu(gpu)
    try:
        inter = NETWORKS[network]
    except KeyError:
        raise ConfigError(f"unknown network '{network}'", field="network",
                          allowed=sorted(NETWORKS)) from None
    intra = LinkSpec(name="nvlink", bw_bytes_per_s=spec.nvlink_bw_bytes_per_s,
                     latency_s=NVLINK_LATENCY_S)
    return ClusterSpec(gpu=spec, num_gpus=num_gpus, gpus_per_node=gpus_per_node, intra=intra,
                       inter=inter, nodes_per_pod=nodes_per_pod,
                       oversubscription=oversubscription)
