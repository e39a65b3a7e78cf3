"""The search's shortcut (cost terms shared between the strategies of one search) changes
nothing: every result and rejection equals evaluating that candidate alone."""

import pytest

from archsim.hw.models.base import OperatorCost
from archsim.sim.distributed import (
    LLMWorkload,
    StrategyRejected,
    evaluate,
    make_cluster,
    search,
)
from archsim.sim.distributed.search import enumerate_strategies

_CASES = [
    ("llama-13b", 2048, "a100", 16, 64, "training"),
    ("llama-13b", 2048, "h100", 64, 256, "inference"),
    ("llama-70b", 4096, "h100", 64, 128, "decode"),
    ("llama-7b", 1024, "h100", 24, 48, "training"),
]


class _CountingExecutor:
    """1 ps per FLOP plus 2 ps per byte; counts its calls."""

    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    def operator_cost(self, work):
        self.calls += 1
        return OperatorCost(latency_s=(work.flops + 2 * work.bytes_accessed) * 1e-12)


@pytest.mark.parametrize("executor", [None, "counting"])
@pytest.mark.parametrize(("model", "seq", "gpu", "n", "gb", "mode"), _CASES)
def test_search_equals_evaluating_each_candidate_alone(model, seq, gpu, n, gb, mode, executor):
    wl = LLMWorkload(model=model, seq_len=seq)
    cluster = make_cluster(gpu=gpu, num_gpus=n)
    ex = _CountingExecutor() if executor else None
    res = search(wl, cluster, global_batch=gb, mode=mode, executor=ex)
    if ex is not None:
        assert ex.calls > 0  # every compute cost came from the executor
    by_name = {r.strategy: r for r in res.ranked}
    rejected = dict(res.rejected)
    for c in enumerate_strategies(wl, cluster, global_batch=gb, mode=mode):
        try:
            alone = evaluate(wl, cluster, c, global_batch=gb,
                             mode=mode, executor=_CountingExecutor() if executor else None)
        except StrategyRejected as exc:
            assert rejected.pop(str(c)) == exc.reason
        else:
            assert by_name.pop(str(c)) == alone  # every field, bit for bit
    assert not by_name and not rejected
