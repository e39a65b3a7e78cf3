"""The text-guided resilience study: the shipped SmolLM2 descriptions (regenerated for a
prefix), the class embeddings, and the quick run's tables against what FP32 bit flips do."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.studies.text_resilience.descriptions import (
    DIGIT_NAMES,
    END_OF_TURN,
    QUESTIONS,
    chat_prompt,
    class_prompts,
    generate,
    load_descriptions,
)
from archsim.tests.study_runs import quick_run

NAME = "text-guided-resilience"


@pytest.fixture(scope="module")
def descs():
    return load_descriptions()


def test_the_shipped_file_has_every_question_of_every_class(descs, tmp_path):
    assert descs.decoding == "greedy" and "SmolLM2" in descs.model_file
    assert len(descs.descriptions) == 10 * len(QUESTIONS)
    for label in range(10):
        qs = [d.question for d in descs.descriptions if d.label == label]
        assert qs == class_prompts(label)
        assert all(DIGIT_NAMES[label] in q for q in qs)
        assert all(t.strip() and END_OF_TURN not in t for t in descs.texts(label))
    assert all(len(d.token_ids) <= descs.max_new_tokens for d in descs.descriptions)
    bad = tmp_path / "d.json"
    bad.write_text('{"model": "m"}')
    with pytest.raises(ConfigError, match="field 'model_file': missing field"):
        load_descriptions(bad)
    with pytest.raises(ConfigError, match="label must be a digit class 0..9"):
        class_prompts(10)


@pytest.fixture(scope="module")
def tok():
    pytest.importorskip("gguf")
    from archsim.sim.nn.gguf_model import build_gguf_tokenizer

    return build_gguf_tokenizer()


def test_texts_decode_from_the_recorded_tokens(descs, tok):
    for d in descs.descriptions:
        assert tok.decode(d.token_ids).replace(END_OF_TURN, "").strip() == d.text
    # the prompt is SmolLM2-Instruct's ChatML turn, its control tokens kept whole
    ids = tok.encode(chat_prompt(QUESTIONS[0]))
    assert ids.count(tok.encode("<|im_start|>")[0]) == 3


def test_greedy_generation_regenerates_a_shipped_prefix(descs, tok):
    """Regenerating a whole answer takes ~10 s after a 7 s load; a 3-token prefix of one
    answer is checked (greedy decoding of the same weights must give the same tokens)."""
    from archsim.sim.nn.gguf_model import load_smollm2

    d = next(d for d in descs.descriptions if d.label == 7)
    ids = generate(load_smollm2(), tok, d.question, max_new_tokens=3)
    assert tuple(ids) == d.token_ids[:3]


@pytest.fixture(scope="module")
def result():
    return quick_run(NAME)


def test_quick_run_trains_real_classifiers(result):
    rows = result.tables["models"]
    assert {r["variant"] for r in rows} == {"baseline", "text", "cosine_random"}
    for r in rows:
        assert r["test_accuracy"] > 0.9  # MNIST 5k, 1,000 test images; chance is 0.1
        assert 0 < r["last_layer_sdc"] < 0.2 and 0 < r["all_layer_sdc"] < 0.2
        assert 0 < r["last_layer_weight_sdc"] < 0.2
        zeros = r["last_layer_zero_input_fraction"]
        assert (zeros > 0.2) if r["variant"] == "baseline" else (zeros == 0)
    # every injection of a last-layer campaign falls in one Top2Diff bin
    for key in {(r["variant"], r["seed"]) for r in rows}:
        bins = [b for b in result.tables["last_layer_by_margin"]
                if (b["variant"], b["seed"]) == key]
        assert sum(b["injections"] for b in bins) == 40_000
        if r["variant"] != "baseline":
            assert 1 < r["logit_scale"] <= 100  # learned, clamped as CLIP's


def test_last_layer_mismatches_come_from_the_high_exponent_bits(result):
    """A flip of FP32 bit b < 16 changes a value by less than 2**(b - 23) of itself, far
    below any top-1 margin but the thinnest; bit 30 (the exponent's MSB) scales it by
    2**128 or 2**-128."""
    for variant in ("baseline", "text"):
        rows = [r for r in result.tables["last_layer_by_bit"] if r["variant"] == variant]
        assert len(rows) == 32
        rate = {r["bit"]: r["rate"] for r in rows}
        assert sum(r["mismatches"] for r in rows if r["bit"] < 16) <= 2
        assert max(rate, key=rate.__getitem__) == 30
        assert rate[30] > 0.2


def test_gains_are_the_ratios_of_the_pooled_layer_rates(result):
    layers = result.tables["layer_sdc"]
    for g in result.tables["gains"]:
        def rates(variant, g=g):
            return [r for r in layers if r["backbone"] == g["backbone"]
                    and r["variant"] == variant]
        base, ours = rates("baseline"), rates(g["variant"])
        assert [r["layer"] for r in base][-1] == "classifier"
        assert [r["layer"] for r in ours][-2:] == ["projection", "head"]
        assert g["last_layer_gain"] == pytest.approx(base[-1]["rate"] / ours[-1]["rate"])
        all_b = sum(r["k"] for r in base) / sum(r["n"] for r in base)
        all_o = sum(r["k"] for r in ours) / sum(r["n"] for r in ours)
        assert g["all_layer_gain"] == pytest.approx(all_b / all_o)
        assert g["last_gain_lo"] < g["last_layer_gain"] < g["last_gain_hi"]
    assert any(f.name == "layer_sdc.png" and f.stat().st_size > 0 for f in result.files)
    assert len(result.assumptions) >= 6


def test_class_embeddings_are_unit_norm_and_distinct(result):
    cos = np.array([[r[str(j)] for j in range(10)] for r in
                    result.tables["class_embedding_cosine"]])
    np.testing.assert_allclose(np.diag(cos), 1.0, atol=1e-6)
    np.testing.assert_allclose(cos, cos.T, atol=1e-9)
    assert cos[~np.eye(10, dtype=bool)].max() < 0.999  # ten different class means
