"""The bitmask sparse format and its decoder: host functions vs an independent per-row
formulation, RTL (pysim) == golden, cycles measured == formula, packed reads counted."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from archsim.hw.accel.bitmask import (
    BitmaskDecode,
    BitmaskEncode,
    bitmask_decode_reference,
    bitmask_encode,
    bitmask_packed_reads,
)
from archsim.hw.checks import silence_unused
from archsim.sim.rtl.unit_run import run_unit

AW = 5  # 32 rows of 4 lanes per buffer keeps pysim fast
LANES = 4


def encode_by_rows(dense):
    """Independent encoder: a loop over rows with np.flatnonzero and explicit bit weights."""
    dense = np.asarray(dense, dtype=np.int64)
    masks, values = [], []
    for row in dense:
        idx = np.flatnonzero(row)
        masks.append(int(sum(2 ** int(i) for i in idx)))
        values.extend(int(v) for v in row[idx])
    lanes = dense.shape[1]
    pad = (-len(values)) % lanes
    return np.array(masks, dtype=np.int64), np.array(values + [0] * pad, dtype=np.int64)


def decode_by_rows(masks, packed, lanes):
    """Independent decoder: walk the masks bit by bit with a cursor into packed."""
    out, cursor = [], 0
    for mask in masks:
        row = []
        for i in range(lanes):
            if (int(mask) >> i) & 1:
                row.append(int(packed[cursor]))
                cursor += 1
            else:
                row.append(0)
        out.append(row)
    return np.array(out, dtype=np.int64).reshape(len(masks), lanes)


def sparse(rng, rows, lanes, density):
    codes = rng.integers(1, 256, (rows, lanes))
    return np.where(rng.random((rows, lanes)) < density, codes, 0).astype(np.int64)


# --- host side ---------------------------------------------------------------------------

def test_hand_example():
    dense = np.array([[0, 7, 0, 9], [0, 0, 0, 0], [1, 2, 3, 4], [5, 0, 0, 0]])
    masks, packed = bitmask_encode(dense)
    assert masks.tolist() == [0b1010, 0, 0b1111, 0b0001]
    assert packed.tolist() == [7, 9, 1, 2, 3, 4, 5, 0]
    assert bitmask_decode_reference(masks, packed, 4).tolist() == dense.tolist()


def test_all_masks_at_four_lanes_exhaustively():
    # every one of the 2**4 masks, each row's nonzeros numbered so misplacements show
    dense = np.array([[(16 * m + i + 1) if (m >> i) & 1 else 0 for i in range(4)]
                      for m in range(16)])
    masks, packed = bitmask_encode(dense)
    assert masks.tolist() == list(range(16))
    exp_masks, exp_packed = encode_by_rows(dense)
    assert packed.tolist() == exp_packed.tolist()
    assert len(packed) == 32  # 32 nonzeros in all: a whole number of rows, no padding
    assert bitmask_decode_reference(masks, packed, 4).tolist() == dense.tolist()
    # and every ordered pair of masks, packed back to back
    for a, b in itertools.product(range(16), repeat=2):
        pair = dense[[a, b]]
        m2, p2 = bitmask_encode(pair)
        assert bitmask_decode_reference(m2, p2, 4).tolist() == pair.tolist()
        assert decode_by_rows(m2, p2, 4).tolist() == pair.tolist()


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(0, 20), lanes=st.sampled_from([1, 3, 4, 16, 32]),
       density=st.floats(0.0, 1.0), seed=st.integers(0, 2**31))
def test_round_trip_and_independent_formulation(rows, lanes, density, seed):
    dense = sparse(np.random.default_rng(seed), rows, lanes, density)
    masks, packed = bitmask_encode(dense)
    exp_masks, exp_packed = encode_by_rows(dense) if rows else (np.zeros(0), np.zeros(0))
    assert masks.tolist() == exp_masks.tolist()
    assert packed.tolist() == exp_packed.tolist()
    assert len(packed) % lanes == 0 and len(packed) - np.count_nonzero(dense) < lanes
    assert bitmask_decode_reference(masks, packed, lanes).tolist() == dense.tolist()
    if rows:
        assert decode_by_rows(masks, packed, lanes).tolist() == dense.tolist()


def test_negative_zero_code_is_kept():
    dense = np.array([[0x80, 0, 0, 0x00]])
    masks, packed = bitmask_encode(dense)
    assert masks.tolist() == [1] and packed.tolist() == [0x80, 0, 0, 0]


@pytest.mark.parametrize("call, message", [
    (lambda: bitmask_encode(np.zeros(4)), "bitmask_encode: dense must be 2-D (rows, lanes), "
                                          "not shape (4,)"),
    (lambda: bitmask_encode(np.zeros((2, 33), int)),
     "bitmask_encode: dense must have 1..32 lanes (columns), not 33"),
    (lambda: bitmask_encode(np.array([[256]])),
     "bitmask_encode: dense must hold integer codes in 0..255"),
    (lambda: bitmask_encode(np.array([[-1]])),
     "bitmask_encode: dense must hold integer codes in 0..255"),
    (lambda: bitmask_encode(np.array([[0.5]])),
     "bitmask_encode: dense must hold integer codes in 0..255"),
    (lambda: bitmask_decode_reference(np.array([3]), np.array([1]), 4),
     "bitmask_decode_reference: the masks select 2 codes; packed holds 1"),
    (lambda: bitmask_decode_reference(np.array([16]), np.array([1]), 4),
     "masks must be integers in 0..15 (4 lanes)"),
    (lambda: bitmask_decode_reference(np.array([[1]]), np.array([1]), 4),
     "masks must be 1-D (one per row), not shape (1, 1)"),
    (lambda: bitmask_decode_reference(np.array([1]), np.array([1]), 0),
     "lanes must be in 1..32, not 0"),
])
def test_host_errors(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


# --- the unit ----------------------------------------------------------------------------

def place(size, at, values):
    out = np.zeros(size, np.int64)
    out[at:at + len(values)] = values
    return out


def run_case(dense, *, mask_addr=3, packed_addr=8, dst_addr=4, stall=0.0, seed=0):
    unit = BitmaskDecode(lanes=LANES, addr_width=AW)
    masks, packed = bitmask_encode(dense)
    rows = len(dense)
    args = dict(mask_addr=mask_addr, packed_addr=packed_addr, dst_addr=dst_addr, rows=rows)
    # junk after the packed codes: the decoder must not take any of it
    bufs = {"mask": place(32, mask_addr, masks),
            "packed": place(128, packed_addr, np.r_[packed, np.full(LANES * 3, 0x5A)]),
            "dst": np.full(128, 0xEE, np.int64)}
    gold = {k: v.copy() for k, v in bufs.items()}
    unit.golden(gold, args)
    res = run_unit(unit, bufs, args, stall_probability=stall, seed=seed)
    return unit, args, res, gold


@pytest.mark.parametrize("density", [0.0, 0.25, 0.5, 1.0, "random"])
def test_rtl_equals_golden_and_reference(density):
    rng = np.random.default_rng(7)
    rows = 9
    if density == "random":
        dense = np.vstack([sparse(rng, 1, LANES, d) for d in rng.random(rows)])
    else:
        dense = sparse(rng, rows, LANES, density)
    unit, args, res, gold = run_case(dense)
    got = res.buffers["dst"][4:4 + rows * LANES].reshape(rows, LANES)
    assert got.tolist() == dense.tolist()
    assert np.array_equal(res.buffers["dst"], gold["dst"])
    # nothing outside the footprint is written
    assert (res.buffers["dst"][:4] == 0xEE).all() and (res.buffers["dst"][40:] == 0xEE).all()
    assert res.cycles == rows + 3 == unit.cycles(args)


def test_rtl_every_mask_in_sequence_and_reversed():
    dense = np.array([[(16 * m + i + 1) if (m >> i) & 1 else 0 for i in range(4)]
                      for m in range(16)])
    for order in (dense, dense[::-1]):
        _, args, res, gold = run_case(order[:7], dst_addr=0)
        assert res.buffers["dst"][:28].reshape(7, 4).tolist() == order[:7].tolist()
        assert res.cycles == 7 + 3
    _, _, res, _ = run_case(dense[6:], mask_addr=0, packed_addr=0, dst_addr=0)
    assert res.buffers["dst"][:40].reshape(10, 4).tolist() == dense[6:].tolist()



@pytest.mark.parametrize("lanes", [2, 8, 16])
def test_rtl_at_other_lane_counts(lanes):
    rng = np.random.default_rng(lanes)
    rows = 12
    dense = np.vstack([sparse(rng, 1, lanes, d) for d in rng.random(rows)])
    masks, packed = encode_by_rows(dense)
    unit = BitmaskDecode(lanes=lanes, addr_width=4)
    args = dict(mask_addr=2, packed_addr=lanes, dst_addr=2 * lanes, rows=rows)
    bufs = {"mask": place(16, 2, masks), "packed": place(16 * lanes, lanes, packed),
            "dst": np.zeros(16 * lanes, np.int64)}
    res = run_unit(unit, bufs, args)
    got = res.buffers["dst"][2 * lanes:(2 + rows) * lanes].reshape(rows, lanes)
    assert got.tolist() == decode_by_rows(masks, packed, lanes).tolist() == dense.tolist()
    assert res.cycles == rows + 3


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 24), density=st.floats(0.0, 1.0), seed=st.integers(0, 2**31),
       mask_addr=st.integers(0, 8), packed_row=st.integers(0, 4), dst_row=st.integers(0, 7))
def test_rtl_random_tiles(rows, density, seed, mask_addr, packed_row, dst_row):
    dense = sparse(np.random.default_rng(seed), rows, LANES, density)
    _, args, res, gold = run_case(dense, mask_addr=mask_addr, packed_addr=packed_row * LANES,
                                  dst_addr=dst_row * LANES)
    d0 = dst_row * LANES
    assert res.buffers["dst"][d0:d0 + rows * LANES].reshape(rows, LANES).tolist() == \
        dense.tolist()
    assert np.array_equal(res.buffers["dst"], gold["dst"])
    assert res.cycles == rows + 3

def test_single_row_and_stalls():
    rng = np.random.default_rng(3)
    unit, args, res, _ = run_case(sparse(rng, 1, LANES, 0.5))
    assert res.cycles == 4 == unit.cycles(args)
    dense = sparse(rng, 12, LANES, 0.6)
    _, args, still, _ = run_case(dense)
    _, _, stalled, _ = run_case(dense, stall=0.3, seed=5)
    assert stalled.stall_cycles > 0
    assert np.array_equal(stalled.buffers["dst"], still.buffers["dst"])
    assert stalled.cycles == still.cycles == 12 + 3


def count_reads(unit, masks, packed_rows, args):
    """Drive the unit with memories modelled in the testbench; return the packed row
    addresses it read, the dense rows it wrote and the cycles to done."""
    from amaranth.sim import Simulator

    lanes = unit.lanes
    log: dict[str, object] = {}

    async def bench(ctx):
        for name, value in args.items():
            ctx.set(getattr(unit, f"arg_{name}"), value)
        ctx.set(unit.start, 1)
        reads, writes, cycles = [], {}, 0
        while True:
            if cycles and ctx.get(unit.done):
                break
            men, maddr = ctx.get(unit.mask.en), ctx.get(unit.mask.addr)
            pen, paddr = ctx.get(unit.packed.en), ctx.get(unit.packed.addr)
            if ctx.get(unit.dst.en):
                writes[ctx.get(unit.dst.addr)] = ctx.get(unit.dst.data)
            await ctx.tick()
            ctx.set(unit.start, 0)
            cycles += 1
            if men:
                ctx.set(unit.mask.data, int(masks[maddr - args["mask_addr"]]))
            if pen:
                reads.append(paddr)
                row = packed_rows.get(paddr, [0x33] * lanes)
                ctx.set(unit.packed.data, sum(int(v) << (8 * i) for i, v in enumerate(row)))
        log.update(reads=reads, writes=writes, cycles=cycles)

    sim = Simulator(unit)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return log["reads"], log["writes"], log["cycles"]


@pytest.mark.parametrize("density", [0.0, 0.3, 0.7, 1.0])
def test_packed_reads_follow_the_policy(density):
    rng = np.random.default_rng(int(density * 10))
    rows = 10
    dense = sparse(rng, rows, LANES, density)
    masks, packed = bitmask_encode(dense)
    unit = BitmaskDecode(lanes=LANES, addr_width=AW)
    base = 2  # packed row address
    packed_rows = {base + j: packed[j * LANES:(j + 1) * LANES]
                   for j in range(len(packed) // LANES)}
    args = dict(mask_addr=1, packed_addr=base * LANES, dst_addr=0, rows=rows)
    reads, writes, cycles = count_reads(unit, masks, packed_rows, args)
    assert cycles == rows + 3
    assert reads == list(range(base, base + len(reads)))  # consecutive rows, no repeats
    assert len(reads) == bitmask_packed_reads(masks, LANES)
    need = -(-np.count_nonzero(dense) // LANES)
    assert max(need, 1) <= len(reads) <= rows
    got = [[(writes[r] >> (8 * i)) & 0xFF for i in range(LANES)] for r in range(rows)]
    assert got == dense.tolist()


def test_packed_reads_closed_cases():
    # dense: one packed row per row; all zero: only the first read
    assert bitmask_packed_reads(np.full(8, 15), 4) == 8
    assert bitmask_packed_reads(np.zeros(8, int), 4) == 1
    # half: 2 codes left after rows 0, 2, 4, 6 (each under 4: a read), 4 after the others;
    # the read after row 6 is one more than the 16 codes need (the policy looks no further)
    assert bitmask_packed_reads(np.full(8, 0b0011), 4) == 1 + 4
    # a full row then empty rows: the read after row 0 is made, though nothing follows
    assert bitmask_packed_reads(np.array([15, 0, 0]), 4) == 2


def test_actions_footprint_and_energy():
    unit = BitmaskDecode(lanes=16, addr_width=12)
    args = dict(mask_addr=5, packed_addr=32, dst_addr=64, rows=64)
    assert unit.cycles(args) == 67
    assert unit.actions(args) == {"decode": 64, "read:mask": 64, "read:packed": 64,
                                  "write:dst": 64}
    assert unit.footprint(args) == {"mask": (5, 69), "packed": (32, 32 + 1024),
                                    "dst": (64, 64 + 1024)}
    # 16 adds at 0.03 pJ + 256 selects at 0.003 pJ (Horowitz 45 nm, hls_ops's select)
    assert unit.ENERGY_PER_ACTION_J["decode"] == pytest.approx(16 * 0.03e-12 + 256 * 0.003e-12)
    assert "assumed" in unit.ENERGY_SOURCES["decode"]
    silence_unused(unit)


@pytest.mark.parametrize("over, message", [
    ({"rows": 0}, "unit kind 'bitmask_decode': argument 'rows' must be at least 1, not 0"),
    ({"packed_addr": 6}, "unit kind 'bitmask_decode': argument 'packed_addr' must be a "
                         "multiple of lanes (4), not 6"),
    ({"dst_addr": 2}, "unit kind 'bitmask_decode': argument 'dst_addr' must be a multiple "
                      "of lanes (4), not 2"),
    ({"mask_addr": 31}, "unit kind 'bitmask_decode': operand 'mask' would reach element 33, "
                        "past the 32 elements its 5-bit address reaches"),
    ({"rows": 33, "mask_addr": 0}, "unit kind 'bitmask_decode': operand 'mask' would reach "
                                   "element 32, past the 32 elements its 5-bit address "
                                   "reaches"),
    ({"dst_addr": 124}, "unit kind 'bitmask_decode': operand 'dst' would reach element 135, "
                        "past the 128 elements its 5-bit address reaches"),
])
def test_bad_args_are_named(over, message):
    unit = BitmaskDecode(lanes=4, addr_width=5)
    args = dict(mask_addr=0, packed_addr=0, dst_addr=0, rows=3) | over
    with pytest.raises(ValueError) as info:
        unit.cycles(args)
    assert str(info.value) == message
    silence_unused(unit)


@pytest.mark.parametrize("kw, exc, message", [
    ({"lanes": 3}, ValueError, "lanes must be one of (2, 4, 8, 16, 32), not 3"),
    ({"lanes": 64}, ValueError, "lanes must be in 2..32, not 64"),
    ({"lanes": 4.0}, TypeError, "lanes must be an int, not 4.0"),
    ({"addr_width": 0}, ValueError, "addr_width must be in 1..32, not 0"),
])
def test_bad_parameters_are_named(kw, exc, message):
    with pytest.raises(exc) as info:
        BitmaskDecode(**kw)
    assert str(info.value) == message


def test_golden_names_a_short_buffer():
    unit = BitmaskDecode(lanes=4, addr_width=5)
    bufs = {"mask": np.full(2, 15), "packed": np.ones(4, np.int64), "dst": np.zeros(64)}
    with pytest.raises(ValueError) as info:
        unit.golden(bufs, dict(mask_addr=0, packed_addr=0, dst_addr=0, rows=2))
    assert str(info.value) == ("unit kind 'bitmask_decode': buffer of operand 'packed' holds "
                               "4 words; the invocation reaches 8")
    silence_unused(unit)



# --- the encoder -------------------------------------------------------------------------

def run_encoder(dense, *, src_addr=8, mask_addr=3, packed_addr=4, stall=0.0):
    unit = BitmaskEncode(lanes=LANES, addr_width=AW)
    rows = len(dense)
    args = dict(src_addr=src_addr, mask_addr=mask_addr, packed_addr=packed_addr, rows=rows)
    bufs = {"src": place(128, src_addr, dense.ravel()), "mask": np.full(32, 0xB, np.int64),
            "packed": np.full(128, 0xEE, np.int64)}
    gold = {k: v.copy() for k, v in bufs.items()}
    unit.golden(gold, args)
    res = run_unit(unit, bufs, args, stall_probability=stall, seed=4)
    return unit, args, res, gold


@pytest.mark.parametrize("density", [0.0, 0.25, 0.5, 1.0, "random"])
def test_encoder_rtl_equals_golden_and_independent_encoding(density):
    rng = np.random.default_rng(17)
    rows = 9
    if density == "random":
        dense = np.vstack([sparse(rng, 1, LANES, d) for d in rng.random(rows)])
    else:
        dense = sparse(rng, rows, LANES, density)
    unit, args, res, gold = run_encoder(dense)
    masks, packed = encode_by_rows(dense)
    assert res.buffers["mask"][3:3 + rows].tolist() == masks.tolist()
    assert res.buffers["packed"][4:4 + len(packed)].tolist() == packed.tolist()
    # exactly ceil(nnz / lanes) packed rows are written, nothing else
    assert (res.buffers["packed"][4 + len(packed):] == 0xEE).all()
    assert (res.buffers["packed"][:4] == 0xEE).all()
    assert (res.buffers["mask"][:3] == 0xB).all()
    assert (res.buffers["mask"][3 + rows:] == 0xB).all()
    for name in ("mask", "packed"):
        assert np.array_equal(res.buffers[name], gold[name]), name
    assert res.cycles == rows + 4 == unit.cycles(args)


def test_encoder_every_mask_then_decoder_round_trip_in_rtl():
    dense = np.array([[(16 * m + i + 1) if (m >> i) & 1 else 0 for i in range(4)]
                      for m in range(16)])[3:13]
    _, _, enc, _ = run_encoder(dense, src_addr=0, mask_addr=0, packed_addr=0, stall=0.2)
    assert enc.stall_cycles > 0 and enc.cycles == len(dense) + 4
    masks, packed = enc.buffers["mask"][:10], enc.buffers["packed"]
    assert masks.tolist() == list(range(3, 13))
    # decode what the encoder RTL wrote, with the decoder RTL
    unit = BitmaskDecode(lanes=LANES, addr_width=AW)
    args = dict(mask_addr=0, packed_addr=0, dst_addr=0, rows=10)
    back = run_unit(unit, {"mask": enc.buffers["mask"], "packed": packed,
                           "dst": np.zeros(128, np.int64)}, args)
    assert back.buffers["dst"][:40].reshape(10, 4).tolist() == dense.tolist()
    assert not back.buffers["dst"][40:].any()


def test_encoder_contract_and_errors():
    unit = BitmaskEncode(lanes=16, addr_width=12)
    args = dict(src_addr=16, mask_addr=7, packed_addr=32, rows=8)
    assert unit.cycles(args) == 12
    assert unit.actions(args) == {"encode": 8, "read:src": 8, "write:mask": 8,
                                  "write:packed": 8}
    assert unit.footprint(args) == {"src": (16, 144), "mask": (7, 15), "packed": (32, 160)}
    assert "assumed" in unit.ENERGY_SOURCES["encode"]
    with pytest.raises(ValueError) as info:
        unit.cycles(args | {"packed_addr": 8})
    assert str(info.value) == ("unit kind 'bitmask_encode': argument 'packed_addr' must be a "
                               "multiple of lanes (16), not 8")
    with pytest.raises(ValueError) as info:
        unit.cycles(args | {"rows": 0})
    assert str(info.value) == ("unit kind 'bitmask_encode': argument 'rows' must be at least 1, "
                               "not 0")
    silence_unused(unit)
    with pytest.raises(ValueError) as info:
        BitmaskEncode(lanes=12)
    assert str(info.value) == "lanes must be one of (2, 4, 8, 16, 32), not 12"



def test_encode_then_decode_in_an_accelerator():
    from archsim.dsl.accel import Accelerator

    acc = Accelerator(name="sparse_rt")
    acc.buffer("mask", words=32, width=4)
    acc.buffer("dense", words=128, width=8, banks=4)
    acc.buffer("packed", words=128, width=8, banks=4)
    acc.buffer("back", words=128, width=8, banks=4)
    acc.unit("enc", "bitmask_encode", bind={"src": "dense", "mask": "mask",
                                            "packed": "packed"}, lanes=4)
    acc.unit("dec", "bitmask_decode", bind={"mask": "mask", "packed": "packed",
                                            "dst": "back"}, lanes=4)
    prog = acc.program()
    prog.run("enc", src_addr=0, mask_addr=0, packed_addr=0, rows=20)
    prog.run("dec", mask_addr=0, packed_addr=0, dst_addr=8, rows=20)
    compiled = acc.compile()
    dense = sparse(np.random.default_rng(5), 20, 4, 0.4)
    golden = compiled.golden(prog, {"dense": dense.ravel()})
    result = compiled.simulate(prog, {"dense": dense.ravel()}, backend="pysim")
    assert result.error_code == 0
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    assert golden["back"][8:88].reshape(20, 4).tolist() == dense.tolist()
    assert golden["mask"][:20].tolist() == encode_by_rows(dense)[0].tolist()
    model = compiled.model(prog)
    assert result.cycles == model.cycles
    assert [s.unit_cycles for s in model.steps if s.unit_cycles] == [20 + 4, 20 + 3]


@pytest.mark.slow
def test_sparse_tile_decoded_and_converted_in_an_accelerator_under_verilator():
    """A 64 x 16 pruned tile: masks + packed codes -> dense codes -> Q6.10, at 16 lanes."""
    import math

    from archsim.dsl.accel import Accelerator

    rows, lanes, frac, bias = 64, 16, 10, 3
    acc = Accelerator(name="sparse_front")
    acc.buffer("mask", words=rows, width=16)
    acc.buffer("wpk", words=rows * lanes, width=8, banks=lanes)
    acc.buffer("wd", words=rows * lanes, width=8, banks=lanes)
    acc.buffer("wf", words=rows * lanes, width=16, banks=lanes)
    acc.unit("dec", "bitmask_decode", bind={"mask": "mask", "packed": "wpk", "dst": "wd"},
             lanes=lanes)
    acc.unit("cvt", "adaptivfloat_convert", bind={"src": "wd", "dst": "wf"},
             direction="to_fixed", lanes=lanes)
    prog = acc.program()
    prog.run("dec", mask_addr=0, packed_addr=0, dst_addr=0, rows=rows)
    prog.run("cvt", src_addr=0, dst_addr=0, n=rows * lanes, frac=frac, bias=bias)
    compiled = acc.compile()

    rng = np.random.default_rng(13)
    density = np.repeat([0.0, 0.25, 0.5, 1.0], rows // 4)[:, None]  # whole rows of each
    dense = np.where(rng.random((rows, lanes)) < density, rng.integers(1, 256, (rows, lanes)),
                     0)
    masks, packed = bitmask_encode(dense)
    inputs = {"mask": masks, "wpk": packed}
    golden = compiled.golden(prog, inputs)
    result = compiled.simulate(prog, inputs, backend="verilator")
    assert result.error_code == 0
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    assert golden["wd"].reshape(rows, lanes).tolist() == dense.tolist()

    def q6_10(code):  # sign * floor(|v| * 2**10), v from the fields (math.ldexp)
        if code & 0x7F == 0:
            return 0
        mag = min(math.floor(math.ldexp(16 + (code & 15), ((code >> 4) & 7) + bias - 14
                                        + frac)), 32767)
        return (-mag if code >> 7 else mag) & 0xFFFF

    assert golden["wf"].tolist() == [q6_10(int(c)) for c in dense.ravel()]
    model = compiled.model(prog)
    assert result.cycles == model.cycles
    # the two runs' unit cycles are the formulas: rows + 3, and n / lanes + 3
    assert [s.unit_cycles for s in model.steps if s.unit_cycles] == [rows + 3, rows + 3]
