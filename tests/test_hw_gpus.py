"""GPU datasheets and the roofline model."""

import pytest

from archsim.compilers.graph import TensorSpec, matmul
from archsim.errors import ConfigError
from archsim.hw.models import HardwareModel
from archsim.hw.models.gpu import GPURoofline, get_gpu


def test_aliases_and_unknown_names():
    assert get_gpu("A100").name == "a100-80gb"
    with pytest.raises(ConfigError, match="unknown GPU 'v100'") as info:
        get_gpu("v100")
    assert info.value.field == "gpu"


def test_roofline_picks_the_binding_limit():
    spec = get_gpu("h100-80gb")
    model = GPURoofline(spec, dtype="fp16", compute_efficiency=0.5, memory_efficiency=0.8)
    assert isinstance(model, HardwareModel)
    m = n = k = 8192  # large square GEMM: compute bound
    a = TensorSpec("a", (m, k))
    b = TensorSpec("b", (k, n), role="weight")
    op = matmul("gemm", a, b, "c", m=m, n=n, k=k)
    cost = model.operator_cost(op)
    assert cost.bound == "compute"
    assert cost.latency_s == pytest.approx(2 * m * n * k / (989.4e12 * 0.5))
    assert cost.energy_j == pytest.approx(cost.latency_s * 700.0)
    # A matrix-vector product is memory bound: 2 bytes per weight over 80% of 3.35 TB/s.
    gemv = matmul("gemv", TensorSpec("x", (1, k)), b, "y", m=1, n=n, k=k)
    cost = model.operator_cost(gemv)
    assert cost.bound == "memory"
    assert cost.latency_s == pytest.approx((k + k * n + n) * 2 / (3.35e12 * 0.8))


def test_roofline_rejects_bad_parameters():
    with pytest.raises(ConfigError, match="must be in \\(0, 1\\], not 1.5"):
        GPURoofline(get_gpu("a100"), compute_efficiency=1.5)
    with pytest.raises(ConfigError, match="no peak rate for data type 'fp8'"):
        GPURoofline(get_gpu("a100"), dtype="fp8")
