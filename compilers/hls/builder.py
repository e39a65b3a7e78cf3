"""IR building for the frontend: regions under construction, SSA values, common
subexpressions, and the freeze into the read-only :class:`~archsim.compilers.hls.ir.KernelIR`.

The frontend (:mod:`.frontend`) decides *what* to build; :class:`IRBuilder` holds the state of
building it: the open region, the values of variables inside it (``env``), the variables it
changed (``dirty``), the predicate of the current ``if`` arm, and the segment list being filled.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ...dsl.types import Bool, HWType, HWValue, const_type
from .ir import ArrayInfo, Bound, KernelIR, Node, Region, Segment, frozen_map
from .typeinfer import TypeInference

__all__ = ["RegionBuilder", "IRBuilder"]

#: Node kinds never shared by common-subexpression elimination (effects and sources whose
#: value changes between uses).
_NO_CSE = frozenset({"store", "setvar", "var", "ivar", "arg"})


@dataclass
class RegionBuilder:
    """A region while its statements are lowered (frozen into a :class:`Region` on close)."""

    name: str
    var: str | None = None
    start: Bound | None = None
    stop: Bound | None = None
    step: int = 1
    var_type: HWType | None = None
    ii_requested: int | None = None
    line: int = 0
    while_max: int | None = None
    exit: Node | None = None
    nodes: list[Node] = field(default_factory=list)

    @property
    def is_loop(self) -> bool:
        """True for an innermost loop body."""
        return self.var is not None

    def freeze(self) -> Region:
        """The finished region; its line is its first located node's if it had none."""
        line = self.line or min((n.line for n in self.nodes if n.line), default=0)
        return Region(name=self.name, nodes=tuple(self.nodes), var=self.var, start=self.start,
                      stop=self.stop, step=self.step, var_type=self.var_type,
                      ii_requested=self.ii_requested, line=line, while_max=self.while_max,
                      exit=self.exit)


class IRBuilder:
    """Builds the segments of one kernel (see the module docstring).

    Parameters
    ----------
    types : TypeInference
        The variables' types (a region's closing writes are typed by them).
    arrays : dict of str to ArrayInfo
        The kernel's array arguments; local arrays are added as they are declared.
    """

    def __init__(self, types: TypeInference, arrays: dict[str, ArrayInfo]) -> None:
        self.types = types
        self.arrays = arrays
        #: the region being filled (None between regions)
        self.region: RegionBuilder | None = None
        #: the segment list being filled (an FSM loop's body while it is lowered)
        self.segments: list[Segment] = []
        #: nesting depth of FSM loops around the current point
        self.depth = 0
        #: SSA value of each variable read or written in the open region
        self.env: dict[str, Node] = {}
        #: variables written in the open region (stored to their registers on close)
        self.dirty: dict[str, Node] = {}
        #: the predicate of the current if arm (None: unconditional)
        self.pred: Node | None = None
        self.ret_alias: dict[int, str] = {}
        self._cse: dict[tuple[Any, ...], Node] = {}
        self._epoch: dict[str, int] = {}
        self._nseq = 0

    # ----- regions -------------------------------------------------------------------------
    def cur(self) -> RegionBuilder:
        """The open region (a new straight-line one if none is open)."""
        if self.region is None:
            self.region = RegionBuilder(name=f"seq{self._nseq}")
            self._nseq += 1
        return self.region

    def open(self, region: RegionBuilder) -> None:
        """Start filling ``region`` (the previous one must be closed)."""
        self.region = region

    def discard(self) -> None:
        """Drop the open region and its values (a loop that is never entered)."""
        self.region, self._cse, self.env = None, {}, {}

    def close_region(self) -> None:
        """End the current region: write the changed variables to their registers."""
        if self.region is None and self.dirty:
            self.cur()
        self._cse = {}
        if self.region is None:
            self.env = {}
            return
        for name, val in self.dirty.items():
            self.mk("setvar", self.types.variables[name], (val,), name=name, var=name)
        if self.region.nodes or self.region.is_loop:
            self.segments.append(self.region.freeze())
        self.region = None
        self.env = {}
        self.dirty = {}

    # ----- nodes ---------------------------------------------------------------------------
    def mk(self, kind: str, t: HWType | None, args: tuple[Node, ...] = (), *, line: int = 0,
           col: int = 0, name: str = "", **attrs: Any) -> Node:
        """A node in the open region (an equal earlier one if it is a common subexpression;
        loads only while no store to their array intervenes)."""
        key = None
        if kind not in _NO_CSE:
            argk = tuple(("c", a.attrs["value"].raw, a.type) if a.kind == "const" else id(a)
                         for a in args)
            extra = self._epoch.get(attrs.get("array", ""), 0) if kind == "load" else 0
            key = (kind, t, argk, tuple(sorted(attrs.items())), extra)
            if key in self._cse:
                return self._cse[key]
        n = Node(kind=kind, type=t, args=args, attrs=frozen_map(attrs), line=line, col=col,
                 name=name)
        self.cur().nodes.append(n)
        if key is not None:
            self._cse[key] = n
        if kind == "store":
            self._epoch[attrs["array"]] = self._epoch.get(attrs["array"], 0) + 1
        return n

    @staticmethod
    def const(v: HWValue | int | bool) -> Node:
        """A constant (an int gets the narrowest type holding it)."""
        if isinstance(v, bool):
            v = HWValue(Bool, int(v))
        elif isinstance(v, int):
            v = HWValue(const_type(v), v)
        return Node(kind="const", type=v.type, attrs=frozen_map({"value": v}))

    def mark_array(self, name: str, **changes: Any) -> ArrayInfo:
        """Record that array ``name`` is read, written or partitioned (``changes``)."""
        info = replace(self.arrays[name], **changes)
        self.arrays[name] = info
        return info

    # ----- the result ----------------------------------------------------------------------
    def build(self, *, name: str, filename: str, params: list[str]) -> KernelIR:
        """The read-only IR of everything built."""
        self.close_region()
        t = self.types
        return KernelIR(name=name, filename=filename, scalars=frozen_map(t.scalars),
                        arrays=frozen_map(self.arrays), params=tuple(params),
                        variables=frozen_map(t.variables), returns=tuple(t.returns),
                        body=tuple(self.segments), loopvar_types=frozen_map(t.loopvar_types),
                        ret_alias=frozen_map(self.ret_alias))
