"""Request workloads: arrivals, prompt/output length distributions and CSV traces.

Length statistics of public datasets (the means are published; the shapes are ours):

* Alpaca: mean prompt 19.31 tokens, mean output 58.45 tokens;
* ShareGPT: mean prompt 161.31 tokens, mean output 337.99 tokens;

both from Kwon et al., "Efficient Memory Management for Large Language Model
Serving with PagedAttention" (vLLM), SOSP 2023, Fig. 11 (histograms of the
datasets with their means, OPT tokenizer). The papers give no dispersion, so the
log-normal shape and its coefficient of variation (1.0 for Alpaca outputs and
prompts, 1.2 for ShareGPT) are ASSUMPTIONS, stated again by the study, as is
cutting prompts at 1024 tokens (vLLM's ShareGPT benchmark drops longer prompts).
"""

from __future__ import annotations

import csv
import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
from pydantic import BeforeValidator, model_validator

from ...errors import ConfigError
from ._fields import Config, check, is_number, one_of

__all__ = ["LengthDistribution", "DATASETS", "RequestSet", "poisson_arrivals",
           "bursty_arrivals", "generate_requests", "load_trace", "AlpacaRecords",
           "load_alpaca", "ALPACA_ATTRIBUTION", "ALPACA_DIR"]

_KINDS = ("lognormal", "exponential", "uniform", "constant")


class LengthDistribution(Config):
    """A named token-length distribution, sampled as integers in ``[min_len, max_len]``.

    ``lognormal`` and ``exponential`` are parameterized by their ``mean`` (and
    ``cv``, the coefficient of variation, for ``lognormal``); ``uniform`` spans
    ``[min_len, max_len]``; ``constant`` always gives ``round(mean)``.
    """

    kind: Annotated[Literal["lognormal", "exponential", "uniform", "constant"],
                    BeforeValidator(one_of(_KINDS, "unknown length distribution '{v}'"))]
    mean: Annotated[float, BeforeValidator(check(lambda v: is_number(v) and v > 0,
                                                 "mean length must be > 0, not {v!r}"))]
    cv: Annotated[float, BeforeValidator(check(lambda v: is_number(v) and v > 0,
                                               "cv must be > 0, not {v!r}"))] = 1.0
    min_len: int = 1
    max_len: int = 2048
    source: str = "assumption"

    @model_validator(mode="after")
    def _check(self) -> LengthDistribution:
        if not 1 <= self.min_len <= self.max_len:
            raise ConfigError(f"need 1 <= min_len <= max_len, got {self.min_len}, "
                              f"{self.max_len}", field="min_len")
        return self

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        if self.kind == "lognormal":
            sigma2 = np.log1p(self.cv**2)  # moments of a log-normal with this mean and cv
            x = rng.lognormal(np.log(self.mean) - sigma2 / 2, np.sqrt(sigma2), n)
        elif self.kind == "exponential":
            x = rng.exponential(self.mean, n)
        elif self.kind == "uniform":
            x = rng.uniform(self.min_len, self.max_len + 1, n)
        else:
            x = np.full(n, self.mean)
        return np.clip(np.rint(x), self.min_len, self.max_len).astype(np.int64)


_VLLM = "Kwon et al. SOSP 2023 (vLLM) Fig. 11 mean; log-normal shape and cv assumed"

#: dataset name -> (prompt length, output length) distributions
DATASETS: dict[str, tuple[LengthDistribution, LengthDistribution]] = {
    "alpaca": (LengthDistribution(kind="lognormal", mean=19.31, cv=1.0, max_len=1024,
                                  source=_VLLM),
               LengthDistribution(kind="lognormal", mean=58.45, cv=1.0, source=_VLLM)),
    "sharegpt": (LengthDistribution(kind="lognormal", mean=161.31, cv=1.2, max_len=1024,
                                    source=_VLLM),
                 LengthDistribution(kind="lognormal", mean=337.99, cv=1.2, source=_VLLM)),
}


@dataclass(frozen=True)
class RequestSet:
    """Requests as parallel arrays, sorted by arrival time."""

    arrival_s: np.ndarray
    prompt_tokens: np.ndarray
    output_tokens: np.ndarray
    source: str = ""

    def __post_init__(self) -> None:
        a = np.asarray(self.arrival_s, float)
        p = np.asarray(self.prompt_tokens, np.int64)
        o = np.asarray(self.output_tokens, np.int64)
        if not (a.ndim == p.ndim == o.ndim == 1 and len(a) == len(p) == len(o)):
            raise ConfigError("arrival_s, prompt_tokens and output_tokens must be 1-D arrays of "
                              "one length", field="requests")
        if len(a) == 0:
            raise ConfigError("no requests", field="requests")
        if not np.all(np.isfinite(a)) or np.any(a < 0):
            raise ConfigError("arrival times must be finite and >= 0", field="arrival_s")
        if np.any(p < 1) or np.any(o < 1):
            raise ConfigError("prompt and output lengths must be >= 1 token",
                              field="prompt_tokens" if np.any(p < 1) else "output_tokens")
        order = np.argsort(a, kind="stable")
        object.__setattr__(self, "arrival_s", a[order])
        object.__setattr__(self, "prompt_tokens", p[order])
        object.__setattr__(self, "output_tokens", o[order])

    def __len__(self) -> int:
        return len(self.arrival_s)

    def clipped(self, max_seq_len: int) -> RequestSet:
        """Requests whose prompt + output fit ``max_seq_len`` (outputs cut, prompts kept)."""
        if np.any(self.prompt_tokens >= max_seq_len):
            worst = int(self.prompt_tokens.max())
            raise ConfigError(f"a prompt of {worst} tokens leaves no room for output within "
                              f"max_seq_len {max_seq_len}", field="prompt_tokens")
        out = np.minimum(self.output_tokens, max_seq_len - self.prompt_tokens)
        return RequestSet(self.arrival_s, self.prompt_tokens, out, self.source)

    def rows(self) -> list[dict[str, float]]:
        return [{"arrival_s": float(a), "prompt_tokens": int(p), "output_tokens": int(o)}
                for a, p, o in zip(self.arrival_s, self.prompt_tokens, self.output_tokens,
                                   strict=True)]


def _check_rate(rate_per_s: float) -> None:
    if not (isinstance(rate_per_s, (int, float)) and np.isfinite(rate_per_s) and rate_per_s > 0):
        raise ConfigError(f"arrival rate must be a positive number of requests/s, not "
                          f"{rate_per_s!r}", field="rate")


def poisson_arrivals(n: int, rate_per_s: float, rng: np.random.Generator) -> np.ndarray:
    """Arrival times of a Poisson process (exponential gaps, mean ``1/rate``)."""
    _check_rate(rate_per_s)
    return np.cumsum(rng.exponential(1.0 / rate_per_s, n))


def bursty_arrivals(n: int, rate_per_s: float, rng: np.random.Generator, *,
                    cv: float = 3.0) -> np.ndarray:
    """A gamma renewal process with the same mean rate and gap coefficient of variation ``cv``.

    ``cv`` > 1 gives bursts (clusters of short gaps separated by long ones).
    """
    _check_rate(rate_per_s)
    if not cv > 0:
        raise ConfigError(f"burstiness cv must be > 0, not {cv!r}", field="cv")
    shape = 1.0 / cv**2
    return np.cumsum(rng.gamma(shape, 1.0 / (rate_per_s * shape), n))


def generate_requests(
    n: int,
    *,
    rate_per_s: float | None,
    dataset: str = "alpaca",
    arrival: str = "poisson",
    burst_cv: float = 3.0,
    seed: int = 0,
    prompt: LengthDistribution | None = None,
    output: LengthDistribution | None = None,
) -> RequestSet:
    """Sample ``n`` requests; ``rate_per_s=None`` puts every arrival at t = 0 (offline batch)."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ConfigError(f"number of requests must be a positive integer, not {n!r}",
                          field="requests")
    p_dist, o_dist = DATASETS.get(dataset, (None, None))
    p_dist, o_dist = prompt or p_dist, output or o_dist
    if p_dist is None or o_dist is None:
        raise ConfigError(f"unknown dataset '{dataset}'", field="dataset", allowed=sorted(DATASETS))
    rng = np.random.default_rng(seed)
    if rate_per_s is None:
        arrivals = np.zeros(n)
    elif arrival == "poisson":
        arrivals = poisson_arrivals(n, rate_per_s, rng)
    elif arrival == "bursty":
        arrivals = bursty_arrivals(n, rate_per_s, rng, cv=burst_cv)
    else:
        raise ConfigError(f"unknown arrival process '{arrival}'", field="arrival",
                          allowed=("poisson", "bursty"))
    return RequestSet(arrivals, p_dist.sample(n, rng), o_dist.sample(n, rng),
                      source=f"{dataset}/{arrival}")


def load_trace(path: str | Path) -> RequestSet:
    """Read a CSV trace with columns ``arrival_s``, ``prompt_tokens``, ``output_tokens``.

    Errors name the file, the line and the offending value.
    """
    path = Path(path)
    cols = ("arrival_s", "prompt_tokens", "output_tokens")
    try:
        with path.open(newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in cols if c not in (reader.fieldnames or [])]
            if missing:
                raise ConfigError(f"trace is missing column(s) {', '.join(missing)}; found "
                                  f"{reader.fieldnames}", file=str(path), field=missing[0],
                                  allowed=cols)
            rows = []
            for lineno, row in enumerate(reader, start=2):
                vals = []
                for c in cols:
                    text = row.get(c)
                    try:
                        # A short row gives None, which fails like an empty cell.
                        value = float(text or "") if c == "arrival_s" else int(text or "")
                    except (TypeError, ValueError):
                        raise ConfigError(f"line {lineno}: {c} = {text!r} is not "
                                          f"{'a number' if c == 'arrival_s' else 'an integer'}",
                                          file=str(path), field=c) from None
                    bad = (not np.isfinite(value) or value < 0) if c == "arrival_s" else value < 1
                    if bad:
                        raise ConfigError(f"line {lineno}: {c} = {text!r} must be "
                                          f"{'>= 0' if c == 'arrival_s' else '>= 1'}",
                                          file=str(path), field=c)
                    vals.append(value)
                rows.append(vals)
    except OSError as exc:
        raise ConfigError(f"cannot read trace: {exc.strerror}", file=str(path)) from None
    if not rows:
        raise ConfigError("trace has no requests", file=str(path))
    arr = np.array(rows, dtype=float)
    return RequestSet(arr[:, 0], arr[:, 1].astype(np.int64), arr[:, 2].astype(np.int64),
                      source=str(path))


#: Where the shipped Alpaca subset comes from, and its terms (the licence file sits beside it).
ALPACA_ATTRIBUTION = (
    "Stanford Alpaca (Taori et al. 2023, github.com/tatsu-lab/stanford_alpaca), a 5,000-record "
    "subset of its 52k instruction data; CC BY-NC 4.0 (sim/serving/data/ALPACA_LICENSE)")

#: The folder of the shipped serving data (the Alpaca subset, its licence and caches).
ALPACA_DIR = Path(__file__).with_name("data")


@dataclass(frozen=True)
class AlpacaRecords:
    """Instruction records: parallel tuples of instruction, input and response text."""

    instruction: tuple[str, ...]
    input: tuple[str, ...]
    output: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.instruction)

    def prompts(self) -> list[str]:
        """The prompt text of each record: the instruction, then a blank line and the input.

        Alpaca's own prompt template (a fixed preamble of about 30 tokens) is not added,
        as in vLLM's length statistics of the data set (assumed to match S3's use).
        """
        return [f"{i}\n\n{x}" if x else i for i, x in zip(self.instruction, self.input,
                                                           strict=True)]


def load_alpaca(path: str | Path | None = None) -> AlpacaRecords:
    """The shipped 5,000-record Stanford Alpaca subset (see :data:`ALPACA_ATTRIBUTION`).

    ``path`` reads another file of the same layout (a JSON list of objects with
    ``instruction``, ``input`` and ``output``; ``.gz`` is decompressed).
    """
    path = Path(path) if path is not None else ALPACA_DIR / "alpaca_5000.json.gz"
    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        data = json.loads(raw)
    except OSError as exc:
        raise ConfigError(f"cannot read Alpaca data: {exc.strerror}", file=str(path)) from None
    except (ValueError, EOFError) as exc:
        raise ConfigError(f"Alpaca data is not (gzipped) JSON: {exc}", file=str(path)) from None
    keys = ("instruction", "input", "output")
    if not isinstance(data, list) or not data:
        raise ConfigError("Alpaca data must be a non-empty JSON list of records", file=str(path))
    for n, rec in enumerate(data):
        if not isinstance(rec, dict) or not all(isinstance(rec.get(k), str) for k in keys):
            raise ConfigError(f"record {n} needs string fields {', '.join(keys)}",
                              file=str(path), field="record", allowed=keys)
    return AlpacaRecords(*(tuple(rec[k] for rec in data) for k in keys))
