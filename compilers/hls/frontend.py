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
:class:`~archsim.errors.DSLError` at the user's ``file:line:col`` with a hint.
"""

from __future__ import annotations

import ast
from typing import Any

from ...dsl.kernel import PARTITION_KINDS, ArrayType, Kernel
from ...dsl.types import (
    Bool,
    FormatType,
    HWType,
    HWValue,
    UInt,
    binop_type,
    const_type,
    div_types,
)
from ...errors import DSLError
from .ir import ArrayInfo, Bound, KernelIR, Loop, Node, Region

__all__ = ["lower"]

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


class _Lowering:
    def __init__(self, kern: Any, tree: ast.FunctionDef, filename: str, line0: int,
                 namespace: dict[str, Any]) -> None:
        import types as _types

        from ...dsl.kernel import bounded, partition, pipeline, unroll

        kmod = _types.SimpleNamespace(pipeline=pipeline, unroll=unroll, partition=partition,
                                      bounded=bounded)
        self.k = kern
        self.kmod = kmod
        self.tree = tree
        self.filename = filename
        self.line0 = line0
        self.ns = namespace
        self.col0 = getattr(kern, "col0", 0)
        self.scalars: dict[str, HWType] = dict(kern.scalar_types)
        self.arrays: dict[str, ArrayInfo] = {
            n: ArrayInfo(name=n, elem=t.elem.code_type if isinstance(t.elem, FormatType) else
                         t.elem, shape=t.shape,
                         fmt=t.elem if isinstance(t.elem, FormatType) else None)
            for n, t in kern.array_types.items()
        }
        self.variables: dict[str, HWType] = {}
        self.returns: list[HWType] = []
        self.loopvar_types: dict[tuple[int, int], HWType] = {}
        # state during lowering
        self.region: Region | None = None
        self.segments: list[Region | Loop] = []
        self.env: dict[str, Node] = {}
        self.dirty: dict[str, Node] = {}
        self.pred: Node | None = None
        self.alias: dict[str, tuple[str | None, int]] = {}
        self.fsm_vars: set[str] = set()
        self.fsm_types: dict[str, HWType] = {}
        self.fsm_ranges: dict[str, tuple[Bound, Bound, int]] = {}
        self.segments_depth = 0
        self.region_var: str | None = None
        self.nseq = 0
        self.returned = False
        self.in_if = 0
        self.ret_alias: dict[int, str] = {}
        self.cse: dict[Any, Node] = {}
        self.frame: dict[str, Any] | None = None  # an inlined @kernel call being lowered
        self.ninline = 0
        self.stmt_call: ast.Call | None = None  # a call that is a statement of its own
        self.rolled_cache: dict[int, bool] = {}
        self.epoch: dict[str, int] = {}

    # ----- errors ------------------------------------------------------------------------
    def err(self, node: ast.AST, msg: str, hint: str | None = None) -> DSLError:
        line = getattr(node, "lineno", 1) + self.line0 - 1
        col = getattr(node, "col_offset", 0) + 1 + self.col0
        return DSLError(msg, filename=self.filename, lineno=line, col=col, hint=hint)

    def line(self, node: ast.AST) -> int:
        return getattr(node, "lineno", 1) + self.line0 - 1

    # ----- node creation -----------------------------------------------------------------
    def cur(self) -> Region:
        if self.region is None:
            self.region = Region(name=f"seq{self.nseq}")
            self.nseq += 1
        return self.region

    def mk(self, kind: str, t: HWType | None, args: tuple[Node, ...] = (), at: ast.AST | None =
           None, name: str = "", **attrs: Any) -> Node:
        key = None
        if kind not in ("store", "setvar", "var", "ivar", "arg"):
            # common subexpressions (loads: only while no store to the array intervenes)
            argk = tuple(("c", a.attrs["value"].raw, a.type) if a.kind == "const" else id(a)
                         for a in args)
            extra = self.epoch.get(attrs.get("array"), 0) if kind == "load" else 0
            key = (kind, t, argk, tuple(sorted(attrs.items())), extra)
            if key in self.cse:
                return self.cse[key]
        n = Node(kind=kind, type=t, args=args, attrs=attrs,
                 line=self.line(at) if at is not None else 0,
                 col=(getattr(at, "col_offset", 0) + 1 + self.col0) if at is not None else 0,
                 name=name)
        self.cur().nodes.append(n)
        if key is not None:
            self.cse[key] = n
        if kind == "store":
            self.epoch[attrs["array"]] = self.epoch.get(attrs["array"], 0) + 1
        return n

    def const(self, v: HWValue | int | bool) -> Node:
        if isinstance(v, bool):
            v = HWValue(Bool, int(v))
        elif isinstance(v, int):
            v = HWValue(const_type(v), v)
        return Node(kind="const", type=v.type, attrs={"value": v})

    def cast(self, n: Node, t: HWType, at: ast.AST | None = None, name: str = "") -> Node:
        if n.type == t:
            return n
        if n.kind == "const":
            return self.const(t(n.attrs["value"]))
        return self.mk("cast", t, (n,), at, name=name)

    def close_region(self) -> None:
        """End the current region: write the changed variables to their registers."""
        if self.region is None and self.dirty:
            self.cur()
        self.cse = {}
        if self.region is None:
            self.env = {}
            return
        for name, val in self.dirty.items():
            self.mk("setvar", self.variables[name], (val,), None, name=name, var=name)
        if not self.region.line:
            self.region.line = min((n.line for n in self.region.nodes if n.line), default=0)
        if self.region.nodes or self.region.is_loop:
            self.segments.append(self.region)
        self.region = None
        self.env = {}
        self.dirty = {}

    # ----- entry -------------------------------------------------------------------------
    def run(self) -> KernelIR:
        body = list(self.tree.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # docstring
        self.block(body)
        self.close_region()
        return KernelIR(name=self.k.name, filename=self.filename, scalars=self.scalars,
                        arrays=self.arrays, params=list(self.k.param_names),
                        variables=self.variables, returns=self.returns, body=self.segments,
                        loopvar_types=self.loopvar_types, ret_alias=self.ret_alias)

    # ----- statements --------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            if self.returned:
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
            if isinstance(s.value, ast.Call) and self.resolve(s.value.func) is \
                    self.kmod.partition:
                self.partition(s.value)
            elif isinstance(s.value, ast.Call) and isinstance(self.resolve(s.value.func),
                                                              Kernel):
                self.stmt_call = s.value  # `f(...)` for its side effects on arrays
                self.inline(self.resolve(s.value.func), s.value, want=False)
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
            if self.frame is not None:
                if name in self.frame["params"]:
                    raise self.err(target, f"cannot assign to argument '{name}'",
                                   "copy it to a variable first")
                name = self.frame["prefix"] + name
            if name in self.arrays:
                raise self.err(target, f"cannot assign to array '{name}'",
                               f"write elements: {name}[i] = ...")
            if name in self.scalars:
                raise self.err(target, f"cannot assign to argument '{name}'",
                               "copy it to a variable first")
            if name in self.fsm_vars or name == self.region_var or name in self.alias:
                raise self.err(target, f"cannot assign to loop variable '{name}'")
            if isinstance(value, ast.Call) and not value.args and not value.keywords and \
                    isinstance(self.resolve(value.func), ArrayType):
                self.local_array(name, self.resolve(value.func), at)
                return
            if isinstance(value, ast.Call) and isinstance(self.resolve(value.func), Kernel):
                self.stmt_call = value  # `x = f(...)`: f may contain loops
            val = self.expr(value)
            if name not in self.variables:
                if val.kind == "const" and value is not None and _is_plain_int(value):
                    raise self.err(at, f"variable '{name}' is initialised with a plain int",
                                   f"give it a hardware type, e.g. {name} = Int(32)(0)")
                self.variables[name] = val.type
            t = self.variables[name]
            val = self.cast(val, t, at, name=name)
            if self.pred is not None:
                old = self.read_var(name, at)
                val = self.mk("select", t, (self.pred, val, old), at, name=name)
            self.env[name] = val
            self.dirty[name] = val
        elif isinstance(target, ast.Subscript):
            arr, idx = self.subscript(target)
            info = self.arrays[arr]
            if info.fmt is not None:
                raise self.err(target, f"array '{arr}' of {info.fmt.name} is read-only in "
                               "kernels (format arrays are read-only: there is no encoder in "
                               "hardware)", "store into an Int/UInt/Fixed array instead")
            info.written = True
            val = self.cast(self.expr(value), info.elem, at)
            bank, addr = self.address(info, idx, target)
            args = (addr, val) + ((self.pred,) if self.pred is not None else ())
            self.mk("store", None, args, at, name=arr, array=arr, bank=bank)
        elif isinstance(target, ast.Tuple):
            raise self.err(target, "tuple assignment is not supported", "assign one name")
        else:
            raise self.err(target, "unsupported assignment target")

    def local_array(self, name: str, t: ArrayType, at: ast.stmt) -> None:
        if self.segments_depth or self.in_if or self.region_var is not None:
            raise self.err(at, f"local array '{name}' must be declared at the top level of the "
                           "kernel", "move the declaration before the loops")
        if name in self.variables or name in self.arrays:
            raise self.err(at, f"'{name}' is already defined")
        if isinstance(t.elem, FormatType):
            raise self.err(at, f"local array '{name}': format arrays are read-only in kernels, "
                           "so a local one would only hold zeros", "use Int, UInt or Fixed "
                           "elements")
        if not isinstance(t.elem, HWType):
            raise self.err(at, f"local array '{name}': element type has no hardware lowering yet",
                           "use Int, UInt or Fixed elements")
        self.arrays[name] = ArrayInfo(name=name, elem=t.elem, shape=t.shape, local=True)

    def return_(self, s: ast.Return) -> None:
        if self.frame is not None:
            if self.in_if or self.region_var != self.frame["region_var"] or \
                    self.segments_depth != self.frame["depth"]:
                raise self.err(s, "an inlined kernel returns once, as its last statement "
                               "(not inside a loop or an if)")
            if not self.frame["want"]:  # called as a statement: the value is not used
                self.returned = True
                return
            if s.value is None or isinstance(s.value, ast.Tuple):
                raise self.err(s, "an inlined kernel returns one value, as its last statement")
            self.frame["ret"] = self.cast(self.expr(s.value), self.frame["type"], s)
            self.returned = True
            return
        if self.segments_depth > 0 or self.in_if or self.region_var is not None:
            raise self.err(s, "return inside a loop or if is not supported",
                           "return once, as the last statement")
        ann = self.k.return_types
        if s.value is None:
            self.returned = True
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
            if val.kind == "var" and val.type == t and val.attrs["var"] in self.variables:
                # the port shows the variable's register: no copy, no cycle
                self.ret_alias[k] = val.attrs["var"]
                continue
            self.variables[name] = t
            val = self.cast(val, t, s, name="ret")
            self.env[name] = val
            self.dirty[name] = val
        self.returns = list(ann)
        self.returned = True

    def partition(self, call: ast.Call) -> None:
        if not call.args or not isinstance(call.args[0], ast.Name) or \
                call.args[0].id not in self.arrays:
            raise self.err(call, "partition() needs an array argument",
                           "partition(a, factor=4, kind='cyclic')")
        info = self.arrays[call.args[0].id]
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
        info.banks = factor
        info.partition_kind = kind

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
            if fn is self.kmod.pipeline:
                mode, ii = "pipeline", kw.get("ii", 1)
                if not isinstance(ii, int) or ii < 1:
                    raise self.err(it, f"ii must be a positive int, not {ii!r}")
            elif fn is self.kmod.unroll:
                mode, factor = "unroll", kw.get("factor")
                if len(it.args) > 1:
                    factor = self.static(it.args[1])
                if factor is not None and (not isinstance(factor, int) or factor < 1):
                    raise self.err(it, f"unroll factor must be a positive int, not {factor!r}")
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
            step = self.static(a[2])
            if not isinstance(step, int) or step < 1:
                raise self.err(a[2], "the range step must be a positive constant")
        return s.target.id, start, stop, step, mode, ii, factor

    def bound(self, e: ast.expr) -> Bound:
        if isinstance(e, ast.Constant) and isinstance(e.value, int):
            return Bound("const", e.value)
        names = {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}
        if self.frame is not None:  # an inlined kernel's parameters and loop variables
            names = {self.frame["prefix"] + n for n in names} | (names & self.frame["params"])
            if isinstance(e, ast.Name):
                mapped = self.frame_bound(e)
                if mapped is not None:
                    return mapped
        if not names & (set(self.scalars) | self.fsm_vars | set(self.variables) |
                        set(self.alias) | (self.frame["params"] if self.frame else set())):
            v = self.resolve(e)  # a compile-time expression of global constants
            if isinstance(v, int) and not isinstance(v, bool):
                return Bound("const", v)
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)):
            return Bound("add" if isinstance(e.op, ast.Add) else "sub", None,
                         self.bound(e.left), self.bound(e.right))
        if isinstance(e, ast.Name) and self.frame is not None:
            v = self.ns.get(e.id)  # not a parameter or loop variable (see frame_bound)
            if isinstance(v, int) and not isinstance(v, bool):
                return Bound("const", v)
        elif isinstance(e, ast.Name):
            if e.id in self.alias:
                base, off, _t = self.alias[e.id]
                if base is None:
                    return Bound("const", off)
                raise self.err(e, "a loop bound cannot read a partially unrolled loop variable")
            if e.id in self.scalars:
                return Bound("arg", e.id)
            if e.id in self.fsm_vars:
                return Bound("var", e.id)
            if e.id in self.variables:
                raise self.err(e, f"a loop bound cannot read variable '{e.id}'",
                               "use a scalar argument, an outer loop variable or a constant")
            v = self.ns.get(e.id)
            if isinstance(v, int):
                return Bound("const", v)
        raise self.err(e, "a loop bound must be a constant, a scalar argument, an outer loop "
                       "variable or a sum/difference of those")

    def frame_bound(self, e: ast.Name) -> Bound | None:
        """A bound of an inlined kernel's loop that names one of its parameters or loop
        variables, as a bound of the caller (None: not such a name)."""
        f = self.frame
        if e.id in f["params"] and e.id in f["bsrc"]:
            node, ptype = f["bsrc"][e.id], f["callee"].scalar_types[e.id]
            src = node
            if src.kind == "cast" and not src.type.frac and not src.args[0].type.frac and \
                    src.type.min_raw <= src.args[0].type.min_raw and \
                    src.args[0].type.max_raw <= src.type.max_raw:
                src = src.args[0]  # a widening conversion: the same value
            if src.kind == "const" and not ptype.frac:
                return Bound("const", src.attrs["value"].raw)
            if src.kind == "arg":
                return Bound("arg", src.attrs["arg"])
            if src.kind == "var" and src.attrs["var"] in self.fsm_vars:
                return Bound("var", src.attrs["var"])
            raise self.err(e, f"a loop bound of inlined kernel '{f['callee'].name}' reads its "
                           f"parameter '{e.id}', so the call must pass a constant, a scalar "
                           "argument or an outer loop variable that fits its type")
        pn = f["prefix"] + e.id
        if pn in self.alias:
            base, off, _t = self.alias[pn]
            if base is None:
                return Bound("const", off)
            raise self.err(e, "a loop bound cannot read a partially unrolled loop variable")
        if pn in self.fsm_vars:
            return Bound("var", pn)
        if pn in self.variables:
            raise self.err(e, f"a loop bound cannot read variable '{e.id}'",
                           "use a scalar argument, an outer loop variable or a constant")
        return None

    def bound_type(self, b: Bound) -> HWType:
        if b.kind == "const":
            return const_type(int(b.value))
        if b.kind == "arg":
            return self.scalars[b.value]
        if b.kind == "var":
            return self.fsm_types[b.value]
        return binop_type("add" if b.kind == "add" else "sub", self.bound_type(b.left),
                          self.bound_type(b.right))

    def for_(self, s: ast.For) -> None:
        var, start, stop, step, mode, ii, factor = self.loop_header(s)
        if self.frame is not None:
            var = self.frame["prefix"] + var
        if var in self.variables or var in self.scalars or var in self.arrays:
            raise self.err(s.target, f"loop variable '{var}' shadows a variable or argument",
                           "use a fresh name for the loop variable")
        assigned = _assigned_names(s.body)
        for n in start.names() | stop.names():
            if n in assigned:
                raise self.err(s.iter, f"the loop bound reads '{n}', which the loop body "
                               "assigns", "copy the bound to a variable before the loop")
        vtype = binop_type("max", self.bound_type(start), self.bound_type(stop))
        if self.frame is not None:
            # the callee's golden run types its loop variable from its own signature
            vtype = self.frame["callee"].ir.loopvar_types.get((s.lineno, s.col_offset), vtype)
        else:
            self.loopvar_types[(s.lineno, s.col_offset)] = vtype
        if mode == "unroll":
            self.unrolled(s, var, start, stop, step, factor, vtype)
            return
        if self.in_if:
            raise self.err(s, "a loop inside an if is not supported yet",
                           "move the if into the loop body")
        inner = _has_rolled_loop(s.body, self)
        name = f"L{self.line(s)}_{var}"
        if not inner:
            self.close_region()
            reg = Region(name=name, var=var, start=start, stop=stop, step=step, var_type=vtype,
                         ii_requested=ii if mode == "pipeline" else None, line=self.line(s))
            self.region = reg
            self.region_var = var
            self.block(s.body)
            self.region_var = None
            self.close_region()
            if reg not in self.segments:
                self.segments.append(reg)
            return
        if mode == "pipeline":
            raise self.err(s.iter, "only innermost loops can be pipelined",
                           "pipeline the inner loop, or unroll it fully")
        self.close_region()
        outer = self.segments
        self.segments = []
        self.fsm_vars.add(var)
        self.fsm_types[var] = vtype
        self.fsm_ranges[var] = (start, stop, step)
        self.segments_depth += 1
        self.block(s.body)
        self.close_region()
        self.segments_depth -= 1
        self.fsm_vars.discard(var)
        body = self.segments
        self.segments = outer
        self.segments.append(Loop(name=name, var=var, start=start, stop=stop, step=step,
                                  var_type=vtype, body=body, line=self.line(s)))

    def while_(self, s: ast.While) -> None:
        """``while bounded(cond, max_iter=N):``, a sequential loop with a data-dependent exit.

        Each iteration evaluates ``cond`` on the values at its start; the body's effects are
        predicated by it, and the iteration that finds it false (or the ``N``-th) is the last.
        """
        t = s.test
        if not (isinstance(t, ast.Call) and self.resolve(t.func) is self.kmod.bounded):
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
        if self.in_if:
            raise self.err(s, "a loop inside an if is not supported yet",
                           "move the if into the loop body")
        if self.region_var is not None:
            raise self.err(s, "a while loop inside a pipelined or partially unrolled loop is "
                           "not supported")
        if _has_rolled_loop(s.body, self):
            raise self.err(s, "a while loop cannot contain rolled loops yet",
                           "unroll the inner loop fully, or use for ... range")
        self.close_region()
        var = f"__w{self.line(s)}"
        reg = Region(name=f"W{self.line(s)}", var=var, start=Bound("const", 0),
                     stop=Bound("const", n_max), step=1, var_type=UInt(n_max.bit_length()),
                     line=self.line(s), while_max=n_max)
        self.region = reg
        self.region_var = var
        c = self.as_bool(self.expr(t.args[0]), t.args[0])
        if c.kind == "const" and not c.attrs["value"].raw:
            self.region, self.region_var, self.cse, self.env = None, None, {}, {}
            return  # never entered
        self.in_if += 1
        self.pred = None if c.kind == "const" else c
        self.block(s.body)
        self.pred = None
        self.in_if -= 1
        iv = self.ivar(s)
        last = self.binop("ge", self.binop("add", iv, self.const(1), s), self.const(n_max), s)
        if c.kind != "const":
            last = self.mk("lor", Bool, (self.mk("lnot", Bool, (c,), s), last), s)
        reg.exit = last
        self.region_var = None
        self.close_region()
        if reg not in self.segments:
            self.segments.append(reg)

    def unrolled(self, s: ast.For, var: str, start: Bound, stop: Bound, step: int,
                 factor: int | None, vtype: HWType) -> None:
        if not (start.is_const and stop.is_const):
            raise self.err(s.iter, "unroll needs constant loop bounds",
                           "use range with constants, or pipeline(...) instead")
        lo, hi = start.evaluate({}), stop.evaluate({})
        values = list(range(lo, hi, step))
        if factor is None or factor >= len(values):
            for v in values:
                self.alias[var] = (None, v, vtype)
                self.block(s.body)
            self.alias.pop(var, None)
            return
        if len(values) % factor:
            raise self.err(s.iter, f"unroll factor {factor} does not divide the trip count "
                           f"{len(values)}", "choose a factor that divides it")
        # a rolled loop over the base index, with `factor` copies of the body
        base = f"{var}"
        name = f"L{self.line(s)}_{var}"
        if _has_rolled_loop(s.body, self) or self.in_if:
            raise self.err(s, "partial unroll of a loop that contains loops is not supported",
                           "unroll the innermost loop")
        self.close_region()
        reg = Region(name=name, var=base, start=start, stop=stop, step=step * factor,
                     var_type=vtype, ii_requested=None, line=self.line(s))
        self.region = reg
        self.region_var = base
        saved = self.alias.get(var)
        for u in range(factor):
            self.alias[var] = ("__ivar__", u * step, vtype)
            self.block(s.body)
        if saved is None:
            self.alias.pop(var, None)
        self.region_var = None
        self.close_region()
        if reg not in self.segments:
            self.segments.append(reg)

    def if_(self, s: ast.If) -> None:
        if _has_rolled_loop(s.body + s.orelse, self):
            raise self.err(s, "a loop inside an if is not supported yet",
                           "move the if into the loop body")
        c = self.as_bool(self.expr(s.test), s.test)
        if c.kind == "const":  # statically resolved
            self.in_if += 1
            self.block(s.body if c.attrs["value"].raw else s.orelse)
            self.in_if -= 1
            return
        outer = self.pred
        self.in_if += 1
        self.pred = c if outer is None else self.mk("land", Bool, (outer, c), s)
        self.block(s.body)
        if s.orelse:
            nc = self.mk("lnot", Bool, (c,), s)
            self.pred = nc if outer is None else self.mk("land", Bool, (outer, nc), s)
            self.block(s.orelse)
        self.pred = outer
        self.in_if -= 1

    # ----- expressions -------------------------------------------------------------------
    def resolve(self, e: ast.expr) -> Any:
        """Evaluate a compile-time expression (a global name, attribute or call of those)."""
        try:
            code = compile(ast.Expression(body=e), self.filename, "eval")
            return eval(code, self.ns)  # noqa: S307 - the user's own module namespace
        except Exception:
            return None

    def static(self, e: ast.expr) -> Any:
        if isinstance(e, ast.Constant):
            return e.value
        if isinstance(e, ast.Name) and e.id in self.alias and self.alias[e.id][0] is None:
            return self.alias[e.id][1]
        v = self.resolve(e)
        if v is None:
            raise self.err(e, "expected a compile-time constant")
        return v

    def read_var(self, name: str, at: ast.AST) -> Node:
        if name in self.env:
            return self.env[name]
        t = self.variables.get(name) or self.fsm_types.get(name)
        n = self.mk("var", t, (), at, name=name, var=name)
        self.env[name] = n
        return n

    def name(self, e: ast.Name) -> Node:
        n = e.id
        if self.frame is not None:
            f = self.frame
            if n in f["scalars"]:
                return f["scalars"][n]
            if n in f["arrays"]:
                raise self.err(e, f"array '{n}' used as a value", f"index it: {n}[i]")
            pn = f["prefix"] + n
            if not (pn in self.env or pn in self.variables or pn in self.alias or
                    pn == self.region_var or pn in self.fsm_vars):
                v = self.ns.get(n)
                if isinstance(v, (bool, int, HWValue)):
                    return self.const(v)
                raise self.err(e, f"unknown name '{n}'", "kernels read their arguments, "
                               "local variables and global constants")
            n = pn  # the inlined kernel's variable, parameter or loop variable
        if n in self.alias:
            # unrolled copies see the loop variable with the loop's type, as the golden run does
            base, off, vtype = self.alias[n]
            if base is None:
                return self.const(HWValue(vtype, off))
            iv = self.ivar(e) if base == "__ivar__" else self.read_var(base, e)
            return self.cast(self.binop("add", iv, self.const(off), e), vtype) if off else iv
        if n in self.env:
            return self.env[n]
        if n == self.region_var:
            return self.ivar(e)
        if n in self.fsm_vars or n in self.variables:
            return self.read_var(n, e)
        if n in self.scalars:
            node = self.mk("arg", self.scalars[n], (), e, name=n, arg=n)
            self.env[n] = node
            return node
        if n in self.arrays:
            raise self.err(e, f"array '{n}' used as a value", f"index it: {n}[i]")
        if n in self.ns:
            v = self.ns[n]
            if isinstance(v, (bool, int, HWValue)):
                return self.const(v)
        raise self.err(e, f"unknown name '{n}'",
                       "kernels read their arguments, local variables and global constants")

    def ivar(self, at: ast.AST) -> Node:
        key = "__ivar__"
        if key not in self.env:
            self.env[key] = self.mk("ivar", self.region.var_type, (), at, name=self.region_var,
                                    var=self.region_var)
        return self.env[key]

    def as_bool(self, n: Node, at: ast.AST) -> Node:
        if n.type == Bool:
            return n
        return self.binop("ne", n, self.const(0), at)

    def binop(self, op: str, a: Node, b: Node, at: ast.AST) -> Node:
        if a.kind == "const" and b.kind == "const":
            va, vb = a.attrs["value"], b.attrs["value"]
            try:
                if op in _PY_CMP:
                    return self.const(bool(getattr(va, _PY_CMP[op])(vb)))
                if op in ("min", "max"):
                    from ...dsl.types import hw_max, hw_min

                    return self.const((hw_min if op == "min" else hw_max)(va, vb))
                if op in ("floordiv", "mod") and vb.raw == 0:
                    raise self.err(at, "division by zero", "the divisor is the constant 0")
                if op in ("shl", "shr", "floordiv", "mod"):
                    vb = vb.raw
                return self.const(getattr(va, _PY_BIN[op])(vb))
            except TypeError as exc:
                raise self.err(at, str(exc)) from None
        if op in _PY_CMP:
            return self.mk(op, Bool, (a, b), at)
        if op in ("shl", "shr"):
            if b.type.signed or b.type.frac:
                raise self.err(at, "a shift amount must be an unsigned integer",
                               "convert it: UInt(5)(n)")
            const = b.attrs["value"].raw if b.kind == "const" else None
            return self.mk(op, binop_type(op, a.type, b.type, const), (a, b), at,
                           amount=const)
        if op in ("floordiv", "mod"):
            if a.type.frac or b.type.frac:
                raise self.err(at, "// and % are defined for integer types only")
            if b.kind == "const" and b.attrs["value"].raw == 0:
                raise self.err(at, "division by zero", "the divisor is the constant 0")
            if b.kind != "const" or b.attrs["value"].raw <= 0 or \
                    b.attrs["value"].raw & (b.attrs["value"].raw - 1):
                # a sequential divider: one quotient bit per cycle, plus an operand latch and
                # a sign fix-up cycle (floor semantics)
                qt, rt = div_types(a.type, b.type)
                return self.mk("div" if op == "floordiv" else "mod",
                               qt if op == "floordiv" else rt, (a, b), at,
                               latency=a.type.width + 2)
            k = b.attrs["value"].raw.bit_length() - 1
            if op == "floordiv":
                return self.mk("shr", HWType(width=a.type.width, signed=a.type.signed),
                               (a, self.const(k)), at, amount=k)
            return self.mk("and", HWType(width=max(1, k), signed=False),
                           (a, self.const((1 << k) - 1)), at)
        if op in ("and", "or", "xor") and (a.type.frac or b.type.frac):
            raise self.err(at, "bitwise operators need integer operands")
        return self.mk(op, binop_type(op, a.type, b.type), (a, b), at)

    def expr(self, e: ast.expr) -> Node:
        if isinstance(e, ast.Constant):
            if isinstance(e.value, bool) or isinstance(e.value, int):
                return self.const(e.value)
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
                    return self.const(not a.attrs["value"].raw)
                return self.mk("lnot", Bool, (a,), e)
            if a.kind == "const":
                v = a.attrs["value"]
                return self.const(-v if isinstance(e.op, ast.USub) else ~v)
            if isinstance(e.op, ast.USub):
                return self.mk("neg", (-HWValue(a.type, 0)).type, (a,), e)
            if a.type.frac:
                raise self.err(e, "~ needs an integer operand")
            return self.mk("not", a.type, (a,), e)
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
            t = binop_type("max", a.type, b.type)
            a, b = self.cast(a, t), self.cast(b, t)
            if c.kind == "const":
                return a if c.attrs["value"].raw else b
            return self.mk("select", t, (c, a, b), e)
        if isinstance(e, ast.Subscript):
            arr, idx = self.subscript(e)
            info = self.arrays[arr]
            info.read = True
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
        if fname in ("min", "max") and fname not in self.ns:
            if len(e.args) < 2:
                raise self.err(e, f"{fname}() needs at least two arguments")
            vals = [self.expr(a) for a in e.args]
            acc = vals[0]
            for v in vals[1:]:
                acc = self.binop(fname, acc, v, e)
            return acc
        if fname == "abs" and fname not in self.ns:
            if len(e.args) != 1:
                raise self.err(e, "abs() takes one argument")
            a = self.expr(e.args[0])
            if a.kind == "const":
                return self.const(abs(a.attrs["value"]))
            return self.mk("abs", abs(HWValue(a.type, 0)).type, (a,), e)
        fn = self.resolve(e.func)
        if isinstance(fn, HWType):
            if len(e.args) != 1:
                raise self.err(e, "a type conversion takes one argument")
            arg = e.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, float):
                return self.const(fn(arg.value))
            return self.cast(self.expr(arg), fn, e)
        if isinstance(fn, Kernel):
            return self.inline(fn, e)
        what = fname or ast.unparse(e.func)
        raise self.err(e, f"call of '{what}' is not supported in a kernel",
                       "kernels may call min, max, abs and type conversions like Int(8)(x)")

    def callee_rolled(self, callee: Kernel) -> bool:
        """True if ``callee`` contains loops that are not fully unrolled (its own or its
        callees'): it then adds loops to the caller's FSM."""
        key = id(callee)
        if key not in self.rolled_cache:
            self.rolled_cache[key] = False  # a recursive call is rejected when inlined
            saved = self.ns
            self.ns = callee.namespace
            try:
                self.rolled_cache[key] = _has_rolled_loop(list(callee.tree.body), self)
            finally:
                self.ns = saved
        return self.rolled_cache[key]

    def inline(self, callee: Any, e: ast.Call, *, want: bool = True) -> Node | None:
        """Lower a call of another @kernel in place.

        A kernel whose loops are all fully unrolled is inlined into the current expression.
        One with rolled loops adds its loops to the caller's FSM: the call must be a statement
        of its own (``x = f(...)`` or ``f(...)``) outside pipelined loops and ifs; its scalar
        parameters become registers, and its loop bounds may read parameters given constants,
        scalar arguments or outer loop variables.
        """
        stmt_call, self.stmt_call = self.stmt_call, None
        if self.frame is not None and any(f is callee for f in self.frame["chain"]):
            raise self.err(e, f"kernel '{callee.name}' calls itself", "recursion has no "
                           "hardware: write a loop")
        if any(isinstance(n, ast.While) for n in ast.walk(callee.tree)):
            raise self.err(e, f"kernel '{callee.name}' has a while loop, so it cannot be "
                           "inlined yet", "call kernels with for loops, or inline it by hand")
        rolled = self.callee_rolled(callee)
        if rolled and stmt_call is not e:
            raise self.err(e, f"kernel '{callee.name}' has loops, so its call must be a "
                           "statement of its own", f"x = {callee.name}(...)")
        if rolled and (self.region_var is not None or self.in_if):
            raise self.err(e, f"kernel '{callee.name}' has loops, so it cannot be called "
                           "inside a pipelined or innermost loop or an if",
                           "call it from the kernel's top level or from an outer loop")
        rts = callee.return_types
        if want and (rts is None or len(rts) != 1):
            raise self.err(e, f"kernel '{callee.name}' must return one value to be called")
        if len(e.args) != len(callee.param_names):
            raise self.err(e, f"kernel '{callee.name}' takes {len(callee.param_names)} "
                           f"arguments, got {len(e.args)}")
        self.ninline += 1
        chain = (self.frame["chain"] if self.frame is not None else ()) + (callee,)
        frame: dict[str, Any] = {"prefix": f"{callee.name}{self.ninline}__", "scalars": {},
                                 "arrays": {}, "ret": None, "type": rts[0] if want else None,
                                 "want": want, "params": set(callee.param_names),
                                 "bsrc": {}, "callee": callee, "chain": chain,
                                 "depth": self.segments_depth, "region_var": self.region_var}
        for p, a in zip(callee.param_names, e.args, strict=True):
            if p in callee.array_types:
                t = callee.array_types[p]
                src = a.id if isinstance(a, ast.Name) else None
                if self.frame is not None and src is not None:
                    src = self.frame["arrays"].get(src)
                info = self.arrays.get(src) if src is not None else None
                if info is None or info.declared != t.elem or info.shape != t.shape:
                    raise self.err(a, f"argument '{p}' of '{callee.name}' must be an array of "
                                   f"{t.elem!r} with shape {t.shape}")
                frame["arrays"][p] = src
            else:
                node = self.cast(self.expr(a), callee.scalar_types[p], a)
                frame["bsrc"][p] = node
                if rolled:  # a register: the value outlives the regions the loops close
                    pn = frame["prefix"] + p
                    self.variables[pn] = callee.scalar_types[p]
                    self.env[pn] = node
                    self.dirty[pn] = node
                else:
                    frame["scalars"][p] = node
        saved = (self.frame, self.ns, self.filename, self.line0, self.col0, self.returned,
                 self.in_if)
        self.frame, self.ns, self.filename = frame, callee.namespace, callee.filename
        self.line0, self.col0 = callee.line0, callee.col0
        self.returned, self.in_if = False, 0
        try:
            body = list(callee.tree.body)
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value,
                                                                     ast.Constant):
                body = body[1:]
            self.block(body)
        finally:
            (self.frame, self.ns, self.filename, self.line0, self.col0, self.returned,
             self.in_if) = saved
        if want and frame["ret"] is None:
            raise self.err(e, f"kernel '{callee.name}' returned no value")
        return frame["ret"]

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
        if isinstance(node, ast.Name) and self.frame is not None:
            mapped = self.frame["arrays"].get(node.id)
            node = ast.copy_location(ast.Name(id=mapped or f"\0{node.id}", ctx=ast.Load()),
                                     node)
        if not isinstance(node, ast.Name) or node.id not in self.arrays:
            raise self.err(e, "only array arguments can be indexed")
        info = self.arrays[node.id]
        if len(idx) != len(info.shape):
            raise self.err(e, f"array '{node.id}' has {len(info.shape)} dimension(s), indexed "
                           f"with {len(idx)}", "index every dimension: a[i][j]")
        return node.id, idx

    def address(self, info: ArrayInfo, idx: list[ast.expr], at: ast.AST) -> tuple[int, Node]:
        flat: Node | None = None
        stride = 1
        for dim, ie in zip(reversed(info.shape), reversed(idx), strict=True):
            i = self.expr(ie)
            if i.type.frac:
                raise self.err(ie, "an index must be an integer")
            if i.kind == "const" and not 0 <= i.attrs["value"].raw < dim:
                raise self.err(ie, f"index {i.attrs['value'].raw} out of bounds for array "
                               f"'{info.name}' dimension of size {dim}")
            term = i if stride == 1 else self.scale(i, stride, at)
            flat = term if flat is None else self.binop("add", flat, term, at)
            stride *= dim
        if info.banks == 1:
            return 0, flat
        if info.partition_kind == "complete":  # one register-like bank per element
            if flat.kind != "const":
                raise self.err(at, f"array '{info.name}' is partitioned completely, so its "
                               "indices must be constants", "unroll the loops that index it")
            return flat.attrs["value"].raw, self.const(0)
        if info.partition_kind == "block":  # bank b holds elements [b*D, (b+1)*D)
            dd = info.bank_depth
            rng = self.value_range(flat)
            if rng is None or rng[0] // dd != rng[1] // dd:
                raise self.err(at, f"cannot tell which bank of block-partitioned array "
                               f"'{info.name}' this access uses", "index it as "
                               f"a[u * {dd} + i] with u constant (unrolled) and i in "
                               f"[0, {dd})")
            bank = rng[0] // dd
            if not bank:
                return 0, flat
            if dd & (dd - 1) == 0:  # the offset is the low bits: wiring
                return bank, self.cast(flat, UInt(max(1, dd.bit_length() - 1)), at)
            return bank, self.binop("sub", flat, self.const(bank * dd), at)
        bank = self.static_residue(flat, info.banks)
        if bank is None:
            raise self.err(at, f"cannot tell which bank of partitioned array '{info.name}' "
                           "this access uses", "unroll the loop by the partition factor, so "
                           "every copy reads a fixed bank")
        k = info.banks.bit_length() - 1
        off = self.binop("sub", flat, self.const(bank), at) if bank else flat
        return bank, self.binop("shr", off, self.const(k), at)

    def scale(self, i: Node, c: int, at: ast.AST) -> Node:
        if c & (c - 1) == 0:
            return self.binop("shl", i, self.const(c.bit_length() - 1), at)
        return self.binop("mul", i, self.const(c), at)

    def value_range(self, n: Node) -> tuple[int, int] | None:
        """Smallest and largest value ``n`` can take, when known statically."""
        if n.kind == "const":
            v = n.attrs["value"].raw
            return v, v
        if n.kind == "ivar" or (n.kind == "var" and n.attrs["var"] in self.fsm_ranges):
            start, stop, step = self.fsm_ranges[n.attrs["var"]] if n.kind == "var" else \
                (self.region.start, self.region.stop, self.region.step)
            if not (start.is_const and stop.is_const):
                return None
            lo, hi = start.evaluate({}), stop.evaluate({})
            if hi <= lo:
                return None
            return lo, lo + (hi - 1 - lo) // step * step
        if n.kind == "cast" and not n.type.frac and not n.args[0].type.frac:
            r = self.value_range(n.args[0])
            if r is not None and n.type.min_raw <= r[0] and r[1] <= n.type.max_raw:
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
        if n.kind == "cast" and not n.type.frac and not n.args[0].type.frac and \
                (1 << n.type.width) % m == 0:
            return self.static_residue(n.args[0], m)  # wrapping keeps residues mod 2**k
        if n.kind == "ivar":
            reg = self.region
            if reg.start.is_const and reg.step % m == 0:
                return reg.start.evaluate({}) % m
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


def _has_rolled_loop(stmts: list[ast.stmt], low: _Lowering) -> bool:
    """True if the statements contain a loop that is not fully unrolled."""
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Call):
                fn = low.resolve(n.func)
                if isinstance(fn, Kernel) and low.callee_rolled(fn):
                    return True
            if isinstance(n, ast.For):
                it = n.iter
                if isinstance(it, ast.Call) and low.resolve(it.func) is low.kmod.unroll:
                    kw = {k.arg: k.value for k in it.keywords}
                    fac = kw.get("factor", it.args[1] if len(it.args) > 1 else None)
                    if fac is None:
                        continue
                    try:
                        f = low.static(fac)
                        rng = it.args[0]
                        vals = [low.static(a) for a in rng.args]
                        if isinstance(f, int) and f >= len(range(*vals)):
                            continue
                    except DSLError:
                        pass
                return True
            if isinstance(n, ast.While):
                return True
    return False


def lower(kern: Any) -> KernelIR:
    """Lower a :class:`~archsim.dsl.kernel.Kernel` to :class:`KernelIR`."""
    return _Lowering(kern, kern.tree, kern.filename, kern.line0, kern.namespace).run()
