"""The error hierarchy's messages carry what the user needs to act."""

from archsim.errors import (
    ArchsimError,
    ConfigError,
    DSLError,
    SimulationError,
    ToolchainError,
)


def test_dsl_error_points_at_file_line_col_with_hint():
    err = DSLError("while loops need a bound", filename="k.py", lineno=12, col=4,
                   hint="write `for i in range(n)`")
    assert str(err) == "k.py:12:4: while loops need a bound (hint: write `for i in range(n)`)"
    assert isinstance(err, ArchsimError)


def test_config_error_names_file_field_and_allowed_values():
    err = ConfigError("unknown policy 'fifo'", file="soc.toml", field="memory.policy",
                      allowed=["dma", "acp"])
    assert str(err) == ("soc.toml: field 'memory.policy': unknown policy 'fifo' "
                        "(allowed: 'acp', 'dma')")
    assert err.field == "memory.policy"


def test_simulation_error_names_signal_cycle_expected_actual():
    err = SimulationError("output mismatch", signal="c", cycle=7, expected=5, actual=4)
    assert str(err) == "output mismatch (signal 'c', cycle 7, expected 5, actual 4)"
    assert (err.signal, err.cycle, err.expected, err.actual) == ("c", 7, 5, 4)


def test_toolchain_error_says_what_to_install():
    err = ToolchainError("no C++ compiler found", install="g++ (apt-get install g++)")
    assert str(err) == "no C++ compiler found; install g++ (apt-get install g++)"
