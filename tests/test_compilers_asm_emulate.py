"""Emulated corpus functions give the results of independent Python implementations."""

import math

import numpy as np
import pytest

from archsim.compilers.asm.corpus import VARIANTS, load_corpus
from archsim.compilers.asm.emulate import Inputs, random_inputs, run_function
from archsim.errors import ConfigError

M64 = (1 << 64) - 1
UNITS = {u.name: u for u in load_corpus()}


def _i64(buf: bytes) -> list[int]:
    return np.frombuffer(buf, dtype="<i8").tolist()


def _collatz(n):
    x, s = n + 1, 0
    while x != 1:
        x, s = (3 * x + 1 if x & 1 else x // 2), s + 1
    return s


def _hash_mix(x):
    x ^= x >> 33
    x = (x * 0x45D9F3B) & M64
    x ^= x >> 29
    x = (x * 0x119DE1F3) & M64
    return x ^ (x >> 32)


# name -> f(args, buffers) -> (return value, final buffers or None to skip the check)
REFERENCE = {
    "gcd": lambda a, b: (math.gcd(a[0], a[1]), None),
    "popcount": lambda a, b: (bin(a[0]).count("1"), None),
    "fib": lambda a, b: (_fib(a[0]), None),
    "collatz_steps": lambda a, b: (_collatz(a[0]), None),
    "hash_mix": lambda a, b: (_hash_mix(a[0]), None),
    "is_prime": lambda a, b: (int(a[0] >= 2 and all(a[0] % d for d in range(2, math.isqrt(a[0]) + 1))), None),
    "euler1": lambda a, b: (sum(i for i in range(a[0] * 10) if i % 3 == 0 or i % 5 == 0), None),
    "array_sum": lambda a, b: (sum(_i64(b[0])[: a[1]]), None),
    "dot": lambda a, b: (int(np.dot(_i64(b[0])[: a[2]], _i64(b[1])[: a[2]])), None),
    "bubble_sort": lambda a, b: (a[1], [sorted(_i64(b[0])[: a[1]]) + _i64(b[0])[a[1]:]]),
    "to_upper": lambda a, b: (sum(97 <= c <= 122 for c in b[0][: a[1]]),
                              [bytes(c - 32 if 97 <= c <= 122 else c for c in b[0][: a[1]]) + b[0][a[1]:]]),
}


def _fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_emulated_function_matches_python(name, variant):
    unit = UNITS[name]
    code = unit.variants[variant]
    rng = np.random.default_rng(7)
    for _ in range(6):
        inputs = random_inputs(unit.args, rng=rng)
        args = list(inputs.args)
        result = run_function(isa=code.isa, text=code.text, base=code.base,
                              entry=code.symbols[name], inputs=inputs)
        assert result.status == "ok", result.message
        want_ret, want_bufs = REFERENCE[name](args, inputs.buffers)
        assert result.ret == want_ret & M64, (name, variant, inputs)
        if want_bufs is not None:
            got = [_i64(result.buffers[0])] if unit.args[0][1] == "ptr_i64" else [result.buffers[0]]
            assert got == want_bufs


def test_both_isas_and_levels_agree_on_every_unit():
    rng = np.random.default_rng(1)
    for unit in UNITS.values():
        inputs = random_inputs(unit.args, rng=rng)
        runs = [run_function(isa=v.isa, text=v.text, base=v.base, entry=v.symbols[unit.name],
                             inputs=inputs) for v in unit.variants.values()]
        assert all(runs[0].same_as(r) for r in runs[1:]), unit.name


def test_fault_and_timeout_are_reported():
    loop = bytes.fromhex("00000014")  # AArch64 `b .`
    res = run_function(isa="aarch64", text=loop, base=0x10000, entry=0x10000,
                       inputs=Inputs((1,)), max_instructions=1000)
    assert res.status == "timeout"
    load = bytes.fromhex("000040f9")  # ldr x0, [x0]
    res = run_function(isa="aarch64", text=load, base=0x10000, entry=0x10000,
                       inputs=Inputs((0x123456789,)))
    assert res.status == "fault"


def test_bad_arguments_are_config_errors():
    with pytest.raises(ConfigError, match="unknown ISA 'mips'"):
        run_function(isa="mips", text=b"", base=0, entry=0, inputs=Inputs(()))
    with pytest.raises(ConfigError, match="1 pointer arguments but 0 buffers"):
        run_function(isa="riscv64", text=b"\x00" * 4, base=0x10000, entry=0x10000,
                     inputs=Inputs((None,)))
