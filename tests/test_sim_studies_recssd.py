"""The RecSSD study: the eight model configs, the end-to-end sum worked by hand, the device
cache's table folding, the profile length, and the quick run's statuses."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.compilers.graph.recsys import (
    RECSSD_MODELS,
    RecModelConfig,
    get_recsys,
    recsys_graph,
)
from archsim.errors import ConfigError
from archsim.hw.models.ssd import DeviceEmbeddingCache, SSDConfig
from archsim.sim.nn.recsys import RecModel, random_inputs
from archsim.sim.recsys.measure import CpuCostModel
from archsim.sim.studies.framework import Status
from archsim.sim.studies.recssd import (
    EMBEDDING_DOMINATED,
    MLP_DOMINATED,
    FoldedEmbeddingCache,
    Locality,
    evaluate_model,
    model_indices,
    profile_samples,
    sls_paths,
)
from archsim.tests.study_runs import quick_run

# Typed from the paper notes' table (RecSSD-RecInfra models/sweep_*.py): kind, bottom MLP,
# top MLP, tables x rows, embedding dim, lookups per table per sample.
M, K100, K10 = 1_000_000, 100_000, 10_000
TABLE = {
    "RecSSD-RM1": ("dlrm", (128, 64, 32), (256, 64, 1), [M] * 8, 32, 80),
    "RecSSD-RM2": ("dlrm", (128, 64, 64), (128, 64, 1), [M] * 32, 64, 120),
    "RecSSD-RM3": ("dlrm", (2560, 1024, 256, 32), (512, 256, 1), [M] * 10, 32, 20),
    "RecSSD-WnD": ("wnd", (512,), (1024, 512, 256), [K100] * 27, 32, 1),
    "RecSSD-MT-WnD": ("mtwnd", (512,), (1024, 512), [K10] * 41 + [K100] * 2, 32, 1),
    "RecSSD-NCF": ("ncf", None, (256, 256, 128, 64, 64), [K100] * 4, 32, 1),
    "RecSSD-DIN": ("din", (1,), (200, 80, 2), [10_000] + [1_000] * 250 + [K100, K100], 32, 3),
    "RecSSD-DIEN": ("dien", (512,), (200, 80, 2), [K10] * 41 + [K100] * 2, 32, 3),
}


@pytest.mark.parametrize("name", list(TABLE))
def test_configs_match_the_table(name: str) -> None:
    kind, bottom, top, rows, dim, lookups = TABLE[name]
    c = RECSSD_MODELS[name]
    assert c.kind == kind
    if bottom is not None:  # NCF: "-" in the table
        assert c.bottom_mlp == bottom
    assert c.top_mlp == top
    assert list(c.table_rows) == rows
    assert c.embedding_dim == dim
    assert c.lookups_per_table == lookups
    assert get_recsys(name.lower()) is c


def test_mt_wnd_has_eight_task_towers_and_the_set_is_eight_models() -> None:
    mt = RECSSD_MODELS["RecSSD-MT-WnD"]
    assert mt.num_tasks == 8 and mt.task_mlp == (512, 256, 128)
    assert len(RECSSD_MODELS) == 8
    assert set(EMBEDDING_DOMINATED) | set(MLP_DOMINATED) <= set(RECSSD_MODELS)


def test_rm1_graph_flops_by_hand() -> None:
    c = RECSSD_MODELS["RecSSD-RM1"]
    batch = 3
    g = recsys_graph(c, batch=batch)
    # Interaction: bottom output 32 + 8 pooled tables of 32 = 288.
    fc = 2 * (128 * 64 + 64 * 32 + 288 * 256 + 256 * 64 + 64 * 1)
    sls = 8 * 80 * 32  # one add per element of every gathered row
    matmul = sum(op.flops for op in g if op.kind == "matmul")
    emb = sum(op.flops for op in g if op.kind == "embedding")
    assert matmul == pytest.approx(batch * fc)
    assert emb == pytest.approx(batch * sls)
    assert sum(op.kind == "embedding" for op in g) == 8


@pytest.mark.parametrize("name", list(TABLE))
def test_numpy_forward_runs_every_model(name: str) -> None:
    c = RECSSD_MODELS[name]
    model = RecModel(c, seed=0, table_rows_cap=50)
    x = random_inputs(c, 2, 0, table_rows_cap=50)
    out = model.forward(x.dense, x.indices, x.lengths)
    width = c.num_tasks * c.task_mlp[-1] if c.kind == "mtwnd" else c.top_mlp[-1]
    assert out.logits.shape == (2, width)
    assert np.all(np.isfinite(out.logits))


def _tiny() -> RecModelConfig:
    return RecModelConfig.model_validate(dict(
        name="tiny", kind="dlrm", table_rows=(1000,), embedding_dim=32, lookups_per_table=1,
        bottom_mlp=(4, 2), top_mlp=(4, 1)))


def test_end_to_end_sum_worked_by_hand() -> None:
    # No host cache, no page buffer: the warm-up batch reads row 5 (page 0), the measured
    # batch row 900 (byte 900 * 128 = page 7), a device-cache miss.
    ssd = SSDConfig(host_cache_rows=0, page_buffer_pages_per_die=0)
    c = _tiny()
    # (tables, samples, lookups): the 400 samples profiled (400 batches of 1), of which the
    # first two are simulated; with no host cache the profile does not matter.
    assert profile_samples(c, 1) == 400
    stream = np.array([5, 900] + [0] * 398).reshape(1, 400, 1)
    cpu = CpuCostModel(coefficients={"tiny": {"fc": (1e-5, 1e-9), "concat": (2e-6, 1e-10),
                                              "sls": (3e-6, 1e-11)}}, fitted_batches=(1,))
    pt = evaluate_model(c, batch=1, locality=Locality(1.0), cpu=cpu, ssd=ssd, seed=0,
                        stream=stream)
    d = 32
    xfer = 16384 / 200e6
    cots = 10e-6 + 50e-6 + xfer + 4096 / 4e9 + d * 0.5e-9
    ndp = (10e-6 + 8 / 4e9 + 0.2e-6 + 50e-6 + xfer + d * 4e-9 + 10e-6 + d * 4 / 4e9
           + 1 * d * 0.5e-9)
    # Dense: FC FLOPs 2*(4*2) + 2*(2+32)*4 + 2*4*1 = 296; concat of (1, 34) fp32 = 136 B.
    dense = 1e-5 + 1e-9 * 296 + 2e-6 + 1e-10 * 136
    assert pt.cots.latency_s == pytest.approx(cots, rel=1e-12)
    assert pt.recssd.latency_s == pytest.approx(ndp, rel=1e-12)
    assert pt.dense_s == pytest.approx(dense, rel=1e-12)
    assert pt.dram_sls_s == pytest.approx(3e-6 + 1e-11 * 128, rel=1e-12)
    assert pt.end_to_end_s("cots") == pytest.approx(dense + cots, rel=1e-12)
    assert pt.end_to_end_s("recssd") == pytest.approx(dense + ndp, rel=1e-12)
    assert pt.speedup == pytest.approx((dense + cots) / (dense + ndp), rel=1e-12)
    # A near-data unit's reduction time replaces the ARM core's 32 adds for the one page.
    pt2 = evaluate_model(c, batch=1, locality=Locality(1.0), cpu=cpu, ssd=ssd, seed=0,
                         stream=stream, reduce_s=lambda rows, dim: 1e-3 * rows)
    assert pt2.recssd.latency_s == pytest.approx(ndp - d * 4e-9 + 1e-3, rel=1e-12)
    assert pt2.cots.latency_s == pt.cots.latency_s
    with pytest.raises(ConfigError, match="unknown path 'gpu'"):
        pt.end_to_end_s("gpu")


def test_warm_device_cache_serves_the_measured_batch() -> None:
    # The same row twice: the warm-up fills the device cache, the measured batch hits it
    # (no flash read); the COTS path re-reads it (page buffer off).
    ssd = SSDConfig(host_cache_rows=0, page_buffer_pages_per_die=0)
    idx = np.array([[[[900]]], [[[900]]]])  # (batches, tables, batch, lookups)
    cots, ndp = sls_paths(ssd, _tiny(), idx)
    assert (ndp.device_hits, ndp.pages_read) == (1, 0)
    assert (cots.nvme_commands, cots.pages_read) == (1, 1)


def test_folded_cache_keeps_tables_beyond_32_apart() -> None:
    ssd = SSDConfig()
    rows = 1000
    cache = FoldedEmbeddingCache(ssd, rows_per_table=rows)
    cache.fill(33, 7)
    assert cache.probe(33, 7)
    assert not cache.probe(1, 7)  # same 5-bit table id, different table
    # Table 33 row 7 is table id 1, embedding id 7 + 1 * rows in the firmware's cache.
    assert cache.probe(1, 7 + rows)
    assert not cache.probe(33, 7 + rows)  # table 65's slot, not table 33's
    with pytest.raises(ValueError):
        DeviceEmbeddingCache(ssd).probe(33, 7)


def test_profile_samples_budget() -> None:
    # NCF: 4 lookups per sample, 400 batches of 8 = 3200 samples within 200k lookups.
    assert profile_samples(RECSSD_MODELS["RecSSD-NCF"], 8) == 3200
    # RM2: 3840 lookups per sample: 200000 // 3840 = 52 samples, but never fewer than the
    # two simulated batches.
    assert profile_samples(RECSSD_MODELS["RecSSD-RM2"], 1) == 52
    assert profile_samples(RECSSD_MODELS["RecSSD-RM2"], 64) == 128


def test_traces_are_seeded_and_uniform_is_in_range() -> None:
    c = RECSSD_MODELS["RecSSD-NCF"]
    a = model_indices(c, batch=4, batches=2, locality=Locality(1.0), seed=3)
    b = model_indices(c, batch=4, batches=2, locality=Locality(1.0), seed=3)
    assert a.shape == (2, 4, 4, 1) and np.array_equal(a, b)
    u = model_indices(c, batch=4, batches=2, locality=Locality(None), seed=3)
    assert u.min() >= 0 and u.max() < 100_000


def test_more_reuse_means_more_host_hits_in_the_quick_run() -> None:
    rows = quick_run("recssd").tables["latency_by_locality"]
    by = {(r["model"], r["locality"]): r for r in rows}
    for name in ("RecSSD-RM1", "RecSSD-RM2", "RecSSD-RM3", "RecSSD-DIN"):
        assert by[(name, "K=1")]["cots_host_hits"] > by[(name, "uniform")]["cots_host_hits"]
        # The host cache is the same for both SSD paths.
        assert by[(name, "K=1")]["cots_host_hits"] == by[(name, "K=1")]["recssd_host_hits"]


def test_quick_run_statuses_and_tables() -> None:
    result = quick_run("recssd")
    assert [c.status for c in result.comparisons] == [c.expected for c in result.comparisons]
    assert result.comparisons[0].expected == Status.IN_SHAPE
    rows = result.tables["latency_by_batch"]
    assert {r["model"] for r in rows} == set(RECSSD_MODELS)
    for r in rows:
        # The end-to-end sum: dense plus each path's SLS.
        assert r["cots_ms"] == pytest.approx(r["dense_ms"] + r["cots_latency_ms"])
        assert r["recssd_ms"] == pytest.approx(r["dense_ms"] + r["recssd_latency_ms"])
        assert r["speedup_recssd_vs_cots"] == pytest.approx(r["cots_ms"] / r["recssd_ms"])
    names = {f.name for f in result.files}
    assert {"speedup_by_model.png", "latency_vs_locality.png"} <= names


def test_bad_inputs_name_the_field() -> None:
    ssd = SSDConfig()
    c = _tiny()
    with pytest.raises(ConfigError, match=r"^field 'indices': indices must be \(batches, 1, "
                                          r"batch, lookups\), not shape \(1, 1, 1\)$"):
        sls_paths(ssd, c, np.zeros((1, 1, 1), dtype=np.int64))
    cpu = CpuCostModel(coefficients={"tiny": {"fc": (0.0, 0.0)}}, fitted_batches=(1,))
    with pytest.raises(ConfigError, match=r"^field 'stream': stream must be \(1, >= 400, "
                                          r"lookups\), not shape \(1, 2, 1\)$"):
        evaluate_model(c, batch=1, locality=Locality(1.0), cpu=cpu, ssd=ssd, seed=0,
                       stream=np.zeros((1, 2, 1), dtype=np.int64))
