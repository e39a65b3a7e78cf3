"""Sweep specifications: TOML, validated into a :class:`SweepSpec` that yields the points.

A spec names a registered model, the parameters held fixed, the parameters to
vary (a list of values, or a ``low``/``high`` range), how to sample them (full
grid, uniform random, or Latin hypercube via :mod:`scipy.stats.qmc`),
constraints between parameters, the objectives to record and a seed::

    name = "decode-roofline"
    model = "gpu-roofline"
    method = "grid"                      # or "random" / "lhs" with samples = N
    seed = 0
    objectives = ["latency_s", "energy_j"]
    constraints = ["context_len >= new_tokens"]

    [fixed]
    model = "llama-7b"

    [parameters]
    gpu = { values = ["a100-80gb", "h100-80gb"] }
    batch = { values = [1, 8, 32] }
    context_len = { low = 128, high = 4096, num = 6, log = true }

Every error is a :class:`~archsim.errors.ConfigError` naming the file and the
field (``parameters.batch``, ``model``, ``constraints[0]``...).
"""

from __future__ import annotations

import ast
import copy
import itertools
import json
import math
import operator
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from ... import __version__
from ...cache import content_hash
from ...errors import ConfigError
from ...loading import read_text_file
from .models import SweepModel, get_model

__all__ = ["ParameterSpec", "SweepSpec", "SweepPoint", "Expression", "load_spec", "point_key",
           "MAX_POINTS", "MAX_EXPONENT", "MAX_RESULT_BITS", "MAX_SEQUENCE_ITEMS"]

_SAMPLERS = ("grid", "random", "lhs")

#: The most points a sweep may have (grid points before constraints, or samples): each is a
#: stored row and a task's worth of work, and the whole list of points is held in memory
#: (about 1 KB each) while the sweep runs. Larger spaces want an optimizer or a split.
MAX_POINTS = 1_000_000

# Syntax allowed in constraints and filters: arithmetic, comparisons, boolean logic,
# names and literals -- no calls, attributes or subscripts, so evaluation is safe.
_ALLOWED_NODES = (
    ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.UAdd,
    ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
    ast.Compare, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn,
    ast.Is, ast.IsNot, ast.Name, ast.Load, ast.Constant, ast.Tuple, ast.List,
)


#: The largest exponent ``**`` may take in a constraint or filter; larger ones (``batch **
#: 10 ** 10``) would run for hours or exhaust memory.
MAX_EXPONENT = 64
#: The largest integer (in bits) or sequence (in items) an expression may build.
MAX_RESULT_BITS = 4096
MAX_SEQUENCE_ITEMS = 1_000_000


class _Bounded(ast.NodeTransformer):
    """Rewrite ``a ** b`` as ``_pow(a, b)`` and ``a * b`` as ``_mul(a, b)`` (after the
    syntax check, which allows no calls in the user's text), so evaluation is bounded."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:  # noqa: N802 - ast's visitor naming
        self.generic_visit(node)
        name = {ast.Pow: "_pow", ast.Mult: "_mul"}.get(type(node.op))
        if name is None:
            return node
        call = ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[node.left, node.right],
                        keywords=[])
        return ast.copy_location(call, node)


class _TooCostly(Exception):
    """An expression step whose cost would be unbounded."""


def _check_int(value: Any) -> Any:
    if isinstance(value, int) and value.bit_length() > MAX_RESULT_BITS:
        raise _TooCostly(f"an integer of more than {MAX_RESULT_BITS} bits")
    return value


def _pow(base: Any, exponent: Any) -> Any:
    if isinstance(exponent, (int, float)) and abs(exponent) > MAX_EXPONENT:
        raise _TooCostly(f"an exponent of {exponent!r} (at most {MAX_EXPONENT})")
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 \
            and base.bit_length() * exponent > MAX_RESULT_BITS:
        raise _TooCostly(f"an integer of more than {MAX_RESULT_BITS} bits")
    try:
        return _check_int(base ** exponent)
    except OverflowError as exc:
        raise ValueError(str(exc)) from None


def _mul(a: Any, b: Any) -> Any:
    for seq, times in ((a, b), (b, a)):
        if isinstance(seq, (str, list, tuple)) and isinstance(times, int) \
                and len(seq) * times > MAX_SEQUENCE_ITEMS:
            raise _TooCostly(f"a sequence of more than {MAX_SEQUENCE_ITEMS} items")
    if isinstance(a, int) and isinstance(b, int) \
            and a.bit_length() + b.bit_length() > MAX_RESULT_BITS + 1:
        raise _TooCostly(f"an integer of more than {MAX_RESULT_BITS} bits")
    return _check_int(a * b)


_HELPERS = {"_pow": _pow, "_mul": _mul}


class Expression:
    """A boolean expression over named values, e.g. ``"context_len >= new_tokens"``.

    Evaluation is bounded: ``**`` takes exponents of magnitude at most
    :data:`MAX_EXPONENT`, and no step may build an integer of more than
    :data:`MAX_RESULT_BITS` bits or a sequence of more than :data:`MAX_SEQUENCE_ITEMS`
    items; a constant exponent beyond the bound is rejected when the expression is parsed.

    Parameters
    ----------
    text
        The expression (Python syntax restricted to arithmetic, comparisons,
        ``and``/``or``/``not``, names, literals, tuples and lists).
    names
        When given, the names the expression may use.
    field
        The field reported in errors (``constraints[0]``, ``filter``).
    """

    def __init__(self, text: str, *, names: Iterable[str] | None = None,
                 field: str = "expression") -> None:
        self.text = text
        self.field = field
        if not isinstance(text, str):
            raise ConfigError(f"an expression must be a string, not {text!r}", field=field)
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as exc:
            raise ConfigError(f"invalid expression {text!r}: {exc.msg}", field=field) from None
        for node in ast.walk(tree):
            if not isinstance(node, _ALLOWED_NODES):
                raise ConfigError(f"expression {text!r} uses unsupported syntax "
                                  f"'{type(node).__name__}'", field=field)
        self.names = frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
        if names is not None:
            unknown = sorted(self.names - set(names) - {"True", "False", "None"})
            if unknown:
                raise ConfigError(f"expression {text!r} uses unknown name '{unknown[0]}'",
                                  field=field, allowed=sorted(names))
        # Exponents (and other sub-expressions) of constants only: check them now, at load.
        for node in ast.walk(tree):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and not any(
                    isinstance(n, ast.Name) for n in ast.walk(node.right)):
                right = ast.fix_missing_locations(_Bounded().visit(
                    ast.Expression(body=copy.deepcopy(node.right))))
                exponent = self._evaluate(compile(right, f"<{field}>", "eval"), {})
                if isinstance(exponent, (int, float)) and abs(exponent) > MAX_EXPONENT:
                    raise ConfigError(f"expression {text!r} has an exponent of {exponent!r} "
                                      f"(at most {MAX_EXPONENT})", field=field)
        # The transformer rewrites the tree in place: after the checks above.
        bounded = ast.fix_missing_locations(_Bounded().visit(tree))
        self._code = compile(bounded, f"<{field}>", "eval")
        self._tree = bounded
        self._parts: dict[int, Any] = {}  # compiled sub-expressions, for violation()

    def _evaluate(self, code: Any, values: Mapping[str, Any]) -> Any:
        scope = {"True": True, "False": False, "None": None, **values, **_HELPERS}
        try:
            return eval(code, {"__builtins__": {}}, scope)  # noqa: S307 - checked AST
        except _TooCostly as exc:
            raise ConfigError(f"expression {self.text!r} would compute {exc} (evaluation "
                              f"is bounded: |exponent| <= {MAX_EXPONENT}, integers <= "
                              f"{MAX_RESULT_BITS} bits)", field=self.field) from None
        except NameError as exc:
            raise ConfigError(f"expression {self.text!r}: {exc}", field=self.field) from None
        except (TypeError, ZeroDivisionError, ValueError, OverflowError) as exc:
            raise ConfigError(f"expression {self.text!r} failed on {dict(values)!r}: {exc}",
                              field=self.field) from None

    def __call__(self, values: Mapping[str, Any]) -> bool:
        """Evaluate on ``values``; a missing name, a type error or a step beyond the bounds is
        a :class:`ConfigError`."""
        return bool(self._evaluate(self._code, values))

    def violation(self, values: Mapping[str, Any]) -> float:
        """How far ``values`` are from satisfying the expression: ``0.0`` when it holds, a
        positive number when it does not (what a constrained sampler such as Optuna's
        ``Trial.set_constraint`` wants: feasible when <= 0).

        A failed comparison of two numbers gives the distance between its sides (``a >= b``
        false: ``b - a``; ``a == b`` false: ``|a - b|``), a chained comparison the sum over its
        pairs, ``and`` the sum over its operands, ``or`` the least of its operands'; any other
        false expression (``not``, ``in``, ``!=``, a comparison of non-numbers, a bare name)
        gives 1.0. A strict comparison that fails on equal sides gives the smallest positive
        float, so the result is positive exactly when :meth:`__call__` is false. Errors as
        :meth:`__call__`; every operand of ``and``/``or`` is evaluated (no short circuit).
        """
        if self(values):
            return 0.0
        distance = self._distance(self._tree.body, values)
        return distance if distance > 0.0 else math.ulp(0.0)

    def _part(self, node: ast.expr, values: Mapping[str, Any]) -> Any:
        code = self._parts.get(id(node))
        if code is None:
            code = self._parts[id(node)] = compile(ast.Expression(body=node),
                                                   f"<{self.field}>", "eval")
        return self._evaluate(code, values)

    def _distance(self, node: ast.expr, values: Mapping[str, Any]) -> float:
        if isinstance(node, ast.BoolOp):
            parts = [self._distance(v, values) for v in node.values]
            return sum(parts) if isinstance(node.op, ast.And) else min(parts)
        if isinstance(node, ast.Compare):
            operands = [self._part(n, values) for n in (node.left, *node.comparators)]
            try:
                return sum(_pair_distance(op, a, b) for op, a, b in
                           zip(node.ops, operands, operands[1:], strict=False))
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"expression {self.text!r} failed on {dict(values)!r}: "
                                  f"{exc}", field=self.field) from None
        return 0.0 if self._part(node, values) else 1.0

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"


_COMPARE: dict[type[ast.cmpop], Any] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_,
    ast.IsNot: operator.is_not, ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a)}


def _pair_distance(op: ast.cmpop, a: Any, b: Any) -> float:
    """0.0 if ``a op b`` holds; else how far apart the sides are (numbers), or 1.0."""
    if _COMPARE[type(op)](a, b):
        return 0.0
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
    if not numbers or not isinstance(op, ast.Lt | ast.LtE | ast.Gt | ast.GtE | ast.Eq):
        return 1.0
    try:
        gap = float(a) - float(b)
    except OverflowError:
        return math.inf
    return abs(gap) if math.isfinite(gap) else math.inf


class ParameterSpec(BaseModel):
    """How one parameter varies: a list of ``values`` or a ``low``..``high`` range.

    A range is sampled uniformly (log-uniformly when ``log``); on a grid it
    gives ``num`` points (``numpy.linspace``/``geomspace``). ``integer``
    rounds to integers; it defaults to true when ``low`` and ``high`` are both
    integers.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    values: list[Any] | None = None
    low: float | int | None = None
    high: float | int | None = None
    num: int | None = None
    log: bool = False
    integer: bool | None = None

    @property
    def is_range(self) -> bool:
        return self.values is None

    @property
    def is_integer(self) -> bool:
        if self.integer is not None:
            return self.integer
        return isinstance(self.low, int) and isinstance(self.high, int)

    def check(self, field: str, method: str) -> None:
        """Raise :class:`ConfigError` (on ``field``) if the parameter cannot be sampled."""
        if self.values is not None:
            if self.low is not None or self.high is not None or self.num is not None:
                raise ConfigError("give either 'values' or 'low'/'high', not both", field=field)
            if not self.values:
                raise ConfigError("empty range: 'values' is an empty list", field=field)
            return
        if self.low is None or self.high is None:
            raise ConfigError("needs 'values' or both 'low' and 'high'", field=field)
        for key, bound in (("low", self.low), ("high", self.high)):
            if not math.isfinite(bound):
                raise ConfigError(f"'{key}' must be a finite number, not {bound}", field=field)
        if self.high < self.low:
            raise ConfigError(f"empty range: high {self.high} < low {self.low}", field=field)
        if self.log and self.low <= 0:
            raise ConfigError(f"a log range needs low > 0, not {self.low}", field=field)
        if self.is_integer and math.ceil(self.low) > math.floor(self.high):
            raise ConfigError(f"empty range: no integer in [{self.low}, {self.high}]",
                              field=field)
        if method == "grid":
            if self.num is None:
                raise ConfigError("a range on a grid needs 'num' (number of grid points)",
                                  field=field)
            if self.num < 1:
                raise ConfigError(f"empty range: num must be >= 1, not {self.num}", field=field)
            if self.num > MAX_POINTS:
                raise ConfigError(f"num = {self.num} grid points is more than a sweep may have "
                                  f"({MAX_POINTS})", field=field)
        elif self.num is not None:
            raise ConfigError(f"'num' only applies to grid sampling, not '{method}'", field=field)

    def grid_size(self) -> int:
        """How many values :meth:`grid` gives, without building more than this one axis
        (whose ``num`` :meth:`check` has bounded)."""
        if self.values is not None:
            return len(self.values)
        if self.is_integer:
            low, high = self._range()
            span = math.floor(high) - math.ceil(low) + 1
            if self.num is not None and self.num >= span:
                return span  # rounding to integers gives each integer of the range once
        return len(self.grid())

    def _range(self) -> tuple[float, float]:
        """``(low, high)`` of a range parameter (:meth:`check` has ensured both are set)."""
        if self.low is None or self.high is None:
            raise ConfigError("needs 'values' or both 'low' and 'high'", field="parameters")
        return self.low, self.high

    def grid(self) -> list[Any]:
        """The values of this parameter on a grid (duplicates from rounding removed)."""
        if self.values is not None:
            return list(self.values)
        low, high = self._range()
        if self.num is None:
            raise ConfigError("a range on a grid needs 'num' (number of grid points)",
                              field="parameters")
        space = np.geomspace if self.log else np.linspace
        return self._convert(space(low, high, self.num), dedupe=True)

    def from_unit(self, u: np.ndarray) -> list[Any]:
        """Map samples ``u`` in [0, 1) onto this parameter (stratum-preserving)."""
        if self.values is not None:
            idx = np.minimum((u * len(self.values)).astype(int), len(self.values) - 1)
            return [self.values[i] for i in idx]
        low, high = self._range()
        if self.is_integer and not self.log:
            lo, hi = math.ceil(low), math.floor(high)
            return [int(v) for v in np.minimum(lo + np.floor(u * (hi - lo + 1)), hi)]
        if self.log:
            raw = np.exp(np.log(low) + u * (np.log(high) - np.log(low)))
        else:
            raw = low + u * (high - low)
        return self._convert(raw, dedupe=False)

    def _convert(self, raw: np.ndarray, *, dedupe: bool) -> list[Any]:
        if not self.is_integer:
            return [float(v) for v in raw]
        # round to the nearest integer inside the range
        low, high = self._range()
        values = [int(v) for v in np.clip(np.round(raw), math.ceil(low), math.floor(high))]
        return list(dict.fromkeys(values)) if dedupe else values


@dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep: its store key, full parameters (defaults filled in) and seed."""

    key: str
    params: dict[str, Any]
    seed: int


def point_key(model: str, params: Mapping[str, Any], seed: int) -> str:
    """The store key of a point: a hash of model, parameters, seed and archsim version."""
    return content_hash(model, json.dumps(params, sort_keys=True), str(seed), __version__)


class SweepSpec(BaseModel):
    """A validated sweep specification (see the module docstring for the TOML form).

    Use :func:`load_spec` or :meth:`from_dict`, which check the spec against the
    model's parameter schema; constructing the class directly checks structure only.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "sweep"
    model: str
    seed: int = 0
    method: Literal["grid", "random", "lhs"] = "grid"
    samples: int | None = Field(None, ge=1, le=MAX_POINTS)
    objectives: list[str] = Field(default_factory=list)
    constraints: list[str] = Field(default_factory=list)
    points_per_task: int | None = Field(None, ge=1)
    fixed: dict[str, Any] = Field(default_factory=dict)
    parameters: dict[str, ParameterSpec] = Field(default_factory=dict)
    _file: str | None = PrivateAttr(default=None)

    # -- construction --------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, file: str | None = None) -> SweepSpec:
        """Validate ``data`` (a parsed TOML document); errors name ``file`` and the field."""
        try:
            spec = cls.model_validate(dict(data))
        except ValidationError as exc:
            raise _config_error(exc, file) from None
        spec._file = file
        spec._in_file(spec.check)
        return spec

    @property
    def file(self) -> str | None:
        """The TOML file the spec was read from, if any."""
        return self._file

    def _in_file(self, fn: Any) -> Any:
        """Call ``fn``; re-raise its :class:`ConfigError` naming the spec's file."""
        try:
            return fn()
        except ConfigError as exc:
            if self._file is None or exc.file is not None:
                raise
            raise ConfigError(exc.reason, file=self._file, field=exc.field,
                              allowed=exc.allowed) from None

    @property
    def sweep_model(self) -> SweepModel:
        return get_model(self.model)

    @property
    def recorded_objectives(self) -> tuple[str, ...]:
        """The objectives stored for each point (all the model's when none are listed)."""
        return tuple(self.objectives) or self.sweep_model.objectives

    def check(self) -> None:
        """Check the spec against its model; raise :class:`ConfigError` naming the field."""
        model = self.sweep_model
        names = model.parameter_names
        for section, keys in (("fixed", self.fixed), ("parameters", self.parameters)):
            for key in keys:
                if key not in names:
                    raise ConfigError(f"model '{model.name}' has no parameter '{key}'",
                                      field=f"{section}.{key}", allowed=names)
        both = sorted(set(self.fixed) & set(self.parameters))
        if both:
            raise ConfigError(f"parameter '{both[0]}' is both fixed and varied",
                              field=f"parameters.{both[0]}")
        for key, param in self.parameters.items():
            param.check(f"parameters.{key}", self.method)
        if self.method == "grid" and self.samples is not None:
            raise ConfigError("'samples' only applies to 'random' and 'lhs' sampling",
                              field="samples")
        if self.method != "grid" and self.samples is None:
            raise ConfigError(f"'{self.method}' sampling needs 'samples'", field="samples")
        count = self.design_size()
        if count > MAX_POINTS:
            sizes = " x ".join(str(p.grid_size()) for p in self.parameters.values())
            what = f"a grid of {sizes} = {count} points" if self.method == "grid" \
                else f"{count} samples"
            raise ConfigError(f"{what} is more than a sweep may have ({MAX_POINTS}); split it "
                              f"or narrow the ranges",
                              field="parameters" if self.method == "grid" else "samples")
        self._check_values(model)
        for i, objective in enumerate(self.objectives):
            if objective not in model.objectives:
                raise ConfigError(f"model '{model.name}' has no objective '{objective}'",
                                  field=f"objectives[{i}]", allowed=model.objectives)
        self._constraints()

    def design_size(self) -> int:
        """The number of raw design points (before constraints and de-duplication), counted
        arithmetically: the product of the axes' sizes on a grid, else ``samples``."""
        if self.method != "grid":
            return self.samples or 0
        return math.prod(p.grid_size() for p in self.parameters.values())

    def _check_values(self, model: SweepModel) -> None:
        """Validate every fixed value, listed value and range end on its own, so a name the
        model does not know (a policy, a GPU, a workload...) fails when the spec is loaded,
        naming its axis and the allowed values, before any point runs. Only errors on the
        parameter itself count here: a combination the model rejects is the points' business.
        """
        def errors(params: Mapping[str, Any], name: str, field: str) -> None:
            try:
                model.validate_params(params)
            except ConfigError as exc:
                if exc.field == name:
                    raise ConfigError(exc.reason, field=field, allowed=exc.allowed) from None

        for name in self.fixed:
            errors(self.fixed, name, f"fixed.{name}")
        for name, param in self.parameters.items():
            if param.values is not None:
                candidates = list(param.values)
            else:
                low, high = param._range()
                candidates = [low, high]
                if param.is_integer:
                    candidates = [math.ceil(low), math.floor(high)]
            for value in candidates:
                errors({**self.fixed, name: value}, name, f"parameters.{name}")

    def _constraints(self) -> list[Expression]:
        names = self.sweep_model.parameter_names
        return [Expression(c, names=names, field=f"constraints[{i}]")
                for i, c in enumerate(self.constraints)]

    # -- points --------------------------------------------------------------------------
    def design(self) -> list[dict[str, Any]]:
        """The raw design: the varied parameters' values per point, before constraints."""
        return list(self.iter_design())

    def iter_design(self) -> Iterator[dict[str, Any]]:
        """:meth:`design` one point at a time (a grid is never held in memory whole)."""
        names = list(self.parameters)
        specs = list(self.parameters.values())
        if self.method == "grid":
            grids = [p.grid() for p in specs]
            for combo in itertools.product(*grids):
                yield dict(zip(names, combo, strict=True))
            return
        yield from self._sampled(names, specs)

    def _sampled(self, names: list[str], specs: list[ParameterSpec]) -> list[dict[str, Any]]:
        rng = np.random.default_rng(self.seed)
        n = self.samples or 0
        if not names:
            return [{}]
        if self.method == "random":
            # Integers and value lists sample their own way; ranges uniform in [0, 1).
            unit = rng.random((n, len(names)))
        else:
            from scipy.stats import qmc

            unit = qmc.LatinHypercube(d=len(names), rng=rng).random(n)
        columns = [p.from_unit(unit[:, j]) for j, p in enumerate(specs)]
        return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]

    def points(self) -> list[SweepPoint]:
        """Every distinct point satisfying the constraints, validated by the model's schema."""
        return self._in_file(self._points)

    def iter_points(self) -> Iterator[SweepPoint]:
        """The points of :meth:`points` one at a time, in the same order, without holding the
        design in memory (duplicates are not removed: :meth:`points` does that)."""
        model = self.sweep_model
        constraints = self._constraints()
        found = False
        for varied in self.iter_design():
            point = self._in_file(lambda v=varied: self._point(model, constraints, v))
            if point is not None:
                found = True
                yield point
        if not found:
            raise self._in_file_error(ConfigError("no point satisfies the constraints",
                                                  field="constraints"))

    def _in_file_error(self, exc: ConfigError) -> ConfigError:
        if self._file is None or exc.file is not None:
            return exc
        return ConfigError(exc.reason, file=self._file, field=exc.field, allowed=exc.allowed)

    def _point(self, model: SweepModel, constraints: list[Expression],
               varied: dict[str, Any]) -> SweepPoint | None:
        try:
            params = model.validate_params({**self.fixed, **varied})
        except ConfigError as exc:
            field = exc.field
            if field in self.parameters:
                field = f"parameters.{field}"
            elif field in self.fixed:
                field = f"fixed.{field}"
            raise ConfigError(exc.reason, field=field, allowed=exc.allowed) from None
        if not all(c(params) for c in constraints):
            return None
        seed = _point_seed(self.seed, params)
        return SweepPoint(key=point_key(model.name, params, seed), params=params, seed=seed)

    def _points(self) -> list[SweepPoint]:
        model = self.sweep_model
        constraints = self._constraints()
        out: dict[str, SweepPoint] = {}
        for varied in self.iter_design():
            point = self._point(model, constraints, varied)
            if point is not None:
                out.setdefault(point.key, point)
        if not out:
            raise ConfigError("no point satisfies the constraints", field="constraints")
        return list(out.values())


def _point_seed(seed: int, params: Mapping[str, Any]) -> int:
    """A per-point seed derived from the sweep seed and the parameters (stable everywhere)."""
    return int(content_hash("point-seed", str(seed), json.dumps(params, sort_keys=True))[:8], 16)


def _config_error(exc: ValidationError, file: str | None) -> ConfigError:
    err = exc.errors()[0]
    field = ".".join(str(p) for p in err["loc"]) or None
    if err["type"] == "extra_forbidden":
        top = err["loc"][0] if len(err["loc"]) == 1 else None
        allowed = (list(SweepSpec.model_fields) if top is not None
                   else list(ParameterSpec.model_fields))
        return ConfigError("unknown field", file=file, field=field, allowed=allowed)
    if err["type"] == "missing":
        return ConfigError("required field is missing", file=file, field=field)
    return ConfigError(f"{err['msg']} (value {err.get('input')!r})", file=file, field=field)


def load_spec(path: str | Path) -> SweepSpec:
    """Read and validate a sweep spec from a TOML file."""
    path = Path(path)
    text = read_text_file(path, what="sweep spec")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", file=str(path)) from None
    return SweepSpec.from_dict(data, file=str(path))
