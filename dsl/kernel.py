"""``@kernel``, ``Array[T, shape]`` and the inline loop directives.

>>> from archsim.dsl import kernel, Int, Array, pipeline
>>> @kernel
... def dot(a: Array[Int(8), 4], b: Array[Int(8), 4]) -> Int(32):
...     acc = Int(32)(0)
...     for i in pipeline(range(4), ii=1):
...         acc += a[i] * b[i]
...     return acc                                     # doctest: +SKIP

Calling the kernel runs it in Python with exact hardware arithmetic (the golden view): arrays
are numpy arrays (written in place when the kernel stores into them), scalars are ints, the
result is an int (a float for ``Fixed``) or a tuple. A variable's type is fixed by its first
assignment; later assignments convert to it (wrap or saturate, as the type says), exactly as
the generated hardware does. Directives are plain iteration here. ``kernel.synthesize(...)``
compiles to hardware (:mod:`archsim.compilers.hls`).
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import DSLError
from .types import (
    Bool,
    ElementType,
    FormatType,
    HWType,
    HWValue,
    as_element_type,
    hw_max,
    hw_min,
    is_element_type,
)

if TYPE_CHECKING:  # annotations only: the compiler is imported lazily, in synthesize()
    from ..compilers.hls.design import Design

__all__ = ["kernel", "Kernel", "KernelFacts", "Array", "ArrayType", "pipeline", "unroll",
           "partition", "bounded", "PARTITION_KINDS", "GoldenValue"]

#: What a golden run returns: an int (a float for ``Fixed``), a tuple of those, or None; a
#: call from inside another kernel's golden run gives hardware values instead.
GoldenValue = int | float | HWValue | tuple[int | float | HWValue, ...] | None

#: Kinds accepted by :func:`partition`.
PARTITION_KINDS = ("cyclic", "block", "complete")



def _first_out_of_range(t: HWType, value: Any) -> tuple[tuple[int, ...] | None, Any] | None:
    """The first element of ``value`` (an array, or a scalar: index None) whose code, before
    the type's overflow rule, lies outside ``t``'s range, with its value; None if all fit."""
    arr = np.asarray(value)
    scale = float(1 << t.frac)
    if arr.dtype.kind in "iub" and t.width <= 62:
        # integers: v fits when min_raw <= v * 2**frac <= max_raw (bounds as integers, so a
        # 64-bit value never overflows the comparison)
        lo, hi = -((-t.min_raw) >> t.frac), t.max_raw >> t.frac
        data = arr.astype(np.int64) if arr.dtype.kind == "b" else arr
        bad = (data < lo) | (data > hi) if arr.dtype.kind != "u" else data > hi
    elif arr.dtype.kind == "f" and t.width <= 52:
        if not np.all(np.isfinite(arr)):
            bad = ~np.isfinite(arr)
        else:
            scaled = arr.astype(np.float64) * scale
            raw = np.floor(scaled + 0.5 if t.rounding == "round" else scaled)
            bad = (raw < t.min_raw) | (raw > t.max_raw)
    else:  # wide types and other dtypes: exact Python integers, one element at a time
        flat = arr.ravel()
        mask = np.zeros(flat.shape, dtype=bool)
        for k, v in enumerate(flat.tolist()):
            if isinstance(v, float):
                if not np.isfinite(v):
                    mask[k] = True
                    continue
                code = int(np.floor(v * scale + (0.5 if t.rounding == "round" else 0.0)))
            else:
                code = int(v) << t.frac
            mask[k] = not t.min_raw <= code <= t.max_raw
        bad = mask.reshape(arr.shape)
    hits = np.flatnonzero(bad)
    if hits.size == 0:
        return None
    if arr.ndim == 0:
        return None, arr.item()
    where = tuple(int(i) for i in np.unravel_index(int(hits[0]), arr.shape))
    v = arr[where]
    return where, v.item() if isinstance(v, np.generic) else v


def _range_text(t: HWType) -> str:
    if t.frac == 0:
        return f"{t.min_raw}..{t.max_raw}"
    return f"{t.min_raw / (1 << t.frac):g}..{t.max_raw / (1 << t.frac):g}"


@dataclass(frozen=True)
class KernelFacts:
    """What the golden run needs from the hardware compiler's analysis of a kernel.

    The golden view runs with the hardware's types: a loop variable is typed as its hardware
    counter is, and only the arrays the hardware writes are copied back. The HLS frontend
    computes these (``archsim.compilers.hls.frontend.analyze``, reached lazily from
    :attr:`Kernel.facts`), and checking the kernel against the hardware subset on the way.

    Attributes
    ----------
    loopvar_types : dict of (int, int) to HWType
        ``(line, col)`` of a ``for`` in the kernel's source (as :mod:`ast` numbers it) ->
        the loop variable's type.
    written : frozenset of str
        The array arguments the kernel stores into.
    """

    loopvar_types: dict[tuple[int, int], HWType]
    written: frozenset[str]


@dataclass(frozen=True)
class ArrayType:
    """``Array[T, shape]``: an array argument of element type ``T``."""

    elem: ElementType
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(np.prod(self.shape))

    def __call__(self) -> GoldenArray:
        """A local array inside a kernel: ``buf = Array[Int(16), 64]()``.

        Zeros at the start of every run, in the golden view and in hardware (where each word
        has a "written" bit cleared on ``start``: no cycles spent clearing).
        """
        dtype = np.int64 if isinstance(self.elem, (HWType, FormatType)) else np.float64
        return GoldenArray(np.zeros(self.shape, dtype=dtype), self.elem, "<local>", self.shape)


class _ArrayFactory:
    def __getitem__(self, item: Any) -> ArrayType:
        if not isinstance(item, tuple) or len(item) < 2:
            raise _at_caller("write Array[T, n] or Array[T, n, m] (or Array[T, (n, m)])")
        given, *dims = item
        if len(dims) == 1 and isinstance(dims[0], tuple):
            dims = list(dims[0])
        elem = as_element_type(given)
        if not is_element_type(elem):
            raise _at_caller(f"Array element type must be {ELEMENT_TYPES_TEXT}, "
                             f"not {getattr(elem, '__name__', None) or repr(elem)}")
        if not 1 <= len(dims) <= 3 or not all(
                isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in dims):
            raise _at_caller(f"Array shape must be 1 to 3 integer sizes >= 1, "
                             f"not {tuple(dims)!r}")
        return ArrayType(elem=elem, shape=tuple(dims))

    def __repr__(self) -> str:
        return "Array"


#: ``Array[T, shape]`` annotations.
Array = _ArrayFactory()

#: What an ``Array``'s element type may be, for error messages.
ELEMENT_TYPES_TEXT = ("a hardware type (Int(w), UInt(w), Fixed(w, f), Bool; w in 1..64) or a "
                      "number format of archsim.dsl.formats")


def _at_caller(message: str) -> DSLError:
    """A :class:`DSLError` at the line that wrote the bad ``Array[...]`` (the caller of
    ``__getitem__``), so a kernel file points at its own annotation."""
    frame = sys._getframe(2)  # 0: here, 1: __getitem__, 2: the annotation's line
    positions = list(frame.f_code.co_positions())
    index = frame.f_lasti // 2  # one (line, end, col, end_col) per 2-byte code unit
    col = positions[index][2] if index < len(positions) else None
    return DSLError(message, filename=frame.f_code.co_filename, lineno=frame.f_lineno,
                    col=col + 1 if isinstance(col, int) else None)


def pipeline(iterable: Iterable[int], *, ii: int = 1) -> Iterable[int]:
    """Pipeline a loop with initiation interval ``ii``; in the golden view, the loop itself."""
    if not isinstance(ii, int) or isinstance(ii, bool) or ii < 1:
        raise ValueError(f"ii must be a positive int, not {ii!r}")
    return iterable


def unroll(iterable: Iterable[int], factor: int | None = None) -> Iterable[int]:
    """Unroll a loop fully (``factor=None``) or by ``factor``; golden view: the loop itself."""
    if factor is not None and (not isinstance(factor, int) or factor < 1):
        raise ValueError(f"factor must be a positive int, not {factor!r}")
    return iterable


def bounded(cond: Any, max_iter: int) -> bool:
    """``while bounded(cond, max_iter=N):`` -- a while loop with a declared iteration bound.

    Plain Python: the loop runs while ``cond`` holds. In a golden run more than ``max_iter``
    iterations raise a :class:`~archsim.errors.DSLError`; the hardware stops after
    ``max_iter`` iterations in any case.
    """
    if not isinstance(max_iter, int) or isinstance(max_iter, bool) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive int, not {max_iter!r}")
    return bool(cond)


class _WhileGuard:
    """Counts a golden while loop's iterations against its bound."""

    __slots__ = ("rt", "line", "max_iter", "count")

    def __init__(self, rt: _Runtime, line: int, max_iter: int) -> None:
        self.rt, self.line, self.max_iter, self.count = rt, line, max_iter, 0

    def test(self, cond: Any) -> bool:
        if not cond:
            self.rt.record_while(self.line, self.count)
            return False
        if self.count == self.max_iter:
            raise DSLError(f"the while loop at line {self.line} did not finish within "
                           f"max_iter={self.max_iter} iterations", filename=self.rt.k.filename,
                           lineno=self.line, hint="raise max_iter, or check the loop condition")
        self.count += 1
        return True


def partition(array: Any, factor: int | None = None, *, kind: str = "cyclic") -> None:
    """Split an array into banks; a no-op in the golden view.

    ``cyclic``: element ``i`` (flat, row-major) in bank ``i % factor`` (``factor`` a power of
    two); ``block``: in bank ``i // (size // factor)`` (``factor`` divides the size), so each
    access must fall in one bank known at compile time (``a[u * D + i]``, ``u`` unrolled);
    ``complete``: one bank per element (constant indices only)."""
    if kind not in PARTITION_KINDS:
        raise ValueError(f"kind must be one of {PARTITION_KINDS}, not {kind!r}")


class GoldenArray:
    """An array during a golden run: raw codes, bounds-checked, element type applied."""

    __slots__ = ("_raw", "_t", "_name", "_shape", "_prefix")

    def __init__(self, raw: np.ndarray, elem: ElementType, name: str, shape: tuple[int, ...],
                 prefix: tuple[int, ...] = ()) -> None:
        self._raw, self._t, self._name, self._shape, self._prefix = raw, elem, name, shape, prefix

    def _index(self, key: Any) -> tuple[int, ...]:
        key = key if isinstance(key, tuple) else (key,)
        full = self._prefix + tuple(int(k) for k in key)
        for dim, (k, n) in enumerate(zip(full, self._shape, strict=False)):
            if not 0 <= k < n:
                frame = sys._getframe(2)
                raise DSLError(f"index {list(full)} out of bounds for array '{self._name}' of "
                               f"shape {self._shape} (dimension {dim} has size {n})",
                               filename=frame.f_code.co_filename, lineno=frame.f_lineno)
        return full

    def __getitem__(self, key: Any) -> GoldenArray | HWValue | float:
        idx = self._index(key)
        if len(idx) < len(self._shape):
            return GoldenArray(self._raw, self._t, self._name, self._shape, idx)
        raw = self._raw[idx]
        if isinstance(self._t, HWType):
            return HWValue(self._t, int(raw))
        if isinstance(self._t, FormatType):
            return self._t.value(int(raw))  # the code's exact value, as the decode ROM gives
        return float(raw)

    def __setitem__(self, key: Any, value: Any) -> None:
        idx = self._index(key)
        if len(idx) < len(self._shape):
            raise DSLError(f"assign one element of array '{self._name}', not a row")
        if isinstance(self._t, HWType):
            self._raw[idx] = self._t(value).raw
        elif isinstance(self._t, FormatType):
            frame = sys._getframe(1)
            raise DSLError(f"array '{self._name}' of {self._t.name} is read-only in kernels",
                           filename=frame.f_code.co_filename, lineno=frame.f_lineno,
                           hint="store into an Int/UInt/Fixed array instead")
        else:
            self._raw[idx] = float(np.asarray(self._t.decode(self._t.encode(
                np.asarray([float(value)])))).ravel()[0])

    def __len__(self) -> int:
        return self._shape[len(self._prefix)]


class _Runtime:
    """Helpers the rewritten golden function calls."""

    def __init__(self, kern: Kernel) -> None:
        self.k = kern
        self.min = hw_min
        self.max = hw_max
        #: while-loop line -> iterations with a true condition, per entry (when tracing)
        self.while_counts: dict[int, list[int]] | None = None

    def while_guard(self, line: int, max_iter: Any) -> _WhileGuard:
        bounded(True, max_iter)  # validates max_iter
        return _WhileGuard(self, line + self.k.line0 - 1, max_iter)  # line in the file

    def record_while(self, line: int, count: int) -> None:
        if self.while_counts is not None:
            self.while_counts.setdefault(line, []).append(count)

    def assign(self, typ: dict[str, Any], name: str, value: Any) -> Any:
        if isinstance(value, GoldenArray):
            if value._name == "<local>":
                value._name = name
            return value
        t = typ.get(name)
        if t is None:
            if isinstance(value, (bool, np.bool_)):
                t = Bool
            elif isinstance(value, HWValue):
                t = value.type
            else:
                return value
            typ[name] = t
        return t(value)

    def typed(self, it: Iterable[int], line: int, col: int) -> Iterable[Any]:
        t = self.k.facts.loopvar_types.get((line, col)) if self.k.lowerable else None
        if t is None:
            yield from it
        else:
            for v in it:
                yield HWValue(t, int(v))


class _Rewriter(ast.NodeTransformer):
    """Make variable types stick (assignments convert to the first assignment's type)."""

    def __init__(self, scalars: dict[str, HWType], namespace: dict[str, Any]) -> None:
        self.scalars = scalars
        self.ns = namespace

    def _is_bounded(self, f: ast.expr) -> bool:
        """True if ``f`` names :func:`bounded` (``bounded``, an alias, ``dsl.bounded``)."""
        if isinstance(f, ast.Name):
            return self.ns.get(f.id) is bounded
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            return getattr(self.ns.get(f.value.id), f.attr, None) is bounded
        return False

    def _assign(self, name: str, value: ast.expr) -> ast.expr:
        return ast.Call(
            func=ast.Attribute(value=ast.Name("__archsim_rt__", ast.Load()), attr="assign",
                               ctx=ast.Load()),
            args=[ast.Name("__archsim_types__", ast.Load()), ast.Constant(name), value],
            keywords=[])

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:  # noqa: N802
        self.generic_visit(node)
        node.decorator_list = []
        node.returns = None
        for a in node.args.args + node.args.kwonlyargs:
            a.annotation = None
        init = ast.parse("__archsim_types__ = __archsim_rt__.k.initial_types()").body[0]
        node.body.insert(0, init)
        return node

    def visit_Assign(self, node: ast.Assign) -> Any:  # noqa: N802
        self.generic_visit(node)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            node.value = self._assign(node.targets[0].id, node.value)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:  # noqa: N802
        self.generic_visit(node)
        if isinstance(node.target, ast.Name):
            name = node.target.id
            value = ast.BinOp(left=ast.Name(name, ast.Load()), op=node.op, right=node.value)
            new = ast.Assign(targets=[ast.Name(name, ast.Store())],
                             value=self._assign(name, value))
            return ast.copy_location(new, node)
        return node

    def visit_For(self, node: ast.For) -> Any:  # noqa: N802
        self.generic_visit(node)
        node.iter = ast.Call(
            func=ast.Attribute(value=ast.Name("__archsim_rt__", ast.Load()), attr="typed",
                               ctx=ast.Load()),
            args=[node.iter, ast.Constant(node.lineno), ast.Constant(node.col_offset)],
            keywords=[])
        return node

    def visit_While(self, node: ast.While) -> Any:  # noqa: N802
        self.generic_visit(node)
        t = node.test
        if not (isinstance(t, ast.Call) and t.args and self._is_bounded(t.func)):
            return node  # the frontend rejects it with a located message
        kw = {k.arg: k.value for k in t.keywords}
        limit = kw.get("max_iter", t.args[1] if len(t.args) > 1 else ast.Constant(0))
        guard = f"__archsim_while{node.lineno}__"
        init = ast.Assign(targets=[ast.Name(guard, ast.Store())], value=ast.Call(
            func=ast.Attribute(value=ast.Name("__archsim_rt__", ast.Load()), attr="while_guard",
                               ctx=ast.Load()),
            args=[ast.Constant(node.lineno), limit], keywords=[]))
        node.test = ast.Call(func=ast.Attribute(value=ast.Name(guard, ast.Load()), attr="test",
                                                ctx=ast.Load()), args=[t.args[0]], keywords=[])
        return [ast.copy_location(init, node), node]

    def visit_Name(self, node: ast.Name) -> Any:  # noqa: N802
        if isinstance(node.ctx, ast.Load) and node.id in ("min", "max"):
            return ast.Attribute(value=ast.Name("__archsim_rt__", ast.Load()), attr=node.id,
                                 ctx=ast.Load())
        return node


class Kernel:
    """A function decorated with :func:`kernel`: golden execution plus :meth:`synthesize`.

    Attributes
    ----------
    name : str
    scalar_types : dict of str to HWType
    array_types : dict of str to ArrayType
    return_types : list of HWType or None
    """

    def __init__(self, fn: Callable[..., object]) -> None:
        if not isinstance(fn, types.FunctionType):  # a def: its source and code are read
            raise TypeError("@kernel decorates a function")
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        try:
            lines, line0 = inspect.getsourcelines(fn)
        except (OSError, TypeError) as exc:
            raise DSLError(f"cannot read the source of kernel '{fn.__name__}'",
                           hint="define kernels in a .py file") from exc
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        self.line0 = line0
        self.col0 = len(lines[0]) - len(lines[0].lstrip())  # indentation removed by dedent
        src = textwrap.dedent("".join(lines))
        module = ast.parse(src)
        tree = module.body[0]
        if not isinstance(tree, ast.FunctionDef):
            raise DSLError("@kernel decorates a plain def", filename=self.filename, lineno=line0)
        self.tree = tree
        self._source = src
        self.namespace = dict(fn.__globals__)
        if fn.__closure__:
            for n, cell in zip(fn.__code__.co_freevars, fn.__closure__, strict=True):
                try:
                    self.namespace[n] = cell.cell_contents
                except ValueError:
                    pass
        ann = dict(fn.__annotations__)
        for k, v in ann.items():
            if isinstance(v, str):
                ann[k] = eval(v, self.namespace)  # noqa: S307 - the user's own annotations
        self.param_names = list(inspect.signature(fn).parameters)
        self.scalar_types: dict[str, HWType] = {}
        self.array_types: dict[str, ArrayType] = {}
        for p in self.param_names:
            t = Bool if ann.get(p) is bool else ann.get(p)
            where = self._param_location(p)
            if isinstance(t, ArrayType):
                self.array_types[p] = t
            elif isinstance(t, HWType):
                self.scalar_types[p] = t
            else:
                raise DSLError(f"argument '{p}' needs a hardware type annotation", **where,
                               hint=f"{p}: Int(32) or {p}: Array[Int(8), 64]")
        r = ann.get("return")
        if r is None:
            self.return_types: list[HWType] | None = None
        else:
            rs = [Bool if x is bool else x for x in (r if isinstance(r, tuple) else [r])]
            if not all(isinstance(x, HWType) for x in rs):
                raise DSLError("the return annotation must be a hardware type or a tuple of "
                               "them", filename=self.filename, lineno=line0 + tree.lineno - 1,
                               hint="-> Int(32)")
            self.return_types = rs
        self._facts: KernelFacts | None = None
        self._golden: types.FunctionType | None = None

    def _param_location(self, p: str) -> dict[str, Any]:
        for a in self.tree.args.args:
            if a.arg == p:
                return {"filename": self.filename, "lineno": self.line0 + a.lineno - 1,
                        "col": a.col_offset + 1 + self.col0}
        return {"filename": self.filename}

    @property
    def lowerable(self) -> bool:
        """True when every element type is a hardware type or a :class:`FormatType` (other
        number formats are golden-only: their arithmetic is Python float arithmetic on
        quantized values)."""
        return all(isinstance(t.elem, (HWType, FormatType)) for t in self.array_types.values())

    def initial_types(self) -> dict[str, Any]:
        return dict(self.scalar_types)

    @property
    def facts(self) -> KernelFacts:
        """Loop-variable types and written arrays (see :class:`KernelFacts`); computed once.
        Raises DSLError outside the hardware subset."""
        if self._facts is None:
            # the compiler sits above the DSL: reached lazily, on the first golden run
            from ..compilers.hls.frontend import analyze

            self._facts = analyze(self)
        return self._facts

    def _golden_fn(self) -> types.FunctionType:
        if self._golden is None:
            tree = _Rewriter(self.scalar_types, self.namespace).visit(ast.parse(self._source))
            ast.increment_lineno(tree, self.line0 - 1)
            ast.fix_missing_locations(tree)
            code = compile(tree, self.filename, "exec")
            fcode = next(c for c in code.co_consts if isinstance(c, types.CodeType))
            g = dict(self.namespace)
            g["__archsim_rt__"] = _Runtime(self)
            self._golden = types.FunctionType(fcode, g, self.name)
        return self._golden

    def bind(self, args: tuple[Any, ...], *, wrap: bool = False) -> dict[str, Any]:
        """Check and name the arguments of a call.

        A value outside its hardware type's range (``1000`` for an ``Int(8)`` element, ``40``
        for a ``UInt(5)`` scalar) is a :class:`DSLError` at the parameter naming the
        argument, the first bad element's index, its value and the range; ``wrap=True``
        keeps the two's-complement wrapping of earlier versions. A type declared with
        ``overflow="saturate"`` clamps, as it says (that is no silent wrap), and
        number-format arrays (:class:`FormatType`) round and overflow as their format says.
        """
        if len(args) != len(self.param_names):
            raise DSLError(f"kernel '{self.name}' takes {len(self.param_names)} arguments "
                           f"({', '.join(self.param_names)}), got {len(args)}")
        out: dict[str, Any] = {}
        for name, a in zip(self.param_names, args, strict=True):
            if name in self.array_types:
                t = self.array_types[name]
                if not isinstance(a, np.ndarray):
                    raise DSLError(f"argument '{name}' must be a numpy array of shape "
                                   f"{t.shape}, not {type(a).__name__}")
                if a.shape != t.shape:
                    raise DSLError(f"argument '{name}' must have shape {t.shape}, not "
                                   f"{a.shape}")
            else:
                if isinstance(a, (bool, np.bool_)):
                    if self.scalar_types[name] != Bool:
                        raise DSLError(f"argument '{name}' must be a number, not bool "
                                       f"(annotate it `{name}: bool` to pass flags)")
                    a = int(a)
                elif not isinstance(a, (int, np.integer, HWValue, float)):
                    raise DSLError(f"argument '{name}' must be a number, not "
                                   f"{type(a).__name__}")
            t_check = (self.array_types[name].elem if name in self.array_types
                       else self.scalar_types[name])
            if not wrap and isinstance(t_check, HWType) and t_check.overflow == "wrap" \
                    and not isinstance(a, HWValue):
                self._check_range(name, t_check, a)
            out[name] = a
        return out

    def _check_range(self, name: str, t: HWType, value: Any) -> None:
        found = _first_out_of_range(t, value)
        if found is None:
            return
        where, v = found
        what = f"argument '{name}'" if where is None else \
            f"argument '{name}' element {list(where)}"
        raise DSLError(f"{what} is {v!r}, outside the range {_range_text(t)} of {t!r}",
                       **self._param_location(name),
                       hint="pass values in range, or wrap=True to wrap them as two's "
                            "complement")

    def __call__(self, *args: object, wrap: bool = False) -> GoldenValue:
        """Golden run: exact hardware arithmetic; arrays written in place.

        Arguments outside their types' ranges are a :class:`DSLError` unless ``wrap=True``
        (see :meth:`bind`)."""
        if any(isinstance(a, (GoldenArray, HWValue)) for a in args):
            return self._inner_call(args)
        if self.lowerable:
            _ = self.facts  # the same subset as the hardware: fail early and alike
        bound = self.bind(args, wrap=wrap)
        call_args: list[GoldenArray | HWValue] = []
        arrays: dict[str, tuple[np.ndarray, np.ndarray, Any]] = {}
        for name in self.param_names:
            a = bound[name]
            if name in self.array_types:
                t = self.array_types[name]
                raw = t.elem.encode(a) if isinstance(t.elem, (HWType, FormatType)) else \
                    np.asarray(t.elem.decode(t.elem.encode(np.asarray(a, dtype=np.float64))),
                               dtype=np.float64).reshape(t.shape)
                raw = np.array(raw, copy=True)
                arrays[name] = (a, raw, t.elem)
                call_args.append(GoldenArray(raw, t.elem, name, t.shape))
            else:
                call_args.append(self.scalar_types[name](a))
        result = self._golden_fn()(*call_args)
        for name, (user, raw, elem) in arrays.items():
            if not self.lowerable or name in self.facts.written:
                user[...] = elem.decode(raw) if isinstance(elem, HWType) else raw
        if self.return_types is None:
            return None
        vals = result if isinstance(result, tuple) else (result,)
        outs = [t(v).value for t, v in zip(self.return_types, vals, strict=True)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def while_trips(self, *args: Any) -> dict[int, list[int]]:
        """Run the golden view on copies of ``args`` and return, per while loop (by line), the
        number of iterations whose condition held, once per entry into the loop."""
        copies = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)
        rt = self._golden_fn().__globals__["__archsim_rt__"]
        rt.while_counts = {}
        try:
            self(*copies)
            return rt.while_counts
        finally:
            rt.while_counts = None

    def _inner_call(self, args: tuple[Any, ...]) -> GoldenValue:
        """A call from inside another kernel's golden run: hardware values in and out."""
        if len(args) != len(self.param_names):
            raise DSLError(f"kernel '{self.name}' takes {len(self.param_names)} arguments, "
                           f"got {len(args)}")
        call_args = [a if n in self.array_types else self.scalar_types[n](a)
                     for n, a in zip(self.param_names, args, strict=True)]
        result = self._golden_fn()(*call_args)
        if self.return_types is None:
            return None
        vals = result if isinstance(result, tuple) else (result,)
        outs = [t(v) for t, v in zip(self.return_types, vals, strict=True)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def synthesize(self, *, clock_ns: float = 2.0, resources: dict[str, int] | None = None,
                   name: str | None = None, scheduler: str = "list",
                   forwarding: bool = True) -> Design:
        """Compile to hardware: returns an :class:`archsim.compilers.hls.design.Design`.

        ``scheduler`` is ``"list"`` or ``"sdc"``; ``forwarding`` enables read-modify-write
        forwarding in pipelined loops (see
        :class:`archsim.compilers.hls.schedule.ScheduleOptions`).
        """
        from ..compilers.hls.design import compile_kernel

        return compile_kernel(self, clock_ns=clock_ns, resources=resources or {},
                              name=name or self.name, scheduler=scheduler,
                              forwarding=forwarding)

    def __repr__(self) -> str:
        return f"<kernel {self.name}>"


def kernel(fn: Callable[..., object]) -> Kernel:
    """Decorate a function as an accelerator kernel (see the module docstring)."""
    return Kernel(fn)
