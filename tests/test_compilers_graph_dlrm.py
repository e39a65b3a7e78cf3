"""DLRM configurations, presets and operator graph (archsim.compilers.graph.dlrm)."""

import pytest

from archsim.compilers.graph import (
    DLRM_PRESETS,
    DLRMConfig,
    build_workload,
    dlrm_graph,
    dlrm_sample_work,
    get_dlrm,
)
from archsim.errors import ConfigError


def test_dlrm_graph_and_parameters():
    cfg = DLRMConfig(name="tiny", table_rows=(100, 2000, 30), embedding_dim=16,
                     bottom_mlp=(13, 64, 16), top_mlp=(32, 1), pooling_factor=2.0)
    f = 4  # 3 tables + dense
    assert cfg.interaction_width == f * (f - 1) // 2 + 16
    mlp = [(13, 64), (64, 16), (cfg.interaction_width, 32), (32, 1)]
    assert cfg.mlp_params == sum(i * o + o for i, o in mlp)
    assert cfg.embedding_params == (100 + 2000 + 30) * 16
    b = 8
    g = dlrm_graph(cfg, batch=b)
    by_kind = g.flops_by_kind()
    assert by_kind["matmul"] == pytest.approx(2 * b * sum(i * o for i, o in mlp)
                                              + 2 * b * f * f * 16)
    assert by_kind["embedding"] == pytest.approx(3 * b * 2.0 * 16)
    work = dlrm_sample_work(cfg)
    assert work.emb_flops == pytest.approx(3 * 2.0 * 16)
    # dense bytes: every MLP layer reads its input and writes its output (and its ReLU reads
    # and writes that output again); the interaction reads F x 16 and writes F x F per sample
    widths = [(13, 64), (64, 16), (cfg.interaction_width, 32), (32, 1)]
    acts = sum(i + o + o + o for i, o in widths) + f * 16 + f * f
    assert work.dense_act_bytes == pytest.approx(4 * acts)


def test_presets_are_registered_workloads():
    for name, cfg in DLRM_PRESETS.items():
        g = build_workload(name, batch=4)
        assert g.parameter_count >= cfg.embedding_params
        # one pooled lookup per table
        assert sum(1 for op in g if op.kind == "embedding") == cfg.num_tables
    assert get_dlrm("DLRM-MLPERF") is DLRM_PRESETS["dlrm-mlperf"]


def test_bad_dlrm_configs():
    with pytest.raises(ConfigError, match="bottom_mlp must end at embedding_dim 16"):
        DLRMConfig(name="bad", table_rows=(10,), embedding_dim=16, bottom_mlp=(13, 8),
                   top_mlp=(1,))
    with pytest.raises(ConfigError, match="needs at least one table"):
        DLRMConfig(name="bad", table_rows=(), embedding_dim=16, bottom_mlp=(13, 16),
                   top_mlp=(1,))
    with pytest.raises(ConfigError, match="unknown DLRM model 'dlrm-z'"):
        get_dlrm("dlrm-z")
    with pytest.raises(ConfigError, match="must be a positive integer"):
        dlrm_graph(get_dlrm("dlrm-mlperf"), batch=0)
