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
    GPURoofline,
    KernelProfile,
    ProfiledGPU,
    get_gpu,
    vidur_a100_llama2_7b,
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
