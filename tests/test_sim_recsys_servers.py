"""Server-generation model: scaling rules against hand-worked values, labels, co-location."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from archsim.compilers.graph.recsys import get_recsys
from archsim.errors import ConfigError
from archsim.sim.recsys.measure import CpuCostModel, group_work
from archsim.sim.recsys.servers import (
    DRAM_PENALTY,
    HOT_FRACTION,
    SERVER_ASSUMPTIONS,
    SERVERS,
    ServerCpu,
    colocate,
    host_cpu,
    miss_fraction,
    scaled_group_s,
    server_latency_s,
)

MB = 1 << 20

CPUINFO = """processor\t: 0
model name\t: Test CPU 9000
cpu MHz\t\t: 3000.000
flags\t\t: fpu sse2 avx avx2 fma
"""


def _host(**kw: object) -> ServerCpu:
    args: dict[str, object] = dict(name="host", clock_hz=3.0e9, cores_per_socket=1,
                                   simd_bits=512, l2_bytes=MB, l3_bytes=32 * MB,
                                   l3_inclusive=False, dram_bw_bytes_per_s=1.0)
    args.update(kw)
    return ServerCpu(**args)


def test_server_table_labels_and_values() -> None:
    # Notes §1.7 [R]: the recalled table, by hand.
    assert SERVERS["Haswell"].clock_hz == 2.5e9 and SERVERS["Haswell"].simd_bits == 256
    assert SERVERS["Broadwell"].cores_per_socket == 14
    assert SERVERS["Broadwell"].l3_bytes == 35 * MB and SERVERS["Broadwell"].l3_inclusive
    sky = SERVERS["Skylake"]
    assert sky.simd_bits == 512 and sky.l2_bytes == MB and not sky.l3_inclusive
    for s in SERVERS.values():
        assert "unverified recollection" in s.source
    assert any("unverified recollection" in a for a in SERVER_ASSUMPTIONS)
    assert any("assumed" in a for a in SERVER_ASSUMPTIONS)


def test_peak_flops_and_effective_llc_by_hand() -> None:
    # Skylake: 2.0e9 * 512/32 lanes * 2 (FMA) * 2 units = 128 GFLOP/s per core.
    assert SERVERS["Skylake"].peak_flops_per_core == pytest.approx(128e9)
    # Broadwell: 2.4e9 * 8 * 2 * 2 = 76.8 GFLOP/s.
    assert SERVERS["Broadwell"].peak_flops_per_core == pytest.approx(76.8e9)
    bdw = SERVERS["Broadwell"]
    assert bdw.effective_llc_bytes(1) == 35 * MB
    assert bdw.effective_llc_bytes(7) == pytest.approx(5 * MB)
    sky = SERVERS["Skylake"]
    # Exclusive: (27.5 MB + 19 idle L2s of 1 MB) / 1 + own 1 MB = 47.5 MB.
    assert sky.effective_llc_bytes(1) == pytest.approx(47.5 * MB)
    # 20 instances: (27.5 + 0) / 20 + 1 = 2.375 MB.
    assert sky.effective_llc_bytes(20) == pytest.approx(2.375 * MB)


def test_host_from_cpuinfo_text() -> None:
    host = host_cpu(CPUINFO, cache_dir=_no_dir())
    assert host.clock_hz == pytest.approx(3.0e9)
    assert host.simd_bits == 256  # avx2, no avx512f
    assert "Test CPU 9000" in host.name
    with pytest.raises(ConfigError, match="cpu MHz"):
        host_cpu("model name : x\n", cache_dir=_no_dir())


def _no_dir() -> Path:
    return Path("/nonexistent-cache-dir")


def test_host_cache_sizes_from_sysfs(tmp_path: Path) -> None:
    root = tmp_path
    for i, (level, size) in enumerate([(1, "48K"), (2, "2048K"), (3, "16M")]):
        d = root / f"index{i}"
        d.mkdir()
        (d / "level").write_text(f"{level}\n")
        (d / "size").write_text(f"{size}\n")
    host = host_cpu(CPUINFO + "flags : avx512f\n", cache_dir=root)
    assert host.l2_bytes == 2 * MB and host.l3_bytes == 16 * MB


def test_scaling_rules_by_hand() -> None:
    cfg = get_recsys("DLRM-RMC1")
    coef = {"sls": (1e-5, 1e-10), "fc": (2e-5, 1e-11), "concat": (1e-6, 1e-12)}
    cost = CpuCostModel(coefficients={cfg.name: coef}, fitted_batches=(1,))
    host = _host()
    srv = SERVERS["Broadwell"]
    batch = 16
    work = group_work(cfg, batch)
    got = scaled_group_s(cost, cfg, batch, host=host, server=srv)
    clock = 3.0e9 / 2.4e9
    flops = (3.0e9 * 16 * 2 * 2) / (2.4e9 * 8 * 2 * 2)
    # RMC1 tables: 8 x 4e6 rows x 32 x 4 B = 4.096e9 B; hot 1% = 40.96e6 B vs 35 MiB.
    hot = HOT_FRACTION * 8 * 4_000_000 * 32 * 4
    m = 1 - 35 * MB / hot
    assert miss_fraction(cfg, srv) == pytest.approx(m)
    miss = 1 + m * (DRAM_PENALTY - 1)
    assert got["fc"] == pytest.approx(2e-5 * clock + 1e-11 * work["fc"] * flops)
    assert got["sls"] == pytest.approx(1e-5 * clock + 1e-10 * work["sls"] * clock * miss)
    assert got["concat"] == pytest.approx((1e-6 + 1e-12 * work["concat"]) * clock)
    assert server_latency_s(cost, cfg, batch, host=host, server=srv) == \
        pytest.approx(math.fsum(got.values()))


def test_colocation_bandwidth_stretch_by_hand() -> None:
    cfg = get_recsys("DLRM-RMC2")
    # Only SLS, with a slope that makes one instance read at 10 GB/s.
    cost = CpuCostModel(coefficients={cfg.name: {"sls": (0.0, 1e-10)}},
                        fitted_batches=(1,))
    host = _host(clock_hz=2.4e9)  # clock ratio 1 on Broadwell
    srv = SERVERS["Broadwell"]
    one = colocate(cost, cfg, 4, host=host, server=srv, instances=1)
    n = srv.cores_per_socket
    many = colocate(cost, cfg, 4, host=host, server=srv, instances=n)
    m1 = miss_fraction(cfg, srv, 1)
    mn = miss_fraction(cfg, srv, n)
    sls_one = 1e-10 * group_work(cfg, 4)["sls"] * (1 + m1 * (DRAM_PENALTY - 1))
    assert one.latency_s == pytest.approx(sls_one)
    sls_n = 1e-10 * group_work(cfg, 4)["sls"] * (1 + mn * (DRAM_PENALTY - 1))
    demand = n * group_work(cfg, 4)["sls"] / sls_n
    stretch = max(1.0, demand / (4 * 2400e6 * 8))
    assert many.bw_stretch == pytest.approx(stretch)
    assert many.latency_s == pytest.approx(sls_n * stretch)
    assert many.throughput_items_per_s == pytest.approx(n * 4 / (sls_n * stretch))
    with pytest.raises(ConfigError, match="cores per socket"):
        colocate(cost, cfg, 4, host=host, server=srv, instances=n + 1)


def test_bad_server_fields() -> None:
    with pytest.raises(ConfigError, match="simd_bits"):
        _host(simd_bits=300)
    with pytest.raises(ConfigError, match="clock_hz"):
        _host(clock_hz=-1.0)
    with pytest.raises(ConfigError, match="instances"):
        SERVERS["Skylake"].effective_llc_bytes(0)
