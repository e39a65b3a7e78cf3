"""Haswell, Broadwell and Skylake servers (HPCA 2020) as a parameterized model scaled from this CPU.

Gupta et al., "The Architectural Implications of Facebook's DNN-based Personalized
Recommendation" (HPCA 2020, arXiv 1906.03109) report that inference latency varies by 60%
across three Intel server generations and that co-locating model instances raises
latency-bounded throughput. The server table behind it was not verified: every field of
:data:`SERVERS` is an **unverified recollection** (``shared/papers/
recsys-characterization-ml-studies.md`` §1.7 [R]) except where a field says "assumed".

This is a labelled parameterized model, not a measurement. A model's time at a batch on a
server comes from THIS machine's measured and fitted cost model
(:class:`~archsim.sim.recsys.measure.CpuCostModel`, ``t = a + b * work`` per operator group)
scaled group by group:

* **FC, attention, GRU** (compute): the fixed part ``a`` by the clock ratio
  ``f_host / f_server``; the work part ``b * work`` by the peak fp32 FLOP/s per core ratio
  ``P_host / P_server``, ``P = f * simd_bits / 32 * 2 (FMA) * fma_units``.
* **SLS** (embedding gathers): ``a`` by the clock ratio; ``b * work`` by the clock ratio
  times the miss factor ``1 + m * (dram_penalty - 1)``, ``m`` the fraction of the tables'
  hot working set (``hot_fraction`` of the table bytes, assumed) that does not fit the
  effective LLC share of an instance. The measurement's tables are capped and LLC-resident
  on this machine (:mod:`~archsim.sim.recsys.measure`), so the host's factor is 1.
  Effective LLC: an inclusive L3 holds the L2s' lines, so it gives ``L3``; an exclusive
  (victim) L3 adds the private L2s: ``L3 + cores * L2``. ``n`` co-located instances share
  it: ``effective / n``, plus each instance keeps its own L2 when exclusive.
* **Memory bandwidth under co-location**: ``n`` instances each read their SLS bytes per
  SLS time; when the sum exceeds the socket's DRAM bandwidth, every SLS is stretched by
  ``demand / bandwidth`` (the instances run in lockstep: assumed worst case).
* **concat**: by the clock ratio.

The host (this machine) is read from ``/proc/cpuinfo`` (model name, ``cpu MHz``, flags
``avx512f``/``avx2``) and ``/sys/devices/system/cpu/cpu0/cache`` (L2, L3 sizes).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from ...compilers.graph.recsys import RecModelConfig
from ...errors import ConfigError
from ...fields import is_positive_int
from .measure import ALL_MODELS, CpuCostModel, group_work

__all__ = ["ServerCpu", "SERVERS", "HOT_FRACTION", "DRAM_PENALTY", "FMA_UNITS",
           "COMPUTE_GROUPS", "host_cpu", "miss_fraction", "scaled_group_s", "server_latency_s",
           "Colocation", "colocate", "SERVER_ASSUMPTIONS"]

#: Fraction of the embedding tables' bytes that is hot (reused across queries): assumed.
HOT_FRACTION = 0.01
#: A gather that misses the LLC costs this many times one that hits it (DRAM ~90 ns against
#: LLC ~30 ns random-access latency, typical Intel server figures): assumed.
DRAM_PENALTY = 3.0
#: FMA units per core on every server and on the host (Haswell..Skylake-SP Gold have 2 on
#: AVX2; 2 AVX-512 units on the Xeon Gold/Platinum parts assumed).
FMA_UNITS = 2
#: The operator groups scaled by peak FLOP/s.
COMPUTE_GROUPS = ("fc", "attention", "gru")

_MB = 1 << 20
_KB = 1 << 10


@dataclass(frozen=True, kw_only=True)
class ServerCpu:
    """One server CPU socket: clock, cores, SIMD width, caches and DRAM bandwidth.

    Parameters
    ----------
    name
        Display name.
    clock_hz
        Sustained core clock.
    cores_per_socket
        Physical cores per socket.
    simd_bits
        Vector width of the FMA units (256 AVX2, 512 AVX-512).
    l2_bytes
        Private L2 per core.
    l3_bytes
        Shared L3 per socket.
    l3_inclusive
        Whether the L3 is inclusive of the L2s.
    dram_bw_bytes_per_s
        Peak DRAM bandwidth per socket (channels x MT/s x 8 B).
    source
        Where the figures come from.
    """

    name: str
    clock_hz: float
    cores_per_socket: int
    simd_bits: int
    l2_bytes: int
    l3_bytes: int
    l3_inclusive: bool
    dram_bw_bytes_per_s: float
    source: str = ""

    def __post_init__(self) -> None:
        for f in ("clock_hz", "dram_bw_bytes_per_s"):
            v = getattr(self, f)
            if not (isinstance(v, int | float) and math.isfinite(v) and v > 0):
                raise ConfigError(f"{f} must be a finite number > 0, not {v!r}", field=f)
        for f in ("cores_per_socket", "l2_bytes", "l3_bytes"):
            v = getattr(self, f)
            if not is_positive_int(v):
                raise ConfigError(f"{f} must be an int >= 1, not {v!r}", field=f)
        if self.simd_bits not in (128, 256, 512):
            raise ConfigError(f"simd_bits must be 128, 256 or 512, not {self.simd_bits!r}",
                              field="simd_bits", allowed=(128, 256, 512))

    @property
    def peak_flops_per_core(self) -> float:
        """fp32 FLOP/s of one core: ``clock * simd_bits / 32 lanes * 2 (FMA) * FMA_UNITS``."""
        return self.clock_hz * self.simd_bits / 32 * 2 * FMA_UNITS

    def effective_llc_bytes(self, instances: int = 1) -> float:
        """The LLC capacity one of ``instances`` co-located instances can use (module
        docstring): inclusive ``L3 / n``; exclusive ``(L3 + (cores - n) * L2) / n + L2``,
        i.e. its own L2 plus a share of the L3 and of idle cores' L2s."""
        n = _positive_int("instances", instances)
        if self.l3_inclusive:
            return self.l3_bytes / n
        idle = max(0, self.cores_per_socket - n)
        return (self.l3_bytes + idle * self.l2_bytes) / n + self.l2_bytes


def _positive_int(name: str, value: object) -> int:
    if not is_positive_int(value):
        raise ConfigError(f"{name} must be an int >= 1, not {value!r}", field=name)
    return value


_REC = "unverified recollection (recsys notes §1.7 [R])"

#: The three generations. Every figure is an unverified recollection of HPCA 2020's server
#: table (notes §1.7 [R]); DRAM bandwidth = 4 channels x MT/s x 8 B (4 channels per socket
#: on these Xeons: assumed; Haswell at DDR4-2133, the upper end of the recalled range).
SERVERS: dict[str, ServerCpu] = {s.name: s for s in [
    ServerCpu(name="Haswell", clock_hz=2.5e9, cores_per_socket=12, simd_bits=256,
              l2_bytes=256 * _KB, l3_bytes=30 * _MB, l3_inclusive=True,
              dram_bw_bytes_per_s=4 * 2133e6 * 8, source=_REC),
    ServerCpu(name="Broadwell", clock_hz=2.4e9, cores_per_socket=14, simd_bits=256,
              l2_bytes=256 * _KB, l3_bytes=35 * _MB, l3_inclusive=True,
              dram_bw_bytes_per_s=4 * 2400e6 * 8, source=_REC),
    ServerCpu(name="Skylake", clock_hz=2.0e9, cores_per_socket=20, simd_bits=512,
              l2_bytes=1 * _MB, l3_bytes=int(27.5 * _MB), l3_inclusive=False,
              dram_bw_bytes_per_s=4 * 2666e6 * 8, source=_REC),
]}

SERVER_ASSUMPTIONS: tuple[str, ...] = (
    "server table (clock, cores, SIMD, L2/L3, inclusivity, DDR4 speed): unverified "
    "recollection of HPCA 2020 (notes §1.7 [R])",
    "4 DDR4 channels per socket (assumed); Haswell at DDR4-2133",
    f"{FMA_UNITS} FMA units per core on every CPU (assumed)",
    f"hot embedding working set = {HOT_FRACTION:g} of the table bytes (assumed)",
    f"an LLC miss costs {DRAM_PENALTY:g}x an LLC hit per gathered byte (assumed)",
    "co-located instances run in lockstep; DRAM bandwidth demand above the socket's peak "
    "stretches every SLS proportionally (assumed)",
    "the host measurement's capped tables are LLC-resident: host miss factor 1 (assumed)",
)


def host_cpu(cpuinfo: str | None = None, cache_dir: Path | None = None) -> ServerCpu:
    """This machine as a :class:`ServerCpu`: model name, clock (``cpu MHz``) and SIMD width
    (``avx512f`` 512, ``avx2`` 256, else 128) from ``/proc/cpuinfo`` (or ``cpuinfo``), L2
    and L3 from ``cache_dir`` (default ``/sys/devices/system/cpu/cpu0/cache``); DRAM
    bandwidth is not read (not needed for the host: its measurement is the reference)."""
    text = cpuinfo if cpuinfo is not None else Path("/proc/cpuinfo").read_text()
    name_m = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
    mhz_m = re.search(r"^cpu MHz\s*:\s*([0-9.]+)", text, re.M)
    flags_m = re.search(r"^flags\s*:\s*(.+)$", text, re.M)
    if mhz_m is None:
        raise ConfigError("no 'cpu MHz' line in the cpuinfo text", field="cpuinfo")
    flags = set(flags_m.group(1).split()) if flags_m else set()
    simd = 512 if "avx512f" in flags else 256 if "avx2" in flags else 128
    caches = {2: 1 * _MB, 3: 32 * _MB}  # fallbacks if sysfs is missing (assumed)
    root = cache_dir if cache_dir is not None else Path("/sys/devices/system/cpu/cpu0/cache")
    for idx in sorted(root.glob("index*")) if root.is_dir() else []:
        try:
            level = int((idx / "level").read_text())
            size = (idx / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        m = re.fullmatch(r"(\d+)([KMG]?)", size)
        if m and level in (2, 3):
            caches[level] = int(m.group(1)) * {"": 1, "K": _KB, "M": _MB, "G": 1 << 30}[
                m.group(2)]
    return ServerCpu(name=f"host ({name_m.group(1).strip() if name_m else 'unknown'})",
                     clock_hz=float(mhz_m.group(1)) * 1e6, cores_per_socket=1,
                     simd_bits=simd, l2_bytes=caches[2], l3_bytes=caches[3],
                     l3_inclusive=False, dram_bw_bytes_per_s=1.0,
                     source="/proc/cpuinfo and sysfs of this machine")


def _coefficients(cost: CpuCostModel, config: RecModelConfig
                  ) -> dict[str, tuple[float, float]]:
    coef = cost.coefficients.get(config.name, cost.coefficients.get(ALL_MODELS))
    if coef is None:
        raise ConfigError(f"no CPU cost fit for model {config.name!r}", field="model",
                          allowed=sorted(cost.coefficients))
    return coef


def miss_fraction(config: RecModelConfig, server: ServerCpu, instances: int = 1) -> float:
    """Fraction of the hot working set (``HOT_FRACTION`` of the fp32 table bytes) that
    does not fit one instance's effective LLC."""
    hot = HOT_FRACTION * sum(config.table_rows) * config.embedding_dim * 4
    return max(0.0, 1.0 - server.effective_llc_bytes(instances) / hot)


def scaled_group_s(cost: CpuCostModel, config: RecModelConfig, batch: int, *,
                   host: ServerCpu, server: ServerCpu, instances: int = 1
                   ) -> dict[str, float]:
    """Seconds per operator group of ``config`` at ``batch`` on ``server`` (module
    docstring), without the DRAM-bandwidth stretch of :func:`colocate`."""
    coef = _coefficients(cost, config)
    work = group_work(config, batch)
    clock = host.clock_hz / server.clock_hz
    flops = host.peak_flops_per_core / server.peak_flops_per_core
    miss = 1.0 + miss_fraction(config, server, instances) * (DRAM_PENALTY - 1.0)
    out: dict[str, float] = {}
    for g, (a, b) in coef.items():
        w = work.get(g, 0.0)
        if w <= 0:
            continue
        if g in COMPUTE_GROUPS:
            out[g] = a * clock + b * w * flops
        elif g == "sls":
            out[g] = a * clock + b * w * clock * miss
        else:
            out[g] = (a + b * w) * clock
    return out


def server_latency_s(cost: CpuCostModel, config: RecModelConfig, batch: int, *,
                     host: ServerCpu, server: ServerCpu) -> float:
    """One instance's forward time at ``batch`` on ``server``: the scaled groups summed."""
    return math.fsum(scaled_group_s(cost, config, batch, host=host, server=server).values())


@dataclass(frozen=True)
class Colocation:
    """``instances`` co-located copies of a model on one socket: each one's latency, the
    socket's throughput (items/s) and the DRAM-bandwidth stretch applied to SLS."""

    server: str
    model: str
    batch: int
    instances: int
    latency_s: float
    throughput_items_per_s: float
    bw_stretch: float


def colocate(cost: CpuCostModel, config: RecModelConfig, batch: int, *, host: ServerCpu,
             server: ServerCpu, instances: int) -> Colocation:
    """``instances`` (<= cores per socket) copies on one socket (module docstring): the
    LLC split ``instances`` ways, SLS stretched by ``max(1, n * bytes / t_sls / bw)``;
    throughput ``n * batch / latency``."""
    n = _positive_int("instances", instances)
    if n > server.cores_per_socket:
        raise ConfigError(f"instances ({n}) exceeds {server.name}'s "
                          f"{server.cores_per_socket} cores per socket", field="instances")
    groups = scaled_group_s(cost, config, batch, host=host, server=server, instances=n)
    stretch = 1.0
    sls_s = groups.get("sls", 0.0)
    if sls_s > 0:
        demand = n * group_work(config, batch)["sls"] / sls_s
        stretch = max(1.0, demand / server.dram_bw_bytes_per_s)
        groups["sls"] = sls_s * stretch
    latency = math.fsum(groups.values())
    return Colocation(server=server.name, model=config.name, batch=batch, instances=n,
                      latency_s=latency, throughput_items_per_s=n * batch / latency,
                      bw_stretch=stretch)
