"""archsim.sim.studies.edgebert.study: the per-sentence energy accounting and the quick run."""

import math

import numpy as np
import pytest

from archsim.dsl.examples.edgebert import MINILM_SHAPE
from archsim.errors import ToolchainError
from archsim.hw.models.gpu import get_gpu
from archsim.sim.studies.edgebert.study import (
    TX2_SETTINGS,
    PointCost,
    sentence_energies,
    tx2_layer_time_s,
)
from archsim.tests.study_runs import quick_run


def _cost(point, v, f, t_layer, e_layer, t_sw, e_sw):
    return PointCost(point, v, f, t_layer, e_layer, 1e-6, 1e-9, t_sw, e_sw, 1000, 10)


def test_sentence_energies_by_hand():
    costs = [_cost("hi", 0.8, 1e9, 10e-6, 8e-9, 0.0, 0.0),
             _cost("lo", 0.5, 0.5e9, 20e-6, 3e-9, 1e-7, 2e-12)]
    # three sentences, 4 layers; after layer 1 they would go to points 1, 1 and 0
    e = sentence_energies(
        costs, num_layers=4, plain_exits=np.array([1, 3, 4]),
        predicted_exits=np.array([1, 2, 4]), points=np.array([1, 1, 0]), tx2_layer_s=50e-6,
        tx2_offramp_s=5e-6, tx2_power_w=2.0, target_s=44e-6)
    step_s, step_j = 10e-6 + 1e-6, 8e-9 + 1e-9
    assert e.conventional_j == pytest.approx([4 * 8e-9 + 1e-9] * 3)
    assert e.unbounded_j == pytest.approx([1 * step_j, 3 * step_j, 4 * step_j])
    # sentence 0 exits after layer 1 (no switch); 1 switches to "lo" for one more layer; 2
    # stays at "hi" (no switch) for three more
    assert e.edgebert_point.tolist() == [0, 1, 0]
    assert e.edgebert_j == pytest.approx([step_j, step_j + 2e-12 + (3e-9 + 1e-9),
                                          4 * step_j])
    assert e.edgebert_s == pytest.approx([step_s, step_s + 1e-7 + 21e-6, 4 * step_s])
    assert e.tx2_j == pytest.approx([2.0 * 55e-6 * n for n in (1, 3, 4)])


def test_tx2_layer_is_memory_and_launch_bound_at_batch_one():
    layer_s, offramp_s = tx2_layer_time_s(MINILM_SHAPE)
    gpu = get_gpu("jetson-tx2")
    d, f = MINILM_SHAPE.d, MINILM_SHAPE.d_ff
    weights_s = 2 * (4 * d * d + 2 * d * f) / (gpu.hbm_bw_bytes_per_s
                                               * TX2_SETTINGS["memory_efficiency"])
    launches_s = 11 * TX2_SETTINGS["launch_overhead_s"]
    # every kernel takes at least its launch; the weights' fp16 bytes set the floor
    assert weights_s + launches_s <= layer_s < 1.5 * (weights_s + launches_s)
    assert offramp_s >= 2 * TX2_SETTINGS["launch_overhead_s"]


def test_quick_run_keeps_the_latency_target_and_writes_its_plots():
    try:
        result = quick_run("edgebert")
    except ToolchainError as exc:
        pytest.skip(str(exc))
    rows = result.tables["sentences"]
    assert len(rows) == 150
    obs = {o.metric: o.ours for o in result.observations}
    # the host policy fills the table from each bin's worst case: every sentence meets it
    assert obs["sentences meeting the latency target"] == 1.0
    names = {p.name for p in result.files}
    assert {"energy_per_sentence.png", "vf_per_sentence.png", "entropy_vs_layer.png",
            "comparisons.csv", "result.json"} <= names
    points = result.tables["operating_points"]
    assert len(points) == 8 and points[0]["voltage_v"] == 0.8
    # the model's layer energy falls with the supply: dynamic energy ~ V**2 (leakage small)
    ratio = points[-1]["layer_energy_uj"] / points[0]["layer_energy_uj"]
    assert ratio == pytest.approx((0.5 / 0.8) ** 2, rel=0.05)
    # all cycle counts equal at every point (only time and energy scale)
    assert len({p["layer_cycles"] for p in points}) == 1
    conv = np.array([r["conventional_uj"] for r in rows])
    edge = np.array([r["edgebert_uj"] for r in rows])
    assert math.isclose(conv.mean() / edge.mean(), result.comparisons[0].ours)
