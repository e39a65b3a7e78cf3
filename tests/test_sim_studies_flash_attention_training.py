"""The hand-written transformer training of the Flash Attention study: gradients against
finite differences, Flash against baseline and the per-head kernels, the weight distance
against its closed form, determinism, and the shipped full-run data."""

import math

import ml_dtypes
import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.studies.flash_attention import flash_attention, reference_attention
from archsim.sim.studies.flash_attention.training import (
    FLASH_ROUNDINGS,
    PAIR_FLASH,
    PAIR_FLASH_ALL_OPS,
    PAIR_FLASH_BF16_FP32,
    PAIR_FLASH_FP32,
    PAIR_FLASH_PDELTA,
    PAIR_FP32_FP64,
    PAIR_LOW_PRECISION,
    VOCAB,
    Numerics,
    PairSpec,
    TinyGPTConfig,
    TrainSpec,
    ablation_variants,
    attention_backward,
    attention_forward,
    encode_chars,
    flash_ablation,
    init_params,
    loss_and_grads,
    train_paired,
    training_setup,
    weight_wasserstein,
)

TINY = TinyGPTConfig(vocab_size=11, seq_len=8, d_model=8, n_heads=2, n_layers=2)


def _bf16(x):
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def _tiny_problem():
    rng = np.random.default_rng(3)
    ids, targets = rng.integers(0, 11, (2, 8)), rng.integers(0, 11, (2, 8))
    # Weights x10 (gains jittered) so attention and GELU work away from their linear regime.
    params = {k: (v.astype(np.float64) * 10 if v.ndim == 2
                  else 1 + 0.3 * rng.standard_normal(v.shape))
              for k, v in init_params(TINY, seed=1).items()}
    return params, ids, targets


@pytest.mark.parametrize("kernel", ["baseline", "flash"])
def test_gradients_match_finite_differences(kernel):
    params, ids, targets = _tiny_problem()
    num = Numerics(precision="fp64", kernel=kernel, tile=3)
    loss, grads = loss_and_grads(params, ids, targets, config=TINY, numerics=num)
    assert math.isclose(loss, loss_and_grads(params, ids, targets, config=TINY,
                                             numerics=num)[0])
    rng = np.random.default_rng(0)
    h = 1e-5

    def at(shift):
        return loss_and_grads({k: params[k] + shift.get(k, 0) for k in params}, ids, targets,
                              config=TINY, numerics=num)[0]

    # Along random directions over all parameters, then along each tensor alone: central
    # differences agree with the analytic gradient to O(h^2).
    directions = [{k: rng.standard_normal(v.shape) for k, v in params.items()}
                  for _ in range(2)]
    directions += [{k: rng.standard_normal(params[k].shape)} for k in params]
    for u in directions:
        fd = (at({k: h * v for k, v in u.items()}) - at({k: -h * v for k, v in u.items()})) \
            / (2 * h)
        analytic = sum(float((grads[k] * v).sum()) for k, v in u.items())
        assert fd == pytest.approx(analytic, rel=1e-6, abs=1e-9), sorted(u)


def _qkv(shape=(2, 3, 20, 8), seed=5):
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal(shape) for _ in range(3))


@pytest.mark.parametrize("tile", [1, 3, 8, 20, 64])
def test_flash_equals_baseline_and_reference_in_fp64(tile):
    q, k, v = _qkv()
    base = Numerics(precision="fp64")
    flash = Numerics(precision="fp64", kernel="flash", tile=tile)
    o_b, s_b = attention_forward(q, k, v, numerics=base)
    o_f, s_f = attention_forward(q, k, v, numerics=flash)
    for b in range(2):
        for hh in range(3):
            ref = reference_attention(q[b, hh], k[b, hh], v[b, hh], causal=True)
            assert np.abs(o_f[b, hh] - ref).max() < 1e-12
    do = np.random.default_rng(9).standard_normal(o_b.shape)
    pdelta = Numerics(precision="fp64", kernel="flash", tile=tile, consistent_delta=True)
    for g_b, g_f, g_p in zip(attention_backward(do, s_b, numerics=base),
                             attention_backward(do, s_f, numerics=flash),
                             attention_backward(do, s_f, numerics=pdelta), strict=True):
        assert np.abs(g_b - g_f).max() < 1e-12 and np.abs(g_b - g_p).max() < 1e-12


@pytest.mark.parametrize("mode", ["fp32_state", "all_ops"])
def test_batched_flash_forward_is_the_per_head_kernel(mode):
    q, k, v = (_bf16(a) for a in _qkv(seed=11))
    num = Numerics(precision="bf16", kernel="flash", tile=8, mode=mode)
    out, _ = attention_forward(q, k, v, numerics=num)
    for b in range(2):
        for hh in range(3):
            want = flash_attention(q[b, hh], k[b, hh], v[b, hh], precision="bf16", tile=8,
                                   mode=mode, causal=True)
            assert np.array_equal(out[b, hh], want)


@pytest.mark.parametrize("kernel", ["baseline", "flash"])
def test_bf16_training_rounds_what_it_says(kernel):
    q, k, v = (_bf16(a) for a in _qkv(seed=2))
    num = Numerics(precision="bf16", kernel=kernel, tile=8)
    out, saved = attention_forward(q, k, v, numerics=num)
    grads = attention_backward(_bf16(np.ones_like(out)), saved, numerics=num)
    for a in (out, *grads):
        assert a.dtype == np.float32 and np.array_equal(_bf16(a), a)
    if kernel == "flash":
        assert saved[-1].dtype == np.float32 and not np.array_equal(_bf16(saved[-1]),
                                                                    saved[-1])
    params, ids, targets = _tiny_problem()
    params = {n: p.astype(np.float32) for n, p in params.items()}
    loss, g = loss_and_grads(params, ids, targets, config=TINY, numerics=num)
    _, g32 = loss_and_grads(params, ids, targets, config=TINY,
                            numerics=Numerics(precision="fp32", kernel=kernel, tile=8))
    for name in g:
        assert g[name].dtype == np.float32 and np.array_equal(_bf16(g[name]), g[name])
        # BF16 keeps ~3 significant digits: its gradient is the FP32 one to a few percent.
        assert np.linalg.norm(g[name] - g32[name]) <= 0.1 * np.linalg.norm(g32[name])


def _attention_fp64(q, k, v, do):
    """Causal softmax attention and its gradients in float64, written out with numpy."""
    q, k, v, do = (np.asarray(a, np.float64) for a in (q, k, v, do))
    n = q.shape[-2]
    s = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    s = np.where(np.triu(np.ones((n, n), bool), 1), -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = p @ v
    dp = do @ np.swapaxes(v, -1, -2)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True)) / math.sqrt(q.shape[-1])
    return o, (ds @ k, np.swapaxes(ds, -1, -2) @ q, np.swapaxes(p, -1, -2) @ do)


def _rel_err(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


def test_keep_fp32_removes_exactly_that_rounding():
    q, k, v = (_bf16(a) for a in _qkv(shape=(2, 2, 40, 8), seed=7))
    do = _bf16(np.random.default_rng(8).standard_normal(q.shape))
    o_ref, g_ref = _attention_fp64(q, k, v, do)

    def run(keep):
        num = Numerics(precision="bf16", kernel="flash", tile=8, keep_fp32=frozenset(keep))
        out, saved = attention_forward(q, k, v, numerics=num)
        return out, attention_backward(do, saved, numerics=num)

    # Inputs BF16, every Flash-path rounding kept in FP32: the kernel is float64 attention
    # to FP32 accuracy (fwd and bwd); with its roundings, it is off at BF16 level (2^-9).
    out, grads = run(FLASH_ROUNDINGS)
    assert _rel_err(out, o_ref) < 1e-5
    assert all(_rel_err(g, r) < 1e-5 for g, r in zip(grads, g_ref, strict=True))
    out, grads = run(())
    assert _rel_err(out, o_ref) > 5e-4 and np.array_equal(_bf16(out), out)
    assert all(_rel_err(g, r) > 5e-4 for g, r in zip(grads, g_ref, strict=True))
    # Leaving one rounding in: exactly the results it feeds are off at BF16 level again
    # (O's rounding hides D's read of O, so "out_delta" is left in together with "out").
    # dV = P^T dO does not read D.
    cases = {"p_fwd": ({"p_fwd"}, {"out", "dq", "dk"}),  # O, and D from O
             "out": ({"out"}, {"out"}),
             "out_delta": ({"out", "out_delta"}, {"out", "dq", "dk"}),
             "p_bwd": ({"p_bwd"}, {"dv"}),
             "ds": ({"ds"}, {"dq", "dk"}),
             "grads": ({"grads"}, {"dq", "dk", "dv"})}
    assert set(cases) == set(FLASH_ROUNDINGS)
    for site, (left_in, hit) in cases.items():
        out, (dq, dk, dv) = run(set(FLASH_ROUNDINGS) - left_in)
        errs = {"out": _rel_err(out, o_ref), "dq": _rel_err(dq, g_ref[0]),
                "dk": _rel_err(dk, g_ref[1]), "dv": _rel_err(dv, g_ref[2])}
        assert all(errs[n] > 1e-4 for n in hit), (site, errs)
        assert all(errs[n] < 1e-5 for n in set(errs) - hit), (site, errs)
    # With only "out" left in, D reads the FP32 O: the gradients stay exact (above).


def test_flash_ablation_ratios():
    text = encode_chars("the cat sat on the mat. " * 40)
    cfg = TinyGPTConfig(vocab_size=len(VOCAB), seq_len=16, d_model=16, n_heads=2)
    variants = [("itself", Numerics(precision="bf16")),
                ("flash fp32", Numerics(precision="fp32", kernel="flash", tile=4)),
                ("flash", Numerics(precision="bf16", kernel="flash", tile=4))]
    rows = flash_ablation(config=cfg, token_ids=text, spec=TrainSpec(steps=10, batch=2),
                          seeds=[0, 1], variants=variants, every=5)
    assert [(r["variant"], r["seed"]) for r in rows] == [
        (v, s) for s in (0, 1) for v in ("itself", "flash fp32", "flash", "baseline-BF16",
                                         "baseline-FP32")]
    by = {(r["variant"], r["seed"]): r for r in rows}
    for seed in (0, 1):
        # Baseline-BF16 against itself is 1 exactly; the FP32 Flash run sits at FP32
        # rounding distance from FP32 training, far below BF16's.
        assert by["itself", seed]["ratio"] == by["itself", seed]["ratio_last"] == 1.0
        assert by["flash fp32", seed]["ratio"] < 1e-2 < by["flash", seed]["ratio"]
        assert by["itself", seed]["loss_last"] == by["baseline-BF16", seed]["loss_last"]
        assert all(r["cpu_s"] > 0 for r in rows)


def test_weight_wasserstein_closed_form():
    rng = np.random.default_rng(4)
    a = {"x": rng.standard_normal((5, 4)), "y": rng.standard_normal(7)}
    b = {"x": rng.standard_normal((5, 4)) + 0.3, "y": rng.standard_normal(7)}
    flat_a = np.concatenate([a["x"].ravel(), a["y"]])
    flat_b = np.concatenate([b["x"].ravel(), b["y"]])
    w, w_mean, mx = weight_wasserstein(a, b)
    # Equal-size samples: W1 is the mean gap between the sorted values.
    assert w == pytest.approx(np.abs(np.sort(flat_a) - np.sort(flat_b)).mean())
    per = [np.abs(np.sort(a[n].ravel()) - np.sort(b[n].ravel())).mean() for n in a]
    assert w_mean == pytest.approx(np.mean(per))
    assert mx == np.abs(flat_a - flat_b).max()
    assert weight_wasserstein(a, a) == (0.0, 0.0, 0.0)
    with pytest.raises(ConfigError, match="different parameters"):
        weight_wasserstein(a, {"x": a["x"]})


def test_encode_chars():
    ids = encode_chars("Hi\n\u00e9~")
    assert ids.tolist() == [VOCAB.index("H"), VOCAB.index("i"), 1, 0, len(VOCAB) - 1]


def test_paired_training_learns_and_is_deterministic():
    text = encode_chars("the cat sat on the mat. " * 40)
    cfg = TinyGPTConfig(vocab_size=len(VOCAB), seq_len=16, d_model=16, n_heads=2)
    bf16_flash = Numerics(precision="bf16", kernel="flash", tile=4)
    bf16, fp32 = Numerics(precision="bf16"), Numerics(precision="fp32")
    pairs = [PairSpec(name="flash", a=bf16_flash, b=bf16),
             PairSpec(name="low", a=bf16, b=fp32),
             PairSpec(name="flash32", a=Numerics(precision="fp32", kernel="flash", tile=4),
                      b=fp32)]
    spec = TrainSpec(steps=30, batch=4, lr=1e-2)
    res = train_paired(config=cfg, token_ids=text, spec=spec, pairs=pairs, seed=0, every=10)
    again = train_paired(config=cfg, token_ids=text, spec=spec, pairs=pairs, seed=0,
                         every=10)
    assert res.distances == again.distances and res.losses == again.losses
    assert [r["step"] for r in res.distances] == [10] * 3 + [20] * 3 + [30] * 3
    loss = res.losses[fp32.label()]
    # From uniform over 97 symbols (ln 97 = 4.57) to well below it on 9 distinct symbols.
    assert loss[0] == pytest.approx(math.log(len(VOCAB)), abs=0.05) and loss[-1] < 2.2
    # FP32 rounding (2^-24) separates the kernels far less than BF16's (2^-8) does.
    assert (res.series("flash32") < 1e-3 * res.series("flash")).all()
    assert (res.series("low") > 0).all()


def test_bad_arguments():
    with pytest.raises(ConfigError, match="unknown precision 'fp8'"):
        Numerics(precision="fp8")
    with pytest.raises(ConfigError, match="unknown kernel 'xformers'"):
        Numerics(precision="bf16", kernel="xformers")
    with pytest.raises(ConfigError, match="tile must be a positive integer, not 0"):
        Numerics(precision="bf16", tile=0)
    with pytest.raises(ConfigError, match="unknown Flash rounding 'lse'"):
        Numerics(precision="bf16", kernel="flash", keep_fp32=frozenset({"lse"}))
    with pytest.raises(ConfigError, match="keep_fp32 must be a frozenset of rounding names"):
        Numerics(precision="bf16", kernel="flash", keep_fp32="ds")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="keep_fp32 applies to the flash kernel only"):
        Numerics(precision="bf16", keep_fp32=frozenset({"ds"}))
    with pytest.raises(ConfigError, match="give at least one seed"):
        flash_ablation(config=TINY, token_ids=np.zeros(40, np.int64),
                       spec=TrainSpec(steps=1, batch=1), seeds=[], variants=[])
    with pytest.raises(ConfigError, match="d_model 10 is not a multiple of n_heads 4"):
        TinyGPTConfig(vocab_size=5, seq_len=4, d_model=10, n_heads=4)
    with pytest.raises(ConfigError, match="steps must be a positive integer, not 0"):
        TrainSpec(steps=0, batch=1)
    params, ids, targets = _tiny_problem()
    with pytest.raises(ConfigError, match="ids and targets must have one shape"):
        loss_and_grads(params, ids[:, :4], targets, config=TINY,
                       numerics=Numerics(precision="fp64"))


def test_setups_and_shipped_full_run(tmp_path):
    from archsim.sim.studies.flash_attention.study import _training_part, training_tables

    quick, full = training_setup(quick=True), training_setup(quick=False)
    assert {p.name for p in quick.pairs} == {PAIR_FLASH, PAIR_LOW_PRECISION, PAIR_FLASH_FP32}
    assert {p.name for p in full.pairs} == {PAIR_FLASH, PAIR_LOW_PRECISION, PAIR_FLASH_FP32,
                                            PAIR_FLASH_ALL_OPS, PAIR_FP32_FP64,
                                            PAIR_FLASH_BF16_FP32, PAIR_FLASH_PDELTA}
    dist, losses = training_tables(quick=False, seed=0)
    steps = sorted({r["step"] for r in dist})
    assert steps[-1] == full.spec.steps and all(b - a == full.every
                                                for a, b in zip(steps, steps[1:], strict=False))
    assert {r["pair"] for r in dist} == {p.name for p in full.pairs}
    assert len(losses) == full.spec.steps * len({r["run"] for r in losses})
    _, comps, obs, assumptions, path = _training_part(quick=False, seed=0, out_dir=tmp_path)
    assert len(comps) == 2 and all(c.status == c.expected for c in comps)
    assert path.is_file() and obs and assumptions
    # The shipped ablation (bench/flash_attention_ablation.py): every variant, 3 seeds.
    from archsim.sim.studies.flash_attention.study import ABLATION_CSV, TRAINING_DATA, _read_csv

    rows = _read_csv(TRAINING_DATA / ABLATION_CSV)
    labels = [label for label, _ in ablation_variants(tile=full.tile,
                                                      seq_len=full.config.seq_len)]
    assert sorted({r["variant"] for r in rows}) == sorted(labels
                                                          + ["baseline-BF16", "baseline-FP32"])
    assert all(sorted(r["seed"] for r in rows if r["variant"] == v) == [0, 1, 2]
               for v in labels)
    assert sum(o.metric.startswith("Ablation") for o in obs) == len(labels)
