"""The shared validated field types: exact messages, the field named, bools refused."""

from typing import Annotated

import numpy as np
import pytest
from pydantic import BeforeValidator, ValidationError

from archsim.errors import ConfigError
from archsim.fields import Config, PositiveInt, PositiveIntOrNone, check, is_number, one_of


class _Sample(Config):
    count: PositiveInt = 1
    heads: PositiveIntOrNone = None
    mode: Annotated[str, BeforeValidator(one_of(("a", "b"), "unknown mode '{v}'"))] = "a"
    rate: Annotated[float, BeforeValidator(check(lambda v: is_number(v) and v > 0,
                                                 "must be > 0, not {v!r}", field="rate_hz"))] = 1.0


@pytest.mark.parametrize("bad", [0, -3, True, 2.0, "4"])
def test_positive_int_rejects_non_positive_non_int_and_bool(bad):
    with pytest.raises(ConfigError, match=r"must be a positive integer, not ") as e:
        _Sample(count=bad)
    assert e.value.field == "count"


def test_valid_values_pass_and_config_is_frozen_and_closed():
    s = _Sample(count=3, heads=None, mode="b", rate=np.float32(2.5))
    assert (s.count, s.heads, s.mode) == (3, None, "b")
    with pytest.raises(ValidationError, match="frozen"):
        s.count = 4  # type: ignore[misc]
    with pytest.raises(ValidationError, match="extra"):
        _Sample(unknown=1)  # type: ignore[call-arg]


def test_one_of_names_allowed_values_and_check_can_rename_the_field():
    with pytest.raises(ConfigError, match="unknown mode 'c'") as e:
        _Sample(mode="c")
    assert e.value.allowed == ("a", "b") and e.value.field == "mode"
    with pytest.raises(ConfigError, match=r"must be > 0, not -1") as e:
        _Sample(rate=-1)
    assert e.value.field == "rate_hz"
    assert not is_number(True) and is_number(np.int64(3))
