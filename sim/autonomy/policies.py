"""DroNet / Air-Learning-like CNN navigation policies, trained by behaviour cloning with DAgger.

A policy maps the depth image (as nearness ``1 - depth / range``, so free space reads 0) and
the goal vector to logits over the yaw-rate actions:
``conv_layers`` x (3x3 conv, ``filters`` channels, ReLU; stride 2 on the first three, so a
16x32 image shrinks to 2x4), flatten, concatenate the goal vector, a ReLU hidden layer of
``hidden`` units and a linear output. The layers are :mod:`archsim.sim.nn.revnet`'s;
:func:`archsim.sim.nn.revnet.train` trains them unchanged because the goal vector rides in an
extra image row (its first three pixels), which the network splits off before the convs.

Training is behaviour cloning from the full-map :class:`~.expert.Expert` with DAgger (Ross,
Gordon & Bagnell, AISTATS 2011): round 0 records the expert's own flights; each later round
flies the current policy (its actions, with probability ``beta`` the expert's), labels every
visited state with the expert's action, aggregates and retrains. Plain cloning only sees the
expert's states, so the learner drifts into states it never saw (covariate shift); DAgger
collects exactly those. Reinforcement learning (Air Learning's DQN/PPO) is beyond a CI budget.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ...compilers.graph.cnn import NetBuilder
from ...compilers.graph.ir import Operator, TensorSpec, WorkloadGraph
from ...errors import ConfigError
from ...fields import is_positive_int
from ..nn.digits import ImageSet
from ..nn.revnet import Conv2d, Layer, Linear, Mode, Net, ReLU, Sequential, train
from .expert import Expert
from .world import DENSITIES, Observation, SensorSpec, WorldSpec, make_world, run_episode

__all__ = ["CONV_LAYERS", "FILTERS", "AIRLEARNING_CONV_LAYERS", "AIRLEARNING_FILTERS",
           "AIRLEARNING_IMAGE", "AIRLEARNING_STRIDED", "airlearning_specs", "airlearning_world", "NavPolicySpec", "NavPolicyNet", "CNNPolicy",
           "nav_policy_graph", "DAggerSettings", "DAggerReport", "train_dagger", "encode"]

#: The small family's depth and width ranges (after AutoPilot's varied conv layers and
#: filters; scaled down to this CPU, assumed).
CONV_LAYERS = (2, 3, 4, 5)
FILTERS = (8, 16, 32)
#: Convolutions with stride 2 in the small family (the rest stride 1).
STRIDED_LAYERS = 3
#: The Air-Learning-like family (:data:`AIRLEARNING_SPECS`): 32/48/64 filters, as AutoPilot's
#: policies (paper notes section 4.2, a flagged recollection), on a 32x64 depth image with one
#: strided convolution, so every later convolution runs at 16x32.
AIRLEARNING_CONV_LAYERS = (3, 4, 5)
AIRLEARNING_FILTERS = (32, 48, 64)
AIRLEARNING_IMAGE = (32, 64)
AIRLEARNING_STRIDED = 1
#: Every depth and width a spec may have.
_ALL_CONV_LAYERS = tuple(sorted(set(CONV_LAYERS) | set(AIRLEARNING_CONV_LAYERS)))
_ALL_FILTERS = tuple(sorted(set(FILTERS) | set(AIRLEARNING_FILTERS)))


@dataclass(frozen=True, kw_only=True)
class NavPolicySpec:
    """One member of the CNN policy family.

    Attributes
    ----------
    conv_layers : int
        3x3 convolutions, 2..5.
    filters : int
        Channels of every convolution, one of 8, 16, 32, 48, 64.
    hidden : int
        Units of the hidden fully connected layer (assumed 32).
    rows, cols : int
        Depth image size.
    goal_features : int
        Length of the goal vector.
    num_actions : int
        Output logits.
    strided_layers : int
        Leading convolutions with stride 2 (the rest stride 1); every convolution when it
        is at least ``conv_layers``.
    """

    conv_layers: int
    filters: int
    hidden: int = 32
    rows: int = 16
    cols: int = 32
    goal_features: int = 3
    num_actions: int = 5
    strided_layers: int = STRIDED_LAYERS

    def __post_init__(self) -> None:
        if self.conv_layers not in _ALL_CONV_LAYERS:
            raise ConfigError(f"conv_layers {self.conv_layers!r} not in the family",
                              field="conv_layers", allowed=list(_ALL_CONV_LAYERS))
        if self.filters not in _ALL_FILTERS:
            raise ConfigError(f"filters {self.filters!r} not in the family", field="filters",
                              allowed=list(_ALL_FILTERS))
        s = self.strided_layers
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ConfigError(f"strided_layers must be an int >= 0, not {s!r}",
                              field="strided_layers")
        for name in ("hidden", "rows", "cols", "goal_features", "num_actions"):
            v = getattr(self, name)
            if not is_positive_int(v):
                raise ConfigError(f"must be a positive integer, not {v!r}", field=name)
        if self.cols < self.goal_features:
            raise ConfigError("the goal vector must fit in one image row", field="cols",
                              allowed=f">= {self.goal_features}")

    @property
    def name(self) -> str:
        """Short label, e.g. ``c3f16`` (the small family), ``c4f48-32x64s1`` (another image
        size or stride count)."""
        base = f"c{self.conv_layers}f{self.filters}"
        if (self.rows, self.cols, self.strided_layers) == (16, 32, STRIDED_LAYERS):
            return base
        return f"{base}-{self.rows}x{self.cols}s{self.strided_layers}"

    def strides(self) -> tuple[int, ...]:
        """Stride of each convolution."""
        return tuple(2 if i < self.strided_layers else 1 for i in range(self.conv_layers))

    def feature_shape(self) -> tuple[int, int, int]:
        """``(channels, h, w)`` after the last convolution (``ceil`` halving per stride 2)."""
        h, w = self.rows, self.cols
        for s in self.strides():
            h, w = -(-h // s), -(-w // s)
        return self.filters, h, w

    @property
    def flops(self) -> float:
        """FLOPs of one inference (the workload graph's total)."""
        return nav_policy_graph(self).total_flops

    @property
    def parameters(self) -> int:
        """Trainable scalars (the workload graph's weight count)."""
        return nav_policy_graph(self).parameter_count


def airlearning_specs() -> tuple[NavPolicySpec, ...]:
    """The Air-Learning-like family: ``AIRLEARNING_CONV_LAYERS x AIRLEARNING_FILTERS`` on the
    ``AIRLEARNING_IMAGE`` depth image with ``AIRLEARNING_STRIDED`` strided convolution."""
    rows, cols = AIRLEARNING_IMAGE
    return tuple(NavPolicySpec(conv_layers=c, filters=f, rows=rows, cols=cols,
                               strided_layers=AIRLEARNING_STRIDED)
                 for c in AIRLEARNING_CONV_LAYERS for f in AIRLEARNING_FILTERS)


def airlearning_world() -> WorldSpec:
    """The world of the Air-Learning-like family: the default corridor seen by a
    ``AIRLEARNING_IMAGE`` camera (same fields of view and range)."""
    rows, cols = AIRLEARNING_IMAGE
    return WorldSpec(sensor=SensorSpec(rows=rows, cols=cols))


def nav_policy_graph(spec: NavPolicySpec, *, batch: int = 1, dtype: str = "fp32",
                     ) -> WorkloadGraph:
    """The policy's inference as an archsim workload graph.

    Convolutions without bias (as :class:`~archsim.sim.nn.revnet.Conv2d`), ReLUs, a flatten,
    a concat with the goal vector, the hidden layer with bias and ReLU, the output layer with
    bias. FLOP conventions are :mod:`archsim.compilers.graph.cnn`'s.
    """
    g = WorkloadGraph(f"navpolicy-{spec.name}-b{batch}", metadata={
        "model": "nav_policy", "spec": spec.name, "batch": batch, "dtype": dtype,
        "source": "archsim.sim.autonomy.policies (DroNet/Air-Learning-like, assumed)"})
    nb = NetBuilder(g, TensorSpec("depth", (batch, 1, spec.rows, spec.cols), dtype,
                                  role="input"))
    for i, s in enumerate(spec.strides()):
        nb.conv(f"conv{i}", spec.filters, 3, stride=s, padding=1)
        nb.act(f"conv{i}.relu")
    flat = nb.flatten("flatten")
    goal = TensorSpec("goal", (batch, spec.goal_features), dtype, role="input")
    cat = TensorSpec("concat.out", (batch, flat.shape[1] + spec.goal_features), dtype)
    g.add(Operator("concat", "data_movement", (flat, goal), (cat,), 0.0, {"fn": "concat"}))
    nb.x = cat
    nb.fc("fc_hidden", spec.hidden)
    nb.act("fc_hidden.relu")
    nb.fc("fc_out", spec.num_actions)
    return g


class NavPolicyNet(Net):
    """The numpy network of a :class:`NavPolicySpec` (float32, seeded He initialization).

    Input ``(N, 1, rows + 1, cols)``: the nearness image, then a row whose first
    ``goal_features`` pixels are the goal vector (:func:`encode`).
    """

    def __init__(self, spec: NavPolicySpec, *, seed: int = 0) -> None:
        super().__init__()
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ConfigError(f"must be a non-negative integer, not {seed!r}", field="seed")
        self.spec = spec
        self.dtype = np.float32
        rng = np.random.default_rng(seed)
        convs: list[Layer] = []
        cin = 1
        for s in spec.strides():
            convs += [Conv2d(cin=cin, cout=spec.filters, k=3, stride=s, rng=rng), ReLU()]
            cin = spec.filters
        self.convs = Sequential(convs)
        c, h, w = spec.feature_shape()
        self.hidden = Sequential([Linear(fin=c * h * w + spec.goal_features, fout=spec.hidden,
                                         gain=2.0, rng=rng), ReLU()])
        self.out = Linear(fin=spec.hidden, fout=spec.num_actions, rng=rng)

    def modules(self) -> Iterator[tuple[str, Layer]]:
        yield from (("convs", self.convs), ("hidden", self.hidden), ("out", self.out))

    def _run(self, x: np.ndarray, mode: Mode, tape: list[object]) -> np.ndarray:
        s = self.spec
        img, goal = x[:, :, : s.rows], x[:, 0, s.rows, : s.goal_features]
        f, cc = self.convs.forward(np.ascontiguousarray(img), mode)
        z = np.concatenate([f.reshape(f.shape[0], -1), goal], axis=1)
        hdn, ch = self.hidden.forward(z, mode)
        logits, co = self.out.forward(hdn, mode)
        tape.extend([cc, f.shape, ch, co])
        return logits

    def _back(self, dlogits: np.ndarray, tape: list[object]) -> None:
        cc, fshape, ch, co = tape
        assert isinstance(cc, tuple) and isinstance(ch, tuple) and isinstance(co, tuple)
        assert isinstance(fshape, tuple)
        dz = self.hidden.backward(self.out.backward(dlogits, co), ch)
        n_feat = int(np.prod(fshape[1:]))
        self.convs.backward(np.ascontiguousarray(dz[:, :n_feat]).reshape(fshape), cc)


def encode(obs: Sequence[Observation], spec: NavPolicySpec, range_m: float) -> np.ndarray:
    """Observations as the network input ``(N, 1, rows + 1, cols)`` float32."""
    x = np.zeros((len(obs), 1, spec.rows + 1, spec.cols), np.float32)
    for i, o in enumerate(obs):
        x[i, 0, : spec.rows] = 1.0 - o.depth_m / range_m
        x[i, 0, spec.rows, : spec.goal_features] = o.goal
    return x


@dataclass(eq=False)
class CNNPolicy:
    """A trained network used as a :data:`~.world.Policy` (greedy: the arg-max logit)."""

    net: NavPolicyNet
    range_m: float

    def __call__(self, obs: Observation, rng: np.random.Generator) -> int:
        x = encode([obs], self.net.spec, self.range_m)
        return int(self.net.forward(x, train=False)[0].argmax())


@dataclass(frozen=True, kw_only=True)
class DAggerSettings:
    """DAgger and SGD settings (all assumed; chosen on this CPU to train in seconds).

    Attributes
    ----------
    rounds : int
        DAgger rounds after the expert-only round 0.
    episodes_per_round : int
        Flights per round, spread over the three densities.
    beta : float
        Probability of executing the expert's action in rounds >= 1 (a constant mixing).
    epochs, batch_size : int
        SGD epochs over the aggregate per round, images per step.
    lr : float
        SGD learning rate (momentum 0.9).
    """

    rounds: int = 3
    episodes_per_round: int = 24
    beta: float = 0.3
    epochs: int = 4
    batch_size: int = 64
    lr: float = 0.02


@dataclass(frozen=True, kw_only=True)
class DAggerReport:
    """What :func:`train_dagger` measured.

    Attributes
    ----------
    samples : tuple of int
        Size of the aggregate data set after each round.
    loss : tuple of float
        Training loss of every epoch, all rounds in order.
    train_time_s : float
        Wall-clock time of the whole run (data collection and SGD).
    """

    samples: tuple[int, ...]
    loss: tuple[float, ...]
    train_time_s: float


#: World seeds used for training start here; evaluation worlds use other seeds.
TRAIN_SEED_BASE = 1_000_000


def train_dagger(spec: NavPolicySpec, *, seed: int = 0,
                 settings: DAggerSettings | None = None,
                 world_spec: WorldSpec | None = None) -> tuple[CNNPolicy, DAggerReport]:
    """Train one policy by behaviour cloning + DAgger; deterministic for a ``seed``.

    Training worlds are drawn with seeds ``TRAIN_SEED_BASE + 10_000 * seed + k``, disjoint
    from the evaluation worlds of :mod:`.evaluate` (seeds below ``TRAIN_SEED_BASE``).
    """
    st = settings or DAggerSettings()
    ws = world_spec or WorldSpec()
    net = NavPolicyNet(spec, seed=seed)
    policy = CNNPolicy(net=net, range_m=ws.sensor.range_m)
    rng = np.random.default_rng(seed)
    obs_all: list[Observation] = []
    labels: list[int] = []
    samples: list[int] = []
    losses: list[float] = []
    densities = sorted(DENSITIES)
    t0 = time.perf_counter()
    k = 0
    for rnd in range(st.rounds + 1):
        for _ in range(st.episodes_per_round):
            world = make_world(densities[k % len(densities)],
                               TRAIN_SEED_BASE + 10_000 * seed + k, ws)
            k += 1
            expert = Expert(world)

            def act(o: Observation, r: np.random.Generator, expert: Expert = expert,
                    rnd: int = rnd) -> int:
                a_star = expert(o, r)
                obs_all.append(o)
                labels.append(a_star)
                if rnd == 0 or r.random() < st.beta:
                    return a_star
                return policy(o, r)

            run_episode(act, world, int(rng.integers(2**31)))
        data = ImageSet(images=encode(obs_all, spec, ws.sensor.range_m),
                        labels=np.asarray(labels, np.int64), name="dagger", source="expert",
                        licence="generated", num_classes=spec.num_actions)
        rep = train(net, data, epochs=st.epochs, batch_size=st.batch_size, lr=st.lr,
                    seed=int(rng.integers(2**31)))
        samples.append(len(data))
        losses.extend(rep.loss)
    return policy, DAggerReport(samples=tuple(samples), loss=tuple(losses),
                                train_time_s=time.perf_counter() - t0)
