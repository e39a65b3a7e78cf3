"""archsim.hw.models.energy: Stillmaker & Baas's node scaling."""

import pytest

from archsim.errors import ConfigError
from archsim.hw.models.energy import stillmaker_energy_scale, stillmaker_nodes


def test_stillmaker_scale_reproduces_the_papers_erratum_example():
    # Stillmaker & Baas's published erratum: 1 pJ/op at 65 nm, 1.3 V is
    # 0.4571 / 2.604 * 1 pJ = 0.1755 pJ/op at (HP) 32 nm, 0.9 V.
    # (the erratum rounds its factors to 0.4571 and 2.604, hence the tolerance).
    assert stillmaker_energy_scale("65", 1.3, "HP32", 0.9) == pytest.approx(0.1755, abs=1e-4)
    # Same node and voltage: exactly 1; and the two directions are inverses.
    assert stillmaker_energy_scale("HP14", 0.8, "HP14", 0.8) == 1.0
    there = stillmaker_energy_scale("HP45", 0.9, "HP14", 0.8)
    assert there * stillmaker_energy_scale("HP14", 0.8, "HP45", 0.9) == pytest.approx(1.0)
    assert "HP14" in stillmaker_nodes() and len(stillmaker_nodes()) == 18


def test_stillmaker_scale_errors_name_the_field():
    with pytest.raises(ConfigError, match="unknown technology node '12'") as info:
        stillmaker_energy_scale("HP45", 0.9, "12", 0.8)
    assert info.value.field == "to_node" and "HP14" in info.value.allowed
    with pytest.raises(ConfigError, match="voltage must be a positive number of volts, not -1"):
        stillmaker_energy_scale("HP45", -1, "HP14", 0.8)
