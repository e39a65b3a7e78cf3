"""archsim.hw.models.gpu_profile: measured kernel tables (Vidur's layout) behind the interface."""

from __future__ import annotations

import csv
from importlib import resources

import numpy as np
import pytest

from archsim.compilers.graph import get_transformer
from archsim.compilers.graph.transformer import GroupOperators
from archsim.errors import ConfigError
from archsim.hw.models import (
    AttentionProfile,
    GPURoofline,
    KernelProfile,
    ProfiledGPU,
    get_gpu,
    vidur_a100_llama2_7b,
    vidur_a100_llama2_70b,
    vidur_a100_llama2_70b_attention,
)
from archsim.hw.models.gpu_profile import LAYER_KERNELS

TABLE = resources.files("archsim.hw.models") / "data" / "vidur" / "a100_llama-2-7b_mlp.csv"


def _raw_rows(tp):
    with TABLE.open() as f:
        return [r for r in csv.DictReader(f) if int(r["num_tensor_parallel_workers"]) == tp]


def _raw_layer_s(rows, tokens):
    """Seconds of one layer at a measured token count, straight from the CSV's columns."""
    sums = [sum(float(r[f"time_stats.{k}.median"]) for k in LAYER_KERNELS)
            for r in rows if int(r["num_tokens"]) == tokens]
    return 1e-3 * float(np.mean(sums))


@pytest.mark.parametrize("tp", [1, 4])
def test_measured_points_are_the_tables_own(tp):
    profile = vidur_a100_llama2_7b(tensor_parallel=tp)
    rows = _raw_rows(tp)
    for tokens in (1, 64, 1024, 4096):
        assert profile.layer_time_s(tokens) == pytest.approx(_raw_layer_s(rows, tokens), rel=1e-12)
    assert (profile.hidden, profile.ffn, profile.heads, profile.gated_mlp) == (4096, 11008, 32,
                                                                               True)


def test_between_and_beyond_the_measurements_is_linear():
    p = vidur_a100_llama2_7b()
    t = p.tokens
    i = int(np.searchsorted(t, 1000))
    lo, hi = t[i - 1], t[i]
    mid = (lo + hi) / 2
    assert p.layer_time_s(mid) == pytest.approx((p.layer_time_s(lo) + p.layer_time_s(hi)) / 2)
    step = p.layer_time_s(t[-1]) - p.layer_time_s(t[-2])
    assert p.layer_time_s(t[-1] + 3 * (t[-1] - t[-2])) == pytest.approx(
        p.layer_time_s(t[-1]) + 3 * step)


def _write(path, header, rows):
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


_HEADER = ([f"time_stats.{k}.median" for k in ("emb", *LAYER_KERNELS)]
           + ["n_head", "n_kv_head", "n_embd", "n_expanded_embd", "vocab_size", "use_gated_mlp",
              "num_tokens", "num_tensor_parallel_workers"])


def _row(tokens, tp, time="0.5"):
    return [time] * 10 + [8, 8, 512, 1024, 1000, "True", tokens, tp]


def test_bad_tables_name_the_file_line_and_column(tmp_path):
    short = _write(tmp_path / "short.csv", _HEADER[1:], [_row(1, 1)[1:]])
    with pytest.raises(ConfigError, match=r"lacks column\(s\) time_stats\.emb\.median") as info:
        KernelProfile.from_csv(short)
    assert info.value.file == str(short)
    bad = _write(tmp_path / "bad.csv", _HEADER, [_row(1, 1), _row(2, 1, time="fast")])
    with pytest.raises(ConfigError, match=r"line 3: time_stats\.emb\.median must be a number, "
                                          r"not 'fast'"):
        KernelProfile.from_csv(bad)
    ok = _write(tmp_path / "ok.csv", _HEADER, [_row(1, 1), _row(2, 1), _row(1, 2)])
    with pytest.raises(ConfigError, match="1 token count.* degree 2") as info:
        KernelProfile.from_csv(ok, tensor_parallel=2)
    assert info.value.allowed == [1, 2]
    with pytest.raises(ConfigError, match="positive int"):
        KernelProfile.from_csv(ok, tensor_parallel=0)
    negative = _write(tmp_path / "neg.csv", _HEADER, [_row(1, 1), _row(2, 1, time="-1")])
    with pytest.raises(ConfigError, match="line 3: .*positive and finite"):
        KernelProfile.from_csv(negative)


def _executor(model, tp=1):
    roof = GPURoofline(get_gpu("a100-80gb"), dtype="fp16", compute_efficiency=0.6,
                       memory_efficiency=0.8)
    return roof, ProfiledGPU(profile=vidur_a100_llama2_7b(tensor_parallel=tp), fallback=roof,
                             hidden=model.hidden, ffn=model.ffn_hidden, heads=model.num_heads,
                             kv_heads=model.num_kv_heads, vocab=model.vocab,
                             gated_mlp=model.gated_mlp)


def test_dense_groups_are_priced_from_the_table_and_attention_by_the_roofline():
    m = get_transformer("llama-2-7b")
    roof, gpu = _executor(m)
    groups = GroupOperators(m, "fp16")
    p = gpu.profile
    dense = gpu.operator_cost(groups.dense(tokens=512, sequences=4))
    head_s = roof.time_s(2.0 * 4 * m.hidden * m.vocab,
                         2.0 * (m.hidden * m.vocab + 4 * (m.hidden + m.vocab)))[0]
    assert dense.latency_s == pytest.approx(32 * p.layer_time_s(512) + p.embedding_time_s(512)
                                            + head_s, rel=1e-12)
    assert dense.bound == "measured"
    attention = groups.attention(tokens=512, attn_pairs=512 * 300, context_tokens=4 * 300)
    assert gpu.operator_cost(attention) == roof.operator_cost(attention)


def test_a_model_of_another_shape_is_refused():
    m = get_transformer("llama-13b")
    with pytest.raises(ConfigError, match="model's hidden is 5120 but the kernel profile .* "
                                          "measured 4096") as info:
        _executor(m)
    assert info.value.field == "hidden"


# -- attention profiles ------------------------------------------------------------------

ATTENTION_TABLE = (resources.files("archsim.hw.models") / "data" / "vidur"
                   / "a100_llama-2-70b_tp2_attention.csv")
_ATTN_HEADER = ["n_embd", "n_q_head", "n_kv_head", "num_tensor_parallel_workers", "is_prefill",
                "batch_size", "prefill_chunk_size", "kv_cache_size",
                "time_stats.attn_prefill.median", "time_stats.attn_decode.median"]
# a law to generate a table from: launch, s/FLOP, s/KV byte, s/query-output byte
_LAW = (12e-6, 1 / 150e12, 1 / 1.6e12, 1 / 400e9)


def _law_ms(hq, hk, d, tokens, ctx, pairs):
    """The documented law, written out from the class docstring (fp16: 2 bytes)."""
    launch, per_flop, per_kv, per_tok = _LAW
    return 1e3 * (launch + per_flop * 4 * hq * d * pairs + per_kv * 2 * hk * d * ctx * 2
                  + per_tok * 2 * hq * d * tokens * 2)


def _attention_rows(tp=2, heads=16, kv_heads=4, hidden=1024):
    hq, hk, d = heads // tp, kv_heads // tp, hidden // heads
    rows = []
    for chunk in (64, 256, 1024):
        for kv in (0, 512, 2048):
            ms = _law_ms(hq, hk, d, chunk, kv + chunk, chunk * (kv + chunk))
            rows.append([hidden, heads, kv_heads, tp, "True", 1, chunk, kv, ms, ""])
    for batch in (1, 8, 64):
        for kv in (32, 1024, 4000):
            ms = _law_ms(hq, hk, d, batch, batch * (kv + 1), batch * (kv + 1))
            rows.append([hidden, heads, kv_heads, tp, "False", batch, 0, kv, "", ms])
    return rows


def test_the_fit_recovers_the_law_that_made_the_table(tmp_path):
    path = _write(tmp_path / "attention.csv", _ATTN_HEADER, _attention_rows())
    profile = AttentionProfile.from_csv(path, tensor_parallel=2)
    assert (profile.heads, profile.kv_heads, profile.head_dim) == (16, 4, 64)
    assert profile.coefficients == pytest.approx(_LAW, rel=1e-6)
    for mean, p90 in profile.fit_errors().values():
        assert mean < 1e-6 and p90 < 1e-6
    # a mixed batch: one 300-token prefill over 200 cached tokens and 10 decodes at 999
    tokens, ctx, pairs = 300 + 10, 500 + 10 * 1000, 300 * 500 + 10 * 1000
    assert profile.layer_time_s(tokens=tokens, attn_pairs=pairs, context_tokens=ctx) == \
        pytest.approx(_law_ms(8, 2, 64, tokens, ctx, pairs) * 1e-3, rel=1e-6)
    assert profile.layer_time_s(tokens=0, attn_pairs=0, context_tokens=0) == 0.0


def test_vidur_attention_rows_are_counted_as_the_attention_group_counts():
    profile = vidur_a100_llama2_70b_attention()
    with ATTENTION_TABLE.open() as f:
        raw = list(csv.DictReader(f))
    assert len(profile.time_s) == len(raw)
    for i in (0, 500, len(raw) - 1):
        r = raw[i]
        kv = int(r["kv_cache_size"])
        if r["is_prefill"] == "True":
            n = int(r["prefill_chunk_size"])
            expect = (n, kv + n, n * (kv + n), float(r["time_stats.attn_prefill.median"]))
        else:
            b = int(r["batch_size"])
            expect = (b, b * (kv + 1), b * (kv + 1), float(r["time_stats.attn_decode.median"]))
        got = (profile.tokens[i], profile.context_tokens[i], profile.attn_pairs[i],
               profile.time_s[i] * 1e3)
        assert got == pytest.approx(expect, rel=1e-12)


def test_vidur_attention_law_is_physical_and_close_to_the_measurements():
    profile = vidur_a100_llama2_70b_attention()
    launch_s, per_flop, per_kv_byte, _ = profile.coefficients
    a100 = get_gpu("a100-80gb")
    # rates below the datasheet's dense fp16 peak and HBM bandwidth (an independent source)
    assert 0 < 1 / per_flop < a100.peak("fp16")
    assert 0 < 1 / per_kv_byte < a100.hbm_bw_bytes_per_s
    assert 1e-6 < launch_s < 1e-4
    errors = profile.fit_errors()
    assert errors["prefill"][0] < 0.10 and errors["decode"][0] < 0.20


def test_attention_groups_are_priced_by_the_attention_profile():
    from archsim.sim.serving.config import BatchShape, CostModel, Deployment

    m = get_transformer("llama-70b")
    roof = Deployment.build(model="llama-70b", gpu="a100-80gb", tp=2)
    attention = vidur_a100_llama2_70b_attention()
    cost = CostModel.measured(roof.cost.config, vidur_a100_llama2_70b(tensor_parallel=2),
                              attention=attention)
    for tokens, pairs, ctx in ((1, 1000, 1000), (64, 64 * 700, 64 * 700),
                               (2048, 2048 * 3000, 3000)):
        per_layer = attention.layer_time_s(tokens=tokens, attn_pairs=pairs, context_tokens=ctx)
        fast = cost.attention_latency_s(tokens, pairs, ctx)
        op = cost.iteration_operators(BatchShape(tokens=float(tokens), sequences=1.0,
                                                 attn_pairs=float(pairs),
                                                 context_tokens=float(ctx)))[1]
        assert fast == cost.operator_latency_s(op)
        assert fast == pytest.approx(m.num_layers * per_layer, rel=1e-12)
    assert "attention" in cost.executor.name


def test_an_attention_profile_of_another_shape_is_refused():
    m = get_transformer("llama-2-7b")
    roof = GPURoofline(get_gpu("a100-80gb"), dtype="fp16")
    with pytest.raises(ConfigError, match=r"model's heads is 32 but the attention profile "
                                          r"\(.*a100_llama-2-70b_tp2_attention.csv\) measured 64"
                       ) as info:
        ProfiledGPU(profile=vidur_a100_llama2_7b(tensor_parallel=2), fallback=roof,
                    hidden=m.hidden, ffn=m.ffn_hidden, heads=m.num_heads,
                    kv_heads=m.num_kv_heads, vocab=m.vocab, gated_mlp=m.gated_mlp,
                    attention=vidur_a100_llama2_70b_attention())
    assert info.value.field == "heads"


def test_bad_attention_tables_name_the_file_line_and_column(tmp_path):
    rows = _attention_rows()
    short = _write(tmp_path / "short.csv", _ATTN_HEADER[:-1], [r[:-1] for r in rows])
    with pytest.raises(ConfigError, match=r"lacks column\(s\) time_stats\.attn_decode") as info:
        AttentionProfile.from_csv(short, tensor_parallel=2)
    assert info.value.file == str(short)
    bad = [list(r) for r in rows]
    bad[1][8] = "slow"
    path = _write(tmp_path / "bad.csv", _ATTN_HEADER, bad)
    with pytest.raises(ConfigError, match=r"line 3: time_stats\.attn_prefill\.median must be a "
                                          r"number, not 'slow'"):
        AttentionProfile.from_csv(path, tensor_parallel=2)
    prefill_only = _write(tmp_path / "prefill.csv", _ATTN_HEADER,
                          [r for r in rows if r[4] == "True"])
    with pytest.raises(ConfigError, match="no decode row at tensor-parallel degree 2"):
        AttentionProfile.from_csv(prefill_only, tensor_parallel=2)
    with pytest.raises(ConfigError, match="no prefill row at tensor-parallel degree 4") as info:
        AttentionProfile.from_csv(_write(tmp_path / "ok.csv", _ATTN_HEADER, rows),
                                  tensor_parallel=4)
    assert info.value.allowed == [2]
