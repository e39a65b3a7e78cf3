"""The serving cost model's closed-form attention pricing equals the general Operator path.

The reference is the general path, unchanged: the attention group operator that
:func:`attention_group_operator` builds (its tensors' ``nbytes`` summed by
``Operator.bytes_accessed``), its ``1/tp`` :class:`Tile` (``CostModel.shard``), priced
by :meth:`GPURoofline.operator_cost`. The fast path must give the same float, so the
comparisons are ``==``, not approximate.
"""

import numpy as np
import pytest

from archsim.compilers.graph import get_transformer
from archsim.compilers.graph.transformer import GroupOperators, attention_group_operator
from archsim.errors import ConfigError
from archsim.hw.models.gpu import CalibratedGPU, GPURoofline, get_gpu
from archsim.operators import Operator
from archsim.sim.serving import CostModel

#: Edge cases: empty shapes, a lone decode step, one-token contexts, counts past 2**53
#: (where an int's conversion to float rounds), and a prefill's pair count.
EDGES = [(0, 0, 0), (1, 0, 0), (0, 0, 1), (1, 1, 1), (1, 4096, 4096), (4096, 8390656, 4096),
         (3, 17, 17), (2**53 + 1, 2**53 + 3, 2**53 + 5), (7, 10**15 + 1, 10**12 + 7)]


def _random_shapes(seed: int, n: int) -> list[tuple[int, int, int]]:
    rng = np.random.default_rng(seed)
    shapes = []
    for _ in range(n):
        tokens = int(rng.integers(0, 8192))
        context = int(rng.integers(0, 2_000_000))
        pairs = int(rng.integers(0, max(tokens, 1) * max(context, 1) + 1))
        shapes.append((tokens, pairs, context))
    return shapes


def _reference_s(cost: CostModel, ex: GPURoofline, tokens: int, pairs: int,
                 context: int) -> float:
    op = attention_group_operator(cost.model, tokens=tokens, attn_pairs=pairs,
                                  context_tokens=context, dtype=cost.dtype)
    return ex.operator_cost(op if cost.tp == 1 else cost.shard(op)).latency_s


@pytest.mark.parametrize("model,gpu,dtype,tp", [
    ("llama-13b", "a100-80gb", "fp16", 1), ("llama-13b", "a100-80gb", "fp16", 2),
    ("llama-70b", "h100-80gb", "bf16", 8), ("gpt-j-6b", "a100-40gb", "fp32", 4),
    ("opt-13b", "h100-80gb", "fp8", 1), ("opt-30b", "a100-80gb", "int8", 8)])
@pytest.mark.parametrize("launch_s", [None, 4e-6])
def test_closed_form_attention_equals_the_operator_path(model, gpu, dtype, tp, launch_s):
    cfg, spec = get_transformer(model), get_gpu(gpu)
    rng = np.random.default_rng([tp, len(model), len(dtype), 0 if launch_s is None else 1])
    ce, me = float(rng.uniform(0.1, 1.0)), float(rng.uniform(0.1, 1.0))
    executor = None if launch_s is None else GPURoofline(
        spec, dtype=dtype, compute_efficiency=ce, memory_efficiency=me,
        launch_overhead_s=launch_s)
    cost = CostModel(model=cfg, gpu=spec, tp=tp, dtype=dtype, compute_efficiency=ce,
                     memory_efficiency=me, executor=executor)
    ex = cost.executor
    assert type(ex) is GPURoofline
    bounds = set()
    for t, p, c in EDGES + _random_shapes(tp * 1000 + len(model) + len(dtype), 400):
        expected = _reference_s(cost, ex, t, p, c)
        assert cost.attention_latency_s(t, p, c) == expected, (t, p, c)
        # the engine passes floats (array columns); the same shape prices the same
        if max(t, p, c) < 2**53:
            assert cost.attention_latency_s(float(t), float(p), float(c)) == expected
        op = attention_group_operator(cfg, tokens=t, attn_pairs=p, context_tokens=c,
                                      dtype=dtype)
        bounds.add(ex.operator_cost(op).bound)
    assert bounds == {"compute", "memory"}  # both arms of the roofline were compared


def test_attention_terms_are_the_operators_fields():
    cfg = get_transformer("llama-70b")  # grouped-query: kv_hidden < hidden
    groups = GroupOperators(cfg, "fp16")
    for t, p, c in EDGES + _random_shapes(7, 200):
        op: Operator = groups.attention(tokens=t, attn_pairs=p, context_tokens=c)
        flops, input_bytes, output_bytes, macs = groups.attention_terms(
            tokens=t, attn_pairs=p, context_tokens=c)
        assert (flops, input_bytes, output_bytes, macs) == (
            op.flops, op.input_bytes, op.output_bytes, op.attrs["macs"])
        assert input_bytes + output_bytes == op.bytes_accessed


def test_serving_iteration_uses_the_same_attention_price():
    # a whole iteration: dense + attention + overhead, against the operators' own costs
    cfg, spec = get_transformer("llama-13b"), get_gpu("a100-80gb")
    cost = CostModel(model=cfg, gpu=spec, tp=2)
    for t, p, c in _random_shapes(11, 50):
        s = min(t, 1 + t // 3)
        expected = (cost.operator_latency_s(cost._groups.dense(tokens=t, sequences=s))
                    + cost.operator_latency_s(cost._groups.attention(
                        tokens=t, attn_pairs=p, context_tokens=c))) \
            + (cost.allreduce_s(t) + cost.iteration_overhead_s)
        assert cost.iteration_latency_s(t, s, p, c) == expected


class _HalfRoofline(GPURoofline):
    """A subclass that prices differently: the fast path must not assume its formula."""

    def operator_cost(self, work):
        base = super().operator_cost(work)
        return type(base)(latency_s=base.latency_s / 2, energy_j=0.0, bound=base.bound)


def test_other_executors_price_the_operator_themselves():
    cfg, spec = get_transformer("gpt-j-6b"), get_gpu("a100-80gb")
    half = _HalfRoofline(spec, compute_efficiency=0.6, memory_efficiency=0.8)
    plain = GPURoofline(spec, compute_efficiency=0.6, memory_efficiency=0.8)
    measured = CalibratedGPU(profiles={"attention": [(1e9, 1e-4), (1e12, 1e-2)]})
    for t, p, c in [(1, 300, 300), (64, 4096, 64), (5, 10**7, 10**6)]:
        op = attention_group_operator(cfg, tokens=t, attn_pairs=p, context_tokens=c)
        assert CostModel(model=cfg, gpu=spec, executor=half).attention_latency_s(t, p, c) \
            == plain.operator_cost(op).latency_s / 2
        assert CostModel(model=cfg, gpu=spec, executor=measured).attention_latency_s(t, p, c) \
            == measured.latency_s("attention", op.flops)


def test_negative_counts_are_rejected_as_before():
    cost = CostModel(model=get_transformer("gpt-j-6b"), gpu=get_gpu("a100-80gb"))
    for t, p, c in [(-1, 0, 0), (0, -1, 0), (0, 0, -1)]:
        with pytest.raises(ConfigError, match="must be >= 0"):
            cost.attention_latency_s(t, p, c)
        with pytest.raises(ConfigError, match="must be >= 0"):
            GroupOperators(cost.model).attention_terms(tokens=t, attn_pairs=p, context_tokens=c)


def test_fcfs_admission_is_the_longest_fitting_prefix_of_the_window():
    from collections import deque

    from archsim.sim.serving.scheduler import FCFSScheduler

    rng = np.random.default_rng(3)
    sched = FCFSScheduler()
    for _ in range(2000):
        n = int(rng.integers(0, 30))
        ids = rng.permutation(100)[:n]
        size_by_id = rng.integers(0, 50, 100)
        free = float(rng.integers(0, 400))
        slots, window = int(rng.integers(0, 12)), int(rng.integers(1, 40))
        queue = deque(int(i) for i in ids)
        got = sched.admit(queue, size_by_id.__getitem__, free, slots, window)
        # brute force: take queued requests in order while the running total fits
        want, total = [], 0
        for i in list(ids)[:min(window, slots)]:
            if total + size_by_id[i] > free:
                break
            total += size_by_id[i]
            want.append(int(i))
        assert got.tolist() == want
        assert list(queue) == [int(i) for i in ids[len(want):]]
