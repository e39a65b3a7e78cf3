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
from typing import Annotated, Literal

from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from ...errors import ConfigError
from ._fields import Config, PositiveInt, check, is_number, one_of
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
           "Policy", "POLICY_NAMES", "make_policy", "VLLMPolicy"]


class MemoryPolicy(Config, ABC):
    """A serving policy: what admits requests and what manages the KV cache.

    Its parameters are a frozen pydantic model; ``kind`` tells the policies apart
    (:data:`Policy` is the discriminated union of them).
    """

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


class WorstCasePolicy(MemoryPolicy):
    """Reserve ``max_seq_len`` tokens per sequence; first-come first-served."""

    kind: Literal["worst-case"] = "worst-case"

    @property
    def name(self) -> str:
        return "worst-case"

    def scheduler(self) -> Scheduler:
        return FCFSScheduler()

    def memory_manager(self, kv: KVCache, table: RequestTable) -> MemoryManager:
        return WorstCaseReservation(kv, table)


class OraclePolicy(MemoryPolicy):
    """Reserve the true output length; decreasing-first-fit admission."""

    kind: Literal["oracle"] = "oracle"

    @property
    def name(self) -> str:
        return "oracle"

    def scheduler(self) -> Scheduler:
        return DFFScheduler()

    def memory_manager(self, kv: KVCache, table: RequestTable) -> MemoryManager:
        return OracleReservation(kv, table)


def _predictor(v: object) -> object:
    if v is not None and not isinstance(v, LengthPredictor):
        raise ConfigError("predictor must have predict() and repredict() methods",
                          field="predictor")
    return v


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

    model_config = ConfigDict(arbitrary_types_allowed=True)

    kind: Literal["s3"] = "s3"
    predictor: Annotated[LengthPredictor | None, BeforeValidator(_predictor)] = None
    num_buckets: int = 10
    accuracy: float = 0.986

    @model_validator(mode="after")
    def _check(self) -> S3Policy:
        if self.predictor is None:  # validate early with the predictor's own messages
            ConfusionPredictor(buckets=Buckets(num_buckets=self.num_buckets,
                                               max_output=max(self.num_buckets, 2048)),
                               accuracy=self.accuracy)
        return self

    @property
    def name(self) -> str:
        return "s3"

    def scheduler(self) -> Scheduler:
        return DFFScheduler()

    def memory_manager(self, kv: KVCache, table: RequestTable) -> MemoryManager:
        predictor = self.predictor
        if predictor is None:
            predictor = ConfusionPredictor(
                buckets=Buckets(num_buckets=self.num_buckets, max_output=kv.max_seq_len),
                accuracy=self.accuracy)
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

    kind: Literal["paged"] = "paged"
    block_tokens: PositiveInt = 16
    preemption: Annotated[Literal["recompute", "swap"], BeforeValidator(
        one_of(("recompute", "swap"), "unknown preemption mode '{v}'"))] = "recompute"
    watermark: Annotated[float, BeforeValidator(check(
        lambda v: is_number(v) and 0 <= v < 1, "must be in [0, 1), not {v!r}"))] = 0.01

    @property
    def name(self) -> str:
        return f"paged-{self.preemption}"

    def scheduler(self) -> Scheduler:
        return FCFSScheduler()

    def memory_manager(self, kv: KVCache, table: RequestTable) -> MemoryManager:
        return PagedBlockManager(kv, table, block_tokens=self.block_tokens,
                                 swap=self.preemption == "swap", watermark=self.watermark)


#: Any policy's parameters, told apart by ``kind`` (e.g. from a TOML table).
POLICY_NAMES = ("worst-case", "s3", "oracle", "paged", "paged-swap", "vllm")


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
    if name == "vllm":
        return VLLMPolicy(block_tokens=block_tokens)
    raise ConfigError(f"unknown policy '{name}'", field="policy",
                      allowed=POLICY_NAMES + ("s3-exact",))


class VLLMPolicy(PagedPolicy):
    """vLLM's default scheduler: prefill-first iterations under a token budget.

    As vLLM's v0 scheduler without chunked prefill (from its source, as recalled; the
    defaults are an unverified recollection): when requests wait and fit, an iteration
    prefills only them -- first come first served while their prompt (and recomputed)
    tokens stay within ``max_num_batched_tokens`` and the running sequences stay within
    ``max_num_seqs`` -- and the running sequences stall for it; otherwise every running
    sequence decodes one token. The KV cache is :class:`PagedPolicy`'s block manager
    (watermark at admission, LIFO preemption by recompute).

    Parameters
    ----------
    max_num_batched_tokens
        Token budget of a prefill iteration; ``None`` takes ``max(max_seq_len, 2048)``
        (vLLM's default without chunked prefill).
    max_num_seqs
        Most running sequences (vLLM's default 256).
    """

    kind: Literal["vllm"] = "vllm"  # type: ignore[assignment]
    preemption: Annotated[Literal["recompute"], BeforeValidator(
        one_of(("recompute",), "vllm preempts by recompute only, not '{v}'"))] = "recompute"
    max_num_batched_tokens: PositiveInt | None = None
    max_num_seqs: PositiveInt = 256

    @property
    def name(self) -> str:
        return "vllm"

    def token_budget(self, max_seq_len: int) -> int:
        """Tokens one prefill iteration may process."""
        if self.max_num_batched_tokens is not None:
            return self.max_num_batched_tokens
        return max(max_seq_len, 2048)


Policy = Annotated[WorstCasePolicy | OraclePolicy | S3Policy | VLLMPolicy | PagedPolicy,
                   Field(discriminator="kind")]
