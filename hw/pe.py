"""A multiply-accumulate processing element, the cell of the systolic arrays.

The PE is deliberately small: two operand registers that pass the operands on to the
neighbouring PEs (``a`` to the right, ``b`` downwards), a control flag pipeline that
travels with ``a``, and one accumulator register. Whether the accumulator keeps a result in
place (output-stationary) or is a stage of a partial-sum pipeline (weight-stationary) is
decided by how :class:`~archsim.hw.systolic.SystolicArray` wires ``load`` and ``acc_in``.
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Shape, signed, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .checks import check_bool, check_positive, silence_unused

__all__ = ["MACPE"]


class MACPE(wiring.Component):
    """Multiply-accumulate PE with registered operand pass-through.

    On every rising edge of the ``sync`` domain::

        a_out     <= a
        b_out     <= b
        valid_out <= valid
        load_out  <= load
        if valid:
            acc <= (acc_in if load else acc) + a * b     # wraps at acc_width

    The sum wraps modulo ``2**acc_width`` (two's complement when ``signed``), exactly like
    a hardware adder whose carry out is dropped. ``valid`` and ``load`` are forwarded with
    ``a`` so a row of PEs sees its control in step with its operands.

    Parameters
    ----------
    input_width : int
        Width in bits of the operands ``a`` and ``b``.
    acc_width : int
        Width in bits of the accumulator ``acc`` (and of ``acc_in``).
    signed : bool
        Two's complement operands and accumulator when ``True``; unsigned otherwise.
    carried_width : int, optional
        Width of ``a``, ``b`` and their pass-through registers: ``input_width`` (the default)
        or ``acc_width``. At ``acc_width`` the operands must arrive sign- (or zero-) extended
        from ``input_width`` bits, and the product is taken modulo ``2**acc_width``: the
        same accumulator values, computed as word arithmetic (why:
        :class:`~archsim.hw.systolic.SystolicArray`).

    Attributes
    ----------
    a, b : Signal(carried_width), in
        Operands.
    valid : Signal(1), in
        Accumulate this cycle's product.
    load : Signal(1), in
        Restart from ``acc_in`` instead of the accumulator's own value.
    acc_in : Signal(acc_width), in
        Value the accumulation restarts from (zero for a fresh sum, or an upstream partial sum).
    a_out, b_out : Signal(carried_width), out
        The operands, one cycle later.
    valid_out, load_out : Signal(1), out
        The control flags, one cycle later.
    acc : Signal(acc_width), out
        The accumulator register.
    """

    def __init__(self, *, input_width: int = 8, acc_width: int = 32, signed: bool = True,
                 carried_width: int | None = None):
        try:
            self._input_width = check_positive("input_width", input_width)
            self._acc_width = check_positive("acc_width", acc_width)
            self._signed = check_bool("signed", signed)
            if carried_width is None:
                carried_width = input_width
            self._carried_width = check_positive("carried_width", carried_width)
            if carried_width not in (input_width, acc_width):
                raise ValueError(f"carried_width must be input_width ({input_width}) or "
                                 f"acc_width ({acc_width}), not {carried_width}")
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        operand = self.operand_shape
        acc = self.acc_shape
        super().__init__({
            "a": In(operand),
            "b": In(operand),
            "valid": In(1),
            "load": In(1),
            "acc_in": In(acc),
            "a_out": Out(operand),
            "b_out": Out(operand),
            "valid_out": Out(1),
            "load_out": Out(1),
            "acc": Out(acc),
        })

    @property
    def input_width(self) -> int:
        """Operand width in bits."""
        return self._input_width

    @property
    def acc_width(self) -> int:
        """Accumulator width in bits."""
        return self._acc_width

    @property
    def carried_width(self) -> int:
        """Width in bits the operands are carried at (ports ``a``, ``b``, ``a_out``, ``b_out``)."""
        return self._carried_width

    @property
    def signed(self) -> bool:
        """Whether operands and accumulator are two's complement."""
        return self._signed

    @property
    def operand_shape(self) -> Shape:
        """Amaranth shape of ``a`` and ``b`` (``carried_width`` bits)."""
        w = self._carried_width
        return signed(w) if self._signed else unsigned(w)

    @property
    def acc_shape(self) -> Shape:
        """Amaranth shape of ``acc`` and ``acc_in``."""
        return signed(self._acc_width) if self._signed else unsigned(self._acc_width)

    def elaborate(self, platform) -> Module:
        m = Module()
        m.d.sync += [
            self.a_out.eq(self.a),
            self.b_out.eq(self.b),
            self.valid_out.eq(self.valid),
            self.load_out.eq(self.load),
        ]
        with m.If(self.valid):
            base = Mux(self.load, self.acc_in, self.acc)
            if self._carried_width == self._input_width:
                # Assigning the wider sum to `acc` truncates it: the wrap at acc_width.
                m.d.sync += self.acc.eq(base + self.a * self.b)
            else:
                w = self._acc_width
                m.d.sync += self.acc.eq(base + (self.a.as_unsigned() * self.b.as_unsigned())[:w])

        return m
