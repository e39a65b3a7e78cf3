"""The program encoding: field positions against BUS.md's bit layout, exact errors, round trips."""

import numpy as np
import pytest

from archsim.hw.accel.isa import (
    Halt,
    Opcode,
    Run,
    SetOperatingPoint,
    Wait,
    decode,
    encode,
    encode_dvfs,
    encode_halt,
    encode_run,
    encode_wait,
)


def header(opcode, a, imm):
    # BUS.md: bits [28:32] opcode, [20:28] a, [0:16] imm, written out as a sum of bit weights.
    return opcode * 2**28 + a * 2**20 + imm


def test_words_match_the_bus_md_layout():
    assert encode_run(3, [7, 65535]) == [header(1, 3, 2), 7, 65535]
    assert encode_run(255, []) == [header(1, 255, 0)]
    assert encode_dvfs(2, 65535) == [header(2, 2, 65535)]
    assert encode_halt() == [0xF000_0000]
    assert encode([Run(1, (10, 20)), SetOperatingPoint(0, 2), Halt()]) == \
        [header(1, 1, 2), 10, 20, header(2, 0, 2), header(15, 0, 0)]


@pytest.mark.parametrize("bit", range(8))
def test_each_bit_of_field_a_lands_at_bit_20_plus(bit):
    assert encode_dvfs(1 << bit, 0) == [(2 << 28) | (1 << (20 + bit))]
    assert decode([(1 << 28) | (1 << (20 + bit))]) == [Run(1 << bit, ())]


@pytest.mark.parametrize("bit", range(16))
def test_each_bit_of_field_imm_lands_at_bit_0_plus(bit):
    assert encode_dvfs(0, 1 << bit) == [(2 << 28) | (1 << bit)]
    assert decode([(2 << 28) | (1 << bit)]) == [SetOperatingPoint(0, 1 << bit)]


def test_opcode_values():
    assert (Opcode.RUN, Opcode.DVFS, Opcode.HALT) == (0x1, 0x2, 0xF)


@pytest.mark.parametrize("opcode", range(16))
def test_every_opcode_nibble_decodes_or_is_rejected(opcode):
    word = opcode << 28
    if opcode in (0x1, 0x2, 0x3, 0xF):  # RUN, DVFS, WAIT, HALT
        assert encode(decode([word])) == [word]
    else:
        with pytest.raises(ValueError, match=rf"words\[0\]: unknown opcode 0x{opcode:X} "):
            decode([word])


@pytest.mark.parametrize("call, exc, message", [
    (lambda: encode_run(256, []), ValueError, "unit must be in 0..255, not 256"),
    (lambda: encode_run(-1, []), ValueError, "unit must be in 0..255, not -1"),
    (lambda: encode_run(True, []), TypeError, "unit must be an int, not True"),
    (lambda: encode_run(0, [1, 1 << 32]), ValueError,
     r"args\[1\] must be in 0..4294967295, not 4294967296"),
    (lambda: encode_run(0, [-1]), ValueError, r"args\[0\] must be in 0..4294967295, not -1"),
    (lambda: encode_run(0, [1.0]), TypeError, r"args\[0\] must be an int, not 1.0"),
    (lambda: encode_run(0, [0] * 65536), ValueError,
     "a RUN takes at most 65535 argument words, not 65536"),
    (lambda: encode_dvfs(256, 0), ValueError, "domain must be in 0..255, not 256"),
    (lambda: encode_dvfs(0, 65536), ValueError, "op must be in 0..65535, not 65536"),
    (lambda: Run(300, ()), ValueError, "unit must be in 0..255, not 300"),
    (lambda: SetOperatingPoint(0, -2), ValueError, "op must be in 0..65535, not -2"),
    (lambda: encode([Halt(), "halt"]), TypeError,
     r"instructions\[1\] must be a Run, SetOperatingPoint, Wait or Halt, not 'halt'"),
])
def test_encoder_errors_are_exact(call, exc, message):
    with pytest.raises(exc, match=f"^{message}$"):
        call()


@pytest.mark.parametrize("words, message", [
    ([2**32], r"words\[0\] must be in 0..4294967295, not 4294967296"),
    ([header(1, 0, 1), 5, 0x3_0000], None),  # the RUN is fine, the next word is opcode 0
    ([header(1, 4, 3), 1, 2], r"words\[0\]: RUN of unit 4 needs 3 argument words, only 2 follow"),
    ([header(2, 0, 0) | (1 << 17)], r"words\[0\]: reserved header bits \[16:20\] are 0x2, not 0"),
    ([encode_halt()[0], header(15, 1, 0)], r"words\[1\]: HALT has a=1, imm=0; both must be 0"),
])
def test_decoder_errors_are_exact(words, message):
    if message is None:
        with pytest.raises(ValueError, match=r"^words\[2\]: unknown opcode 0x0 "):
            decode(words)
    else:
        with pytest.raises(ValueError, match=f"^{message}$"):
            decode(words)


def random_program(rng):
    out = []
    for _ in range(rng.integers(0, 12)):
        kind = rng.integers(0, 3)
        if kind == 0:
            nargs = int(rng.integers(0, 6))
            out.append(Run(int(rng.integers(0, 256)),
                           tuple(int(v) for v in rng.integers(0, 65536, nargs))))
        elif kind == 1:
            out.append(SetOperatingPoint(int(rng.integers(0, 256)), int(rng.integers(0, 65536))))
        else:
            out.append(Halt())
    return out


def test_random_programs_round_trip():
    rng = np.random.default_rng(12)
    for _ in range(500):
        program = random_program(rng)
        words = encode(program)
        assert len(words) == sum(1 + len(i.args) if isinstance(i, Run) else 1 for i in program)
        assert decode(words) == program


def test_any_accepted_word_list_re_encodes_to_itself():
    # Random words biased towards valid headers: decode either rejects them or is exact.
    rng = np.random.default_rng(5)
    accepted = 0
    for _ in range(3000):
        n = int(rng.integers(1, 6))
        words = []
        for _ in range(n):
            choice = rng.integers(0, 4)
            if choice == 0:
                words.append(int(rng.integers(0, 2**32)))
            elif choice == 1:
                words.append(int(rng.integers(0, 4)))  # a small argument word
            else:
                words.append(header(int(rng.choice([1, 2, 15, 3])), int(rng.integers(0, 3)),
                                    int(rng.integers(0, 3))))
        try:
            program = decode(words)
        except ValueError:
            continue
        accepted += 1
        assert encode(program) == words
    assert accepted > 100  # the property was exercised, not vacuously true


def test_numpy_integers_are_accepted():
    args = np.array([1, 2, 3], dtype=np.int64)
    assert encode_run(np.uint8(4), args) == [header(1, 4, 3), 1, 2, 3]
    assert Run(1, tuple(args)).args == (1, 2, 3)
    assert decode(np.array([header(2, 1, 1)], dtype=np.uint32)) == [SetOperatingPoint(1, 1)]


# -- the async flag (header bit 16 of a RUN) and WAIT (opcode 0x3) ----------------------------

def test_async_flag_is_bit_16_and_wait_is_opcode_3():
    assert encode_run(3, [7], wait=False) == [header(1, 3, 1) + 2**16, 7]
    assert encode_run(3, [7], wait=True) == encode_run(3, [7]) == [header(1, 3, 1), 7]
    assert encode_wait() == [header(3, 0, 0)] == Wait().words()
    assert Opcode.WAIT == 0x3
    assert Run(2, (1,), wait=False).words() == [header(1, 2, 1) + 2**16, 1]
    assert decode([header(1, 2, 1) + 2**16, 1]) == [Run(2, (1,), wait=False)]
    assert decode([header(1, 2, 1), 1]) == [Run(2, (1,))] != [Run(2, (1,), wait=False)]
    assert decode([header(3, 0, 0)]) == [Wait()]


def test_repr_of_a_synchronous_run_is_unchanged():
    assert repr(Run(1, (2,))) == "Run(unit=1, args=(2,))"
    assert repr(Run(1, (2,), wait=False)) == "Run(unit=1, args=(2,), wait=False)"


@pytest.mark.parametrize("words, message", [
    ([header(1, 0, 0) | (1 << 17)], r"words\[0\]: reserved header bits \[16:20\] are 0x2, not 0"),
    ([header(1, 0, 0) | (3 << 16)], r"words\[0\]: reserved header bits \[16:20\] are 0x2, not 0"),
    # DVFS bit 16 is the indirect flag (an indirect DVFS's imm must be 0); bit 17 stays reserved
    ([header(2, 0, 3) | (1 << 16)],
     r"words\[0\]: an indirect DVFS has imm=3; it must be 0 \(the point is the DVFS-select register's\)"),
    ([header(2, 0, 0) | (3 << 16)], r"words\[0\]: reserved header bits \[16:20\] are 0x2, not 0"),
    ([header(15, 0, 0) | (1 << 16)], r"words\[0\]: reserved header bits \[16:20\] are 0x1, not 0"),
    ([header(3, 0, 0) | (1 << 16)], r"words\[0\]: reserved header bits \[16:20\] are 0x1, not 0"),
    ([header(3, 1, 0)], r"words\[0\]: WAIT has a=1, imm=0; both must be 0"),
    ([header(3, 0, 2)], r"words\[0\]: WAIT has a=0, imm=2; both must be 0"),
])
def test_async_and_wait_decoder_errors_are_exact(words, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        decode(words)


@pytest.mark.parametrize("call, message", [
    (lambda: encode_run(0, [], wait=1), "wait must be a bool, not 1"),
    (lambda: Run(0, (), wait=None), "wait must be a bool, not None"),
])
def test_wait_must_be_a_bool(call, message):
    with pytest.raises(TypeError, match=f"^{message}$"):
        call()


def test_random_async_programs_round_trip():
    rng = np.random.default_rng(13)
    for _ in range(500):
        program = []
        for _ in range(rng.integers(0, 12)):
            kind = rng.integers(0, 3)
            if kind == 0:
                program.append(Run(int(rng.integers(0, 256)),
                                   tuple(int(v) for v in rng.integers(0, 65536,
                                                                      rng.integers(0, 4))),
                                   wait=bool(rng.integers(0, 2))))
            else:
                program.append(Wait() if kind == 1 else Halt())
        words = encode(program)
        assert decode(words) == program and encode(decode(words)) == words
        # The flag is exactly bit 16 of each RUN header.
        flags = [w >> 16 & 1 for w in words if w >> 28 == 1]
        assert flags == [int(not i.wait) for i in program if isinstance(i, Run)]


# -- the indirect DVFS (header bit 16 of a DVFS: the DVFS-select register's point) ---------

def test_indirect_dvfs_is_bit_16_with_imm_0():
    assert encode_dvfs(5, None) == [header(2, 5, 0) + 2**16]
    assert SetOperatingPoint(5, None).words() == [header(2, 5, 0) + 2**16]
    assert SetOperatingPoint(5).indirect and not SetOperatingPoint(5, 0).indirect
    assert decode([header(2, 5, 0) + 2**16]) == [SetOperatingPoint(5, None)]
    # op 0 and "indirect" are different words
    assert encode_dvfs(5, 0) != encode_dvfs(5, None)
    assert repr(SetOperatingPoint(1, None)) == "SetOperatingPoint(domain=1, op=None)"


def test_random_programs_with_indirect_switches_round_trip():
    rng = np.random.default_rng(17)
    for _ in range(500):
        program = []
        for _ in range(rng.integers(0, 12)):
            kind = rng.integers(0, 4)
            domain = int(rng.integers(0, 256))
            if kind == 0:
                # arguments below 2**28, so no argument word looks like a DVFS header below
                program.append(Run(int(rng.integers(0, 256)), (int(rng.integers(0, 2**28)),),
                                   wait=bool(rng.integers(0, 2))))
            elif kind == 1:
                program.append(SetOperatingPoint(domain, int(rng.integers(0, 65536))))
            elif kind == 2:
                program.append(SetOperatingPoint(domain, None))
            else:
                program.append(Wait())
        program.append(Halt())
        words = encode(program)
        assert decode(words) == program and encode(decode(words)) == words
        flags = [w >> 16 & 1 for w in words if w >> 28 == 2]
        assert flags == [int(i.op is None) for i in program if isinstance(i, SetOperatingPoint)]
