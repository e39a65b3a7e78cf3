"""The study's workload graphs: branchy (Inception modules, multi-task Wide & Deep) and
chains (a ParaDnn MLP, the Fathom DQN), at shapes that run in milliseconds on a 2-core CPU."""

from __future__ import annotations

from collections.abc import Callable

from ....compilers.graph.cnn import NetBuilder
from ....compilers.graph.fathom import fathom_deepq
from ....compilers.graph.ir import Operator, TensorSpec, WorkloadGraph
from ....compilers.graph.paradnn import paradnn_fc
from ....compilers.graph.recsys import get_recsys, recsys_graph
from ....errors import ConfigError

__all__ = ["INCEPTION_MODULES", "inception_stack", "mt_wnd", "mlp_chain", "dqn_chain",
           "MODELS", "build_model"]

#: GoogLeNet inception modules 3a, 3b, 4a (Szegedy et al. 2015, Table 1; recollected):
#: (#1x1, #3x3 reduce, #3x3, #5x5 reduce, #5x5, pool proj).
INCEPTION_MODULES: dict[str, tuple[int, int, int, int, int, int]] = {
    "3a": (64, 96, 128, 16, 32, 32),
    "3b": (128, 128, 192, 32, 96, 64),
    "4a": (192, 96, 208, 16, 48, 64),
}


def inception_stack(*, batch: int = 1, size: int = 28, in_channels: int = 192,
                    modules: tuple[str, ...] = ("3a", "3b")) -> WorkloadGraph:
    """GoogLeNet inception modules in sequence on a ``size x size`` map (28 in GoogLeNet).

    Each module has four branches (1x1; 1x1 -> 3x3; 1x1 -> 5x5; 3x3/1 max pool -> 1x1),
    every conv with bias and ReLU, joined by a channel concat: 14 operators, 5 deep.
    """
    g = WorkloadGraph(f"inception-{'-'.join(modules)}-b{batch}-s{size}", metadata={
        "model": "inception", "batch": batch, "source": "Szegedy et al. 2015 Table 1"})
    nb = NetBuilder(g, TensorSpec("image", (batch, in_channels, size, size), "fp32",
                                  role="input"))
    c = in_channels
    for m in modules:
        if m not in INCEPTION_MODULES:
            raise ConfigError(f"unknown inception module '{m}'", field="modules",
                              allowed=sorted(INCEPTION_MODULES))
        c1, r3, c3, r5, c5, pp = INCEPTION_MODULES[m]
        x = nb.x
        b1 = nb.act(f"{m}.1x1.relu", x=nb.conv(f"{m}.1x1", c1, 1, x=x, bias=True))
        nb.conv(f"{m}.3x3r", r3, 1, x=x, bias=True)
        nb.act(f"{m}.3x3r.relu")
        nb.conv(f"{m}.3x3", c3, 3, padding=1, bias=True)
        b3 = nb.act(f"{m}.3x3.relu")
        nb.conv(f"{m}.5x5r", r5, 1, x=x, bias=True)
        nb.act(f"{m}.5x5r.relu")
        nb.conv(f"{m}.5x5", c5, 5, padding=2, bias=True)
        b5 = nb.act(f"{m}.5x5.relu")
        nb.pool(f"{m}.pool", 3, 1, x=x, padding=1)
        nb.conv(f"{m}.poolproj", pp, 1, bias=True)
        bp = nb.act(f"{m}.poolproj.relu")
        c = c1 + c3 + c5 + pp
        y = TensorSpec(f"{m}.out", (batch, c, size, size), "fp32")
        g.add(Operator(f"{m}.concat", "data_movement", (b1, b3, b5, bp), (y,), 0.0,
                       {"fn": "concat", "axis": 1}))
        nb.x = y
    return g


def mt_wnd(*, batch: int = 128, tasks: int = 8, table_rows: int = 1000) -> WorkloadGraph:
    """RecSSD's multi-task Wide & Deep (43 embedding tables, top MLP 1024-512, ``tasks``
    towers of 512-256-128) with every table cut to ``table_rows`` rows (the lookups, not
    the table size, set the work at one lookup per table)."""
    c = get_recsys("RecSSD-MT-WnD")
    c = c.model_copy(update={"table_rows": (table_rows,) * len(c.table_rows),
                             "num_tasks": tasks})
    return recsys_graph(c, batch=batch)


def mlp_chain(*, batch: int = 64, nodes: int = 1024, layers: int = 4) -> WorkloadGraph:
    """A ParaDnn FC model: a plain chain (width 1)."""
    return paradnn_fc(layers=layers, nodes=nodes, batch=batch)


def dqn_chain(*, batch: int = 8) -> WorkloadGraph:
    """Fathom's deep Q-network: a plain CNN chain (width 1)."""
    return fathom_deepq(batch=batch)


MODELS: dict[str, Callable[..., WorkloadGraph]] = {
    "inception": inception_stack, "mt-wnd": mt_wnd, "mlp": mlp_chain, "dqn": dqn_chain,
}


def build_model(name: str, **params: object) -> WorkloadGraph:
    """One of :data:`MODELS` by name."""
    if name not in MODELS:
        raise ConfigError(f"unknown model '{name}'", field="model", allowed=sorted(MODELS))
    return MODELS[name](**params)
