"""Serving policies: an admission scheduler plus a KV-cache memory manager, by name.

A policy is the user-facing choice; for each simulation it builds its
:class:`~archsim.sim.serving.scheduler.Scheduler` and a fresh
:class:`~archsim.sim.serving.memory.MemoryManager`.

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

from abc import ABC, abstractmethod

from ...errors import ConfigError
from .memory import (
    KVCache,
    MemoryManager,
    OracleReservation,
    PagedBlockManager,
    PredictedReservation,
    WorstCaseReservation,
)
from .predictor import Buckets, ConfusionPredictor, ExactPredictor, LengthPredictor
from .scheduler import DFFScheduler, FCFSScheduler, Scheduler
from .state import RequestTable

__all__ = ["MemoryPolicy", "WorstCasePolicy", "OraclePolicy", "S3Policy", "PagedPolicy",
           "POLICY_NAMES", "make_policy"]


class MemoryPolicy(ABC):
    """A serving policy: what admits requests and what manages the KV cache."""

    @property
    @abstractmethod
    def name(self) -> str:
        """The policy's name in results and tables."""

    @abstractmethod
    def scheduler(self) -> Scheduler:
        """The admission scheduler."""

    @abstractmethod
    def memory_manager(self, kv: KVCache, table: RequestTable) -> MemoryManager:
        """A fresh memory manager for one simulation."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class WorstCasePolicy(MemoryPolicy):
    """Reserve ``max_seq_len`` tokens per sequence; first-come first-served."""

    @property
    def name(self) -> str:
        return "worst-case"

    def scheduler(self) -> Scheduler:
        return FCFSScheduler()

    def memory_manager(self, kv: KVCache, table: RequestTable) -> MemoryManager:
        return WorstCaseReservation(kv, table)


class OraclePolicy(MemoryPolicy):
    """Reserve the true output length; decreasing-first-fit admission."""

    @property
    def name(self) -> str:
        return "oracle"

    def scheduler(self) -> Scheduler:
        return DFFScheduler()

    def memory_manager(self, kv: KVCache, table: RequestTable) -> MemoryManager:
        return OracleReservation(kv, table)


class S3Policy(MemoryPolicy):
    """S3: predicted-length reservation, decreasing-first-fit packing, preempt and re-queue.

    Parameters
    ----------
    predictor
        The length predictor; ``None`` builds a ``num_buckets`` :class:`ConfusionPredictor`
        with ``accuracy`` over ``[1, max_seq_len]`` when the engine knows ``max_seq_len``.
    num_buckets, accuracy
        The default predictor's buckets (10) and accuracy (98.6%).

    Raises
    ------
    ConfigError
        ``predictor`` lacks ``predict``/``repredict``, or the default predictor's
        parameters are out of range (its own messages).
    """

    def __init__(self, *, predictor: LengthPredictor | None = None, num_buckets: int = 10,
                 accuracy: float = 0.986) -> None:
        if predictor is not None and not isinstance(predictor, LengthPredictor):
            raise ConfigError("predictor must have predict() and repredict() methods",
                              field="predictor")
        if predictor is None:  # validate early with the predictor's own messages
            ConfusionPredictor(Buckets(num_buckets, max(num_buckets, 2048)), accuracy)
        self.predictor = predictor
        self.num_buckets = num_buckets
        self.accuracy = accuracy

    @property
    def name(self) -> str:
        return "s3"

    def scheduler(self) -> Scheduler:
        return DFFScheduler()

    def memory_manager(self, kv: KVCache, table: RequestTable) -> MemoryManager:
        predictor = self.predictor
        if predictor is None:
            predictor = ConfusionPredictor(Buckets(self.num_buckets, kv.max_seq_len),
                                           self.accuracy)
        return PredictedReservation(kv, table, predictor=predictor)


class PagedPolicy(MemoryPolicy):
    """vLLM-style paged KV cache (first-come first-served admission).

    Parameters
    ----------
    block_tokens
        Tokens per KV block (vLLM's default 16).
    preemption
        ``"recompute"`` (free the blocks; re-prefill prompt and generated tokens)
        or ``"swap"`` (copy the blocks to host memory over PCIe and back).
    watermark
        Fraction of blocks kept free at admission (vLLM's default 0.01).

    Raises
    ------
    ConfigError
        A parameter is out of range; the message names it.
    """

    def __init__(self, *, block_tokens: int = 16, preemption: str = "recompute",
                 watermark: float = 0.01) -> None:
        if isinstance(block_tokens, bool) or not isinstance(block_tokens, int) \
                or block_tokens < 1:
            raise ConfigError(f"must be a positive integer, not {block_tokens!r}",
                              field="block_tokens")
        if preemption not in ("recompute", "swap"):
            raise ConfigError(f"unknown preemption mode '{preemption}'", field="preemption",
                              allowed=("recompute", "swap"))
        if not 0 <= watermark < 1:
            raise ConfigError(f"must be in [0, 1), not {watermark!r}", field="watermark")
        self.block_tokens = block_tokens
        self.preemption = preemption
        self.watermark = watermark

    @property
    def name(self) -> str:
        return f"paged-{self.preemption}"

    def scheduler(self) -> Scheduler:
        return FCFSScheduler()

    def memory_manager(self, kv: KVCache, table: RequestTable) -> MemoryManager:
        return PagedBlockManager(kv, table, block_tokens=self.block_tokens,
                                 swap=self.preemption == "swap", watermark=self.watermark)


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
