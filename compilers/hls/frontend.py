"""Python AST -> typed IR (:mod:`archsim.compilers.hls.ir`).

The accepted subset: scalar and ``Array[T, shape]`` arguments; assignments to names (the first
one fixes the variable's type) and to array elements (``a[i] = e``, ``a[i][j] += e``);
``for v in range(...)`` (optionally wrapped in ``pipeline``/``unroll``) with constant bounds or
bounds from scalar arguments and outer variables; ``while bounded(cond, max_iter=N):`` with a
loop-free body (a sequential loop whose effects are predicated by ``cond``; the iteration that
finds it false, or the N-th, is the last); ``if``/``elif``/``else`` without loops inside
(if-converted); ``partition(...)`` statements (cyclic, block, complete); local arrays declared
at the top level (``buf = Array[Int(16), 64]()``); calls of other ``@kernel`` functions,
inlined: a callee whose loops are all fully unrolled (single result) inside any expression, one
with rolled loops as a statement of its own (``x = f(...)`` or ``f(...)``) outside pipelined
loops and ifs, its loops joining the caller's FSM (its loop bounds may read parameters given
constants, scalar arguments or outer loop variables); one final ``return`` (scalar or tuple).
Arrays of a number format (:class:`~archsim.dsl.types.FormatType`) are read-only; each read is
a ``load`` of the code followed by a ``decode``.
Expressions: ``+ - * & | ^ << >> ~``, ``//`` and ``%`` (Python's floor semantics; a shift and
a mask by a constant power of two, else a sequential divider), comparisons, ``and``/``or``/``not``, conditional expressions, ``min``, ``max``, ``abs``, type
conversions ``T(x)``, array reads with affine or data-dependent indices. Anything else raises
:class:`~archsim.errors.DSLError` at the user's ``file:line:col`` with a hint, and so does an
affine index that leaves its array over loops with compile-time bounds (``for i in range(65)``
over 64 elements; :mod:`.bounds`). Indices the analysis cannot bound (run-time loop bounds,
data-dependent indices, accesses under an ``if``) are not checked here.
"""

from __future__ import annotations

import ast
import weakref
from typing import Any

from ...dsl.kernel import PARTITION_KINDS, ArrayType, Kernel, KernelFacts
from ...dsl.kernel import bounded as _bounded
from ...dsl.kernel import partition as _partition
from ...dsl.kernel import pipeline as _pipeline
from ...dsl.kernel import unroll as _unroll
from ...dsl.types import (
    Bool,
    FormatType,
    HWType,
    HWValue,
    UInt,
    binop_type,
    div_types,
    hw_max,
    hw_min,
)
from ...errors import DSLError
from .bounds import VarRange, index_extremes
from .builder import IRBuilder, RegionBuilder
from .context import Scope, Source
from .inline import Inliner
from .ir import ArrayInfo, Bound, KernelIR, Loop, Node, trip_count
from .typeinfer import TypeInference

__all__ = ["lower", "analyze"]

_BINOPS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.BitAnd: "and", ast.BitOr: "or",
    ast.BitXor: "xor", ast.LShift: "shl", ast.RShift: "shr", ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
}
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
           ast.NotEq: "ne"}
_PY_CMP = {"lt": "__lt__", "le": "__le__", "gt": "__gt__", "ge": "__ge__", "eq": "__eq__",
           "ne": "__ne__"}
_PY_BIN = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "and": "__and__",
           "or": "__or__", "xor": "__xor__", "shl": "__lshift__", "shr": "__rshift__",
           "floordiv": "__floordiv__", "mod": "__mod__"}


class Lowering:
    """Walks one kernel's AST and lowers each statement and expression.

    The state lives in separate objects: :attr:`types` (:class:`TypeInference`: variable,
    loop-variable and bound types), :attr:`b` (:class:`IRBuilder`: regions, SSA values,
    arrays), :attr:`inl` (:class:`Inliner`: calls of other kernels), :attr:`scope`
    (:class:`Scope`: loop variables, if nesting) and :attr:`src` (:class:`Source`: the kernel
    whose code is being read, switched while a callee is inlined).
    """

    def __init__(self, kern: Kernel) -> None:
        self.k = kern
        self.src = Source.of(kern)
        self.types = TypeInference(kern.scalar_types)
        self.b = IRBuilder(self.types, {n: _array_info(kern, n, t)
                                        for n, t in kern.array_types.items()})
        self.scope = Scope()
        self.inl = Inliner(self)

    # ----- errors and nodes --------------------------------------------------------------
    def err(self, node: ast.AST, msg: str, hint: str | None = None) -> DSLError:
        return self.src.err(node, msg, hint)

    def line(self, node: ast.AST) -> int:
        return self.src.line(node)

    def mk(self, kind: str, t: HWType | None, args: tuple[Node, ...] = (), at: ast.AST | None =
           None, name: str = "", **attrs: Any) -> Node:
        """A node of the open region, located at ``at``."""
        return self.b.mk(kind, t, args, line=self.line(at) if at is not None else 0,
                         col=self.src.col(at) if at is not None else 0, name=name, **attrs)

    def cast(self, n: Node, t: HWType, at: ast.AST | None = None, name: str = "") -> Node:
        if n.type == t:
            return n
        if n.kind == "const":
            return self.b.const(t(n.attrs["value"]))
        return self.mk("cast", t, (n,), at, name=name)

    # ----- entry -------------------------------------------------------------------------
    def run(self) -> KernelIR:
        body = list(self.k.tree.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # docstring
        self.block(body)
        return self.b.build(name=self.k.name, filename=self.src.filename,
                            params=list(self.k.param_names))

    # ----- statements --------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            if self.scope.returned:
                raise self.err(s, "code after 'return'",
                               "a kernel has one return, as its last statement")
            self.stmt(s)

    def stmt(self, s: ast.stmt) -> None:
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise self.err(s, "chained assignment is not supported", "assign one name")
            self.assign(s.targets[0], s.value, s)
        elif isinstance(s, ast.AugAssign):
            op = _BINOPS.get(type(s.op))
            if op is None:
                raise self.err(s, f"operator {type(s.op).__name__} is not supported",
                               "use + - * & | ^ << >>")
            fake = ast.BinOp(left=_as_load(s.target), op=s.op, right=s.value)
            ast.copy_location(fake, s)
            self.assign(s.target, fake, s)
        elif isinstance(s, ast.AnnAssign):
            raise self.err(s, "annotated assignment is not supported",
                           "declare the type by converting the value: x = Int(32)(0)")
        elif isinstance(s, ast.For):
            self.for_(s)
        elif isinstance(s, ast.If):
            self.if_(s)
        elif isinstance(s, ast.Return):
            self.return_(s)
        elif isinstance(s, ast.Expr):
            fn = self.resolve(s.value.func) if isinstance(s.value, ast.Call) else None
            if isinstance(s.value, ast.Call) and fn is _partition:
                self.partition(s.value)
            elif isinstance(s.value, ast.Call) and isinstance(fn, Kernel):
                self.inl.stmt_call = s.value  # `f(...)` for its side effects on arrays
                self.inl.inline(fn, s.value, want=False)
            elif isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                pass  # a string used as a comment
            else:
                raise self.err(s, "expression statement has no effect in hardware",
                               "assign its value or remove it")
        elif isinstance(s, ast.Pass):
            pass
        elif isinstance(s, ast.While):
            self.while_(s)
        elif isinstance(s, (ast.Break, ast.Continue)):
            raise self.err(s, f"'{type(s).__name__.lower()}' is not supported",
                           "use an if around the loop body")
        else:
            raise self.err(s, f"statement '{type(s).__name__}' is not supported in a kernel",
                           "kernels use assignments, for/range, if/else and return")

    def assign(self, target: ast.expr, value: ast.expr, at: ast.stmt) -> None:
        if isinstance(target, ast.Name):
            name = target.id
            if self.inl.frame is not None:
                if name in self.inl.frame.params:
                    raise self.err(target, f"cannot assign to argument '{name}'",
                                   "copy it to a variable first")
                name = self.inl.frame.prefix + name
            if name in self.b.arrays:
                raise self.err(target, f"cannot assign to array '{name}'",
                               f"write elements: {name}[i] = ...")
            if name in self.types.scalars:
                raise self.err(target, f"cannot assign to argument '{name}'",
                               "copy it to a variable first")
            if name in self.scope.fsm_vars or name == self.scope.region_var or name in self.scope.alias:
                raise self.err(target, f"cannot assign to loop variable '{name}'")
            made = self.resolve(value.func) if isinstance(value, ast.Call) and \
                not value.args and not value.keywords else None
            if isinstance(made, ArrayType):  # `buf = Array[T, n]()`
                self.local_array(name, made, at)
                return
            if isinstance(value, ast.Call) and isinstance(self.resolve(value.func), Kernel):
                self.inl.stmt_call = value  # `x = f(...)`: f may contain loops
            val = self.expr(value)
            if name not in self.types.variables:
                if val.kind == "const" and value is not None and _is_plain_int(value):
                    raise self.err(at, f"variable '{name}' is initialised with a plain int",
                                   f"give it a hardware type, e.g. {name} = Int(32)(0)")
                self.types.variables[name] = val.vtype
            t = self.types.variables[name]
            val = self.cast(val, t, at, name=name)
            if self.b.pred is not None:
                old = self.read_var(name, at)
                val = self.mk("select", t, (self.b.pred, val, old), at, name=name)
            self.b.env[name] = val
            self.b.dirty[name] = val
        elif isinstance(target, ast.Subscript):
            arr, idx = self.subscript(target)
            info = self.b.arrays[arr]
            if info.fmt is not None:
                raise self.err(target, f"array '{arr}' of {info.fmt.name} is read-only in "
                               "kernels (format arrays are read-only: there is no encoder in "
                               "hardware)", "store into an Int/UInt/Fixed array instead")
            info = self.b.mark_array(arr, written=True)
            val = self.cast(self.expr(value), info.elem, at)
            bank, addr = self.address(info, idx, target)
            args = (addr, val) + ((self.b.pred,) if self.b.pred is not None else ())
            self.mk("store", None, args, at, name=arr, array=arr, bank=bank)
        elif isinstance(target, ast.Tuple):
            raise self.err(target, "tuple assignment is not supported", "assign one name")
        else:
            raise self.err(target, "unsupported assignment target")

    def local_array(self, name: str, t: ArrayType, at: ast.stmt) -> None:
        if self.b.depth or self.scope.in_if or self.scope.region_var is not None:
            raise self.err(at, f"local array '{name}' must be declared at the top level of the "
                           "kernel", "move the declaration before the loops")
        if name in self.types.variables or name in self.b.arrays:
            raise self.err(at, f"'{name}' is already defined")
        if isinstance(t.elem, FormatType):
            raise self.err(at, f"local array '{name}': format arrays are read-only in kernels, "
                           "so a local one would only hold zeros", "use Int, UInt or Fixed "
                           "elements")
        if not isinstance(t.elem, HWType):
            raise self.err(at, f"local array '{name}': element type has no hardware lowering yet",
                           "use Int, UInt or Fixed elements")
        self.b.arrays[name] = ArrayInfo(name=name, elem=t.elem, shape=t.shape, local=True)

    def return_(self, s: ast.Return) -> None:
        if self.inl.frame is not None:
            if self.scope.in_if or self.scope.region_var != self.inl.frame.region_var or \
                    self.b.depth != self.inl.frame.depth:
                raise self.err(s, "an inlined kernel returns once, as its last statement "
                               "(not inside a loop or an if)")
            if not self.inl.frame.want:  # called as a statement: the value is not used
                self.scope.returned = True
                return
            if s.value is None or isinstance(s.value, ast.Tuple):
                raise self.err(s, "an inlined kernel returns one value, as its last statement")
            if self.inl.frame.ret_type is None:  # Inliner.inline sets it whenever `want`
                raise AssertionError("an inlined call whose value is used has no return type")
            self.inl.frame.ret = self.cast(self.expr(s.value), self.inl.frame.ret_type, s)
            self.scope.returned = True
            return
        if self.b.depth > 0 or self.scope.in_if or self.scope.region_var is not None:
            raise self.err(s, "return inside a loop or if is not supported",
                           "return once, as the last statement")
        ann = self.k.return_types
        if s.value is None:
            self.scope.returned = True
            return
        values = s.value.elts if isinstance(s.value, ast.Tuple) else [s.value]
        if ann is None:
            raise self.err(s, "the kernel returns a value but has no return annotation",
                           "annotate it: def f(...) -> Int(32):")
        if len(ann) != len(values):
            raise self.err(s, f"the kernel returns {len(values)} values but is annotated "
                           f"with {len(ann)}")
        for k, (v, t) in enumerate(zip(values, ann, strict=True)):
            name = f"__ret{k}"
            val = self.expr(v)
            if val.kind == "var" and val.type == t and val.attrs["var"] in self.types.variables:
                # the port shows the variable's register: no copy, no cycle
                self.b.ret_alias[k] = val.attrs["var"]
                continue
            self.types.variables[name] = t
            val = self.cast(val, t, s, name="ret")
            self.b.env[name] = val
            self.b.dirty[name] = val
        self.types.returns = list(ann)
        self.scope.returned = True

    def partition(self, call: ast.Call) -> None:
        if not call.args or not isinstance(call.args[0], ast.Name) or \
                call.args[0].id not in self.b.arrays:
            raise self.err(call, "partition() needs an array argument",
                           "partition(a, factor=4, kind='cyclic')")
        info = self.b.arrays[call.args[0].id]
        kw = {k.arg: self.static(k.value) for k in call.keywords}
        extra = [self.static(a) for a in call.args[1:]]
        factor = kw.get("factor", extra[0] if extra else None)
        kind = kw.get("kind", "cyclic")
        if kind == "complete":
            factor = info.size
        if kind not in PARTITION_KINDS:
            raise self.err(call, f"partition kind {kind!r} is not supported",
                           "use kind='cyclic', 'block' or 'complete'")
        if kind == "cyclic" and (not isinstance(factor, int) or isinstance(factor, bool) or
                                 factor < 1 or factor & (factor - 1) or info.size % factor):
            raise self.err(call, f"partition factor must be a power of two dividing the "
                           f"array size {info.size}, not {factor!r}")
        if kind == "block" and (not isinstance(factor, int) or isinstance(factor, bool) or
                                factor < 1 or info.size % factor):
            raise self.err(call, f"block partition factor must be a positive int dividing the "
                           f"array size {info.size}, not {factor!r}")
        if info.read or info.written:
            raise self.err(call, "partition() must come before the array is used")
        self.b.mark_array(info.name, banks=factor, partition_kind=kind)

    # ----- loops -------------------------------------------------------------------------
    def loop_header(self, s: ast.For) -> tuple[str, Bound, Bound, int, str, int | None,
                                               int | None]:
        if not isinstance(s.target, ast.Name):
            raise self.err(s.target, "the loop variable must be a name")
        if s.orelse:
            raise self.err(s, "for/else is not supported")
        it = s.iter
        mode, ii, factor = "seq", None, None
        if isinstance(it, ast.Call) and not (isinstance(it.func, ast.Name) and
                                             it.func.id == "range"):
            fn = self.resolve(it.func)
            kw = {k.arg: self.static(k.value) for k in it.keywords}
            if fn is _pipeline:
                ii_given = kw.get("ii", 1)
                if not isinstance(ii_given, int) or ii_given < 1:
                    raise self.err(it, f"ii must be a positive int, not {ii_given!r}")
                mode, ii = "pipeline", ii_given
            elif fn is _unroll:
                f_given = kw.get("factor")
                if len(it.args) > 1:
                    f_given = self.static(it.args[1])
                if f_given is not None and (not isinstance(f_given, int) or f_given < 1):
                    raise self.err(it, f"unroll factor must be a positive int, not "
                                   f"{f_given!r}")
                mode, factor = "unroll", f_given if isinstance(f_given, int) else None
            else:
                raise self.err(it, "a loop iterates over range(...), pipeline(range(...), ii=k) "
                               "or unroll(range(...), factor=k)")
            if not it.args:
                raise self.err(it, "missing range(...)")
            it = it.args[0]
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
                it.func.id == "range" and 1 <= len(it.args) <= 3 and not it.keywords):
            raise self.err(s.iter, "a loop must iterate over range(...)",
                           "for i in range(n): ... (lists and iterators are not hardware)")
        a = it.args
        start = self.bound(a[0]) if len(a) > 1 else Bound("const", 0)
        stop = self.bound(a[1] if len(a) > 1 else a[0])
        step = 1
        if len(a) == 3:
            step_given = self.static(a[2])
            if not isinstance(step_given, int) or step_given < 1:
                raise self.err(a[2], "the range step must be a positive constant")
            step = step_given
        return s.target.id, start, stop, step, mode, ii, factor

    def bound(self, e: ast.expr) -> Bound:
        if isinstance(e, ast.Constant) and isinstance(e.value, int):
            return Bound("const", e.value)
        names = {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}
        if self.inl.frame is not None:  # an inlined kernel's parameters and loop variables
            names = {self.inl.frame.prefix + n for n in names} | (names & self.inl.frame.params)
            if isinstance(e, ast.Name):
                mapped = self.inl.frame_bound(e)
                if mapped is not None:
                    return mapped
        if not names & (set(self.types.scalars) | self.scope.fsm_vars | set(self.types.variables) |
                        set(self.scope.alias) | (self.inl.frame.params if self.inl.frame else set())):
            v = self.resolve(e)  # a compile-time expression of global constants
            if isinstance(v, int) and not isinstance(v, bool):
                return Bound("const", v)
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)):
            return Bound("add" if isinstance(e.op, ast.Add) else "sub", None,
                         self.bound(e.left), self.bound(e.right))
        if isinstance(e, ast.Name) and self.inl.frame is not None:
            v = self.src.ns.get(e.id)  # not a parameter or loop variable (see frame_bound)
            if isinstance(v, int) and not isinstance(v, bool):
                return Bound("const", v)
        elif isinstance(e, ast.Name):
            if e.id in self.scope.alias:
                base, off, _t = self.scope.alias[e.id]
                if base is None:
                    return Bound("const", off)
                raise self.err(e, "a loop bound cannot read a partially unrolled loop variable")
            if e.id in self.types.scalars:
                return Bound("arg", e.id)
            if e.id in self.scope.fsm_vars:
                return Bound("var", e.id)
            if e.id in self.types.variables:
                raise self.err(e, f"a loop bound cannot read variable '{e.id}'",
                               "use a scalar argument, an outer loop variable or a constant")
            v = self.src.ns.get(e.id)
            if isinstance(v, int):
                return Bound("const", v)
        raise self.err(e, "a loop bound must be a constant, a scalar argument, an outer loop "
                       "variable or a sum/difference of those")

    def for_(self, s: ast.For) -> None:
        var, start, stop, step, mode, ii, factor = self.loop_header(s)
        if self.inl.frame is not None:
            var = self.inl.frame.prefix + var
        if var in self.types.variables or var in self.types.scalars or var in self.b.arrays:
            raise self.err(s.target, f"loop variable '{var}' shadows a variable or argument",
                           "use a fresh name for the loop variable")
        assigned = _assigned_names(s.body)
        for n in start.names() | stop.names():
            if n in assigned:
                raise self.err(s.iter, f"the loop bound reads '{n}', which the loop body "
                               "assigns", "copy the bound to a variable before the loop")
        vtype = self.types.loop_var_type(start, stop)
        if self.inl.frame is not None:
            # the callee's golden run types its loop variable from its own signature
            vtype = self.inl.frame.callee.facts.loopvar_types.get((s.lineno, s.col_offset), vtype)
        else:
            self.types.loopvar_types[(s.lineno, s.col_offset)] = vtype
        if mode == "unroll":
            self.unrolled(s, var, start, stop, step, factor, vtype)
            return
        if self.scope.in_if:
            raise self.err(s, "a loop inside an if is not supported yet",
                           "move the if into the loop body")
        inner = self.inl.has_rolled_loop(s.body)
        name = f"L{self.line(s)}_{var}"
        if not inner:
            self.b.close_region()
            self.b.open(RegionBuilder(name=name, var=var, start=start, stop=stop, step=step,
                                      var_type=vtype, line=self.line(s),
                                      ii_requested=ii if mode == "pipeline" else None))
            self.scope.region_var = var
            self.block(s.body)
            self.scope.region_var = None
            self.b.close_region()
            return
        if mode == "pipeline":
            raise self.err(s.iter, "only innermost loops can be pipelined",
                           "pipeline the inner loop, or unroll it fully")
        self.b.close_region()
        outer = self.b.segments
        self.b.segments = []
        self.scope.fsm_vars.add(var)
        self.types.fsm_types[var] = vtype
        self.scope.fsm_ranges[var] = (start, stop, step)
        self.b.depth += 1
        self.block(s.body)
        self.b.close_region()
        self.b.depth -= 1
        self.scope.fsm_vars.discard(var)
        body = tuple(self.b.segments)
        self.b.segments = outer
        self.b.segments.append(Loop(name=name, var=var, start=start, stop=stop, step=step,
                                    var_type=vtype, body=body, line=self.line(s)))

    def while_(self, s: ast.While) -> None:
        """``while bounded(cond, max_iter=N):``, a sequential loop with a data-dependent exit.

        Each iteration evaluates ``cond`` on the values at its start; the body's effects are
        predicated by it, and the iteration that finds it false (or the ``N``-th) is the last.
        """
        t = s.test
        if not (isinstance(t, ast.Call) and self.resolve(t.func) is _bounded):
            raise self.err(s, "'while' needs a declared iteration bound",
                           "while bounded(cond, max_iter=64):")
        if s.orelse:
            raise self.err(s, "while/else is not supported")
        kw = {k.arg: k.value for k in t.keywords}
        if len(t.args) + len(kw) != 2 or not t.args or set(kw) - {"max_iter"} or \
                (len(t.args) == 2) == ("max_iter" in kw):
            raise self.err(t, "bounded() takes a condition and max_iter",
                           "while bounded(cond, max_iter=64):")
        n_max = self.static(kw["max_iter"] if "max_iter" in kw else t.args[1])
        if not isinstance(n_max, int) or isinstance(n_max, bool) or n_max < 1:
            raise self.err(t, f"max_iter must be a positive int, not {n_max!r}")
        if self.scope.in_if:
            raise self.err(s, "a loop inside an if is not supported yet",
                           "move the if into the loop body")
        if self.scope.region_var is not None:
            raise self.err(s, "a while loop inside a pipelined or partially unrolled loop is "
                           "not supported")
        if self.inl.has_rolled_loop(s.body):
            raise self.err(s, "a while loop cannot contain rolled loops yet",
                           "unroll the inner loop fully, or use for ... range")
        self.b.close_region()
        var = f"__w{self.line(s)}"
        reg = RegionBuilder(name=f"W{self.line(s)}", var=var, start=Bound("const", 0),
                            stop=Bound("const", n_max), step=1,
                            var_type=UInt(n_max.bit_length()), line=self.line(s),
                            while_max=n_max)
        self.b.open(reg)
        self.scope.region_var = var
        c = self.as_bool(self.expr(t.args[0]), t.args[0])
        if c.kind == "const" and not c.attrs["value"].raw:
            self.b.discard()
            self.scope.region_var = None
            return  # never entered
        self.scope.in_if += 1
        self.b.pred = None if c.kind == "const" else c
        self.block(s.body)
        self.b.pred = None
        self.scope.in_if -= 1
        iv = self.ivar(s)
        last = self.binop("ge", self.binop("add", iv, self.b.const(1), s), self.b.const(n_max), s)
        if c.kind != "const":
            last = self.mk("lor", Bool, (self.mk("lnot", Bool, (c,), s), last), s)
        reg.exit = last
        self.scope.region_var = None
        self.b.close_region()

    def unrolled(self, s: ast.For, var: str, start: Bound, stop: Bound, step: int,
                 factor: int | None, vtype: HWType) -> None:
        if not (start.is_const and stop.is_const):
            raise self.err(s.iter, "unroll needs constant loop bounds",
                           "use range with constants, or pipeline(...) instead")
        lo, hi = start.evaluate({}), stop.evaluate({})
        values = list(range(lo, hi, step))
        if factor is None or factor >= len(values):
            for v in values:
                self.scope.alias[var] = (None, v, vtype)
                self.block(s.body)
            self.scope.alias.pop(var, None)
            return
        if len(values) % factor:
            raise self.err(s.iter, f"unroll factor {factor} does not divide the trip count "
                           f"{len(values)}", "choose a factor that divides it")
        # a rolled loop over the base index, with `factor` copies of the body
        base = f"{var}"
        name = f"L{self.line(s)}_{var}"
        if self.inl.has_rolled_loop(s.body) or self.scope.in_if:
            raise self.err(s, "partial unroll of a loop that contains loops is not supported",
                           "unroll the innermost loop")
        self.b.close_region()
        self.b.open(RegionBuilder(name=name, var=base, start=start, stop=stop,
                                  step=step * factor, var_type=vtype, line=self.line(s)))
        self.scope.region_var = base
        saved = self.scope.alias.get(var)
        for u in range(factor):
            self.scope.alias[var] = ("__ivar__", u * step, vtype)
            self.block(s.body)
        if saved is None:
            self.scope.alias.pop(var, None)
        self.scope.region_var = None
        self.b.close_region()

    def if_(self, s: ast.If) -> None:
        if self.inl.has_rolled_loop(s.body + s.orelse):
            raise self.err(s, "a loop inside an if is not supported yet",
                           "move the if into the loop body")
        c = self.as_bool(self.expr(s.test), s.test)
        if c.kind == "const":  # statically resolved
            self.scope.in_if += 1
            self.block(s.body if c.attrs["value"].raw else s.orelse)
            self.scope.in_if -= 1
            return
        outer = self.b.pred
        self.scope.in_if += 1
        self.b.pred = c if outer is None else self.mk("land", Bool, (outer, c), s)
        self.block(s.body)
        if s.orelse:
            nc = self.mk("lnot", Bool, (c,), s)
            self.b.pred = nc if outer is None else self.mk("land", Bool, (outer, nc), s)
            self.block(s.orelse)
        self.b.pred = outer
        self.scope.in_if -= 1

    # ----- expressions -------------------------------------------------------------------
    def resolve(self, e: ast.expr) -> object:
        """Evaluate a compile-time expression (a global name, attribute or call of those)."""
        try:
            code = compile(ast.Expression(body=e), self.src.filename, "eval")
            return eval(code, self.src.ns)  # noqa: S307 - the user's own module namespace
        except Exception:
            return None

    def static(self, e: ast.expr) -> object:
        if isinstance(e, ast.Constant):
            return e.value
        if isinstance(e, ast.Name) and e.id in self.scope.alias and self.scope.alias[e.id][0] is None:
            return self.scope.alias[e.id][1]
        v = self.resolve(e)
        if v is None:
            raise self.err(e, "expected a compile-time constant")
        return v

    def read_var(self, name: str, at: ast.AST) -> Node:
        if name in self.b.env:
            return self.b.env[name]
        t = self.types.register_type(name)
        n = self.mk("var", t, (), at, name=name, var=name)
        self.b.env[name] = n
        return n

    def name(self, e: ast.Name) -> Node:
        n = e.id
        if self.inl.frame is not None:
            f = self.inl.frame
            if n in f.scalars:
                return f.scalars[n]
            if n in f.arrays:
                raise self.err(e, f"array '{n}' used as a value", f"index it: {n}[i]")
            pn = f.prefix + n
            if not (pn in self.b.env or pn in self.types.variables or pn in self.scope.alias or
                    pn == self.scope.region_var or pn in self.scope.fsm_vars):
                v = self.src.ns.get(n)
                if isinstance(v, (bool, int, HWValue)):
                    return self.b.const(v)
                raise self.err(e, f"unknown name '{n}'", "kernels read their arguments, "
                               "local variables and global constants")
            n = pn  # the inlined kernel's variable, parameter or loop variable
        if n in self.scope.alias:
            # unrolled copies see the loop variable with the loop's type, as the golden run does
            base, off, vtype = self.scope.alias[n]
            if base is None:
                return self.b.const(HWValue(vtype, off))
            iv = self.ivar(e) if base == "__ivar__" else self.read_var(base, e)
            return self.cast(self.binop("add", iv, self.b.const(off), e), vtype) if off else iv
        if n in self.b.env:
            return self.b.env[n]
        if n == self.scope.region_var:
            return self.ivar(e)
        if n in self.scope.fsm_vars or n in self.types.variables:
            return self.read_var(n, e)
        if n in self.types.scalars:
            node = self.mk("arg", self.types.scalars[n], (), e, name=n, arg=n)
            self.b.env[n] = node
            return node
        if n in self.b.arrays:
            raise self.err(e, f"array '{n}' used as a value", f"index it: {n}[i]")
        if n in self.src.ns:
            v = self.src.ns[n]
            if isinstance(v, (bool, int, HWValue)):
                return self.b.const(v)
        raise self.err(e, f"unknown name '{n}'",
                       "kernels read their arguments, local variables and global constants")

    def ivar(self, at: ast.AST) -> Node:
        key = "__ivar__"
        if key not in self.b.env:
            region, var = self.b.region, self.scope.region_var
            assert region is not None and var is not None  # inside a loop body
            self.b.env[key] = self.mk("ivar", region.var_type, (), at, name=var, var=var)
        return self.b.env[key]

    def as_bool(self, n: Node, at: ast.AST) -> Node:
        if n.type == Bool:
            return n
        return self.binop("ne", n, self.b.const(0), at)

    def binop(self, op: str, a: Node, b: Node, at: ast.AST) -> Node:
        if a.kind == "const" and b.kind == "const":
            va, vb = a.attrs["value"], b.attrs["value"]
            try:
                if op in _PY_CMP:
                    return self.b.const(bool(getattr(va, _PY_CMP[op])(vb)))
                if op in ("min", "max"):
                    return self.b.const((hw_min if op == "min" else hw_max)(va, vb))
                if op in ("floordiv", "mod") and vb.raw == 0:
                    raise self.err(at, "division by zero", "the divisor is the constant 0")
                if op in ("shl", "shr", "floordiv", "mod"):
                    vb = vb.raw
                return self.b.const(getattr(va, _PY_BIN[op])(vb))
            except TypeError as exc:
                raise self.err(at, str(exc)) from None
        if op in _PY_CMP:
            return self.mk(op, Bool, (a, b), at)
        if op in ("shl", "shr"):
            if b.vtype.signed or b.vtype.frac:
                raise self.err(at, "a shift amount must be an unsigned integer",
                               "convert it: UInt(5)(n)")
            const = b.attrs["value"].raw if b.kind == "const" else None
            return self.mk(op, binop_type(op, a.vtype, b.vtype, const), (a, b), at,
                           amount=const)
        if op in ("floordiv", "mod"):
            if a.vtype.frac or b.vtype.frac:
                raise self.err(at, "// and % are defined for integer types only")
            if b.kind == "const" and b.attrs["value"].raw == 0:
                raise self.err(at, "division by zero", "the divisor is the constant 0")
            if b.kind != "const" or b.attrs["value"].raw <= 0 or \
                    b.attrs["value"].raw & (b.attrs["value"].raw - 1):
                # a sequential divider: one quotient bit per cycle, plus an operand latch and
                # a sign fix-up cycle (floor semantics)
                qt, rt = div_types(a.vtype, b.vtype)
                return self.mk("div" if op == "floordiv" else "mod",
                               qt if op == "floordiv" else rt, (a, b), at,
                               latency=a.vtype.width + 2)
            k = b.attrs["value"].raw.bit_length() - 1
            if op == "floordiv":
                return self.mk("shr", HWType(width=a.vtype.width, signed=a.vtype.signed),
                               (a, self.b.const(k)), at, amount=k)
            return self.mk("and", HWType(width=max(1, k), signed=False),
                           (a, self.b.const((1 << k) - 1)), at)
        if op in ("and", "or", "xor") and (a.vtype.frac or b.vtype.frac):
            raise self.err(at, "bitwise operators need integer operands")
        return self.mk(op, binop_type(op, a.vtype, b.vtype), (a, b), at)

    def expr(self, e: ast.expr) -> Node:
        if isinstance(e, ast.Constant):
            if isinstance(e.value, bool) or isinstance(e.value, int):
                return self.b.const(e.value)
            raise self.err(e, f"constant {e.value!r} is not supported",
                           "use integers, or convert: Fixed(16, 8)(0.5)")
        if isinstance(e, ast.Name):
            return self.name(e)
        if isinstance(e, ast.BinOp):
            op = _BINOPS.get(type(e.op))
            if op is None:
                raise self.err(e, f"operator {type(e.op).__name__} is not supported",
                               "use + - * & | ^ << >>, // and % by powers of two")
            return self.binop(op, self.expr(e.left), self.expr(e.right), e)
        if isinstance(e, ast.UnaryOp):
            a = self.expr(e.operand)
            if isinstance(e.op, ast.UAdd):
                return a
            if isinstance(e.op, ast.Not):
                a = self.as_bool(a, e)
                if a.kind == "const":
                    return self.b.const(not a.attrs["value"].raw)
                return self.mk("lnot", Bool, (a,), e)
            if a.kind == "const":
                v = a.attrs["value"]
                return self.b.const(-v if isinstance(e.op, ast.USub) else ~v)
            if isinstance(e.op, ast.USub):
                return self.mk("neg", (-HWValue(a.vtype, 0)).type, (a,), e)
            if a.vtype.frac:
                raise self.err(e, "~ needs an integer operand")
            return self.mk("not", a.vtype, (a,), e)
        if isinstance(e, ast.Compare):
            if len(e.ops) != 1:
                raise self.err(e, "chained comparisons are not supported", "use a < b and b < c")
            op = _CMPOPS.get(type(e.ops[0]))
            if op is None:
                raise self.err(e, f"comparison {type(e.ops[0]).__name__} is not supported")
            return self.binop(op, self.expr(e.left), self.expr(e.comparators[0]), e)
        if isinstance(e, ast.BoolOp):
            vals = [self.as_bool(self.expr(v), v) for v in e.values]
            kind = "land" if isinstance(e.op, ast.And) else "lor"
            acc = vals[0]
            for v in vals[1:]:
                acc = self.mk(kind, Bool, (acc, v), e)
            return acc
        if isinstance(e, ast.IfExp):
            c = self.as_bool(self.expr(e.test), e.test)
            a, b = self.expr(e.body), self.expr(e.orelse)
            t = binop_type("max", a.vtype, b.vtype)
            a, b = self.cast(a, t), self.cast(b, t)
            if c.kind == "const":
                return a if c.attrs["value"].raw else b
            return self.mk("select", t, (c, a, b), e)
        if isinstance(e, ast.Subscript):
            arr, idx = self.subscript(e)
            info = self.b.mark_array(arr, read=True)
            bank, addr = self.address(info, idx, e)
            ld = self.mk("load", info.elem, (addr,), e, name=arr, array=arr, bank=bank)
            if info.fmt is None:
                return ld
            # the memory holds codes: a decode ROM gives the exact Fixed value
            return self.mk("decode", info.fmt.value_type, (ld,), e, name=f"{arr}_val",
                           fmt=info.fmt)
        if isinstance(e, ast.Call):
            return self.call(e)
        raise self.err(e, f"expression '{type(e).__name__}' is not supported in a kernel",
                       "kernels use arithmetic, comparisons, min/max/abs and array reads")

    def call(self, e: ast.Call) -> Node:
        if e.keywords:
            raise self.err(e, "keyword arguments are not supported here")
        fname = e.func.id if isinstance(e.func, ast.Name) else None
        if fname in ("min", "max") and fname not in self.src.ns:
            if len(e.args) < 2:
                raise self.err(e, f"{fname}() needs at least two arguments")
            vals = [self.expr(a) for a in e.args]
            acc = vals[0]
            for v in vals[1:]:
                acc = self.binop(fname, acc, v, e)
            return acc
        if fname == "abs" and fname not in self.src.ns:
            if len(e.args) != 1:
                raise self.err(e, "abs() takes one argument")
            a = self.expr(e.args[0])
            if a.kind == "const":
                return self.b.const(abs(a.attrs["value"]))
            return self.mk("abs", abs(HWValue(a.vtype, 0)).type, (a,), e)
        fn = self.resolve(e.func)
        if isinstance(fn, HWType):
            if len(e.args) != 1:
                raise self.err(e, "a type conversion takes one argument")
            arg = e.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, float):
                return self.b.const(fn(arg.value))
            return self.cast(self.expr(arg), fn, e)
        if isinstance(fn, Kernel):
            value = self.inl.inline(fn, e)
            if value is None:  # inline(want=True) raises unless the callee returns a value
                raise AssertionError(f"inlined kernel '{fn.name}' gave no value")
            return value
        what = fname or ast.unparse(e.func)
        raise self.err(e, f"call of '{what}' is not supported in a kernel",
                       "kernels may call min, max, abs and type conversions like Int(8)(x)")

    def subscript(self, e: ast.Subscript) -> tuple[str, list[ast.expr]]:
        idx: list[ast.expr] = []
        node: ast.expr = e
        while isinstance(node, ast.Subscript):
            sl = node.slice
            if isinstance(sl, ast.Slice):
                raise self.err(sl, "slices are not supported", "index one element: a[i]")
            parts = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
            idx = parts + idx
            node = node.value
        if isinstance(node, ast.Name) and self.inl.frame is not None:
            mapped = self.inl.frame.arrays.get(node.id)
            node = ast.copy_location(ast.Name(id=mapped or f"\0{node.id}", ctx=ast.Load()),
                                     node)
        if not isinstance(node, ast.Name) or node.id not in self.b.arrays:
            raise self.err(e, "only array arguments can be indexed")
        info = self.b.arrays[node.id]
        if len(idx) != len(info.shape):
            raise self.err(e, f"array '{node.id}' has {len(info.shape)} dimension(s), indexed "
                           f"with {len(idx)}", "index every dimension: a[i][j]")
        return node.id, idx

    def address(self, info: ArrayInfo, idx: list[ast.expr], at: ast.AST) -> tuple[int, Node]:
        flat: Node | None = None
        stride = 1
        for dim, ie in zip(reversed(info.shape), reversed(idx), strict=True):
            i = self.expr(ie)
            if i.vtype.frac:
                raise self.err(ie, "an index must be an integer")
            if i.kind == "const" and not 0 <= i.attrs["value"].raw < dim:
                raise self.err(ie, f"index {i.attrs['value'].raw} out of bounds for array "
                               f"'{info.name}' dimension of size {dim}")
            self.check_bounds(i, ie, info.name, dim)
            term = i if stride == 1 else self.scale(i, stride, at)
            flat = term if flat is None else self.binop("add", flat, term, at)
            stride *= dim
        assert flat is not None  # arrays have at least one dimension
        if info.banks == 1:
            return 0, flat
        if info.partition_kind == "complete":  # one register-like bank per element
            if flat.kind != "const":
                raise self.err(at, f"array '{info.name}' is partitioned completely, so its "
                               "indices must be constants", "unroll the loops that index it")
            return flat.attrs["value"].raw, self.b.const(0)
        if info.partition_kind == "block":  # bank b holds elements [b*D, (b+1)*D)
            dd = info.bank_depth
            rng = self.value_range(flat)
            if rng is None or rng[0] // dd != rng[1] // dd:
                raise self.err(at, f"cannot tell which bank of block-partitioned array "
                               f"'{info.name}' this access uses", "index it as "
                               f"a[u * {dd} + i] with u constant (unrolled) and i in "
                               f"[0, {dd})")
            block = rng[0] // dd
            if not block:
                return 0, flat
            if dd & (dd - 1) == 0:  # the offset is the low bits: wiring
                return block, self.cast(flat, UInt(max(1, dd.bit_length() - 1)), at)
            return block, self.binop("sub", flat, self.b.const(block * dd), at)
        bank = self.static_residue(flat, info.banks)
        if bank is None:
            raise self.err(at, f"cannot tell which bank of partitioned array '{info.name}' "
                           "this access uses", "unroll the loop by the partition factor, so "
                           "every copy reads a fixed bank")
        k = info.banks.bit_length() - 1
        off = self.binop("sub", flat, self.b.const(bank), at) if bank else flat
        return bank, self.binop("shr", off, self.b.const(k), at)

    def check_bounds(self, i: Node, ie: ast.expr, array: str, dim: int) -> None:
        """Static bounds check of one affine index (see :mod:`.bounds`): a :class:`DSLError`
        at the index when, over the iteration space of loops with compile-time bounds, it
        leaves ``0 .. dim - 1``.

        Nothing is checked (the access is left to the golden run) when the index is not
        affine in such loop variables, reads a loop variable with a run-time bound, sits
        under an ``if`` or in a ``while`` body (the condition may guard it), or lies inside
        a loop with a constant trip count of 0 (it never runs).
        """
        if i.kind == "const" or self.scope.in_if or not self.nest_runs():
            return
        ext = index_extremes(i, self.var_range)
        if ext is None or (ext[0] >= 0 and ext[1] < dim):
            return
        lo, hi = ext
        bad = lo if lo < 0 else hi
        raise self.err(ie, f"index '{ast.unparse(ie)}' reaches {bad} (it takes {lo}..{hi} over "
                       f"its loops), out of bounds for array '{array}' dimension of size {dim}",
                       f"keep it in 0..{dim - 1}: check the loop's range")

    def var_range(self, n: Node) -> VarRange | None:
        """The compile-time range of the loop variable ``n`` reads (an ``ivar`` node, or a
        ``var`` node of an enclosing FSM loop), or None."""
        if n.kind == "ivar":
            reg = self.b.region
            if reg is None or reg.while_max is not None:
                return None
            start, stop, step = self.loop_range()
        elif n.kind == "var" and n.attrs["var"] in self.scope.fsm_vars:
            start, stop, step = self.scope.fsm_ranges[n.attrs["var"]]
        else:
            return None
        if not (start.is_const and stop.is_const):
            return None
        first = start.evaluate({})
        trips = trip_count(first, stop.evaluate({}), step)
        if trips <= 0:
            return None
        return VarRange(str(n.attrs.get("var", n.name)), first, first + (trips - 1) * step)

    def nest_runs(self) -> bool:
        """False when an enclosing loop has constant bounds and no iteration (dead code)."""
        loops = [self.scope.fsm_ranges[v] for v in self.scope.fsm_vars]
        reg = self.b.region
        if reg is not None and reg.start is not None and reg.stop is not None:
            loops.append((reg.start, reg.stop, reg.step))
        return all(not (a.is_const and b.is_const) or trip_count(a.evaluate({}), b.evaluate({}),
                                                                 st) > 0
                   for a, b, st in loops)

    def scale(self, i: Node, c: int, at: ast.AST) -> Node:
        if c & (c - 1) == 0:
            return self.binop("shl", i, self.b.const(c.bit_length() - 1), at)
        return self.binop("mul", i, self.b.const(c), at)

    def loop_range(self) -> tuple[Bound, Bound, int]:
        """``(start, stop, step)`` of the innermost loop being lowered (where "ivar" nodes
        live)."""
        reg = self.b.region
        if reg is None or reg.start is None or reg.stop is None:
            raise AssertionError("a loop-variable node outside a loop region")
        return reg.start, reg.stop, reg.step

    def value_range(self, n: Node) -> tuple[int, int] | None:
        """Smallest and largest value ``n`` can take, when known statically."""
        if n.kind == "const":
            v = n.attrs["value"].raw
            return v, v
        if n.kind == "ivar" or (n.kind == "var" and n.attrs["var"] in self.scope.fsm_ranges):
            start, stop, step = self.scope.fsm_ranges[n.attrs["var"]] if n.kind == "var" else \
                self.loop_range()
            if not (start.is_const and stop.is_const):
                return None
            lo, hi = start.evaluate({}), stop.evaluate({})
            if hi <= lo:
                return None
            return lo, lo + (hi - 1 - lo) // step * step
        if n.kind == "cast" and not n.vtype.frac and not n.args[0].vtype.frac:
            r = self.value_range(n.args[0])
            if r is not None and n.vtype.min_raw <= r[0] and r[1] <= n.vtype.max_raw:
                return r
            return None
        if n.kind in ("add", "sub"):
            a, b = (self.value_range(x) for x in n.args)
            if a is None or b is None:
                return None
            if n.kind == "add":
                return a[0] + b[0], a[1] + b[1]
            return a[0] - b[1], a[1] - b[0]
        if n.kind == "shl" and n.attrs.get("amount") is not None:
            a = self.value_range(n.args[0])
            return None if a is None else (a[0] << n.attrs["amount"], a[1] << n.attrs["amount"])
        if n.kind == "mul" and n.args[1].kind == "const" and n.args[1].attrs["value"].raw >= 0:
            a = self.value_range(n.args[0])
            c = n.args[1].attrs["value"].raw
            return None if a is None else (a[0] * c, a[1] * c)
        return None

    def static_residue(self, n: Node, m: int) -> int | None:
        """``n mod m`` when it is the same on every iteration, else None."""
        if n.kind == "const":
            return n.attrs["value"].raw % m
        if n.kind == "cast" and not n.vtype.frac and not n.args[0].vtype.frac and \
                (1 << n.vtype.width) % m == 0:
            return self.static_residue(n.args[0], m)  # wrapping keeps residues mod 2**k
        if n.kind == "ivar":
            start, _, step = self.loop_range()
            if start.is_const and step % m == 0:
                return start.evaluate({}) % m
            return None
        if n.kind == "add" or n.kind == "sub":
            a, b = (self.static_residue(x, m) for x in n.args)
            if a is None or b is None:
                return None
            return (a + b) % m if n.kind == "add" else (a - b) % m
        if n.kind == "shl" and n.attrs.get("amount") is not None:
            a = self.static_residue(n.args[0], m)
            if (1 << n.attrs["amount"]) % m == 0:
                return 0
            return None if a is None else (a << n.attrs["amount"]) % m
        if n.kind == "mul" and n.args[1].kind == "const":
            c = n.args[1].attrs["value"].raw
            if c % m == 0:
                return 0
            a = self.static_residue(n.args[0], m)
            return None if a is None else (a * c) % m
        return None


def _as_load(t: ast.expr) -> ast.expr:
    import copy

    t2 = copy.deepcopy(t)
    for n in ast.walk(t2):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return t2


def _is_plain_int(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) or (isinstance(e, ast.UnaryOp) and
                                           isinstance(e.operand, ast.Constant))


def _assigned_names(stmts: list[ast.stmt]) -> set[str]:
    out: set[str] = set()
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
    return out


_CACHE: weakref.WeakKeyDictionary[Kernel, KernelIR] = weakref.WeakKeyDictionary()


def _array_info(kern: Kernel, name: str, t: ArrayType) -> ArrayInfo:
    """The memory of array argument ``name``: a format array stores its codes."""
    if isinstance(t.elem, FormatType):
        return ArrayInfo(name=name, elem=t.elem.code_type, shape=t.shape, fmt=t.elem)
    if isinstance(t.elem, HWType):
        return ArrayInfo(name=name, elem=t.elem, shape=t.shape)
    # compile_kernel and Kernel.lowerable keep golden-only formats away from the frontend
    raise DSLError(f"array '{name}': element type {getattr(t.elem, 'name', t.elem)} has no "
                   "hardware lowering yet", filename=kern.filename, lineno=kern.line0)


def lower(kern: Kernel) -> KernelIR:
    """Lower a :class:`~archsim.dsl.kernel.Kernel` to :class:`KernelIR` (once per kernel: the
    IR is read-only, so every design of the kernel shares it)."""
    ir = _CACHE.get(kern)
    if ir is None:
        ir = Lowering(kern).run()
        _CACHE[kern] = ir
    return ir


def analyze(kern: Kernel) -> KernelFacts:
    """What the golden run needs to know of ``kern``'s lowering (raises the frontend's
    :class:`~archsim.errors.DSLError` outside the hardware subset)."""
    ir = lower(kern)
    return KernelFacts(loopvar_types=dict(ir.loopvar_types), written=ir.written_arrays())
