"""Device / edge / cloud placement of a layer chain split at two cut points.

A DNN is a chain of layers, each with a FLOP count and an output size in bytes.
Layers ``[0, cut_edge)`` run on the device, ``[cut_edge, cut_cloud)`` on the edge
server and ``[cut_cloud, n)`` in the cloud. Latency is the sum of per-tier compute
time (``flops / flops_per_s``) and per-link transfer time (``latency_s + 8 bytes /
bandwidth_bps``) for every link the activation crosses. Energy is per-tier compute
power times time (the cloud's scaled by PUE) plus ``energy_per_bit_j`` per bit per
link. A privacy constraint ``min_device_layers`` keeps the raw input on the device.
The optimum is found exhaustively: with two cut points there are O(n^2) splits.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from operator import attrgetter

from archsim.errors import ConfigError

__all__ = ["TIERS", "Layer", "Tier", "Link", "Split", "evaluate_split", "optimal_split"]

#: The tiers a split places layers on, in chain order.
TIERS: tuple[str, ...] = ("device", "edge", "cloud")


def _positive(value: float, field: str, *, allow_zero: bool = False) -> None:
    ok = math.isfinite(value) and (value >= 0 if allow_zero else value > 0)
    if not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ConfigError(f"must be finite and {bound}, got {value!r}", field=field)


@dataclass(frozen=True, kw_only=True)
class Layer:
    """One layer of the chain: its work and the activation it hands on."""

    name: str
    flops: float
    output_bytes: float

    def __post_init__(self) -> None:
        _positive(self.flops, "flops", allow_zero=True)
        _positive(self.output_bytes, "output_bytes", allow_zero=True)


@dataclass(frozen=True, kw_only=True)
class Tier:
    """A compute tier: sustained FLOP/s, active power and facility overhead (PUE)."""

    name: str
    flops_per_s: float
    power_w: float
    pue: float = 1.0

    def __post_init__(self) -> None:
        _positive(self.flops_per_s, "flops_per_s")
        _positive(self.power_w, "power_w", allow_zero=True)
        if not (math.isfinite(self.pue) and self.pue >= 1.0):
            raise ConfigError(f"must be >= 1, got {self.pue!r}", field="pue")


@dataclass(frozen=True, kw_only=True)
class Link:
    """A network link: bandwidth, one-way latency and energy per bit sent."""

    name: str
    bandwidth_bps: float
    latency_s: float
    energy_per_bit_j: float

    def __post_init__(self) -> None:
        _positive(self.bandwidth_bps, "bandwidth_bps")
        _positive(self.latency_s, "latency_s", allow_zero=True)
        _positive(self.energy_per_bit_j, "energy_per_bit_j", allow_zero=True)

    def transfer_s(self, nbytes: float) -> float:
        """Time to send ``nbytes`` over this link (latency plus serialisation)."""
        return self.latency_s + 8.0 * nbytes / self.bandwidth_bps

    def transfer_j(self, nbytes: float) -> float:
        """Energy to send ``nbytes`` over this link."""
        return 8.0 * nbytes * self.energy_per_bit_j


def _tier_ranges(cut_edge: int, cut_cloud: int, n_layers: int) -> dict[str, tuple[int, int]]:
    return dict(zip(TIERS, ((0, cut_edge), (cut_edge, cut_cloud), (cut_cloud, n_layers)),
                    strict=True))


@dataclass(frozen=True, kw_only=True)
class Split:
    """A placement: device runs ``[0, cut_edge)``, edge ``[cut_edge, cut_cloud)``, cloud the rest."""

    cut_edge: int
    cut_cloud: int
    latency_s: float
    energy_j: float

    def layer_ranges(self, n_layers: int) -> dict[str, tuple[int, int]]:
        """The half-open layer range ``[a, b)`` each tier of :data:`TIERS` runs."""
        return _tier_ranges(self.cut_edge, self.cut_cloud, n_layers)

    def flop_shares(self, layers: list[Layer]) -> dict[str, float]:
        """Fraction of the chain's FLOPs each tier of :data:`TIERS` runs."""
        total = sum(layer.flops for layer in layers)
        return {t: sum(layer.flops for layer in layers[a:b]) / total
                for t, (a, b) in self.layer_ranges(len(layers)).items()}


def evaluate_split(
    *,
    layers: list[Layer],
    input_bytes: float,
    device: Tier,
    edge: Tier,
    cloud: Tier,
    uplink: Link,
    wan: Link,
    cut_edge: int,
    cut_cloud: int,
    min_device_layers: int = 0,
) -> Split:
    """Latency and energy of one split.

    Parameters
    ----------
    layers : list of Layer
        The chain, input first.
    input_bytes : float
        Size of the raw input (sent if ``cut_edge == 0``).
    device, edge, cloud : Tier
        The three tiers.
    uplink : Link
        Device to edge (wireless).
    wan : Link
        Edge to cloud.
    cut_edge, cut_cloud : int
        ``0 <= cut_edge <= cut_cloud <= len(layers)``.
    min_device_layers : int
        Privacy: at least this many leading layers on the device.

    Returns
    -------
    Split

    Raises
    ------
    ConfigError
        If the cuts are out of range or violate the privacy constraint.
    """
    n = len(layers)
    if n == 0:
        raise ConfigError("need at least one layer", field="layers")
    _positive(input_bytes, "input_bytes", allow_zero=True)
    if not 0 <= cut_edge <= cut_cloud <= n:
        raise ConfigError(
            f"need 0 <= cut_edge <= cut_cloud <= {n}, got {cut_edge}, {cut_cloud}",
            field="cut_edge",
        )
    if not 0 <= min_device_layers <= n:
        raise ConfigError(f"must be in [0, {n}]", field="min_device_layers")
    if cut_edge < min_device_layers:
        raise ConfigError(
            f"privacy: the first {min_device_layers} layer(s) must run on device, "
            f"cut_edge={cut_edge}",
            field="min_device_layers",
        )

    def flops(a: int, b: int) -> float:
        return sum(layer.flops for layer in layers[a:b])

    def act(i: int) -> float:
        # Bytes crossing a cut before layer i: the raw input or layer i-1's output.
        return input_bytes if i == 0 else layers[i - 1].output_bytes

    latency = 0.0
    energy = 0.0
    ranges = _tier_ranges(cut_edge, cut_cloud, n).values()
    for tier, (a, b) in zip((device, edge, cloud), ranges, strict=True):
        t = flops(a, b) / tier.flops_per_s
        latency += t
        energy += t * tier.power_w * tier.pue
    # Data goes up the uplink if anything runs off-device, over the WAN if anything runs
    # in the cloud; a cut at the end of the chain sends nothing.
    if cut_edge < n:
        latency += uplink.transfer_s(act(cut_edge))
        energy += uplink.transfer_j(act(cut_edge))
    if cut_cloud < n:
        latency += wan.transfer_s(act(cut_cloud))
        energy += wan.transfer_j(act(cut_cloud))
    return Split(cut_edge=cut_edge, cut_cloud=cut_cloud, latency_s=latency, energy_j=energy)


def optimal_split(
    *,
    layers: list[Layer],
    input_bytes: float,
    device: Tier,
    edge: Tier,
    cloud: Tier,
    uplink: Link,
    wan: Link,
    objective: str = "latency",
    min_device_layers: int = 0,
    cuts: Iterable[tuple[int, int]] | None = None,
) -> Split:
    """The split minimising ``objective`` (``"latency"`` or ``"energy"``), exhaustively.

    ``cuts`` restricts the search to these ``(cut_edge, cut_cloud)`` pairs (default: every
    pair with ``cut_edge >= min_device_layers``). Ties go to the first split in
    ``(cut_edge, cut_cloud)`` lexicographic order (the order of ``cuts`` when given).
    """
    if objective not in ("latency", "energy"):
        raise ConfigError(f"unknown objective {objective!r}", field="objective",
                          allowed=("latency", "energy"))
    n = len(layers)
    splits = (evaluate_split(layers=layers, input_bytes=input_bytes, device=device, edge=edge,
                             cloud=cloud, uplink=uplink, wan=wan, cut_edge=ce, cut_cloud=cc,
                             min_device_layers=min_device_layers)
              for ce, cc in (cuts if cuts is not None else
                             ((ce, cc) for ce in range(max(min_device_layers, 0), n + 1)
                              for cc in range(ce, n + 1))))
    # min keeps the first of equal keys: the lexicographic tie rule above.
    best = min(splits, key=attrgetter("latency_s" if objective == "latency" else "energy_j"),
               default=None)
    if best is None:
        raise ConfigError("no feasible split", field="min_device_layers")
    return best
