"""KV-cache memory policies: the baselines and S3.

Reservation policies give each admitted sequence a fixed KV-cache reservation
of ``prompt + reserved_output`` tokens for its lifetime:

* :class:`WorstCasePolicy` -- reserve the maximum sequence length
  (FasterTransformer/ORCA-style), admit first-come first-served;
* :class:`OraclePolicy` -- reserve the true output length, decreasing-first-fit
  admission;
* :class:`S3Policy` -- reserve the predicted bucket's upper edge,
  decreasing-first-fit admission; a sequence that generates its reserved
  tokens without finishing is preempted, re-predicted into a larger bucket and
  re-queued at the front (its tokens are recomputed on re-admission).

:class:`PagedPolicy` allocates fixed-size blocks on demand (vLLM): admission
needs the prompt's blocks, decode steps grow blocks, and when the free pool
runs out the most recently admitted sequences are preempted by recompute or
swap (to host memory over PCIe).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import ConfigError
from .predictor import Buckets, ConfusionPredictor, ExactPredictor, LengthPredictor

__all__ = ["MemoryPolicy", "WorstCasePolicy", "OraclePolicy", "S3Policy", "PagedPolicy",
           "POLICY_NAMES", "make_policy"]


@dataclass(frozen=True)
class MemoryPolicy:
    """Base of the memory policies (``kind`` is ``"reservation"`` or ``"paged"``)."""

    name: str = field(default="", init=False)
    kind: str = field(default="reservation", init=False)
    order: str = field(default="fcfs", init=False)  # admission order: "fcfs" or "dff"
    preempts: bool = field(default=False, init=False)

    def reserve_output(self, prompt: np.ndarray, output: np.ndarray, max_seq_len: int,
                       rng: np.random.Generator) -> np.ndarray:
        """Output tokens reserved for each request at its first admission."""
        raise NotImplementedError

    def repredict(self, prompt, output, generated, max_seq_len, rng) -> np.ndarray:
        raise NotImplementedError


@dataclass(frozen=True)
class WorstCasePolicy(MemoryPolicy):
    """Reserve ``max_seq_len`` tokens per sequence; first-come first-served."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", "worst-case")

    def reserve_output(self, prompt, output, max_seq_len, rng):
        return max_seq_len - np.asarray(prompt, np.int64)


@dataclass(frozen=True)
class OraclePolicy(MemoryPolicy):
    """Reserve the true output length; decreasing-first-fit admission."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", "oracle")
        object.__setattr__(self, "order", "dff")

    def reserve_output(self, prompt, output, max_seq_len, rng):
        return np.asarray(output, np.int64).copy()


@dataclass(frozen=True)
class S3Policy(MemoryPolicy):
    """S3: predicted-length reservation, decreasing-first-fit packing, preempt and re-queue.

    ``predictor`` defaults to a 10-bucket :class:`ConfusionPredictor` with
    98.6% accuracy over ``[1, max_seq_len]`` (built when the engine knows
    ``max_seq_len``); pass ``num_buckets``/``accuracy`` to change those.
    """

    predictor: LengthPredictor | None = None
    num_buckets: int = 10
    accuracy: float = 0.986

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", "s3")
        object.__setattr__(self, "order", "dff")
        object.__setattr__(self, "preempts", True)
        if self.predictor is not None and not isinstance(self.predictor, LengthPredictor):
            raise ConfigError("predictor must have predict() and repredict() methods",
                              field="predictor")
        if self.predictor is None:  # validate early with the predictor's own messages
            ConfusionPredictor(Buckets(self.num_buckets, max(self.num_buckets, 2048)),
                               self.accuracy)

    def _predictor(self, max_seq_len: int) -> LengthPredictor:
        if self.predictor is not None:
            return self.predictor
        return ConfusionPredictor(Buckets(self.num_buckets, max_seq_len), self.accuracy)

    def reserve_output(self, prompt, output, max_seq_len, rng):
        pred = np.asarray(self._predictor(max_seq_len).predict(prompt, output, rng), np.int64)
        return np.clip(pred, 1, max_seq_len - np.asarray(prompt, np.int64))

    def repredict(self, prompt, output, generated, max_seq_len, rng):
        pred = np.asarray(self._predictor(max_seq_len).repredict(prompt, output, generated, rng),
                          np.int64)
        pred = np.maximum(pred, np.asarray(generated) + 1)
        return np.minimum(pred, max_seq_len - np.asarray(prompt, np.int64))


@dataclass(frozen=True)
class PagedPolicy(MemoryPolicy):
    """vLLM-style paged KV cache.

    Parameters
    ----------
    block_tokens
        Tokens per KV block (vLLM's default 16).
    preemption
        ``"recompute"`` (free the blocks; re-prefill prompt and generated tokens)
        or ``"swap"`` (copy the blocks to host memory over PCIe and back).
    watermark
        Fraction of blocks kept free at admission (vLLM's default 0.01).
    """

    block_tokens: int = 16
    preemption: str = "recompute"
    watermark: float = 0.01

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", f"paged-{self.preemption}")
        object.__setattr__(self, "kind", "paged")
        object.__setattr__(self, "preempts", True)
        if not isinstance(self.block_tokens, int) or self.block_tokens < 1:
            raise ConfigError(f"must be a positive integer, not {self.block_tokens!r}",
                              field="block_tokens")
        if self.preemption not in ("recompute", "swap"):
            raise ConfigError(f"unknown preemption mode '{self.preemption}'", field="preemption",
                              allowed=("recompute", "swap"))
        if not 0 <= self.watermark < 1:
            raise ConfigError(f"must be in [0, 1), not {self.watermark!r}", field="watermark")

    def reserve_output(self, prompt, output, max_seq_len, rng):
        return np.zeros(len(prompt), np.int64)  # paged policies reserve nothing ahead


POLICY_NAMES = ("worst-case", "s3", "oracle", "paged", "paged-swap")


def make_policy(name: str, *, accuracy: float = 0.986, num_buckets: int = 10,
                block_tokens: int = 16) -> MemoryPolicy:
    """A policy by its CLI name (see :data:`POLICY_NAMES`)."""
    if name == "worst-case":
        return WorstCasePolicy()
    if name == "oracle":
        return OraclePolicy()
    if name == "s3":
        return S3Policy(num_buckets=num_buckets, accuracy=accuracy)
    if name == "s3-exact":
        return S3Policy(predictor=ExactPredictor())
    if name == "paged":
        return PagedPolicy(block_tokens=block_tokens)
    if name == "paged-swap":
        return PagedPolicy(block_tokens=block_tokens, preemption="swap")
    raise ConfigError(f"unknown policy '{name}'", field="policy",
                      allowed=POLICY_NAMES + ("s3-exact",))
