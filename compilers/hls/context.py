"""Where the frontend is: the source being read and the loop scope around the current point.

:class:`Source` changes while a called kernel is inlined (its file, its line offset, its
globals); :class:`Scope` holds the loop variables visible at the current statement.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from ...dsl.kernel import Kernel
from ...dsl.types import HWType
from ...errors import DSLError
from .ir import Bound

__all__ = ["Source", "Scope", "Alias"]

#: An unrolled loop variable: ``(None, value, type)`` for a fully unrolled copy,
#: ``(base, offset, type)`` for a copy of a partially unrolled one (``base + offset``).
Alias = tuple[str | None, int, HWType]


@dataclass(frozen=True)
class Source:
    """The kernel whose code is being lowered: for located errors and global names."""

    filename: str
    line0: int
    col0: int
    ns: dict[str, Any]

    @classmethod
    def of(cls, kern: Kernel) -> Source:
        """The source of ``kern``."""
        return cls(filename=kern.filename, line0=kern.line0, col0=kern.col0, ns=kern.namespace)

    def line(self, node: ast.AST) -> int:
        """The file line of ``node``."""
        return getattr(node, "lineno", 1) + self.line0 - 1

    def col(self, node: ast.AST) -> int:
        """The (1-based) file column of ``node``."""
        return getattr(node, "col_offset", 0) + 1 + self.col0

    def err(self, node: ast.AST, msg: str, hint: str | None = None) -> DSLError:
        """A :class:`DSLError` located at ``node``."""
        return DSLError(msg, filename=self.filename, lineno=self.line(node), col=self.col(node),
                        hint=hint)


@dataclass
class Scope:
    """Loop variables and control context at the current statement."""

    #: unrolled loop variables (see :data:`Alias`)
    alias: dict[str, Alias] = field(default_factory=dict)
    #: variables of the FSM loops around this point, and their ranges
    fsm_vars: set[str] = field(default_factory=set)
    fsm_ranges: dict[str, tuple[Bound, Bound, int]] = field(default_factory=dict)
    #: the innermost (pipelined or sequential) loop's variable, inside its body
    region_var: str | None = None
    #: nesting depth of ifs (and while bodies, whose effects are predicated too)
    in_if: int = 0
    #: True once the kernel (or the inlined callee) has returned
    returned: bool = False
