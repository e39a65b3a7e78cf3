"""Type inference for the frontend: the types of variables, loop variables and loop bounds.

A variable's type is fixed by its first assignment (later ones convert to it); a loop
variable's type is the wider of its bounds' types (the golden run uses the same types, through
:class:`~archsim.dsl.kernel.KernelFacts`); an operator's result type comes from
:mod:`archsim.dsl.types` (``binop_type``).
"""

from __future__ import annotations

from ...dsl.types import HWType, binop_type, const_type
from .ir import Bound

__all__ = ["TypeInference"]


class TypeInference:
    """The types known at a point of lowering.

    Parameters
    ----------
    scalars : dict of str to HWType
        The kernel's scalar arguments.
    """

    def __init__(self, scalars: dict[str, HWType]) -> None:
        self.scalars: dict[str, HWType] = dict(scalars)
        #: variables (registers), by (prefixed, for an inlined kernel) name
        self.variables: dict[str, HWType] = {}
        #: FSM loop variables
        self.fsm_types: dict[str, HWType] = {}
        #: (line, col) of a ``for`` in the kernel's own source -> its loop variable's type
        self.loopvar_types: dict[tuple[int, int], HWType] = {}
        self.returns: list[HWType] = []

    def declare(self, name: str, t: HWType | None) -> HWType:
        """The type of variable ``name``: ``t`` if this is its first assignment."""
        if name not in self.variables:
            assert t is not None
            self.variables[name] = t
        return self.variables[name]

    def register_type(self, name: str) -> HWType | None:
        """The type of a variable or an FSM loop variable (None if neither)."""
        return self.variables.get(name) or self.fsm_types.get(name)

    def bound_type(self, b: Bound) -> HWType:
        """The type of a loop bound's value."""
        if b.kind == "const":
            assert isinstance(b.value, int)
            return const_type(b.value)
        if b.kind == "arg":
            return self.scalars[str(b.value)]
        if b.kind == "var":
            return self.fsm_types[str(b.value)]
        assert b.left is not None and b.right is not None
        return binop_type("add" if b.kind == "add" else "sub", self.bound_type(b.left),
                          self.bound_type(b.right))

    def loop_var_type(self, start: Bound, stop: Bound) -> HWType:
        """A loop variable's type: wide enough for both of its bounds."""
        return binop_type("max", self.bound_type(start), self.bound_type(stop))
