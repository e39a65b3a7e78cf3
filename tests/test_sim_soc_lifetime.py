"""Data lifetimes from the simulated timeline, eDRAM refresh counts and buffer allocation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from archsim.compilers.graph import TensorSpec, WorkloadGraph, linear
from archsim.compilers.graph.cnn import activation, elementwise
from archsim.errors import ConfigError
from archsim.hw.models.memtech import memory_technology
from archsim.sim.soc import (
    EnergyBreakdown,
    GlobalBufferConfig,
    LifetimeReport,
    OperatorRecord,
    SoCConfig,
    SocResult,
    TensorLifetime,
    TransferTotals,
    allocate,
    edram_refresh_period_s,
    refresh_energy_j_per_bit,
    refresh_for_buffer,
    refresh_operations,
    simulate,
    simulate_with_buffer,
    tensor_lifetimes,
)
from archsim.sim.soc.lifetime import ALLOCATION_ORDERS, edram_access_trace


def _result(graph: WorkloadGraph, windows: dict[str, tuple[float, float]]) -> SocResult:
    """A SocResult carrying only the operator windows (what lifetimes are read from)."""
    ops = [OperatorRecord(index=i, name=op.name, kind=op.kind, target="accelerator",
                          start_s=windows[op.name][0], end_s=windows[op.name][1], tiles=1,
                          jobs=1, macs=0, breakdown_s={}) for i, op in enumerate(graph)]
    end = max(e for _, e in windows.values())
    return SocResult(soc="hand", workload=graph.name, accelerators=1, latency_s=end,
                     breakdown_s={}, operators=ops, timeline=[], transfers=TransferTotals(),
                     energy=EnergyBreakdown(0, 0, 0, 0, 0, 0, 0), macs=0, events=0,
                     wall_time_s=0.0)


def _chain() -> WorkloadGraph:
    """fc(x, W) -> relu -> add(relu.out, fc.out): fc.out is read twice, add.out never."""
    g = WorkloadGraph("chain")
    x = TensorSpec("x", (4, 8), "fp16", role="input")
    fc = g.add(linear("fc", x, out_features=16, bias=False))
    r = g.add(activation("relu", fc.outputs[0]))
    g.add(elementwise("add", r.outputs[0], fc.outputs[0]))
    return g


def _brute_live(report: LifetimeReport, t: float, roles=None) -> float:
    return sum(x.nbytes for x in report.lifetimes
               if (roles is None or x.role in roles) and x.write_s <= t < x.last_read_s)


def _curve_at(times: np.ndarray, live: np.ndarray, t: np.ndarray) -> np.ndarray:
    return live[np.searchsorted(times, t, side="right") - 1]


def test_lifetimes_of_a_hand_built_chain_equal_its_windows():
    g = _chain()
    # Windows with gaps, in quarters so that the brute-force grid hits every edge exactly.
    rep = tensor_lifetimes(_result(g, {"fc": (0.0, 2.0), "relu": (2.5, 3.5),
                                       "add": (4.0, 7.0)}), g)
    assert rep.iteration_s == 7.0
    expected = {  # name: (role, bytes, producer, write, reads, first read, last read)
        "x": ("input", 4 * 8 * 2, None, 0.0, 1, 0.0, 2.0),
        "fc.weight": ("weight", 8 * 16 * 2, None, 0.0, 1, 0.0, 2.0),
        "fc.out": ("activation", 4 * 16 * 2, "fc", 2.0, 2, 2.5, 7.0),
        "relu.out": ("activation", 4 * 16 * 2, "relu", 3.5, 1, 4.0, 7.0),
        "add.out": ("activation", 4 * 16 * 2, "add", 7.0, 0, 7.0, 7.0),
    }
    assert {t.name for t in rep.lifetimes} == set(expected)
    for name, (role, nbytes, prod, w, reads, first, last) in expected.items():
        assert rep[name] == TensorLifetime(name=name, role=role, nbytes=nbytes, producer=prod,
                                           write_s=w, reads=reads, first_read_s=first,
                                           last_read_s=last)
    assert rep["fc.out"].lifetime_s == 5.0 and rep["add.out"].lifetime_s == 0.0
    grid = np.arange(0, 29) / 4.0
    for roles in (None, ("activation",), ("input", "weight")):
        times, live = rep.live_bytes_curve(roles)
        brute = np.array([_brute_live(rep, t, roles) for t in grid])
        np.testing.assert_array_equal(_curve_at(times, live, grid), brute)
        assert rep.peak_live_bytes(roles) == brute.max()
    assert rep.peak_live_bytes(("activation",)) == 2 * 4 * 16 * 2  # fc.out + relu.out
    rows = {r["role"]: r for r in rep.by_role()}
    assert rows["activation"]["tensors"] == 3 and rows["activation"]["max_lifetime_s"] == 5.0
    assert len(rep.rows()) == 5 and rep.rows()[0]["lifetime_s"] == 2.0


def test_live_curve_equals_brute_force_on_random_reports():
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(1, 12))
        w = rng.integers(0, 40, n) / 8.0
        r = w + rng.integers(0, 20, n) / 8.0
        ts = tuple(TensorLifetime(name=f"t{i}", role=("activation", "gradient")[i % 2],
                                  nbytes=float(rng.integers(1, 1000)), producer=None,
                                  write_s=float(w[i]), reads=1, first_read_s=float(w[i]),
                                  last_read_s=float(r[i])) for i in range(n))
        rep = LifetimeReport(workload="rand", iteration_s=float(r.max()), lifetimes=ts)
        grid = np.arange(0, 8 * 60 + 1) / 8.0
        for roles in (None, ("gradient",)):
            times, live = rep.live_bytes_curve(roles)
            brute = np.array([_brute_live(rep, t, roles) for t in grid])
            np.testing.assert_array_equal(_curve_at(times, live, grid), brute)
            assert rep.peak_live_bytes(roles) == brute.max()


def _zero_overhead_cfg(**gb) -> SoCConfig:
    data = {
        "cpu": {"framework_overhead_s_per_op": 0.0, "framework_overhead_s_per_tile": 0.0,
                "data_prep_bytes_per_s_per_thread": 1e18},
        "accelerators": [{"kind": "smv", "pipeline_cycles": 0, "vector_lanes": 4,
                          "frequency_hz": 1e9}],
        "dram": {"latency_s": 0.0, "bandwidth_bytes_per_s": 8e9},
        "llc": {"flush_fixed_s": 0.0, "flush_bytes_per_s": 1e18, "acp_latency_s": 0.0},
        "interconnect": {"transfer_setup_s": 0.0},
    }
    if gb:
        data["global_buffer"] = gb
    return SoCConfig.from_dict(data)


def _vector_chain(elements: int) -> WorkloadGraph:
    """relu(x) -> a, relu(a) -> b, add(a, b) -> c; every tensor ``elements`` fp16."""
    g = WorkloadGraph("vchain")
    x = TensorSpec("x", (elements,), "fp16", role="input")
    a = g.add(activation("r1", x, out="a")).outputs[0]
    b = g.add(activation("r2", a, out="b")).outputs[0]
    g.add(elementwise("add", a, b, out="c"))
    return g


def test_lifetimes_from_a_simulated_chain_match_closed_form_windows():
    e, bw, lanes, f = 4096, 8e9, 4, 1e9
    g = _vector_chain(e)
    r = simulate(_zero_overhead_cfg(), g)
    nb = 2 * e
    # One job per operator (32768-element scratchpads): load, compute, store, plus the CPU
    # tiling and gathering its bytes at 1e18 B/s.
    unary = 2 * nb / bw + e / lanes / f + 2 * nb / 1e18
    binary = 3 * nb / bw + e / lanes / f + 3 * nb / 1e18
    t1, t2, t3 = unary, 2 * unary, 2 * unary + binary
    rep = tensor_lifetimes(r, g)
    assert rep.iteration_s == pytest.approx(t3, rel=1e-12)
    assert rep["x"].write_s == 0.0 and rep["x"].last_read_s == pytest.approx(t1, rel=1e-12)
    assert rep["a"].write_s == pytest.approx(t1, rel=1e-12)
    assert rep["a"].reads == 2 and rep["a"].first_read_s == pytest.approx(t1, rel=1e-12)
    assert rep["a"].last_read_s == pytest.approx(t3, rel=1e-12)
    assert rep["b"].lifetime_s == pytest.approx(t3 - t2, rel=1e-12)
    assert rep["c"].lifetime_s == 0.0 and rep["c"].reads == 0
    assert rep.peak_live_bytes(("activation",)) == 2 * nb


def _report(items, iteration_s):
    ts = tuple(TensorLifetime(name=n, role=role, nbytes=b, producer="p", write_s=w, reads=1,
                              first_read_s=w, last_read_s=w + life)
               for n, role, b, w, life in items)
    return LifetimeReport(workload="r", iteration_s=iteration_s, lifetimes=ts)


def test_refresh_counts_hand_enumerated():
    p = 0.25
    rep = _report([
        ("under1", "activation", 100.0, 0.0, 0.2499),   # 13 rows of 64 bits, held < 1 period
        ("over1", "activation", 64.0, 0.1, 0.2501),     # 8 rows, 1 refresh each
        ("under3", "gradient", 8.0, 0.0, 0.7499),       # 1 row, 2 refreshes
        ("over3", "gradient", 9.0, 0.3, 0.7501),        # 72 bits: 2 rows, 3 refreshes each
        ("weights", "weight", 640.0, 0.0, 2.6),         # 80 rows, 10 refreshes
    ], iteration_s=2.6)
    est = refresh_operations(rep, refresh_period_s=p, row_bits=64, capacity_bits=6400)
    assert est.rows == 100
    assert est.always_row_refreshes == 10 * 100           # floor(2.6 / 0.25) sweeps
    assert est.lifetime_aware_row_refreshes == 0 + 8 + 2 + 6 + 800
    assert est.tensors == 5 and est.tensors_needing_refresh == 4
    assert est.lifetime_aware_bits == 816 * 64 and est.always_bits == 1000 * 64
    assert est.lifetime_aware_energy_j(1e-12) == pytest.approx(816 * 64e-12, rel=1e-15)
    act = refresh_operations(rep, refresh_period_s=p, row_bits=64, capacity_bits=6400,
                             roles=("activation", "gradient"), rows_per_refresh=3)
    assert act.lifetime_aware_row_refreshes == 16 and act.tensors_needing_refresh == 3
    assert act.lifetime_aware_stolen_cycles == 6 and act.always_stolen_cycles == 334
    assert act.stolen_fraction(1000.0) == pytest.approx(6 / 2600)
    named = refresh_operations(rep, refresh_period_s=p, row_bits=64, capacity_bits=6400,
                               names={"under1", "under3"})
    assert named.lifetime_aware_row_refreshes == 2
    with pytest.raises(ValueError, match="row_bits must be an int >= 1"):
        refresh_operations(rep, refresh_period_s=p, row_bits=0, capacity_bits=64)


def test_edram_refresh_period_from_the_lognormal_table():
    tech = memory_technology("edram")
    gb = GlobalBufferConfig(capacity_bytes=1 << 16, technology="edram",
                            bandwidth_bytes_per_s=1e9)
    cells = (1 << 16) * 8
    # Independent of memtech's code: ln t ~ N(mu, sigma) anchored at the table's quantile;
    # the macro holds with probability 0.99 when every cell does.
    sigma = tech.retention_sigma
    mu = math.log(tech.retention_anchor_s) - sigma * norm.ppf(tech.retention_anchor_quantile)
    q = 1 - 0.99 ** (1 / cells)
    assert edram_refresh_period_s(gb) == pytest.approx(math.exp(mu + sigma * norm.ppf(q)),
                                                       rel=1e-6)
    hot = gb.model_copy(update={"temperature_c": 25.0 + tech.retention_halving_c})
    assert edram_refresh_period_s(hot) == pytest.approx(edram_refresh_period_s(gb) / 2,
                                                        rel=1e-9)
    size_scale = (cells / tech.reference_macro_bits) ** tech.energy_size_exponent
    assert refresh_energy_j_per_bit(gb) == pytest.approx(
        tech.refresh_energy_j_per_bit * size_scale, rel=1e-12)
    sram = GlobalBufferConfig(capacity_bytes=1 << 16, technology="sram",
                              bandwidth_bytes_per_s=1e9)
    with pytest.raises(ConfigError, match="technology 'sram' is not refreshed"):
        edram_refresh_period_s(sram)


def _random_report(rng, n):
    w = rng.integers(0, 30, n).astype(float)
    life = rng.integers(0, 15, n).astype(float)
    ts = tuple(TensorLifetime(name=f"t{i}", role=("activation", "gradient", "weight")[i % 3],
                              nbytes=float(rng.integers(1, 50)), producer=None,
                              write_s=float(w[i]), reads=int(rng.integers(0, 4)),
                              first_read_s=float(w[i]), last_read_s=float(w[i] + life[i]))
               for i in range(n))
    return LifetimeReport(workload="rand", iteration_s=float((w + life).max()), lifetimes=ts)


@pytest.mark.parametrize("order", ALLOCATION_ORDERS)
def test_allocation_never_exceeds_capacity_and_spills_only_what_does_not_fit(order):
    rng = np.random.default_rng(1)
    key = (lambda t: t.write_s) if order == "write" else (lambda t: (t.lifetime_s, t.write_s))
    roles = ("activation", "gradient")
    for case in range(300):
        rep = _random_report(rng, int(rng.integers(1, 10)))
        cap = int(rng.integers(1, 120))
        weights = [t for t in rep.lifetimes if t.role == "weight"]
        pinned = {t.name for t in weights if rng.random() < 0.5}
        try:
            al = allocate(rep, capacity_bytes=cap, roles=roles, pinned=pinned, order=order)
        except ConfigError:
            # Only when the pinned tensors alone overflow (brute force over every instant).
            assert max(sum(t.nbytes for t in rep.lifetimes if t.name in pinned
                           and t.write_s <= s < t.last_read_s) for s in range(60)) > cap
            continue
        held = [t for t in rep.lifetimes if t.name in al.resident]
        assert pinned <= al.resident
        assert not al.resident & al.spilled
        assert al.resident | al.spilled == pinned | {t.name for t in rep.lifetimes
                                                     if t.role in roles}
        # Integer times: checking every half step covers every instant.
        live = [sum(t.nbytes for t in held if t.write_s <= s < t.last_read_s)
                for s in np.arange(0, 60, 0.5)]
        assert max(live) <= cap, case
        assert al.peak_resident_bytes == max(live)
        decided = [t.name for t in sorted((t for t in rep.lifetimes if t.role in roles
                                           and t.name not in pinned), key=key)]
        for t in rep.lifetimes:
            if t.name not in al.spilled:
                continue
            # It did not fit: at some instant of its interval the residents decided before
            # it (and the pinned tensors) plus itself exceed the capacity.
            before = {n for n in decided[:decided.index(t.name)]} | pinned
            peak = max(sum(u.nbytes for u in held if u.name in before
                           and u.write_s <= s < u.last_read_s)
                       for s in np.arange(t.write_s, t.last_read_s, 0.5))
            assert peak + t.nbytes > cap
        spilled = [t for t in rep.lifetimes if t.name in al.spilled]
        assert al.spilled_bytes == sum(t.nbytes for t in spilled)
        assert al.offchip_bytes == sum(t.nbytes * (1 + t.reads) for t in spilled)
        free = allocate(rep, capacity_bytes=10**12, roles=roles, pinned=pinned)
        assert free.spilled == frozenset() and free.spilled_bytes == 0.0


def test_allocate_errors():
    rep = _report([("a", "activation", 10.0, 0.0, 1.0)], 1.0)
    with pytest.raises(ConfigError, match="pinned names tensor 'zz', which the report of "
                                          "'r' does not have"):
        allocate(rep, capacity_bytes=100, pinned=["zz"])
    with pytest.raises(ConfigError, match="pinned tensors hold 10 bytes at once, more than "
                                          "the capacity of 5 bytes"):
        allocate(rep, capacity_bytes=5, pinned=["a"])
    with pytest.raises(ConfigError, match="capacity_bytes must be an int >= 1"):
        allocate(rep, capacity_bytes=0)
    with pytest.raises(ConfigError, match="unknown allocation order 'lru'; allowed: write, "
                                          "shortest"):
        allocate(rep, capacity_bytes=100, order="lru")


def test_shortest_first_keeps_the_transient_tensor_an_online_placement_spills():
    # "long" is written first and lives [0, 10); "short" lives [1, 2). Only one fits.
    rep = _report([("long", "activation", 10.0, 0.0, 10.0),
                   ("short", "activation", 10.0, 1.0, 2.0)], 10.0)
    assert allocate(rep, capacity_bytes=10).resident == {"long"}
    assert allocate(rep, capacity_bytes=10, order="shortest").resident == {"short"}


def test_two_pass_simulation_spills_what_the_first_timeline_says():
    e = 4096
    nb = 2 * e
    g = _vector_chain(e)
    cfg = _zero_overhead_cfg(capacity_bytes=nb, technology="edram",
                             bandwidth_bytes_per_s=64e9, latency_s=0.0)
    result, rep, al = simulate_with_buffer(cfg, g)
    # Pass 1: a is written first and fits; b would join it (2 tensors > 1 tensor of
    # capacity) and spills; c is never read and takes no space; x is an input (not placed).
    assert al.resident == {"a", "c"} and al.spilled == {"b"}
    assert al.spilled_bytes == nb and al.offchip_bytes == 2 * nb
    t = result.transfers
    assert t.offchip_write_bytes == {"activation": nb}            # b stored once
    assert t.offchip_read_bytes == {"input": nb, "activation": nb}  # x and b read once
    assert t.onchip_write_bytes == {"activation": 2 * nb}          # a and c
    assert t.onchip_read_bytes == {"activation": 2 * nb}           # a read twice
    assert rep.iteration_s == result.latency_s
    everything = simulate(cfg, g, resident={"x", "a", "b", "c"})
    assert result.latency_s > everything.latency_s
    est = refresh_for_buffer(rep, cfg.global_buffer, names=al.resident)
    assert est.rows == nb * 8 // 64
    with pytest.raises(ConfigError, match="needs a \\[global_buffer\\]"):
        simulate_with_buffer(_zero_overhead_cfg(), g)


def test_plot_overlays_two_reports(tmp_path):
    g = _chain()
    a = tensor_lifetimes(_result(g, {"fc": (0.0, 2.0), "relu": (2.0, 3.0),
                                     "add": (3.0, 4.0)}), g)
    b = tensor_lifetimes(_result(g, {"fc": (0.0, 1.0), "relu": (1.0, 2.0),
                                     "add": (2.0, 3.0)}), g)
    path = a.plot(tmp_path / "live.png", other=b, capacity_bytes=256)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_lifetimes_of_another_graph_are_refused():
    g = _chain()
    r = _result(g, {"fc": (0.0, 1.0), "relu": (1.0, 2.0), "add": (2.0, 3.0)})
    with pytest.raises(ConfigError, match="no window for operator 'r1' of graph 'vchain'"):
        tensor_lifetimes(r, _vector_chain(8))


def test_edram_access_trace_hand_case():
    # a [0, 2 us) 3000 B -> 3 rows of 1 KiB; b [1 us, 3 us) 1024 B -> 1 row; c reuses a's rows.
    rep = _report([("a", "activation", 3000.0, 0.0, 2e-6),
                   ("b", "gradient", 1024.0, 1e-6, 2e-6),
                   ("c", "activation", 2048.0, 2e-6, 1e-6),
                   ("z", "activation", 64.0, 0.0, 0.0)], 3e-6)
    trace = edram_access_trace(rep, names={"a", "b", "c", "z"}, row_bytes=1024, rows=4,
                               clock_hz=1e9)
    got = [(r.issue_cycle, r.kind, r.row) for r in trace]
    assert got == [(0, "write", 0), (0, "write", 1), (0, "write", 2),
                   (1000, "write", 3),
                   (2000, "release", 0), (2000, "release", 1), (2000, "release", 2),
                   (2000, "write", 0), (2000, "write", 1),
                   (3000, "release", 3), (3000, "release", 0), (3000, "release", 1)]
    with pytest.raises(ConfigError, match="tensor 'b' needs 1 rows of 1024 bytes at 1e-06 s "
                                          "but only 0 of 3 are free"):
        edram_access_trace(rep, names={"a", "b"}, row_bytes=1024, rows=3, clock_hz=1e9)
    with pytest.raises(ConfigError, match="names tensor 'q', which the report of 'r'"):
        edram_access_trace(rep, names={"q"}, row_bytes=1024, rows=3, clock_hz=1e9)


def test_recorded_trace_refreshes_equal_the_lifetime_count():
    # A tensor held L cycles on the cycle-accurate controller (tick 1) is refreshed every R
    # cycles after its write: floor((L - 1) / R) times for a release at cycle L (the
    # release cycle itself is the data's last use) -- the analytic count floor(L / period)
    # whenever L is not a multiple of R.
    from archsim.hw.models.edram_refresh import simulate_refresh
    R = 100
    items = [(f"t{i}", "activation", 1024.0, 0.0, life * 1e-9)
             for i, life in enumerate((50, 150, 250, 1030))]
    rep = _report(items, 2e-6)
    trace = edram_access_trace(rep, names={n for n, *_ in items}, row_bytes=1024, rows=8,
                               clock_hz=1e9)
    run = simulate_refresh(trace, rows=8, policy="lifetime", retention_cycles=R)
    est = refresh_operations(rep, refresh_period_s=R * 1e-9, row_bits=8192,
                             capacity_bits=8 * 8192)
    assert run.refreshes == est.lifetime_aware_row_refreshes == 0 + 1 + 2 + 10
