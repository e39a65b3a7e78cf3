"""EdgeBERT's algorithm on MiniLM-L6: off-ramps, entropy early exit, the entropy predictor.

What EdgeBERT does (harvard-acc/EdgeBERT, sw/EdgeBERT/transformers/src/transformers/
modeling_highway_albert.py and sw/Entropy_LUT/entropypredictor.ipynb), and what is done here:

* one off-ramp per layer, as their ``AlbertHighway``: ``Linear(d, d) -> tanh ->
  Linear(d, 2)`` on a pooled layer state; trained with cross-entropy on the frozen
  backbone's features (deviation: their ALBERT backbone is fine-tuned with distillation
  and pruning first; without autograd we keep MiniLM-L6 frozen);
* the entropy of the off-ramp logits ``H(x) = ln(sum e^x) - sum(x e^x) / sum(e^x)`` (nats);
* plain early exit: the first layer with ``H < threshold`` (the last layer otherwise);
* the entropy predictor: a Keras-style MLP from layer-1 entropy to the entropies of layers
  2..L-1, sampled at x = 0.00..0.99 into a 100-row lookup table, and their runtime that
  turns the table into an exit layer (:func:`predicted_exit_layers`).

Every numeric setting without a source is labelled "assumed" where it is set.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ....cache import cache_dir, content_hash
from ....errors import ConfigError
from ....hw.checks import check_bool, check_int
from ...nn.minilm import MiniLM
from ...nn.sentences import PolaritySentences

__all__ = [
    "Pooling",
    "POOLINGS",
    "PAPER_PLAIN_THRESHOLDS",
    "PAPER_PREDICTOR_THRESHOLDS",
    "SWEEP_THRESHOLDS",
    "POLICIES",
    "LayerFeatures",
    "layer_features",
    "entropy",
    "OffRamp",
    "offramp_loss_grad",
    "train_offramp",
    "OffRampTraining",
    "EntropyLUT",
    "PredictorMLP",
    "train_entropy_predictor",
    "EarlyExitModel",
    "train_early_exit",
    "plain_exit_layers",
    "predicted_exit_layers",
    "ThresholdRow",
    "EarlyExitReport",
    "evaluate",
]

Pooling = Literal["cls", "mean"]
#: The two poolings compared on validation: their [CLS] state, and the masked mean
#: MiniLM-L6 was trained with (sentence-transformers).
POOLINGS: tuple[Pooling, ...] = ("cls", "mean")

#: Plain early-exit entropy thresholds of their SST-2 script (scripts/4_eval_sst2_ee.sh).
PAPER_PLAIN_THRESHOLDS = (0.23, 0.28, 0.46)
#: Thresholds of their entropy-predictor scripts (scripts/5_*.sh, 6_*.sh).
PAPER_PREDICTOR_THRESHOLDS = (0.09, 0.16, 0.28)
#: A sweep over the range of a 2-class entropy (0 .. ln 2 = 0.693 nats); assumed.
SWEEP_THRESHOLDS = tuple(round(0.05 * k, 2) for k in range(1, 14))

#: The exit policies :func:`evaluate` reports: plain early exit, their entropy-predictor
#: runtime, and the same with ``--no_ee_before`` (the predicted exit layer DVFS plans for).
POLICIES = ("plain", "predicted", "predicted_no_ee_before")

# Off-ramp training (assumed: not from their code, which fine-tunes with AdamW, dropout 0.1).
_WEIGHT_DECAY = 1e-3      # L2 on both weight matrices, per sample-mean loss
_MAX_ITER = 400           # L-BFGS iterations at most
_PATIENCE = 25            # iterations without a better validation loss before stopping
# The entropy predictor: Keras defaults of their notebook (Adam lr 1e-3, beta 0.9/0.999,
# eps 1e-7, batch 32, Glorot-uniform weights, zero biases) and its 3 epochs, 4 x 64 ReLU.
_MLP_HIDDEN = (64, 64, 64, 64)
_MLP_EPOCHS = 3
_MLP_BATCH = 32
_MLP_LR = 1e-3
_LUT_ROWS = 100           # x = 0.00 .. 0.99 (sw/Entropy_LUT/entropypredictor.ipynb)
# quick mode sizes (tests, CI)
_QUICK_TRAIN, _QUICK_VALIDATION, _QUICK_TEST = 300, 150, 150


def _check_pooling(pooling: str) -> Pooling:
    if pooling not in POOLINGS:
        raise ConfigError(f"unknown pooling {pooling!r}", field="pooling",
                          allowed=list(POOLINGS))
    return "cls" if pooling == "cls" else "mean"


# -- features ------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class LayerFeatures:
    """Pooled states of every encoder layer, for a list of sentences.

    Attributes
    ----------
    cls, mean : numpy.ndarray
        ``(n, num_layers, hidden)`` float32: layer ``i + 1``'s [CLS] state and masked mean
        of its token states.
    """

    cls: np.ndarray
    mean: np.ndarray

    @property
    def num_layers(self) -> int:
        """Encoder layers (the embedding output is not kept)."""
        return int(self.cls.shape[1])

    def pooled(self, pooling: str) -> np.ndarray:
        """The ``(n, num_layers, hidden)`` array of one pooling."""
        return self.cls if _check_pooling(pooling) == "cls" else self.mean

    def take(self, idx: np.ndarray) -> LayerFeatures:
        """The rows ``idx``."""
        return LayerFeatures(cls=self.cls[idx], mean=self.mean[idx])


def _model_digest(model: MiniLM) -> str:
    names = sorted(model.weights)
    parts: list[str | bytes] = [repr((model.num_layers, model.num_heads, model.max_len,
                                      model.layer_norm_eps, np.dtype(model.dtype).str))]
    for n in names:
        parts += [n, np.ascontiguousarray(model.weights[n]).tobytes()]
    return content_hash(*parts)


def layer_features(model: MiniLM, texts: Sequence[str], *, batch_size: int = 32,
                   cache: bool = True,
                   progress: Callable[[int, int], None] | None = None) -> LayerFeatures:
    """Run the encoder once over ``texts`` and pool every layer's states.

    Sentences are batched by token length (less padding; padding does not change a
    sentence's states). The result is cached on disk under the archsim cache
    (``minilm_features/<hash>.npz``, keyed by the weights, the model settings and the
    texts), so a second call with the same inputs does not run the encoder.

    Parameters
    ----------
    model : MiniLM
    texts : sequence of str
    batch_size : int
        Sentences per forward pass.
    cache : bool
        Read and write the on-disk cache.
    progress : callable, optional
        Called as ``progress(done, total)`` after each batch.

    Returns
    -------
    LayerFeatures
    """
    check_int("batch_size", batch_size, 1, 4096)
    check_bool("cache", cache)
    texts = list(texts)
    path = None
    if cache:
        key = content_hash(_model_digest(model), "\x00".join(texts))
        path = cache_dir("minilm_features") / f"{key}.npz"
        if path.is_file():
            with np.load(path) as z:
                return LayerFeatures(cls=z["cls"], mean=z["mean"])
    n, d, L = len(texts), model.hidden_size, model.num_layers
    cls = np.zeros((n, L, d), np.float32)
    mean = np.zeros((n, L, d), np.float32)
    lengths = [len(model.tokenizer.encode(t).ids) for t in texts]
    order = np.argsort(lengths, kind="stable")
    for start in range(0, n, batch_size):
        rows = order[start : start + batch_size]
        ids, mask = model.tokenize([texts[int(r)] for r in rows])
        h = model.hidden_states_per_layer(ids, mask)[1:]  # (L, b, t, d): layers 1..L
        cls[rows] = h[:, :, 0].transpose(1, 0, 2)
        m = mask[None, :, :, None]
        mean[rows] = ((h * m).sum(2) / np.maximum(m.sum(2), 1e-9)).transpose(1, 0, 2)
        if progress is not None:
            progress(min(start + batch_size, n), n)
    if path is not None:
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
        np.savez(tmp, cls=cls, mean=mean)
        os.replace(tmp, path)  # atomic: a reader never sees a partial file
    return LayerFeatures(cls=cls, mean=mean)


# -- entropy and the off-ramp ---------------------------------------------------------------

def entropy(logits: np.ndarray) -> np.ndarray:
    """Entropy in nats of ``softmax(logits)`` along the last axis.

    Their formula ``ln(sum e^x) - sum(x e^x) / sum(e^x)`` (modeling_highway_albert.py
    ``entropy``) with the maximum subtracted first, as their hardware does
    (hw/cmod/Enpy/Enpy.h): the same value, without overflow.

    Parameters
    ----------
    logits : numpy.ndarray
        ``(..., classes)``.

    Returns
    -------
    numpy.ndarray
        ``(...)``.
    """
    x = np.asarray(logits, np.float64)
    m = x.max(-1, keepdims=True)
    e = np.exp(x - m)
    a = e.sum(-1)
    b = (x * e).sum(-1)
    return np.log(a) + m[..., 0] - b / a


@dataclass(frozen=True, kw_only=True)
class OffRamp:
    """One off-ramp: ``logits = tanh(x @ w1 + b1) @ w2 + b2`` (their ``AlbertHighway``).

    Attributes
    ----------
    w1 : numpy.ndarray
        ``(hidden, hidden)``; ``b1``: ``(hidden,)``.
    w2 : numpy.ndarray
        ``(hidden, classes)``; ``b2``: ``(classes,)``.
    """

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def logits(self, x: np.ndarray) -> np.ndarray:
        """``(n, classes)`` logits of the pooled states ``x`` ``(n, hidden)``."""
        return np.tanh(x @ self.w1 + self.b1) @ self.w2 + self.b2

    def flat(self) -> np.ndarray:
        """All parameters in one float64 vector (w1, b1, w2, b2)."""
        return np.concatenate([a.ravel() for a in (self.w1, self.b1, self.w2, self.b2)]
                              ).astype(np.float64)

    @staticmethod
    def from_flat(v: np.ndarray, hidden_in: int, hidden: int, classes: int) -> OffRamp:
        """The inverse of :meth:`flat`."""
        sizes = (hidden_in * hidden, hidden, hidden * classes, classes)
        cut = np.cumsum(sizes)[:-1]
        a, b, c, d = np.split(np.asarray(v, np.float64), cut)
        return OffRamp(w1=a.reshape(hidden_in, hidden), b1=b, w2=c.reshape(hidden, classes),
                       b2=d)

    @staticmethod
    def init(hidden_in: int, hidden: int, classes: int, rng: np.random.Generator) -> OffRamp:
        """Glorot-uniform weights, zero biases (seeded)."""
        def glorot(fan_in: int, fan_out: int) -> np.ndarray:
            lim = math.sqrt(6.0 / (fan_in + fan_out))
            return rng.uniform(-lim, lim, (fan_in, fan_out))

        return OffRamp(w1=glorot(hidden_in, hidden), b1=np.zeros(hidden),
                       w2=glorot(hidden, classes), b2=np.zeros(classes))


def offramp_loss_grad(ramp: OffRamp, x: np.ndarray, y: np.ndarray, *,
                      weight_decay: float = 0.0) -> tuple[float, OffRamp]:
    """Mean cross-entropy (+ L2 on the weights) and its analytic gradient.

    ``loss = mean_n(-log softmax(logits_n)[y_n]) + weight_decay / 2 * (|w1|^2 + |w2|^2)``.

    Parameters
    ----------
    ramp : OffRamp
    x : numpy.ndarray
        ``(n, hidden)`` inputs.
    y : numpy.ndarray
        ``(n,)`` int class labels.
    weight_decay : float
        The L2 coefficient.

    Returns
    -------
    loss : float
    grad : OffRamp
        The gradient, shaped like ``ramp``.
    """
    n = x.shape[0]
    a = np.tanh(x @ ramp.w1 + ramp.b1)
    z = a @ ramp.w2 + ramp.b2
    z = z - z.max(1, keepdims=True)
    lse = np.log(np.exp(z).sum(1))
    rows = np.arange(n)
    loss = float(np.mean(lse - z[rows, y]))
    loss += 0.5 * weight_decay * float(np.sum(ramp.w1**2) + np.sum(ramp.w2**2))
    p = np.exp(z - lse[:, None])
    p[rows, y] -= 1.0
    dz = p / n                                  # d loss / d logits
    dw2 = a.T @ dz + weight_decay * ramp.w2
    db2 = dz.sum(0)
    dpre = (dz @ ramp.w2.T) * (1.0 - a**2)      # through tanh
    dw1 = x.T @ dpre + weight_decay * ramp.w1
    db1 = dpre.sum(0)
    return loss, OffRamp(w1=dw1, b1=db1, w2=dw2, b2=db2)


@dataclass(frozen=True, kw_only=True)
class OffRampTraining:
    """How one off-ramp's training went.

    Attributes
    ----------
    layer : int
        1-indexed layer.
    pooling : str
    iterations : int
        L-BFGS iterations run (early stopping included).
    best_iteration : int
        The iteration whose parameters were kept (lowest validation loss).
    train_accuracy, validation_accuracy, validation_loss : float
        At the kept parameters.
    """

    layer: int
    pooling: str
    iterations: int
    best_iteration: int
    train_accuracy: float
    validation_accuracy: float
    validation_loss: float


def train_offramp(x: np.ndarray, y: np.ndarray, x_val: np.ndarray, y_val: np.ndarray, *,
                  seed: int = 0, weight_decay: float = _WEIGHT_DECAY,
                  max_iter: int = _MAX_ITER, patience: int = _PATIENCE,
                  ) -> tuple[OffRamp, int, int, float]:
    """Train one off-ramp with L-BFGS on standardized inputs, early-stopped on validation.

    The inputs are standardized per feature with the training mean and deviation; the
    returned off-ramp has that folded into its first Linear, so it takes the raw pooled
    states.

    Parameters
    ----------
    x, y : numpy.ndarray
        Training inputs ``(n, hidden)`` and labels ``(n,)``.
    x_val, y_val : numpy.ndarray
        Validation inputs and labels (early stopping: keep the parameters of the lowest
        validation cross-entropy; stop after ``patience`` iterations without one).
    seed : int
        Seed of the initialization.
    weight_decay : float
    max_iter, patience : int

    Returns
    -------
    ramp : OffRamp
    iterations : int
    best_iteration : int
    best_validation_loss : float
    """
    from scipy.optimize import OptimizeResult, minimize

    x = np.asarray(x, np.float64)
    mu = x.mean(0)
    sd = x.std(0) + 1e-6
    xs = (x - mu) / sd
    xv = (np.asarray(x_val, np.float64) - mu) / sd
    d, classes = x.shape[1], int(max(y.max(), y_val.max())) + 1
    rng = np.random.default_rng(seed)
    v0 = OffRamp.init(d, d, classes, rng).flat()

    def fun(v: np.ndarray) -> tuple[float, np.ndarray]:
        loss, g = offramp_loss_grad(OffRamp.from_flat(v, d, d, classes), xs, y,
                                    weight_decay=weight_decay)
        return loss, g.flat()

    class _Tracker:
        # The lowest validation loss seen, at which iteration and parameters.
        loss = math.inf
        v = v0
        best_it = 0
        it = 0

    track = _Tracker()

    def callback(intermediate_result: OptimizeResult) -> None:
        v = np.asarray(intermediate_result.x)
        track.it += 1
        val, _ = offramp_loss_grad(OffRamp.from_flat(v, d, d, classes), xv, y_val)
        if val < track.loss:
            track.loss, track.v, track.best_it = val, v.copy(), track.it
        elif track.it - track.best_it >= patience:
            raise StopIteration  # scipy >= 1.11 ends the run cleanly

    minimize(fun, v0, jac=True, method="L-BFGS-B", callback=callback,
             options={"maxiter": max_iter})
    r = OffRamp.from_flat(track.v, d, d, classes)
    # Fold the standardization into the first Linear: (x - mu) / sd @ w1 = x @ w1' + c.
    w1 = r.w1 / sd[:, None]
    b1 = r.b1 - (mu / sd) @ r.w1
    return OffRamp(w1=w1, b1=b1, w2=r.w2, b2=r.b2), track.it, track.best_it, track.loss


# -- the entropy predictor ------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class PredictorMLP:
    """Their Keras MLP in numpy: ``Dense(64, relu)`` x 4 then a linear output layer.

    Attributes
    ----------
    weights, biases : tuple of numpy.ndarray
        Per layer, ``(fan_in, fan_out)`` and ``(fan_out,)``.
    """

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]

    def predict(self, x: np.ndarray) -> np.ndarray:
        """``(n, outputs)`` predictions for ``(n,)`` or ``(n, 1)`` inputs."""
        h = np.asarray(x, np.float64).reshape(-1, 1)
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w + b
            if k < len(self.weights) - 1:
                h = np.maximum(h, 0.0)
        return h


def train_entropy_predictor(h1: np.ndarray, targets: np.ndarray, *, seed: int = 0,
                            epochs: int = _MLP_EPOCHS, batch_size: int = _MLP_BATCH,
                            learning_rate: float = _MLP_LR) -> PredictorMLP:
    """Fit the predictor MLP with MSE and Adam, as their notebook's ``model.fit``.

    Keras defaults are reproduced: Glorot-uniform weights, zero biases, Adam(lr 1e-3,
    beta 0.9/0.999, eps 1e-7), batches of 32 reshuffled every epoch, loss the mean over
    outputs and samples of the squared error.

    Parameters
    ----------
    h1 : numpy.ndarray
        ``(n,)`` layer-1 entropies (the input).
    targets : numpy.ndarray
        ``(n, outputs)`` entropies of layers 2..L-1.
    seed : int
    epochs, batch_size : int
    learning_rate : float

    Returns
    -------
    PredictorMLP
    """
    check_int("epochs", epochs, 1, 10_000)
    check_int("batch_size", batch_size, 1, 1 << 20)
    x = np.asarray(h1, np.float64).reshape(-1, 1)
    t = np.asarray(targets, np.float64)
    rng = np.random.default_rng(seed)
    sizes = (1, *_MLP_HIDDEN, t.shape[1])
    ws = [rng.uniform(-1, 1, (a, b)) * math.sqrt(6.0 / (a + b))
          for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
    bs = [np.zeros(b) for b in sizes[1:]]
    params = ws + bs
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-7
    step = 0
    nl = len(ws)
    for _ in range(epochs):
        perm = rng.permutation(len(x))
        for start in range(0, len(x), batch_size):
            rows = perm[start : start + batch_size]
            acts = [x[rows]]
            for k in range(nl):
                h = acts[-1] @ ws[k] + bs[k]
                acts.append(np.maximum(h, 0.0) if k < nl - 1 else h)
            g = 2.0 * (acts[-1] - t[rows]) / acts[-1].size  # d mean((y - t)^2)
            gw: list[np.ndarray] = [np.empty(0)] * nl
            gb: list[np.ndarray] = [np.empty(0)] * nl
            for k in reversed(range(nl)):
                gw[k] = acts[k].T @ g
                gb[k] = g.sum(0)
                if k:
                    g = (g @ ws[k].T) * (acts[k] > 0)
            step += 1
            # Keras' Adam: bias-corrected step size, eps added to sqrt(v) (eps-hat form).
            lr_t = learning_rate * math.sqrt(1 - beta2**step) / (1 - beta1**step)
            for i, gr in enumerate(gw + gb):
                m1[i] = beta1 * m1[i] + (1 - beta1) * gr
                m2[i] = beta2 * m2[i] + (1 - beta2) * gr * gr
                params[i] -= lr_t * m1[i] / (np.sqrt(m2[i]) + eps)
            ws, bs = params[:nl], params[nl:]
    return PredictorMLP(weights=tuple(ws), biases=tuple(bs))


@dataclass(frozen=True, kw_only=True)
class EntropyLUT:
    """Their entropy lookup table: 100 rows of ``[x, predicted H of layers 2 .. L-1]``.

    Row ``r`` has ``x = 0.01 r``; negative predictions are clipped to 0
    (sw/Entropy_LUT/entropypredictor.ipynb, sst2_lookup_table_opt.csv).

    Attributes
    ----------
    table : numpy.ndarray
        ``(100, num_layers - 1)``.
    """

    table: np.ndarray

    def __post_init__(self) -> None:
        t = np.asarray(self.table, np.float64)
        if t.ndim != 2 or t.shape[0] != _LUT_ROWS or t.shape[1] < 2:
            raise ConfigError(f"an entropy LUT is {_LUT_ROWS} rows of [x, H_2 .. H_(L-1)], "
                              f"not shape {t.shape}", field="table")
        object.__setattr__(self, "table", t)

    @property
    def num_layers(self) -> int:
        """The encoder depth the table is for (its columns + 1)."""
        return int(self.table.shape[1]) + 1

    @staticmethod
    def from_predictor(mlp: PredictorMLP) -> EntropyLUT:
        """Sample ``mlp`` at x = 0.00 .. 0.99 and clip negative outputs to 0."""
        x = np.arange(_LUT_ROWS) * 0.01
        pred = np.maximum(mlp.predict(x), 0.0)
        return EntropyLUT(table=np.column_stack([x, pred]))

    def countdown(self, h1: float, threshold: float) -> int:
        """Their ``k``: layers to count down after layer 1 (0-based, see the runtime).

        The nearest row to ``h1`` (``argmin |x - h1|``, first on a tie); ``k`` = index of the
        first predicted entropy below ``threshold``, or ``num_layers - 3`` when none is (their
        ``entropy_layers.shape[0] - 1`` = 9 for 12 layers).
        """
        idx = int(np.argmin(np.abs(self.table[:, 0] - h1)))
        below = self.table[idx, 1:] < threshold
        return int(np.argmax(below)) if below.any() else self.table.shape[1] - 2

    def predict_exit_layer(self, h1: float, threshold: float) -> int:
        """The exit layer the runtime commits to after layer 1 (1-indexed).

        1 when ``h1 < threshold`` (layer 1 exits on its own entropy); else ``k + 2`` if
        that is at most ``num_layers - 2`` (the last layer their countdown runs on), else
        ``num_layers`` (the model runs to the end). For 12 layers: exits 2..10 or 12.
        """
        if h1 < threshold:
            return 1
        layer = self.countdown(h1, threshold) + 2
        return layer if layer <= self.num_layers - 2 else self.num_layers


def _check_entropies(entropies: np.ndarray) -> np.ndarray:
    h = np.asarray(entropies, np.float64)
    if h.ndim != 2 or h.shape[1] < 1:
        raise ConfigError(f"entropies must be (sentences, layers), not shape {h.shape}",
                          field="entropies")
    return h


def _check_threshold(threshold: float) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.floating)) \
            or not math.isfinite(threshold) or threshold < 0:
        raise ConfigError(f"threshold must be a finite entropy >= 0 nats, not {threshold!r}",
                          field="threshold")
    return float(threshold)


def plain_exit_layers(entropies: np.ndarray, threshold: float) -> np.ndarray:
    """Plain early exit: the first layer (1-indexed) with ``H < threshold``, else the last.

    Parameters
    ----------
    entropies : numpy.ndarray
        ``(n, num_layers)`` per-layer off-ramp entropies.
    threshold : float

    Returns
    -------
    numpy.ndarray
        ``(n,)`` int64 exit layers in ``1 .. num_layers``.
    """
    h = _check_entropies(entropies)
    threshold = _check_threshold(threshold)
    below = h < threshold
    first = np.argmax(below, axis=1) + 1
    return np.where(below.any(1), first, h.shape[1]).astype(np.int64)


def predicted_exit_layers(entropies: np.ndarray, lut: EntropyLUT, threshold: float, *,
                          no_ee_before: bool = False) -> np.ndarray:
    """Exit layers under their entropy-predictor runtime (``predict_layer = 1``).

    Their loop (modeling_highway_albert.py, ``AlbertTransformer.forward``, entropy
    predictor on, ``extra_layer`` and ``get_predict_acc`` off), generalised from 12 to
    ``L = num_layers`` layers, with 0-based layer index ``i``:

    1. ``i = 0``: exit at layer 1 if ``H_1 < threshold``; else ``k`` =
       :meth:`EntropyLUT.countdown` (the first predicted layer below the threshold,
       0 meaning layer 2; ``L - 3`` when none is, their 9 for 12 layers).
    2. ``1 <= i < L - 2`` (their ``i < num_hidden_layers - 2``): unless ``no_ee_before``,
       exit at layer ``i + 1`` if ``H_(i+1) < threshold``; exit at layer ``i + 1`` if
       ``k == 0``; then ``k -= 1``. So the countdown exits at layer ``k + 2``.
    3. Layers ``L - 1`` and ``L`` never exit early: the model runs to layer ``L``.

    Parameters
    ----------
    entropies : numpy.ndarray
        ``(n, L)`` per-layer entropies.
    lut : EntropyLUT
        A table for ``L`` layers.
    threshold : float
    no_ee_before : bool
        Their ``--no_ee_before``: no exit on the real entropy after layer 1.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` int64 exit layers.
    """
    check_bool("no_ee_before", no_ee_before)
    h = _check_entropies(entropies)
    threshold = _check_threshold(threshold)
    L = h.shape[1]
    if lut.num_layers != L:
        raise ConfigError(f"the LUT is for {lut.num_layers} layers, the entropies have {L}",
                          field="lut", allowed=[L])
    out = np.full(len(h), L, np.int64)
    for s, row in enumerate(h):
        if row[0] < threshold:
            out[s] = 1
            continue
        k = lut.countdown(float(row[0]), threshold)
        for i in range(1, L - 2):
            if not no_ee_before and row[i] < threshold:
                out[s] = i + 1
                break
            if k == 0:
                out[s] = i + 1
                break
            k -= 1
    return out


# -- the model ------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class EarlyExitModel:
    """MiniLM-L6's per-layer off-ramps and the entropy LUT trained on them.

    Attributes
    ----------
    ramps : tuple of OffRamp
        One per layer, layer 1 first; each takes that layer's raw pooled state.
    pooling : {"cls", "mean"}
        The pooling the ramps take (chosen on validation).
    lut : EntropyLUT
        The entropy predictor's table, from the TRAIN split's entropies.
    predictor : PredictorMLP
        The MLP the table was sampled from.
    training : tuple of OffRampTraining
        Every ramp trained, both poolings (the chosen one and the other).
    validation_accuracy : dict of str to tuple of float
        Per pooling, the per-layer validation accuracy (the selection's evidence).
    seed : int
    quick : bool
    train_size, validation_size : int
    wall_time_s : float
        Wall time of :func:`train_early_exit` (encoder pass included unless cached).
    """

    ramps: tuple[OffRamp, ...]
    pooling: Pooling
    lut: EntropyLUT
    predictor: PredictorMLP
    training: tuple[OffRampTraining, ...] = ()
    validation_accuracy: dict[str, tuple[float, ...]] = field(default_factory=dict)
    seed: int = 0
    quick: bool = False
    train_size: int = 0
    validation_size: int = 0
    wall_time_s: float = 0.0

    @property
    def num_layers(self) -> int:
        """Off-ramps (= encoder layers)."""
        return len(self.ramps)

    def _pooled(self, features: LayerFeatures | np.ndarray) -> np.ndarray:
        x = features.pooled(self.pooling) if isinstance(features, LayerFeatures) else features
        x = np.asarray(x)
        if x.ndim != 3 or x.shape[1] != self.num_layers:
            raise ConfigError(f"features must be (n, {self.num_layers}, hidden), not "
                              f"{x.shape}", field="features")
        return x

    def logits(self, features: LayerFeatures | np.ndarray) -> np.ndarray:
        """Every off-ramp's logits.

        Parameters
        ----------
        features : LayerFeatures or numpy.ndarray
            Layer features, or the ``(n, L, hidden)`` pooled states of :attr:`pooling`.

        Returns
        -------
        numpy.ndarray
            ``(n, L, classes)``.
        """
        x = self._pooled(features).astype(np.float64)
        return np.stack([r.logits(x[:, i]) for i, r in enumerate(self.ramps)], axis=1)

    def entropies(self, features: LayerFeatures | np.ndarray) -> np.ndarray:
        """``(n, L)`` off-ramp entropies (nats)."""
        return entropy(self.logits(features))

    def predictions(self, features: LayerFeatures | np.ndarray) -> np.ndarray:
        """``(n, L)`` predicted class per layer."""
        return np.argmax(self.logits(features), axis=-1)


def _sizes(quick: bool) -> tuple[int | None, int | None, int | None]:
    return (_QUICK_TRAIN, _QUICK_VALIDATION, _QUICK_TEST) if quick else (None, None, None)


def train_early_exit(model: MiniLM, sentences: PolaritySentences, *, seed: int = 0,
                     quick: bool = False, cache: bool = True,
                     progress: Callable[[str, int, int], None] | None = None,
                     ) -> EarlyExitModel:
    """Train the off-ramps of every layer and the entropy predictor.

    1. One encoder pass over the train and validation sentences (cached on disk).
    2. For each pooling ([CLS], masked mean) and layer, an off-ramp (:func:`train_offramp`,
       seeded per layer); the pooling with the higher mean validation accuracy over the
       layers is kept (ties: the last layer's).
    3. The kept ramps' entropies on the TRAIN split train the predictor MLP (input: layer-1
       entropy; targets: layers 2..L-1), sampled into the 100-row LUT.

    Parameters
    ----------
    model : MiniLM
        The frozen backbone.
    sentences : PolaritySentences
    seed : int
        Seeds the ramps' and the MLP's initializations and its batch order.
    quick : bool
        300 train / 150 validation sentences (class-stratified) instead of all.
    cache : bool
        Use the on-disk feature cache.
    progress : callable, optional
        ``progress(stage, done, total)``.

    Returns
    -------
    EarlyExitModel
    """
    check_int("seed", seed, 0, 2**32 - 1)
    check_bool("quick", quick)
    t0 = time.perf_counter()
    n_tr, n_va, _ = _sizes(quick)
    tr = sentences.indices("train", n_tr)
    va = sentences.indices("validation", n_va)
    texts, _ = sentences.select(np.concatenate([tr, va]))
    feats = layer_features(model, texts, cache=cache,
                           progress=(lambda d, n: progress("encoder", d, n)) if progress
                           else None)
    f_tr, f_va = feats.take(np.arange(len(tr))), feats.take(np.arange(len(tr), len(texts)))
    y_tr, y_va = sentences.labels[tr], sentences.labels[va]
    L = feats.num_layers
    ramps: dict[str, list[OffRamp]] = {}
    records: list[OffRampTraining] = []
    val_acc: dict[str, tuple[float, ...]] = {}
    total = len(POOLINGS) * L
    for pi, pooling in enumerate(POOLINGS):
        ramps[pooling] = []
        accs = []
        for i in range(L):
            x, xv = f_tr.pooled(pooling)[:, i], f_va.pooled(pooling)[:, i]
            ramp, its, best_it, vloss = train_offramp(x, y_tr, xv, y_va, seed=seed + 1000 * i)
            acc_tr = float(np.mean(np.argmax(ramp.logits(x.astype(np.float64)), 1) == y_tr))
            acc_va = float(np.mean(np.argmax(ramp.logits(xv.astype(np.float64)), 1) == y_va))
            ramps[pooling].append(ramp)
            accs.append(acc_va)
            records.append(OffRampTraining(layer=i + 1, pooling=pooling, iterations=its,
                                           best_iteration=best_it, train_accuracy=acc_tr,
                                           validation_accuracy=acc_va,
                                           validation_loss=vloss))
            if progress is not None:
                progress("off-ramps", pi * L + i + 1, total)
        val_acc[pooling] = tuple(accs)
    chosen: Pooling = max(POOLINGS, key=lambda p: (float(np.mean(val_acc[p])), val_acc[p][-1]))
    ee = EarlyExitModel(ramps=tuple(ramps[chosen]), pooling=chosen,
                        lut=EntropyLUT(table=np.zeros((_LUT_ROWS, L - 1))),
                        predictor=PredictorMLP(weights=(), biases=()))
    h_tr = ee.entropies(f_tr)
    mlp = train_entropy_predictor(h_tr[:, 0], h_tr[:, 1 : L - 1], seed=seed)
    return EarlyExitModel(
        ramps=ee.ramps, pooling=chosen, lut=EntropyLUT.from_predictor(mlp), predictor=mlp,
        training=tuple(records), validation_accuracy=val_acc, seed=seed, quick=quick,
        train_size=len(tr), validation_size=len(va),
        wall_time_s=time.perf_counter() - t0)


# -- evaluation -----------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class ThresholdRow:
    """Accuracy and exit depth of one exit policy at one entropy threshold.

    Attributes
    ----------
    policy : str
        ``"plain"``, ``"predicted"`` or ``"predicted_no_ee_before"``.
    threshold : float
        Nats.
    accuracy : float
        Accuracy of the prediction of each sentence's exit layer's off-ramp.
    average_exit_layer : float
    exits_per_layer : tuple of int
        Sentences exiting at layers 1..L.
    """

    policy: str
    threshold: float
    accuracy: float
    average_exit_layer: float
    exits_per_layer: tuple[int, ...]

    def as_dict(self) -> dict[str, float | str | int]:
        """A flat row for a table."""
        row: dict[str, float | str | int] = {
            "policy": self.policy, "threshold": self.threshold, "accuracy": self.accuracy,
            "average_exit_layer": self.average_exit_layer}
        for i, c in enumerate(self.exits_per_layer):
            row[f"exits_layer_{i + 1}"] = c
        return row


@dataclass(frozen=True, kw_only=True)
class EarlyExitReport:
    """Early-exit accuracy and depth on held-out sentences.

    Attributes
    ----------
    split : str
    labels : numpy.ndarray
        ``(n,)``.
    entropies : numpy.ndarray
        ``(n, L)`` off-ramp entropies.
    predictions : numpy.ndarray
        ``(n, L)`` predicted class per layer.
    per_layer_accuracy : tuple of float
        Accuracy of each layer's off-ramp on all sentences (layer 1 first).
    full_depth_accuracy : float
        The last layer's (no early exit).
    majority_accuracy : float
        Always answering the split's majority class (chance level).
    rows : tuple of ThresholdRow
        Every policy at every threshold.
    exit_layers : dict of (str, float) to numpy.ndarray
        Per ``(policy, threshold)``, each sentence's exit layer.
    lut : EntropyLUT
    pooling : str
    validation_accuracy : dict of str to tuple of float
        Both poolings' per-layer validation accuracy (from training).
    wall_time_s : float
        Wall time of :func:`evaluate`.
    """

    split: str
    labels: np.ndarray
    entropies: np.ndarray
    predictions: np.ndarray
    per_layer_accuracy: tuple[float, ...]
    full_depth_accuracy: float
    majority_accuracy: float
    rows: tuple[ThresholdRow, ...]
    exit_layers: dict[tuple[str, float], np.ndarray]
    lut: EntropyLUT
    pooling: str
    validation_accuracy: dict[str, tuple[float, ...]]
    wall_time_s: float = 0.0

    def row(self, policy: str, threshold: float) -> ThresholdRow:
        """The row of one policy and threshold."""
        for r in self.rows:
            if r.policy == policy and math.isclose(r.threshold, threshold):
                return r
        raise ConfigError(f"no row for policy {policy!r} at threshold {threshold}",
                          field="threshold",
                          allowed=sorted({r.threshold for r in self.rows if r.policy == policy}))

    def lowest_exit_within(self, accuracy_drop: float = 0.01,
                           policy: str = "plain") -> ThresholdRow | None:
        """The row of ``policy`` with the lowest average exit layer whose accuracy is at
        most ``accuracy_drop`` below full depth (the paper's budget: about one point,
        an unverified recollection); ``None`` if no threshold qualifies."""
        if policy not in POLICIES:
            raise ConfigError(f"unknown policy {policy!r}", field="policy",
                              allowed=list(POLICIES))
        ok = [r for r in self.rows if r.policy == policy
              and r.accuracy >= self.full_depth_accuracy - accuracy_drop]
        return min(ok, key=lambda r: (r.average_exit_layer, r.threshold)) if ok else None

    def table(self) -> list[dict[str, float | str | int]]:
        """All rows as flat dicts (for CSV/JSON)."""
        return [r.as_dict() for r in self.rows]

    def layer_table(self) -> list[dict[str, float | int | str]]:
        """Per layer: test accuracy, mean entropy and both poolings' validation accuracy."""
        out: list[dict[str, float | int | str]] = []
        for i, acc in enumerate(self.per_layer_accuracy):
            row: dict[str, float | int | str] = {
                "layer": i + 1, "accuracy": acc,
                "mean_entropy": float(self.entropies[:, i].mean()), "pooling": self.pooling}
            for p, accs in self.validation_accuracy.items():
                row[f"validation_accuracy_{p}"] = accs[i]
            out.append(row)
        return out


def evaluate(ee: EarlyExitModel, model: MiniLM, sentences: PolaritySentences, *,
             split: str = "test", thresholds: Sequence[float] | None = None,
             quick: bool | None = None, cache: bool = True) -> EarlyExitReport:
    """Accuracy per layer and of each exit policy at each threshold on one split.

    Parameters
    ----------
    ee : EarlyExitModel
    model : MiniLM
        The backbone ``ee`` was trained on.
    sentences : PolaritySentences
    split : {"train", "validation", "test"}
    thresholds : sequence of float, optional
        Default: their plain and predictor thresholds and :data:`SWEEP_THRESHOLDS`.
    quick : bool, optional
        150 sentences of the split; default: as ``ee`` was trained.
    cache : bool
        Use the on-disk feature cache.

    Returns
    -------
    EarlyExitReport
    """
    t0 = time.perf_counter()
    quick = ee.quick if quick is None else check_bool("quick", quick)
    if thresholds is None:
        thresholds = sorted({*PAPER_PLAIN_THRESHOLDS, *PAPER_PREDICTOR_THRESHOLDS,
                             *SWEEP_THRESHOLDS})
    idx = sentences.indices(split, _sizes(quick)[2])
    texts, y = sentences.select(idx)
    feats = layer_features(model, texts, cache=cache)
    logits = ee.logits(feats)
    h = entropy(logits)
    pred = np.argmax(logits, -1)
    correct = pred == y[:, None]
    L = ee.num_layers
    rows: list[ThresholdRow] = []
    exits: dict[tuple[str, float], np.ndarray] = {}
    for thr in thresholds:
        for policy in POLICIES:
            if policy == "plain":
                e = plain_exit_layers(h, thr)
            else:
                e = predicted_exit_layers(h, ee.lut, thr,
                                          no_ee_before=policy == "predicted_no_ee_before")
            exits[(policy, float(thr))] = e
            rows.append(ThresholdRow(
                policy=policy, threshold=float(thr),
                accuracy=float(correct[np.arange(len(y)), e - 1].mean()),
                average_exit_layer=float(e.mean()),
                exits_per_layer=tuple(int(c) for c in np.bincount(e, minlength=L + 1)[1:])))
    per_layer = tuple(float(a) for a in correct.mean(0))
    majority = float(max(y.mean(), 1 - y.mean()))
    return EarlyExitReport(
        split=split, labels=y, entropies=h, predictions=pred, per_layer_accuracy=per_layer,
        full_depth_accuracy=per_layer[-1], majority_accuracy=majority, rows=tuple(rows),
        exit_layers=exits, lut=ee.lut, pooling=ee.pooling,
        validation_accuracy=dict(ee.validation_accuracy),
        wall_time_s=time.perf_counter() - t0)
