"""Any HardwareModel under the SoC engine: the engine's compute is the executor's answer."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from archsim.compilers.graph import build_workload
from archsim.errors import ConfigError
from archsim.hw.models import GPURoofline, HardwareModel, OperatorCost, Tile, Work, get_gpu
from archsim.sim.soc import load_soc_config, make_accelerator_model, plan_operator, simulate

CONFIGS = Path(__file__).resolve().parents[1] / "soc_configs"


@dataclass
class LinearExecutor:
    """A closed-form executor: ``a + b * macs + c * vector_ops`` seconds, ``e * macs`` J."""

    a: float = 1e-6
    b: float = 1e-11
    c: float = 1e-10
    e: float = 2e-12
    tile_align: tuple[int, int, int] = (1, 1, 1)
    name: str = "linear"
    seen: list[Tile] = field(default_factory=list)

    def operator_cost(self, work: Work) -> OperatorCost:
        assert isinstance(work, Tile)
        self.seen.append(work)
        return OperatorCost(latency_s=self.a + self.b * work.macs + self.c * work.vector_ops,
                            energy_j=self.e * work.macs)


def _busy(result, prefix: str) -> dict[str, list[tuple[str, float]]]:
    """Per server (not matching ``prefix``): its tasks' (category, duration) in order."""
    out: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for server, category, _, start, end in result.timeline:
        if not server.startswith(prefix):
            out[server].append((category, end - start))
    return out


@pytest.mark.parametrize("config", ["systolic_soc.toml", "smaug_baseline.toml"])
def test_a_closed_form_executor_replaces_the_accelerator(config):
    cfg = load_soc_config(CONFIGS / config)
    graph = build_workload("alexnet")
    native = make_accelerator_model(cfg.accelerators[0], cfg.energy)
    # Same alignment as the native model, so both runs get the same tiles.
    ex = LinearExecutor(tile_align=native.tile_align)
    assert isinstance(ex, HardwareModel)
    base = simulate(cfg, graph)
    swapped = simulate(cfg, graph, models=[ex])
    # Independent recomputation: every step of the plan, priced by the closed form.
    steps = [st for op in graph
             for job in plan_operator(op, cfg.accelerators[0].scratchpads,
                                      align=native.tile_align).jobs for st in job.steps]
    assert len(ex.seen) == len(steps)
    want_s = math.fsum(ex.a + ex.b * st.macs + ex.c * st.vector_ops for st in steps)
    # One accelerator: its compute intervals never overlap, so the category is their sum.
    assert swapped.breakdown_s["accelerator_compute"] == pytest.approx(want_s, rel=1e-9)
    assert swapped.energy.accelerators_j == {
        "linear": pytest.approx(ex.e * sum(st.macs for st in steps), rel=1e-12)}
    # The rest of the timeline: the same CPU, DRAM and ACP tasks with the same durations.
    before, after = _busy(base, "acc"), _busy(swapped, "acc")
    assert set(after) == set(before) == {"cpu:main", "cpu:prep", "dram", "acp"} & set(before)
    for server, tasks in before.items():
        assert [c for c, _ in after[server]] == [c for c, _ in tasks]
        assert [d for _, d in after[server]] == pytest.approx([d for _, d in tasks],
                                                              rel=1e-9, abs=1e-15)
    assert swapped.transfers == base.transfers and swapped.macs == base.macs
    # And the native model's compute is its own operator_cost over the same tiles.
    native_s = math.fsum(native.operator_cost(st.tile).latency_s for st in steps)
    assert base.breakdown_s["accelerator_compute"] == pytest.approx(native_s, rel=1e-9)


def test_a_gpu_roofline_runs_under_the_engine():
    cfg = load_soc_config(CONFIGS / "smaug_baseline.toml")
    graph = build_workload("alexnet")
    gpu = GPURoofline(get_gpu("a100-80gb"), dtype="fp16", launch_overhead_s=2e-6)
    r = simulate(cfg, graph, models=[gpu])
    steps = [st for op in graph
             for job in plan_operator(op, cfg.accelerators[0].scratchpads).jobs
             for st in job.steps]
    # Roofline per step, written out: max(flops / peak, bytes / bandwidth) + launch.
    want = math.fsum(max((2 * st.macs + st.vector_ops) / 312e12,
                         (st.tile.input_bytes + st.tile.weight_bytes + st.tile.output_bytes)
                         / 2039e9) + 2e-6 for st in steps)
    assert r.breakdown_s["accelerator_compute"] == pytest.approx(want, rel=1e-9)
    assert r.energy.accelerators_j[gpu.name] == pytest.approx(want * 400.0, rel=1e-9)


def test_models_must_match_the_entries():
    cfg = load_soc_config(CONFIGS / "smaug_baseline.toml")
    with pytest.raises(ConfigError, match="one per entry") as exc:
        simulate(cfg, build_workload("alexnet"), models=[LinearExecutor(), LinearExecutor()])
    assert exc.value.field == "models"
