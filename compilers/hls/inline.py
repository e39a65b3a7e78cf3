"""Inlining of ``@kernel`` calls for the frontend.

A kernel whose loops are all fully unrolled is inlined into the current expression. One with
rolled loops adds its loops to the caller's FSM: the call must be a statement of its own
(``x = f(...)`` or ``f(...)``) outside pipelined loops and ifs; its scalar parameters become
registers, and its loop bounds may read parameters given constants, scalar arguments or outer
loop variables. The callee's names are prefixed (``f1__x``) so copies do not collide.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Protocol

from ...dsl.kernel import Kernel, unroll
from ...dsl.types import HWType
from ...errors import DSLError
from .builder import IRBuilder
from .context import Scope, Source
from .ir import Bound, Node
from .typeinfer import TypeInference

__all__ = ["InlineFrame", "CallerState", "Inliner", "Lowerer"]


class Lowerer(Protocol):
    """What the inliner needs of the frontend (:class:`~.frontend.Lowering`)."""

    src: Source
    scope: Scope
    b: IRBuilder
    types: TypeInference

    def resolve(self, e: ast.expr) -> object: ...

    def static(self, e: ast.expr) -> object: ...

    def expr(self, e: ast.expr) -> Node: ...

    def cast(self, n: Node, t: HWType, at: ast.AST | None = None, name: str = "") -> Node: ...

    def block(self, stmts: list[ast.stmt]) -> None: ...


@dataclass
class InlineFrame:
    """One inlined call being lowered.

    Attributes
    ----------
    callee : Kernel
    prefix : str
        Prepended to the callee's variable and loop-variable names (``dot3__``).
    want : bool
        The call's value is used (an expression), not a statement of its own.
    ret_type : HWType or None
        The callee's (single) return type, when its value is used.
    chain : tuple of Kernel
        The callees from the outermost call to this one (to reject recursion).
    depth : int
        FSM-loop nesting depth at the call (the callee returns there).
    region_var : str or None
        The innermost loop variable at the call.
    scalars : dict of str to Node
        Scalar parameters passed as values (a callee without rolled loops).
    arrays : dict of str to str
        Array parameter -> the caller's array.
    bound_sources : dict of str to Node
        Scalar parameter -> the value passed (loop bounds may read it).
    ret : Node or None
        The returned value, once lowered.
    """

    callee: Kernel
    prefix: str
    want: bool
    ret_type: HWType | None
    chain: tuple[Kernel, ...]
    depth: int
    region_var: str | None
    scalars: dict[str, Node] = field(default_factory=dict)
    arrays: dict[str, str] = field(default_factory=dict)
    bound_sources: dict[str, Node] = field(default_factory=dict)
    ret: Node | None = None

    @property
    def params(self) -> frozenset[str]:
        """The callee's parameter names."""
        return frozenset(self.callee.param_names)


@dataclass(frozen=True)
class CallerState:
    """What an inlined call changes and restores: the caller's frame, source and control
    context."""

    frame: InlineFrame | None
    source: Source
    returned: bool
    in_if: int


class Inliner:
    """Lowers calls of other kernels in place (see the module docstring)."""

    def __init__(self, low: Lowerer) -> None:
        self.low = low
        #: the call being lowered (None: the kernel itself)
        self.frame: InlineFrame | None = None
        #: a call that is a statement of its own (``x = f(...)`` or ``f(...)``)
        self.stmt_call: ast.Call | None = None
        self._count = 0
        self._rolled: dict[int, bool] = {}

    def name(self, n: str) -> str:
        """``n`` as named in the caller (prefixed inside an inlined call)."""
        return n if self.frame is None else self.frame.prefix + n

    def callee_rolled(self, callee: Kernel) -> bool:
        """True if ``callee`` contains loops that are not fully unrolled (its own or its
        callees'): it then adds loops to the caller's FSM."""
        key = id(callee)
        if key not in self._rolled:
            self._rolled[key] = False  # a recursive call is rejected when inlined
            low = self.low
            saved = low.src
            low.src = Source(filename=saved.filename, line0=saved.line0, col0=saved.col0,
                             ns=callee.namespace)
            try:
                self._rolled[key] = self.has_rolled_loop(list(callee.tree.body))
            finally:
                low.src = saved
        return self._rolled[key]

    def has_rolled_loop(self, stmts: list[ast.stmt]) -> bool:
        """True if the statements contain a loop that is not fully unrolled."""
        low = self.low
        for s in stmts:
            for n in ast.walk(s):
                if isinstance(n, ast.Call):
                    fn = low.resolve(n.func)
                    if isinstance(fn, Kernel) and self.callee_rolled(fn):
                        return True
                if isinstance(n, ast.For):
                    it = n.iter
                    if isinstance(it, ast.Call) and low.resolve(it.func) is unroll:
                        kw = {k.arg: k.value for k in it.keywords}
                        fac = kw.get("factor", it.args[1] if len(it.args) > 1 else None)
                        if fac is None:
                            continue
                        try:
                            f = low.static(fac)
                            rng = it.args[0]
                            assert isinstance(rng, ast.Call)
                            vals = [low.static(a) for a in rng.args]
                            ints = [v for v in vals if isinstance(v, int)]
                            # non-int bounds: the frontend rejects the loop later
                            if isinstance(f, int) and len(ints) == len(vals) and \
                                    f >= len(range(*ints)):
                                continue
                        except DSLError:
                            pass
                    return True
                if isinstance(n, ast.While):
                    return True
        return False

    def frame_bound(self, e: ast.Name) -> Bound | None:
        """A bound of an inlined kernel's loop that names one of its parameters or loop
        variables, as a bound of the caller (None: not such a name)."""
        f = self.frame
        assert f is not None
        low = self.low
        if e.id in f.params and e.id in f.bound_sources:
            node, ptype = f.bound_sources[e.id], f.callee.scalar_types[e.id]
            src = node
            if src.kind == "cast" and _widening(src):
                src = src.args[0]  # a widening conversion: the same value
            if src.kind == "const" and not ptype.frac:
                return Bound("const", src.attrs["value"].raw)
            if src.kind == "arg":
                return Bound("arg", src.attrs["arg"])
            if src.kind == "var" and src.attrs["var"] in low.scope.fsm_vars:
                return Bound("var", src.attrs["var"])
            raise low.src.err(e, f"a loop bound of inlined kernel '{f.callee.name}' reads its "
                              f"parameter '{e.id}', so the call must pass a constant, a scalar "
                              "argument or an outer loop variable that fits its type")
        pn = f.prefix + e.id
        if pn in low.scope.alias:
            base, off, _t = low.scope.alias[pn]
            if base is None:
                return Bound("const", off)
            raise low.src.err(e, "a loop bound cannot read a partially unrolled loop variable")
        if pn in low.scope.fsm_vars:
            return Bound("var", pn)
        if pn in low.types.variables:
            raise low.src.err(e, f"a loop bound cannot read variable '{e.id}'",
                              "use a scalar argument, an outer loop variable or a constant")
        return None

    def inline(self, callee: Kernel, e: ast.Call, *, want: bool = True) -> Node | None:
        """Lower a call of another @kernel in place (see the module docstring)."""
        low = self.low
        err = low.src.err
        stmt_call, self.stmt_call = self.stmt_call, None
        if self.frame is not None and any(f is callee for f in self.frame.chain):
            raise err(e, f"kernel '{callee.name}' calls itself", "recursion has no "
                      "hardware: write a loop")
        if any(isinstance(n, ast.While) for n in ast.walk(callee.tree)):
            raise err(e, f"kernel '{callee.name}' has a while loop, so it cannot be "
                      "inlined yet", "call kernels with for loops, or inline it by hand")
        rolled = self.callee_rolled(callee)
        if rolled and stmt_call is not e:
            raise err(e, f"kernel '{callee.name}' has loops, so its call must be a "
                      "statement of its own", f"x = {callee.name}(...)")
        if rolled and (low.scope.region_var is not None or low.scope.in_if):
            raise err(e, f"kernel '{callee.name}' has loops, so it cannot be called "
                      "inside a pipelined or innermost loop or an if",
                      "call it from the kernel's top level or from an outer loop")
        rts = callee.return_types
        if want and (rts is None or len(rts) != 1):
            raise err(e, f"kernel '{callee.name}' must return one value to be called")
        if len(e.args) != len(callee.param_names):
            raise err(e, f"kernel '{callee.name}' takes {len(callee.param_names)} "
                      f"arguments, got {len(e.args)}")
        self._count += 1
        chain = (self.frame.chain if self.frame is not None else ()) + (callee,)
        frame = InlineFrame(callee=callee, prefix=f"{callee.name}{self._count}__", want=want,
                            ret_type=rts[0] if want and rts else None, chain=chain,
                            depth=low.b.depth, region_var=low.scope.region_var)
        for p, a in zip(callee.param_names, e.args, strict=True):
            if p in callee.array_types:
                t = callee.array_types[p]
                src = a.id if isinstance(a, ast.Name) else None
                if self.frame is not None and src is not None:
                    src = self.frame.arrays.get(src)
                info = low.b.arrays.get(src) if src is not None else None
                if src is None or info is None or info.declared != t.elem or \
                        info.shape != t.shape:
                    raise err(a, f"argument '{p}' of '{callee.name}' must be an array of "
                              f"{t.elem!r} with shape {t.shape}")
                frame.arrays[p] = src
            else:
                node = low.cast(low.expr(a), callee.scalar_types[p], a)
                frame.bound_sources[p] = node
                if rolled:  # a register: the value outlives the regions the loops close
                    pn = frame.prefix + p
                    low.types.variables[pn] = callee.scalar_types[p]
                    low.b.env[pn] = node
                    low.b.dirty[pn] = node
                else:
                    frame.scalars[p] = node
        saved = CallerState(frame=self.frame, source=low.src, returned=low.scope.returned,
                            in_if=low.scope.in_if)
        self.frame, low.src = frame, Source.of(callee)
        low.scope.returned, low.scope.in_if = False, 0
        try:
            body = list(callee.tree.body)
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value,
                                                                     ast.Constant):
                body = body[1:]
            low.block(body)
        finally:
            self.frame, low.src = saved.frame, saved.source
            low.scope.returned, low.scope.in_if = saved.returned, saved.in_if
        if want and frame.ret is None:
            raise low.src.err(e, f"kernel '{callee.name}' returned no value")
        return frame.ret


def _widening(cast: Node) -> bool:
    """True if a conversion keeps every value of its (integer) operand."""
    src, dst = cast.args[0].type, cast.type
    assert src is not None and dst is not None
    return not dst.frac and not src.frac and dst.min_raw <= src.min_raw and \
        src.max_raw <= dst.max_raw
