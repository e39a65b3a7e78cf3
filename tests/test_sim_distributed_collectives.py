import math

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.distributed import (
    LinkSpec,
    all_gather_s,
    all_to_all_s,
    collective_time_s,
    hierarchical_all_reduce_s,
    make_cluster,
    p2p_s,
    reduce_scatter_s,
    ring_all_reduce_s,
    tree_all_reduce_s,
)

LINK = LinkSpec(name="test", bw_bytes_per_s=100e9, latency_s=3e-6)


@pytest.mark.parametrize("p", [2, 3, 8, 64, 1000])
@pytest.mark.parametrize("n", [0.0, 1e3, 2.5e8])
def test_closed_forms(p, n):
    a, b = 3e-6, 100e9
    assert ring_all_reduce_s(n, p, LINK) == pytest.approx(2 * (p - 1) * a + 2 * (p - 1) / p * n / b)
    assert tree_all_reduce_s(n, p, LINK) == pytest.approx(2 * math.ceil(math.log2(p)) * a
                                                          + 2 * n / b)
    rs = (p - 1) * a + (p - 1) / p * n / b
    assert reduce_scatter_s(n, p, LINK) == pytest.approx(rs)
    assert all_gather_s(n, p, LINK) == pytest.approx(rs)
    assert all_to_all_s(n, p, LINK) == pytest.approx(rs)
    assert p2p_s(n, LINK) == pytest.approx(a + n / b)


def _ring_all_reduce_by_steps(n, p, link):
    """Simulate the ring: each step every rank sends one chunk of n/p to its neighbour; check the
    reduction is right and count the time."""
    rng = np.random.default_rng(0)
    data = rng.normal(size=(p, p))  # rank r holds vector data[r] split in p chunks
    buf = data.copy()
    t = 0.0
    for step in range(p - 1):  # reduce-scatter
        sends = [(r, (r - step) % p, buf[r, (r - step) % p]) for r in range(p)]
        for r, c, v in sends:
            buf[(r + 1) % p, c] += v
        t += link.latency_s + n / p / link.bw_bytes_per_s
    for step in range(p - 1):  # all-gather
        sends = [(r, (r + 1 - step) % p, buf[r, (r + 1 - step) % p]) for r in range(p)]
        for r, c, v in sends:
            buf[(r + 1) % p, c] = v
        t += link.latency_s + n / p / link.bw_bytes_per_s
    np.testing.assert_allclose(buf, np.tile(data.sum(axis=0), (p, 1)))
    return t


@pytest.mark.parametrize("p", [2, 5, 8])
def test_ring_all_reduce_matches_step_simulation(p):
    assert ring_all_reduce_s(1e8, p, LINK) == pytest.approx(_ring_all_reduce_by_steps(1e8, p, LINK))


def test_single_rank_is_free():
    assert ring_all_reduce_s(1e9, 1, LINK) == 0.0
    assert collective_time_s("all_reduce", 1e9, make_cluster(num_gpus=8), size=1) == 0.0


def test_hierarchical_is_composition():
    intra = LinkSpec(name="i", bw_bytes_per_s=450e9, latency_s=2e-6)
    inter = LinkSpec(name="e", bw_bytes_per_s=50e9, latency_s=5e-6)
    n, g, nodes = 1e9, 8, 16
    expected = ((g - 1) * 2e-6 + (g - 1) / g * n / 450e9) * 2
    shard = n / g
    expected += min(2 * (nodes - 1) * 5e-6 + 2 * (nodes - 1) / nodes * shard / 50e9,
                    2 * math.ceil(math.log2(nodes)) * 5e-6 + 2 * shard / 50e9)
    assert hierarchical_all_reduce_s(n, g, nodes, intra, inter) == pytest.approx(expected)


def test_placement_picks_the_link():
    c = make_cluster(gpu="h100", num_gpus=64, network="ib-ndr")
    n = 1e9
    # inside a node: NVLink ring (or tree), whichever is faster
    in_node = collective_time_s("all_reduce", n, c, size=8)
    assert in_node == pytest.approx(min(ring_all_reduce_s(n, 8, c.intra),
                                        tree_all_reduce_s(n, 8, c.intra)))
    # one rank per node: the NIC
    across = collective_time_s("all_gather", n, c, size=8, stride=8)
    assert across == pytest.approx(all_gather_s(n, 8, c.inter))
    assert across > collective_time_s("all_gather", n, c, size=8, stride=1)
    # auto is never worse than any named algorithm
    for size in (16, 64):
        auto = collective_time_s("all_reduce", n, c, size=size)
        for alg in ("ring", "tree", "hierarchical"):
            assert auto <= collective_time_s("all_reduce", n, c, size=size, algorithm=alg)


def test_oversubscription_slows_cross_pod_groups():
    flat = make_cluster(num_gpus=1024, nodes_per_pod=16)
    over = make_cluster(num_gpus=1024, nodes_per_pod=16, oversubscription=4.0)
    args = ("all_gather", 1e9)
    assert collective_time_s(*args, over, size=128, stride=8) > collective_time_s(
        *args, flat, size=128, stride=8)
    assert collective_time_s(*args, over, size=8, stride=8) == collective_time_s(
        *args, flat, size=8, stride=8)


def test_bad_inputs():
    c = make_cluster(num_gpus=16)
    with pytest.raises(ConfigError, match="unknown collective 'broadcast'"):
        collective_time_s("broadcast", 1.0, c, size=2)
    with pytest.raises(ConfigError, match="message size must be >= 0 bytes"):
        ring_all_reduce_s(-1.0, 4, LINK)
    with pytest.raises(ConfigError, match="group size must be a positive integer"):
        ring_all_reduce_s(1.0, 0, LINK)
    with pytest.raises(ConfigError, match="needs 32 GPUs but the cluster has 16"):
        collective_time_s("all_reduce", 1.0, c, size=4, stride=8)
    with pytest.raises(ConfigError, match="unknown algorithm 'magic'"):
        collective_time_s("all_reduce", 1.0, c, size=4, algorithm="magic")
    with pytest.raises(ConfigError, match="unknown network 'ethernet'"):
        make_cluster(num_gpus=8, network="ethernet")
    with pytest.raises(ConfigError, match="unknown GPU 'b200'"):
        make_cluster(gpu="b200", num_gpus=8)
    with pytest.raises(ConfigError, match="12 GPUs is not a whole number of 8-GPU nodes"):
        make_cluster(num_gpus=12)
    with pytest.raises(ConfigError, match="must be > 0"):
        LinkSpec(name="x", bw_bytes_per_s=0.0, latency_s=1e-6)


def test_hierarchical_all_to_all_closed_form():
    from archsim.sim.distributed import hierarchical_all_to_all_s

    intra = LinkSpec(name="i", bw_bytes_per_s=450e9, latency_s=2e-6)
    inter = LinkSpec(name="e", bw_bytes_per_s=50e9, latency_s=5e-6)
    n, g, nodes = 8e8, 8, 4
    p = g * nodes
    off = (p - g) * 5e-6 + (p - g) / p * n / 50e9
    on = (g - 1) * 2e-6 + (g - 1) / p * n / 450e9
    assert hierarchical_all_to_all_s(n, g, nodes, intra, inter) == pytest.approx(max(off, on))
    # one node: the NVLink pairwise exchange
    assert hierarchical_all_to_all_s(n, g, 1, intra, inter) == pytest.approx(
        (g - 1) * 2e-6 + (g - 1) / g * n / 450e9)
