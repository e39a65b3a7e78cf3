"""The ``vllm`` policy: prefill-first iterations under a token budget, worked by hand."""

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.serving import Deployment, simulate
from archsim.sim.serving.policies import PagedPolicy, VLLMPolicy
from archsim.sim.serving.requests import RequestSet


@pytest.fixture(scope="module")
def dep():
    return Deployment.build(model="llama-13b", gpu="a100-80gb")  # room for ~62k tokens


def _lat(dep, tokens, seqs, pairs, ctx):
    return dep.cost.iteration_latency_s(float(tokens), float(seqs), float(pairs), float(ctx))


def test_three_requests_by_hand(dep):
    # A (prompt 1500, 3 output tokens), B (1000, 2), C (10, 1), all at t = 0; budget 2048.
    # 1: A alone is prefilled (A + B = 2500 > 2048, FCFS stops at B);
    # 2: B and C are prefilled (1010 tokens) while A stalls; C is done (1 token);
    # 3: A and B decode (spans 1501 + 1001); B is done;  4: A decodes (span 1502); A is done.
    reqs = RequestSet(np.zeros(3), np.array([1500, 1000, 10]), np.array([3, 2, 1]))
    r = simulate(dep, reqs, VLLMPolicy(), seed=0)
    l1 = _lat(dep, 1500, 1, 1500**2, 1500)
    l2 = _lat(dep, 1010, 2, 1000**2 + 10**2, 1010)
    l3 = _lat(dep, 2, 2, 2502, 2502)
    l4 = _lat(dep, 1, 1, 1502, 1502)
    np.testing.assert_allclose(r.per_request["first_token_s"], [l1, l1 + l2, l1 + l2])
    np.testing.assert_allclose(r.per_request["finish_s"],
                               [l1 + l2 + l3 + l4, l1 + l2 + l3, l1 + l2])
    assert r.metrics.iterations == 4
    # the mixed-iteration paged policy prefills all three at once instead: A's first token
    # comes later there, and the run takes one iteration fewer
    p = simulate(dep, reqs, PagedPolicy(), seed=0)
    assert p.metrics.iterations == 3
    assert p.per_request["first_token_s"][0] > l1


def test_max_num_seqs_serialises(dep):
    # one sequence at a time: each request is prefilled, then decodes alone to the end
    reqs = RequestSet(np.zeros(3), np.array([100, 200, 300]), np.array([2, 1, 2]))
    r = simulate(dep, reqs, VLLMPolicy(max_num_seqs=1), seed=0)
    t, finish = 0.0, []
    for p, o in ((100, 2), (200, 1), (300, 2)):
        t += _lat(dep, p, 1, p * p, p)
        for g in range(1, o):  # decode step g attends over p + g tokens
            t += _lat(dep, 1, 1, p + g, p + g)
        finish.append(t)
    np.testing.assert_allclose(r.per_request["finish_s"], finish)


def test_token_budget_and_bad_options(dep):
    assert VLLMPolicy().token_budget(4096) == 4096
    assert VLLMPolicy().token_budget(1024) == 2048
    assert VLLMPolicy(max_num_batched_tokens=512).token_budget(4096) == 512
    with pytest.raises(ConfigError, match="recompute only"):
        VLLMPolicy(preemption="swap")
    with pytest.raises(ConfigError):
        VLLMPolicy(max_num_seqs=0)


def test_vllm_is_a_named_policy_of_the_cli(tmp_path):
    import json

    from archsim.sim.cli import main

    assert main(["serve", "--model", "gpt-j-6b", "--policy", "vllm", "--requests", "50",
                 "--rate", "5", "--out", str(tmp_path / "o")]) == 0
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["policy"] == "vllm"
    assert summary["metrics"]["requests"] == 50
