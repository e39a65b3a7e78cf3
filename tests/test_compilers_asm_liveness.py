"""Register liveness: expected sets worked out by hand from the AAPCS64 rules (x0 and the
callee-saved registers are read at a return)."""

from archsim.compilers.asm.liveness import RETURN_LIVE, block_live_out, live_after, uses_defs
from archsim.compilers.asm.parse import parse


def _fn(src):
    return parse(".type f, %function\nf:\n" + src.replace(";", "\n") + "\n",
                 isa="aarch64").functions["f"]


def _ins(text):
    return _fn(text).instrs[0]


def test_uses_and_definitions_of_each_operand_form():
    cases = {
        "stp x29, x30, [sp, -16]!": ({"x29", "x30", "sp"}, {"sp"}),
        "ldp x19, x20, [sp, 16]": ({"sp"}, {"x19", "x20"}),
        "ldr x1, [x2], 8": ({"x2"}, {"x1", "x2"}),
        "movk x2, 5, lsl 16": ({"x2"}, {"x2"}),
        "str w0, [x1, x2, lsl 3]": ({"x0", "x1", "x2"}, set()),
        "csel x0, x1, x2, lt": ({"x1", "x2"}, {"x0"}),
        "cmp x3, xzr": ({"x3"}, set()),
        "bl g": ({f"x{i}" for i in range(8)} | {"sp"}, {"x30"}),
        "ret": (set(RETURN_LIVE), set()),
    }
    for text, (uses, defs) in cases.items():
        assert uses_defs(_ins(text)) == (uses, defs), text


def test_dead_temporaries_at_a_branch():
    fn = _fn("add x2, x0, x1; cmp x2, 10; b.lt .L2; mov x0, x2; ret; .L2:; mov x3, 5;"
             "add x0, x1, x3; ret")
    live = block_live_out(fn)
    # block 0 flows into `mov x0, x2; ret` (reads x2, defines x0) and into .L2 (reads x1,
    # defines x3 before reading it, defines x0): x0 and x3 are dead at its end
    assert live[0] == (RETURN_LIVE - {"x0"}) | {"x1", "x2"}
    assert live[1] == live[2] == frozenset()  # a return block has no successor
    after = live_after(fn.instrs[:3], live[0])
    assert after[0] == live[0]  # the compare reads x2, which is live anyway


def test_a_loop_carries_its_registers_around_the_back_edge():
    fn = _fn("mov x1, 0; .L3:; add x1, x1, x0; sub x0, x0, 1; cbnz x0, .L3; mov x0, x1; ret")
    live = block_live_out(fn)
    assert {"x0", "x1"} <= live[1] and {"x0", "x1"} <= live[0]
    assert "x2" not in live[0] | live[1]


def test_a_register_read_only_as_w_needs_its_low_half():
    from archsim.compilers.asm.liveness import block_live_widths, live_widths_after

    fn = _fn("ldr w1, [x0]; add w3, w1, 7; b .L2; .L2:; add w0, w1, w3; ret")
    live = block_live_widths(fn)
    # block 1 reads w1 and w3 (low halves); x0 is redefined there before the return reads it
    assert {r: live[0][r] for r in ("x1", "x3")} == {"x1": 32, "x3": 32}
    assert "x0" not in live[0] and live[0]["x19"] == 64
    after = live_widths_after(fn.instrs[:3], live[0])
    assert after[0]["x1"] == 32 and "x3" not in after[0]  # add w3 defines x3 after the load
