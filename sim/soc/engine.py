"""The event-driven SoC timeline: CPU framework, data preparation, transfers and accelerators.

Operators run one after another in topological order (single-batch inference, as in SMAUG).
For each accelerated operator:

1. the CPU main thread pays the framework's per-operator overhead (``cpu_framework``);
2. the data-preparation threads tile the operator's inputs and weights into scratchpad-shaped
   buffers, the bytes split evenly over ``data_prep_threads`` (``data_prep``);
3. the main thread dispatches the jobs (independent output tiles) round-robin over the
   accelerator pool: per job a launch overhead (``cpu_framework``) and, for tensors whose
   host-memory policy is DMA, a cache flush of the bytes to load and an invalidate of the
   output (``data_transfer``); dispatch does not wait for the accelerator;
4. each accelerator runs its jobs in order; per step it loads the input/weight tiles not
   already resident in its scratchpads over the DRAM (DMA) or the coherent port (ACP) --
   each one server shared by every accelerator, so transfers queue and adding accelerators
   saturates at the memory bandwidth -- then computes (``accelerator_compute``); a job ends
   by storing its output tile (with ``llc.acp_hits = "footprint"``, an operator whose ACP
   bytes exceed the LLC has its ACP transfers served by the DRAM);
5. when every job is done the data-preparation threads gather the output tiles back
   (``data_prep``).

With double-buffered scratchpads (``scratchpads.double_buffered``: the tiler gives each
tile half of every scratchpad) an accelerator loads step ``s + 1`` -- the next step of the
job, or the first of its next job -- while it computes step ``s``, and stores a job's output
tile while it computes the next job; a job's first step waits until at most one earlier
store is in flight (two output buffers).

Recurrent layers repeat steps 2-5 per time step (the steps depend on each other). Operators
the accelerators cannot run (reshapes, embeddings) are copies on the data-preparation threads.

Global buffer
-------------
With a ``[global_buffer]`` in the config and ``resident`` tensor names given to
:func:`simulate`, a tile load or output store whose tensor is resident goes over the ``gb``
server instead (one port shared by every accelerator: ``latency_s + bytes /
bandwidth_bytes_per_s``, no transfer setup, no cache flush, no CPU data preparation or
gathering) and counts as on-chip bytes (``TransferTotals.gb_bytes``, per role in
``onchip_read_bytes`` / ``onchip_write_bytes``); every other tensor takes the host-memory
path as before. Which tensor a transfer belongs to (:func:`transfer_tensors`) follows
:func:`~archsim.sim.soc.tiling.plan_operator`'s operands:

* ``conv2d``, ``matmul``, ``recurrent``, ``attention``: the ``input`` tiles are
  ``inputs[0]`` (the activation), the ``weight`` tiles ``inputs[1]`` (the weight, or the B
  operand of a product of two activations; a recurrent layer's ``W`` stands for ``W`` and
  ``R``, an attention's ``inputs[1]`` for its keys and values); biases are not tiled;
* vector operators (element-wise, activation, norm, pool, softmax, reduce): the ``input``
  tiles are the first non-weight input, the ``weight`` tiles the further non-weight inputs,
  split among them by element count (norm parameters are not tiled);
* ``output`` tiles: the outputs, split by bytes (one output for every builder's operator).

A class whose tensors are partly resident is split into an on-chip and a host-memory
transfer. CPU operators (reshapes, embeddings) stay copies on the data-preparation threads.
Without ``resident`` nothing changes.

Choice of engine: a heapq event queue of our own with callback-driven FIFO servers, not SimPy.
Measured (``bench/soc_sim_speed.py``, one core of a shared 2-core machine): the same pipeline
of 20,000 tiles through a shared DRAM and an accelerator pool, ending at the same simulated
time, takes 0.14 s on this queue against 0.66-0.78 s on SimPy 4.1 with one accelerator
(4.8-5.3x) and 0.09-0.10 s against 0.65-0.71 s with eight (6.3-7.9x), over two runs: SimPy's
generator processes, request events and context managers cost more per event than a heap
push and a callback, and the engine needs nothing SimPy adds
(interrupts, conditions, preemption). ResNet-50 on the SMAUG baseline simulates in ~0.1 s.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from ...compilers.graph import WorkloadGraph
from ...errors import ConfigError, DSLError
from ...hw.models import HardwareModel
from ...hw.models.accelerators import GEMM_KINDS, VECTOR_KINDS
from ...loading import ProgressCallback
from ...operators import Operator
from .accelerators import accelerator_error, make_accelerator_model, make_cpu_model
from .config import SoCConfig
from .events import EventQueue, Server
from .results import SocResult, TransferTotals, build_result
from .tiling import OperatorPlan, Step, plan_operator

__all__ = ["simulate", "transfer_tensors", "TRANSFER_CLASSES"]

#: The tensor classes of a transfer (the engine's and the host-memory policy's).
TRANSFER_CLASSES: tuple[str, ...] = ("input", "weight", "output")

#: One route of a transfer class: the port (``"dma"``, ``"acp"`` or ``"gb"``), the share of
#: the class's bytes it carries and how those bytes split over tensor roles.
_Route = tuple[str, float, tuple[tuple[str, float], ...]]


def _shares(tensors: Sequence[Any], weight: Callable[[Any], float]) -> tuple[tuple[str, float],
                                                                             ...]:
    total = sum(weight(t) for t in tensors)
    if len(tensors) == 1:
        return ((tensors[0].name, 1.0),)
    if total <= 0:
        return tuple((t.name, 1.0 / len(tensors)) for t in tensors)
    return tuple((t.name, weight(t) / total) for t in tensors if weight(t) > 0)


def transfer_tensors(op: Operator) -> dict[str, tuple[tuple[str, float], ...]]:
    """The tensors each transfer class of ``op`` moves, as ``(tensor name, share of the
    class's bytes)`` pairs per class of :data:`TRANSFER_CLASSES` (the rule is in the module
    docstring); empty for an operator the CPU runs, or a class with no tensor."""
    out: dict[str, tuple[tuple[str, float], ...]] = {c: () for c in TRANSFER_CLASSES}
    if op.kind in GEMM_KINDS:
        if op.inputs:
            out["input"] = ((op.inputs[0].name, 1.0),)
        if len(op.inputs) > 1:
            out["weight"] = ((op.inputs[1].name, 1.0),)
    elif op.kind in VECTOR_KINDS:
        acts = [t for t in op.inputs if t.role != "weight"]
        if acts:
            out["input"] = ((acts[0].name, 1.0),)
        if len(acts) > 1:
            out["weight"] = _shares(acts[1:], lambda t: float(t.numel))
    else:
        return out
    if op.outputs:
        out["output"] = _shares(list(op.outputs), lambda t: float(t.nbytes))
    return out


def _routes(op: Operator, policy: Mapping[str, str], resident: frozenset[str] | None,
            roles: Mapping[str, str]) -> dict[str, tuple[_Route, ...]]:
    """Per transfer class, the host-memory route and (for resident tensors) the ``gb`` one."""
    owners = transfer_tensors(op)
    out: dict[str, tuple[_Route, ...]] = {}
    for cls in TRANSFER_CLASSES:
        own = owners[cls]
        if not own:
            out[cls] = ((policy[cls], 1.0, ()),)
            continue
        on = [p for p in own if resident is not None and p[0] in resident]
        off = [p for p in own if resident is None or p[0] not in resident]
        routes: list[_Route] = []
        for port, group in ((policy[cls], off), ("gb", on)):
            if not group:
                continue
            # The whole class on one route carries exactly its bytes (no float drift).
            share = 1.0 if len(group) == len(own) else sum(f for _, f in group)
            by_role: dict[str, float] = {}
            for name, f in group:
                by_role[roles[name]] = by_role.get(roles[name], 0.0) + f / share
            routes.append((port, share, tuple(by_role.items())))
        out[cls] = tuple(routes)
    return out

def _ignore(_: Any) -> None:
    """Completion callback of a task nothing waits for."""


def _tile_align(model: HardwareModel) -> tuple[int, int, int]:
    """The ``(m, k, n)`` granularity ``model`` wants GEMM blocks aligned to (1: none)."""
    align = getattr(model, "tile_align", (1, 1, 1))
    return (int(align[0]), int(align[1]), int(align[2]))


def _counts_scratchpad_reads(model: HardwareModel) -> bool:
    """Whether the engine charges scratchpad reads for ``model``'s compute (a model whose own
    energy already counts its memory accesses says ``False``)."""
    return bool(getattr(model, "counts_scratchpad_reads", True))


class _Accelerator:
    __slots__ = ("index", "model", "name", "counts_spad", "server", "jobs", "running",
                 "last_input", "last_weight", "cur", "cur_ready", "computing", "stores")

    def __init__(self, q: EventQueue, index: int, model: HardwareModel) -> None:
        self.index = index
        self.model = model
        self.name = model.name
        self.counts_spad = _counts_scratchpad_reads(model)
        self.server = Server(q, f"acc{index}:{model.name}")
        self.jobs: deque[Any] = deque()
        self.running = False
        self.last_input: tuple | None = None
        self.last_weight: tuple | None = None
        # Double-buffered pipeline: the step loaded or loading next, whether its loads are
        # done, the step computing (each a (job item, step index) pair) and stores in flight.
        self.cur: tuple[Any, int] | None = None
        self.cur_ready = False
        self.computing: tuple[Any, int] | None = None
        self.stores = 0


class _Simulation:
    """One run: the servers, the operator loop and the job state machines."""

    def __init__(self, config: SoCConfig, plans: list[OperatorPlan],
                 models: list[HardwareModel], progress: Callable[[int], None] | None,
                 routes: list[dict[str, tuple[_Route, ...]]]) -> None:
        self.cfg = config
        self.plans = plans
        self.routes = routes
        self.progress = progress
        q = self.q = EventQueue()
        self.cpu = cpu = make_cpu_model(config.cpu)
        self.main = Server(q, "cpu:main")
        self.prep = Server(q, "cpu:prep", capacity=cpu.data_prep_threads)
        self.dram = Server(q, "dram")
        self.acp = Server(q, "acp")
        self.gb = Server(q, "gb") if config.global_buffer is not None else None
        accs: list[_Accelerator] = []
        for acc_cfg, model in zip(config.accelerators, models, strict=True):
            for _ in range(acc_cfg.count):
                accs.append(_Accelerator(q, len(accs), model))
        self.accs = accs
        self.totals = TransferTotals()
        self.op_windows: list[tuple[float, float]] = []
        self.op_index = -1
        self.pending = 0
        self.group = 0
        self.group_jobs: list[list[Any]] = []
        self.op_start = 0.0
        self.macs = 0
        self.vector_ops = 0.0
        self.spad_bytes = 0.0
        self.acc_energy_j: dict[str, float] = {a.name: 0.0 for a in accs}
        self._port = {"dma": self.dram, "acp": self.acp}
        self.rr = 0
        self.check_llc = config.llc.acp_hits == "footprint"
        self.double = config.accelerators[0].scratchpads.double_buffered
        self.acp_miss = False
        # Bytes the CPU prepares and gathers per operator (resident tensors skip the CPU).
        self.prep_bytes = [_offchip_prep(p, r) for p, r in zip(plans, routes, strict=True)]
        self.gather_bytes = [p.output_bytes * _share(r["output"], _HOST)
                             for p, r in zip(plans, routes, strict=True)]

    # -- costs --------------------------------------------------------------------------
    def _transfer_s(self, policy: str, nbytes: float) -> float:
        c = self.cfg
        if policy == "acp":
            return c.interconnect.transfer_setup_s + c.llc.acp_latency_s + \
                nbytes / c.llc.acp_bandwidth_bytes_per_s
        return c.interconnect.transfer_setup_s + c.dram.latency_s + \
            nbytes / c.dram.bandwidth_bytes_per_s

    def _miss_s(self, nbytes: float) -> float:
        """An ACP access that misses in the LLC: through the port, served by the DRAM."""
        c = self.cfg
        bw = min(c.dram.bandwidth_bytes_per_s, c.llc.acp_bandwidth_bytes_per_s)
        return c.interconnect.transfer_setup_s + c.llc.acp_latency_s + c.dram.latency_s + \
            nbytes / bw

    def _gb_s(self, nbytes: float) -> float:
        gb = self.cfg.global_buffer
        assert gb is not None  # a gb route exists only with a global buffer (simulate checks)
        return gb.access_latency_s + nbytes / gb.bandwidth_bytes_per_s

    def _flush_s(self, nbytes: float) -> float:
        return self.cfg.llc.flush_fixed_s + nbytes / self.cfg.llc.flush_bytes_per_s

    # -- operator loop ------------------------------------------------------------------
    def run(self) -> None:
        self.q.at(0.0, self._next_op)
        self.q.run()

    def _next_op(self, _: Any = None) -> None:
        if self.op_index >= 0:
            self.op_windows.append((self.op_start, self.q.now))
            if self.progress is not None:
                self.progress(self.op_index + 1)
        self.op_index += 1
        if self.op_index >= len(self.plans):
            return
        self.op_start = self.q.now
        plan = self.plans[self.op_index]
        self.rr = 0
        self.acp_miss = self.check_llc and \
            _acp_footprint(plan, self.routes[self.op_index]) > self.cfg.llc.size_bytes
        if plan.target == "cpu":
            self.main.submit(self.cpu.framework_overhead_s_per_op, "cpu_framework",
                             self.op_index, self._cpu_copy, plan)
            return
        if plan.sequential:
            groups: list[list[Any]] = [[] for _ in range(plan.num_groups)]
            for job in plan.jobs:
                groups[job.group].append(job)
        else:
            groups = [list(plan.jobs)]
        self.group_jobs = groups
        self.group = 0
        self._start_group()

    def _cpu_copy(self, plan: OperatorPlan) -> None:
        self._split_prep(plan.cpu_bytes, self._next_op)

    def _split_prep(self, nbytes: float, then: Callable[[Any], None]) -> None:
        threads = self.cpu.data_prep_threads
        if nbytes <= 0:
            then(None)
            return
        dur = self.cpu.prep_s_per_thread(nbytes)
        counter = [threads]

        def one_done(_: Any) -> None:
            counter[0] -= 1
            if counter[0] == 0:
                then(None)

        for _ in range(threads):
            self.prep.submit(dur, "data_prep", self.op_index, one_done)

    def _start_group(self, _: Any = None) -> None:
        self.main.submit(self.cpu.framework_overhead_s_per_op, "cpu_framework",
                         self.op_index, self._prep_group)

    def _prep_group(self, _: Any) -> None:
        share = 1.0 / len(self.group_jobs)
        self._split_prep(self.prep_bytes[self.op_index] * share, self._dispatch_group)

    def _dispatch_group(self, _: Any) -> None:
        jobs = self.group_jobs[self.group]
        self.pending = len(jobs)
        cpu = self.cpu
        routes = self.routes[self.op_index]
        dma_in, dma_w, dma_out = (_share(routes[c], ("dma",)) for c in TRANSFER_CLASSES)
        n = len(self.accs)
        for job in jobs:
            acc = self.accs[self.rr % n]
            self.rr += 1
            loads = []
            flush_bytes = 0.0
            for st in job.steps:
                in_b = 0.0 if st.input_key == acc.last_input else st.input_bytes
                w_b = 0.0 if (st.weight_key is None or st.weight_key == acc.last_weight) \
                    else st.weight_bytes
                acc.last_input = st.input_key
                if st.weight_key is not None:
                    acc.last_weight = st.weight_key
                loads.append((in_b, w_b, st))
                # The DMA part of each class is flushed (resident parts never are).
                if dma_in:
                    flush_bytes += in_b * dma_in
                if dma_w:
                    flush_bytes += w_b * dma_w
            if dma_out:
                flush_bytes += job.output_bytes * dma_out
            item = (acc, loads, job.output_bytes)
            # Launch overhead then flush, queued back to back so the main thread serves the
            # jobs in dispatch order.
            if flush_bytes > 0:
                self.main.submit(cpu.framework_overhead_s_per_tile, "cpu_framework",
                                 self.op_index, _ignore)
                self.main.submit(self._flush_s(flush_bytes), "data_transfer", self.op_index,
                                 self._enqueue, item)
            else:
                self.main.submit(cpu.framework_overhead_s_per_tile, "cpu_framework",
                                 self.op_index, self._enqueue, item)

    def _enqueue(self, item: Any) -> None:
        acc = item[0]
        acc.jobs.append(item)
        if self.double:
            self._db_kick(acc)
            return
        if not acc.running:
            acc.running = True
            self._run_job(acc)

    # -- accelerator job state machine ----------------------------------------------------
    def _run_job(self, acc: _Accelerator) -> None:
        self._step(acc, acc.jobs[0][1], 0)

    def _step(self, acc: _Accelerator, loads: list, i: int) -> None:
        if i == len(loads):
            self._store(acc)
            return
        in_b, w_b, st = loads[i]
        transfers = []
        if in_b > 0:
            transfers.append(("input", in_b))
        if w_b > 0:
            transfers.append(("weight", w_b))
        self._transfers(acc, self._expand(transfers), 0,
                        lambda _: self._compute(acc, loads, i))

    def _expand(self, transfers: list[tuple[str, float]]) -> list[tuple[str, str, float,
                                                                         tuple]]:
        """Each ``(class, bytes)`` transfer as one transfer per route of its class."""
        routes = self.routes[self.op_index]
        return [(cls, port, nbytes * share, roles) for cls, nbytes in transfers
                for port, share, roles in routes[cls]]

    def _transfers(self, acc: _Accelerator, transfers: list, j: int,
                   then: Callable[[Any], None]) -> None:
        if j == len(transfers):
            then(None)
            return
        cls, pol, nbytes, roles = transfers[j]
        self.totals.add(cls, pol, nbytes, roles)
        then_next = lambda _: self._transfers(acc, transfers, j + 1, then)  # noqa: E731
        if pol == "gb":
            assert self.gb is not None
            self.gb.submit(self._gb_s(nbytes), "data_transfer", self.op_index, then_next)
            return
        if pol == "acp" and self.acp_miss:
            self.totals.llc_miss_bytes += nbytes
            self.dram.submit(self._miss_s(nbytes), "data_transfer", self.op_index, then_next)
            return
        self._port[pol].submit(self._transfer_s(pol, nbytes), "data_transfer", self.op_index,
                               then_next)

    def _compute(self, acc: _Accelerator, loads: list, i: int) -> None:
        acc.server.submit(self._compute_s(acc, loads[i][2], acc.jobs[0][2]),
                          "accelerator_compute", self.op_index,
                          lambda _: self._step(acc, loads, i + 1))

    def _compute_s(self, acc: _Accelerator, st: Step, out_bytes: float) -> float:
        """Account one step's actions; its compute time, as the accelerator's model prices
        the step's tile."""
        cost = acc.model.operator_cost(st.tile)
        self.macs += st.macs
        self.vector_ops += st.vector_ops
        self.acc_energy_j[acc.name] += cost.energy_j
        # Compute reads each operand tile once; the output tile is read-modified-written.
        if acc.counts_spad:
            self.spad_bytes += st.input_bytes + st.weight_bytes + 2.0 * out_bytes
        return cost.latency_s

    # -- double-buffered pipeline -----------------------------------------------------------
    def _db_kick(self, acc: _Accelerator) -> None:
        """Start loading the next step into the free buffer, if there is one to load."""
        if acc.cur is not None:
            return
        comp = acc.computing
        if comp is not None and comp[1] + 1 < len(comp[0][1]):
            nxt = (comp[0], comp[1] + 1)
        elif acc.jobs:
            nxt = (acc.jobs.popleft(), 0)
        else:
            return
        acc.cur = nxt
        acc.cur_ready = False
        in_b, w_b, _ = nxt[0][1][nxt[1]]
        transfers = [t for t in (("input", in_b), ("weight", w_b)) if t[1] > 0]
        self._transfers(acc, self._expand(transfers), 0, lambda _: self._db_loaded(acc))

    def _db_loaded(self, acc: _Accelerator) -> None:
        acc.cur_ready = True
        self._db_try_compute(acc)

    def _db_try_compute(self, acc: _Accelerator) -> None:
        if acc.computing is not None or acc.cur is None or not acc.cur_ready:
            return
        item, i = acc.cur
        if i == 0 and acc.stores >= 2:
            return  # both output buffers still draining; retried when a store ends
        acc.computing = acc.cur
        acc.cur = None
        dur = self._compute_s(acc, item[1][i][2], item[2])
        acc.server.submit(dur, "accelerator_compute", self.op_index,
                          lambda _: self._db_computed(acc))
        self._db_kick(acc)

    def _db_computed(self, acc: _Accelerator) -> None:
        assert acc.computing is not None  # this callback ends the step that is computing
        item, i = acc.computing
        acc.computing = None
        if i == len(item[1]) - 1:
            acc.stores += 1
            self._transfers(acc, self._expand([("output", item[2])]), 0,
                            lambda _: self._db_stored(acc))
            self._db_kick(acc)  # the next job, if it was not there when this step began
        self._db_try_compute(acc)

    def _db_stored(self, acc: _Accelerator) -> None:
        acc.stores -= 1
        self._db_try_compute(acc)
        self.pending -= 1
        if self.pending == 0:
            share = 1.0 / len(self.group_jobs)
            self._split_prep(self.gather_bytes[self.op_index] * share, self._group_done)

    def _store(self, acc: _Accelerator) -> None:
        _, _, out_bytes = acc.jobs[0]
        self._transfers(acc, self._expand([("output", out_bytes)]), 0,
                        lambda _: self._job_done(acc))

    def _job_done(self, acc: _Accelerator) -> None:
        acc.jobs.popleft()
        if acc.jobs:
            self._run_job(acc)
        else:
            acc.running = False
        self.pending -= 1
        if self.pending == 0:
            share = 1.0 / len(self.group_jobs)
            self._split_prep(self.gather_bytes[self.op_index] * share, self._group_done)

    def _group_done(self, _: Any) -> None:
        self.group += 1
        if self.group < len(self.group_jobs):
            self._start_group()
        else:
            self._next_op()

    def servers(self) -> Iterable[Server]:
        yield self.main
        yield self.prep
        yield self.dram
        yield self.acp
        if self.gb is not None:
            yield self.gb
        for a in self.accs:
            yield a.server


_HOST = ("dma", "acp")


def _share(routes: Sequence[_Route], ports: Sequence[str]) -> float:
    """The share of a class's bytes that goes over ``ports`` (exactly 1.0 or 0.0 for a
    class on one route)."""
    shares = [r[1] for r in routes if r[0] in ports]
    if len(shares) == 1:
        return shares[0]
    return math.fsum(shares)


def _offchip_prep(plan: OperatorPlan, routes: Mapping[str, Sequence[_Route]]) -> float:
    """Bytes the CPU tiles for ``plan``: its distinct input and weight tiles' host-memory
    parts (the tiler's ``prep_bytes`` when nothing of the operator is resident)."""
    f_in, f_w = _share(routes["input"], _HOST), _share(routes["weight"], _HOST)
    if f_in == 1.0 and f_w == 1.0:
        return plan.prep_bytes
    total = 0.0
    seen: set[tuple | None] = set()
    for job in plan.jobs:
        for st in job.steps:
            if st.input_key not in seen:
                seen.add(st.input_key)
                total += st.input_bytes * f_in
            if st.weight_key not in seen:
                seen.add(st.weight_key)
                total += st.weight_bytes * f_w
    return total


def _acp_footprint(plan: OperatorPlan, routes: Mapping[str, Sequence[_Route]]) -> float:
    """Distinct bytes an operator moves over the coherent port (the ACP share of its tiles
    of every tensor class)."""
    f_in, f_w, f_out = (_share(routes[c], ("acp",)) for c in TRANSFER_CLASSES)
    total = plan.output_bytes * f_out if f_out else 0.0
    seen: set[tuple] = set()
    for job in plan.jobs:
        for st in job.steps:
            if f_in and st.input_key not in seen:
                seen.add(st.input_key)
                total += st.input_bytes * f_in
            if f_w and st.weight_key is not None and st.weight_key not in seen:
                seen.add(st.weight_key)
                total += st.weight_bytes * f_w
    return total


def _check_resident(config: SoCConfig, graph: WorkloadGraph,
                    resident: Collection[str] | None) -> tuple[frozenset[str] | None,
                                                              dict[str, str]]:
    """``resident`` as a set, checked against the config and the graph; every tensor's role."""
    roles: dict[str, str] = {}
    for op in graph:
        for t in (*op.inputs, *op.outputs):
            roles.setdefault(t.name, t.role)
    if resident is None:
        return None, roles
    if isinstance(resident, str):
        raise ConfigError(f"resident must be a collection of tensor names, not the string "
                          f"{resident!r}", field="resident")
    if config.global_buffer is None:
        raise ConfigError("resident tensors are held in a global buffer, but the SoC config "
                          "has no [global_buffer] section", field="resident")
    names = frozenset(resident)
    unknown = sorted(names - roles.keys())
    if unknown:
        raise ConfigError(f"resident names tensor '{unknown[0]}', which graph '{graph.name}' "
                          f"does not have", field="resident")
    return names, roles


def simulate(config: SoCConfig, graph: WorkloadGraph, *,
             progress: ProgressCallback | None = None,
             models: Sequence[HardwareModel] | None = None,
             resident: Collection[str] | None = None) -> SocResult:
    """Simulate one pass of ``graph`` (an inference, or a training iteration's graph) on the
    SoC ``config``.

    Parameters
    ----------
    config
        The SoC description (:func:`~archsim.sim.soc.load_soc_config`).
    graph
        The workload (:func:`archsim.compilers.graph.build_workload`).
    progress
        Called as ``progress(done_operators, total_operators)`` after each operator.
    models
        The executors of the accelerator entries, one per ``config.accelerators`` entry (its
        ``count`` copies share it); default: each entry's own model
        (:func:`~archsim.sim.soc.make_accelerator_model`). Any
        :class:`~archsim.hw.models.HardwareModel` runs here: the engine asks it
        ``operator_cost(step.tile)`` for every step and takes the step's compute time and
        energy from the answer; a model with a ``tile_align`` gets blocks aligned to it, and
        one with ``counts_scratchpad_reads = False`` is not charged scratchpad reads.
    resident
        Names of the tensors held in the config's global buffer: their tiles are loaded and
        stored over it (module docstring, *Global buffer*). ``None`` (the default): no
        tensor is, and the run is the same as without a global buffer.

    Returns
    -------
    SocResult
        Timelines, the latency breakdown (sums to the end-to-end latency), traffic totals,
        energy and carbon.

    Raises
    ------
    ConfigError
        ``models`` does not give one model per accelerator entry; ``resident`` is given but
        the config has no ``global_buffer``, or names a tensor the graph does not have.
    """
    t0 = time.perf_counter()
    held, roles = _check_resident(config, graph, resident)
    spads = config.accelerators[0].scratchpads
    if models is None:
        pool: list[HardwareModel] = []
        for index, acc in enumerate(config.accelerators):
            try:
                pool.append(make_accelerator_model(acc, config.energy))
            except (ConfigError, DSLError) as exc:
                raise accelerator_error(exc, index, acc, config.file) from None
    else:
        pool = list(models)
        if len(pool) != len(config.accelerators):
            raise ConfigError(f"{len(pool)} model(s) for {len(config.accelerators)} "
                              f"accelerator entries; give one per entry", field="models")
    # One tiling serves the whole pool: align it to every accelerator's tile granularity.
    aligns = [_tile_align(m) for m in pool]
    align = (math.lcm(*(a[0] for a in aligns)), math.lcm(*(a[1] for a in aligns)),
             math.lcm(*(a[2] for a in aligns)))
    ops = list(graph)
    try:
        plans = [plan_operator(op, spads, align=align) for op in ops]
    except ConfigError as exc:  # every entry shares the scratchpads: name the first
        raise accelerator_error(exc, 0, config.accelerators[0], config.file) from None
    hm = config.host_memory
    policy = {"input": hm.inputs, "weight": hm.weights, "output": hm.outputs}
    routes = [_routes(op, policy, held, roles) for op in ops]
    total = len(plans)
    cb = (lambda done: progress(done, total)) if progress is not None else None
    sim = _Simulation(config, plans, pool, cb, routes)
    sim.run()
    wall = time.perf_counter() - t0
    return build_result(config=config, graph=graph, plans=plans, servers=list(sim.servers()),
                        op_windows=sim.op_windows, totals=sim.totals, macs=sim.macs,
                        vector_ops=sim.vector_ops, spad_bytes=sim.spad_bytes,
                        events=sim.q.events, wall_time_s=wall, accelerators=len(sim.accs),
                        accelerator_energy_j=sim.acc_energy_j)
