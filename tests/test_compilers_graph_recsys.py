"""The DeepRecSys model graphs: configs against the authors' JSON, FLOPs and embedding bytes
against closed forms written here from the configs' raw widths."""

from __future__ import annotations

import pytest

from archsim.compilers.graph import RECSYS_MODELS, RecModelConfig, build_workload, get_recsys
from archsim.compilers.graph.recsys import recsys_graph, recsys_sample_work
from archsim.errors import ConfigError

# The authors' harvard-acc/DeepRecSys models/configs/*.json, transcribed by hand:
# (arch_embedding_size, arch_sparse_feature_size, num_indices_per_lookup, arch_mlp_bot,
#  arch_mlp_top)
JSON = {
    "DLRM-RMC1": ("4000000-" * 7 + "4000000", 32, 80, "128-64-32", "256-64-1"),
    "DLRM-RMC2": ("500000-" * 31 + "500000", 64, 120, "256-128-64", "128-64-1"),
    "DLRM-RMC3": ("2000000-" * 9 + "2000000", 32, 20, "2560-1024-256-32", "512-256-1"),
    "NCF": ("140000-140000-28000-28000", 64, 1, "512", "256-256-128-64-64"),
    "WnD": ("1000000-" * 26 + "1000000", 32, 1, "512", "1024-512-256-1"),
    "MT-WnD": ("500000-" * 41 + "5000000-5000000", 32, 1, "512", "1024-512"),
    "DIN": ("1000000-" + "100000-" * 250 + "10000000-10000000", 32, 3, "1", "200-80-2"),
    "DIEN": ("500000-" * 41 + "5000000-5000000", 32, 1, "512", "200-80-2"),
}


def _ints(s: str) -> list[int]:
    return [int(x) for x in s.split("-")]


def _mlp_flops(widths: list[int], last_relu: bool) -> float:
    """2*in*out per FC plus one ReLU op per output of every ReLU'd layer."""
    f = 0.0
    for j in range(len(widths) - 1):
        f += 2 * widths[j] * widths[j + 1]
        if last_relu or j < len(widths) - 2:
            f += widths[j + 1]
    return f


def _flops_per_sample(name: str) -> float:
    rows_s, d, lookups, bot_s, top_s = JSON[name]
    rows, bot, top = _ints(rows_s), _ints(bot_s), _ints(top_s)
    t = len(rows)
    sls = t * lookups * d
    if name.startswith("DLRM"):
        return sls + _mlp_flops(bot, True) + _mlp_flops([bot[-1] + t * d, *top], False)
    if name == "WnD":
        return sls + _mlp_flops([bot[0] + t * d, *top], False)
    if name == "MT-WnD":
        return (sls + _mlp_flops([bot[0] + t * d, *top], True)
                + _mlp_flops([512, 256, 128], False))  # arch_mlp_tasks, one task
    if name == "NCF":
        # ncf.py: MF pair summed (d adds); MLP pair concatenated, 2d -> top[:-1] with ReLU;
        # final FC over [MF, MLP out] -> top[-1].
        return (sls + d + _mlp_flops([2 * d, *top[:-1]], True)
                + _mlp_flops([d + top[-2], top[-1]], False))
    if name == "DIN":
        nb = t - 3
        att = nb * (d + _mlp_flops([3 * d, 1, d], True)) + (nb - 1) * d
        return sls + att + _mlp_flops([4 * d, *top], False)
    assert name == "DIEN"
    nb, h = t - 3, 64
    gru = 2 * nb * 3 * h * (d + h) + nb * h * 8 + 2 * nb * 3 * h * (2 * h) + nb * h * 8
    att = 2 * nb * h * h + 5 * nb * h + nb * h
    return sls + gru + att + _mlp_flops([h + 3 * d, *top], False)


@pytest.mark.parametrize("name", sorted(JSON))
def test_config_matches_authors_json(name: str) -> None:
    rows_s, d, lookups, bot_s, top_s = JSON[name]
    c = RECSYS_MODELS[name]
    assert list(c.table_rows) == _ints(rows_s)
    assert (c.embedding_dim, c.lookups_per_table) == (d, lookups)
    assert list(c.bottom_mlp) == _ints(bot_s) and list(c.top_mlp) == _ints(top_s)
    assert "models/configs/" in c.source


def test_mtwnd_towers_and_dien_hidden() -> None:
    assert RECSYS_MODELS["MT-WnD"].task_mlp == (512, 256, 128)  # mtwnd.json arch_mlp_tasks
    assert RECSYS_MODELS["DIEN"].hidden_size == 64  # utils/utils.py --hidden_size default


@pytest.mark.parametrize("name", sorted(JSON))
@pytest.mark.parametrize("batch", [1, 3])
def test_flops_equal_closed_form(name: str, batch: int) -> None:
    g = recsys_graph(RECSYS_MODELS[name], batch=batch)
    assert g.total_flops == pytest.approx(batch * _flops_per_sample(name), rel=1e-12)


@pytest.mark.parametrize("name", sorted(JSON))
def test_embedding_bytes_equal_closed_form(name: str) -> None:
    rows_s, d, lookups, _, _ = JSON[name]
    t = len(_ints(rows_s))
    for dtype, nbytes in (("fp32", 4), ("fp16", 2)):
        g = recsys_graph(RECSYS_MODELS[name], batch=5, dtype=dtype)
        sls = [op for op in g if op.kind == "embedding"]
        assert len(sls) == t
        read = sum(op.attrs["rows_read"] * op.attrs["dim"] * nbytes for op in sls)
        assert read == 5 * t * lookups * d * nbytes
        assert all(op.attrs["pooling"] == "sum" and op.attrs["lookups"] == lookups for op in sls)
        assert [op.attrs["rows"] for op in sls] == _ints(rows_s)


def test_graph_operators_per_family() -> None:
    kinds = {n: {op.kind for op in recsys_graph(c, batch=2)} for n, c in RECSYS_MODELS.items()}
    assert "recurrent" in kinds["DIEN"] and "recurrent" not in kinds["DIN"]
    assert "reduce" in kinds["DIN"]
    dien = recsys_graph(RECSYS_MODELS["DIEN"], batch=2)
    grus = [op for op in dien if op.kind == "recurrent"]
    assert [op.attrs["cell"] for op in grus] == ["gru", "gru"]
    assert [op.attrs["steps"] for op in grus] == [40, 40]  # 43 tables - profile, ad, context
    for n in RECSYS_MODELS:
        assert {"embedding", "matmul", "data_movement"} <= kinds[n]


def test_parameters_closed_form() -> None:
    ncf = RECSYS_MODELS["NCF"]
    mlp = (128 * 256 + 256) + (256 * 256 + 256) + (256 * 128 + 128) + (128 * 64 + 64)
    assert ncf.num_params == (280_000 + 56_000) * 64 + mlp + (128 * 64 + 64)
    c = RECSYS_MODELS["DLRM-RMC1"]
    fc = (128 * 64 + 64) + (64 * 32 + 32) + (288 * 256 + 256) + (256 * 64 + 64) + (64 + 1)
    assert c.num_params == 8 * 4_000_000 * 32 + fc
    din = RECSYS_MODELS["DIN"]
    att = 250 * ((96 + 1) + (32 + 32))
    top = (128 * 200 + 200) + (200 * 80 + 80) + (80 * 2 + 2)
    assert din.num_params == (1_000_000 + 250 * 100_000 + 20_000_000) * 32 + att + top


@pytest.mark.parametrize("name", ["dlrm-rmc1", "dlrm-rmc2", "dlrm-rmc3", "ncf", "wnd",
                                  "mt-wnd", "din", "dien"])
def test_registered(name: str) -> None:
    g = build_workload(name, batch=2)
    assert g.metadata["model"] == get_recsys(name).name
    assert g.total_flops == pytest.approx(2 * _flops_per_sample(get_recsys(name).name))


def test_bad_inputs() -> None:
    with pytest.raises(ConfigError, match=r"^field 'model': unknown recommendation model 'rmc9' "
                       r"\(allowed: 'DIEN', 'DIN', 'DLRM-RMC1', 'DLRM-RMC2', 'DLRM-RMC3', "
                       r"'MT-WnD', 'NCF', 'RecSSD-DIEN', 'RecSSD-DIN', 'RecSSD-MT-WnD', "
                       r"'RecSSD-NCF', 'RecSSD-RM1', 'RecSSD-RM2', 'RecSSD-RM3', 'RecSSD-WnD', "
                       r"'WnD'\)$") as e:
        get_recsys("rmc9")
    assert e.value.field == "model"
    with pytest.raises(ConfigError, match=r"^field 'batch': must be a positive integer, not 0$") as e:
        recsys_graph(RECSYS_MODELS["NCF"], batch=0)
    assert e.value.field == "batch"
    base = RECSYS_MODELS["NCF"].model_dump()
    with pytest.raises(ConfigError, match=r"field 'table_rows': needs at least one table, all with rows > 0"):
        RecModelConfig(**{**base, "table_rows": (10, 0, 5, 5)})
    with pytest.raises(ConfigError, match=r"field 'lookups_per_table': must be > 0, not 0") as e:
        RecModelConfig(**{**base, "lookups_per_table": 0})
    assert e.value.field == "lookups_per_table"
    with pytest.raises(ConfigError, match=r"field 'table_rows': ncf needs exactly 4 tables \(2 "
                                          r"matrix-factorisation, 2 MLP\) and at least 2 "
                                          r"top_mlp widths, got 3 and 5"):
        RecModelConfig(**{**base, "table_rows": (10, 10, 10)})
    din = RECSYS_MODELS["DIN"].model_dump()
    with pytest.raises(ConfigError, match=r"field 'table_rows': din needs at least 4 tables \(profile, behaviour, "
                                          r"ad, context\), got 3"):
        RecModelConfig(**{**din, "table_rows": (5, 5, 5)})
    mt = RECSYS_MODELS["MT-WnD"].model_dump()
    with pytest.raises(ConfigError, match=r"field 'task_mlp': mtwnd task_mlp must start at top_mlp's last width "
                                          r"512"):
        RecModelConfig(**{**mt, "task_mlp": (256, 1)})


@pytest.mark.parametrize("name", sorted(JSON))
def test_sample_work_split(name: str) -> None:
    rows_s, d, lookups, _, _ = JSON[name]
    t = len(_ints(rows_s))
    w = recsys_sample_work(RECSYS_MODELS[name], batch=8)
    # rows read plus one pooled fp32 output row per table
    assert w.emb_bytes == t * (lookups + 1) * d * 4
    assert w.emb_flops == t * lookups * d
    assert w.dense_flops + w.emb_flops == pytest.approx(_flops_per_sample(name))


def test_dien_with_the_authors_rnn_cells() -> None:
    base = RECSYS_MODELS["DIEN"]
    c = RecModelConfig(**{**base.model_dump(), "rnn_cell": "rnn"})
    g = recsys_graph(c, batch=2)
    assert [op.attrs["cell"] for op in g if op.kind == "recurrent"] == ["rnn", "rnn"]
    nb, h, d = 40, 64, 32
    # one gate, one tanh per output instead of three gates and eight point-wise ops
    gru = 2 * nb * 3 * h * (d + h) + nb * h * 8 + 2 * nb * 3 * h * (2 * h) + nb * h * 8
    rnn = 2 * nb * h * (d + h) + nb * h + 2 * nb * h * (2 * h) + nb * h
    assert g.total_flops == pytest.approx(2 * (_flops_per_sample("DIEN") - gru + rnn))
    assert base.num_params - c.num_params == 2 * h * (d + h + 1) + 2 * h * (2 * h + 1)
