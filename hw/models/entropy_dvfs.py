"""EdgeBERT's entropy-driven DVFS: the hardware's entropy bins and the host policy that fills
its table from a latency target.

EdgeBERT (Tambe et al., MICRO 2021) picks a sentence's operating point from its layer-1
entropy. Its DVFS controller (harvard-acc/EdgeBERT ``hw/cmod/Dvfs/Dvfs.h``, read for the
semantics) divides the Q6.10 entropy word (``spec::ActScalarType``, a signed 16-bit integer,
``hw/cmod/include/Spec.h``) by the 8-bit ``enpy_scale`` of its ``DvfsConfig`` -- an integer
division, truncating toward zero, kept in a signed 16-bit word -- and places the quotient
``e`` in one of 16 bins with the fixed thresholds :data:`ENTROPY_BIN_THRESHOLDS`: bin 0 is
``e < 256``, bin ``b`` is ``T[b-1] <= e < T[b]``, bin 15 is ``e >= 28672``. The bin selects
an entry of a table the host programs. :func:`scaled_entropy_bin` is that arithmetic in
numpy (the RTL, :class:`archsim.hw.accel.entropy_dvfs.EntropyDVFS`, computes it without a
divider and equals it; ``tests/test_hw_accel_entropy_dvfs.py``).

The host's side is :func:`entropy_dvfs_table`: for each bin the predicted exit layer
``L_hat`` (from an entropy predictor, given by the caller), the frequency that finishes the
remaining ``L_hat - 1`` layers in the time left after layer 1 and the switch,

    ``f_req = cycles_per_layer * (L_hat - 1) / (T_target - t_layer1 - t_switch)``

(the paper notes' §1.3 guidance), and the slowest operating point of the domain's table that
reaches it, at the lowest voltage that sustains that frequency on the V-f curve.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ...errors import ConfigError
from .dvfs import OperatingPoint, VFCurve

__all__ = ["ENTROPY_BIN_THRESHOLDS", "ENTROPY_BINS", "ENTROPY_FRAC_BITS", "ENTROPY_CODE_MAX",
           "ENPY_SCALE_MAX", "check_enpy_scale", "scaled_entropy", "scaled_entropy_bin",
           "scaled_entropy_bins", "entropy_code", "bin_code_range", "EntropyDVFSTable",
           "entropy_dvfs_table"]

#: The 15 bin edges of the scaled entropy, in Q6.10 counts (1024 = 1.0): harvard-acc/EdgeBERT
#: ``hw/cmod/Dvfs/Dvfs.h``, the ``PUSH_VF`` state's comparisons (verified).
ENTROPY_BIN_THRESHOLDS: tuple[int, ...] = (
    256, 512, 1024, 2048, 3072, 4096, 5120, 6144, 8192, 10240, 12288, 16384, 20480, 24576,
    28672)
#: Number of bins (table entries): 16 (Dvfs.h's ``LUT result`` 0..F).
ENTROPY_BINS = len(ENTROPY_BIN_THRESHOLDS) + 1
#: Fractional bits of the entropy word: Q6.10 (Spec.h ``kActNumFrac = 10``).
ENTROPY_FRAC_BITS = 10
#: The largest entropy code (a signed 16-bit word; the entropy unit saturates to it).
ENTROPY_CODE_MAX = (1 << 15) - 1
#: The largest ``enpy_scale`` (an 8-bit field, Spec.h ``DvfsConfig``).
ENPY_SCALE_MAX = 255


def check_enpy_scale(enpy_scale: object) -> int:
    """Return ``enpy_scale`` if it is an int in 1..255.

    0 is rejected: Dvfs.h divides by it, and a division by zero has no defined result there
    (an ``ac_int`` division, C semantics), so no hardware behaviour could be matched.

    Raises
    ------
    ConfigError
        Naming the value and the allowed range.
    """
    if isinstance(enpy_scale, np.integer):
        enpy_scale = int(enpy_scale)
    if isinstance(enpy_scale, bool) or not isinstance(enpy_scale, int) or not (
            1 <= enpy_scale <= ENPY_SCALE_MAX):
        raise ConfigError(f"enpy_scale must be an int in 1..{ENPY_SCALE_MAX} (the entropy is "
                          f"divided by it; 0 is undefined in Dvfs.h), not {enpy_scale!r}",
                          field="enpy_scale", allowed=f"1..{ENPY_SCALE_MAX}")
    return enpy_scale


def _codes(h_code: ArrayLike) -> np.ndarray:
    h = np.asarray(h_code)
    if h.dtype.kind not in "iu":
        raise ConfigError(f"entropy codes must be integers (signed Q6.10 codes), not "
                          f"{h.dtype}", field="h_code")
    h = h.astype(np.int64)
    if h.size and (h.min() < -(1 << 15) or h.max() > ENTROPY_CODE_MAX):
        raise ConfigError("entropy codes must be signed 16-bit Q6.10 codes "
                          f"(-32768..{ENTROPY_CODE_MAX})", field="h_code",
                          allowed=f"-32768..{ENTROPY_CODE_MAX}")
    return h


def scaled_entropy(h_code: ArrayLike, enpy_scale: int) -> np.ndarray:
    """``h_code / enpy_scale`` as Dvfs.h's ``SCALE_ENPY`` computes it: an integer division
    truncating toward zero (C semantics) of the signed Q6.10 codes."""
    s = check_enpy_scale(enpy_scale)
    h = _codes(h_code)
    return np.sign(h) * (np.abs(h) // s)


def scaled_entropy_bins(h_code: ArrayLike, enpy_scale: int) -> np.ndarray:
    """The bin (0..15) of each signed Q6.10 entropy code: how many of
    :data:`ENTROPY_BIN_THRESHOLDS` the scaled entropy reaches."""
    e = scaled_entropy(h_code, enpy_scale)
    edges = np.asarray(ENTROPY_BIN_THRESHOLDS, dtype=np.int64)
    return np.count_nonzero(e[..., None] >= edges, axis=-1).astype(np.int64)


def scaled_entropy_bin(h_code: int, enpy_scale: int) -> int:
    """The bin (0..15) the DVFS hardware puts the Q6.10 entropy code ``h_code`` in."""
    return int(scaled_entropy_bins(np.int64(h_code), enpy_scale))


def entropy_code(h_nats: ArrayLike) -> np.ndarray:
    """Entropies in nats as Q6.10 codes: rounded half up, saturated to 0..32767 (the
    entropy unit, :class:`archsim.hw.accel.sfu.Entropy`, computes its own code from the
    logits; this is for a host that has the float entropy)."""
    h = np.asarray(h_nats, dtype=np.float64)
    return np.clip(np.floor(h * (1 << ENTROPY_FRAC_BITS) + 0.5), 0,
                   ENTROPY_CODE_MAX).astype(np.int64)


def bin_code_range(b: int, enpy_scale: int) -> tuple[int, int]:
    """The non-negative entropy codes ``[first, end)`` that land in bin ``b`` (the inverse
    of :func:`scaled_entropy_bin` on 0..32767; ``first == end`` for a bin no code reaches).

    For ``h >= 0``, ``h // s >= T`` exactly when ``h >= s * T``: bin ``b`` is
    ``s * T[b-1] <= h < s * T[b]``.
    """
    s = check_enpy_scale(enpy_scale)
    if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or not (
            0 <= b < ENTROPY_BINS):
        raise ConfigError(f"bin must be an int in 0..{ENTROPY_BINS - 1}, not {b!r}",
                          field="bin", allowed=f"0..{ENTROPY_BINS - 1}")
    edges = (0, *ENTROPY_BIN_THRESHOLDS, math.inf)
    first = min(s * edges[b], ENTROPY_CODE_MAX + 1)
    end = min(s * edges[b + 1], ENTROPY_CODE_MAX + 1)
    return int(first), int(end)


@dataclass(frozen=True)
class EntropyDVFSTable:
    """The table :func:`entropy_dvfs_table` fills, with what each entry rests on.

    Attributes
    ----------
    entries : tuple of int
        Per bin (16), the operating-point index of the target domain (what the DVFS memory
        holds at ``table_addr + bin``).
    exit_layer : tuple of float
        Per bin, the predicted exit layer the entry was sized for (the worst case over the
        bin's entropies; NaN for an unreachable bin).
    f_req_hz : tuple of float
        Per bin, the required frequency (0 when no layer is left after layer 1; ``inf``
        when no time is left for the layers that are; NaN for an unreachable bin).
    feasible : tuple of bool
        Per bin, whether the entry's point meets the target (False: the fastest point was
        taken and the target is missed).
    reachable : tuple of bool
        Per bin, whether some entropy code in the evaluated range lands in it (an unreachable
        bin holds the fastest point, never used).
    enpy_scale : int
    """

    entries: tuple[int, ...]
    exit_layer: tuple[float, ...]
    f_req_hz: tuple[float, ...]
    feasible: tuple[bool, ...]
    reachable: tuple[bool, ...]
    enpy_scale: int

    @property
    def all_feasible(self) -> bool:
        """Every reachable bin meets the target."""
        return all(f for f, r in zip(self.feasible, self.reachable, strict=True) if r)

    def words(self) -> np.ndarray:
        """The 16 table words (``int64`` raw 8-bit codes), for the table buffer."""
        return np.asarray(self.entries, dtype=np.int64)


ExitLayerPredictor = Callable[[np.ndarray], ArrayLike]


PointTable = (Sequence[OperatingPoint | tuple[float, float]]
              | Mapping[str, OperatingPoint | tuple[float, float]])


def _points(operating_points: PointTable) -> list[OperatingPoint]:
    out = []
    if isinstance(operating_points, Mapping):  # a DSL domain's name -> (V, f), in order
        operating_points = list(operating_points.values())
    for i, p in enumerate(operating_points):
        if isinstance(p, OperatingPoint):
            out.append(p)
        elif isinstance(p, tuple) and len(p) == 2:
            out.append(OperatingPoint(voltage_v=p[0], frequency_hz=p[1]))
        else:
            raise ConfigError(f"operating_points[{i}] must be an OperatingPoint or "
                              f"(voltage_v, frequency_hz), not {p!r}", field="operating_points")
    if not out:
        raise ConfigError("operating_points must not be empty", field="operating_points")
    if len(out) > 256:
        raise ConfigError(f"the 8-bit table holds operating-point indices 0..255; "
                          f"{len(out)} points given", field="operating_points")
    return out


def _time(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            math.isfinite(value) and value >= 0):
        raise ConfigError(f"{name} must be a finite number of seconds >= 0, not {value!r}",
                          field=name)
    return float(value)


def entropy_dvfs_table(*, operating_points: PointTable,
                       curve: VFCurve, exit_layer: ExitLayerPredictor | Sequence[float],
                       cycles_per_layer: int, target_latency_s: float, layer1_time_s: float,
                       switch_time_s: float, enpy_scale: int,
                       max_entropy_nats: float | None = None) -> EntropyDVFSTable:
    """Fill the 16-entry entropy-DVFS table from a latency target (module docstring).

    Parameters
    ----------
    operating_points : sequence or mapping of OperatingPoint or (voltage_v, frequency_hz)
        The target domain's operating points; an entry is an index into them (a mapping,
        such as a DSL domain's ``operating_points``, in its order).
    curve : VFCurve
        The domain's V-f relation: a point whose frequency is above ``curve.f_max`` of its
        voltage is never chosen; of the points with the chosen frequency, the lowest voltage
        that sustains it is.
    exit_layer : callable or sequence of 16 floats
        The predicted exit layer (1-indexed; layer 1 is the one already run). A callable
        takes a numpy array of entropies in nats and returns the prediction for each; it is
        evaluated at every Q6.10 code (``code / 1024`` nats) up to ``max_entropy_nats`` and
        each bin takes the *largest* prediction among its codes: the table is indexed by
        bin, so one point serves every sentence of the bin, and only the worst case meets
        the target for all of them (a predictor need not be monotone in the entropy, so the
        bin's edge is not enough). A sequence gives the per-bin value directly (the
        caller's own worst case).
    cycles_per_layer : int
        Cycles of one encoder layer in the regulated domain.
    target_latency_s, layer1_time_s, switch_time_s : float
        The sentence's latency target, the time of layer 1 (at the point it runs at) and of
        the switch (settling plus lock; give the worst case over the table's moves).
    enpy_scale : int
        The hardware's divisor, 1..255 (:func:`check_enpy_scale`).
    max_entropy_nats : float, optional
        The largest entropy the model can produce (``ln(num_labels)``); codes above it are
        left out of the worst case. Default: every code up to 32767.

    Returns
    -------
    EntropyDVFSTable

    Raises
    ------
    ConfigError
        A bad argument, naming it.
    """
    points = _points(operating_points)
    if not isinstance(curve, VFCurve):
        raise ConfigError(f"curve must be a VFCurve, not {curve!r}", field="curve")
    if isinstance(cycles_per_layer, bool) or not isinstance(cycles_per_layer, int) or \
            cycles_per_layer < 1:
        raise ConfigError(f"cycles_per_layer must be a positive int, not {cycles_per_layer!r}",
                          field="cycles_per_layer")
    target = _time("target_latency_s", target_latency_s)
    t1 = _time("layer1_time_s", layer1_time_s)
    tsw = _time("switch_time_s", switch_time_s)
    scale = check_enpy_scale(enpy_scale)

    top = ENTROPY_CODE_MAX
    if max_entropy_nats is not None:
        top = int(entropy_code(_time("max_entropy_nats", max_entropy_nats)))
    codes = np.arange(top + 1, dtype=np.int64)
    bins = scaled_entropy_bins(codes, scale)
    reachable = [bool(np.any(bins == b)) for b in range(ENTROPY_BINS)]
    if callable(exit_layer):
        pred = np.asarray(exit_layer(codes / float(1 << ENTROPY_FRAC_BITS)), dtype=np.float64)
        if pred.shape != codes.shape or not np.all(np.isfinite(pred)):
            raise ConfigError(f"exit_layer must return one finite prediction per entropy "
                              f"({codes.size}), not shape {pred.shape}", field="exit_layer")
        per_bin = [float(pred[bins == b].max()) if reachable[b] else math.nan
                   for b in range(ENTROPY_BINS)]
    else:
        given = [float(v) for v in exit_layer]
        if len(given) != ENTROPY_BINS or not all(math.isfinite(v) for v in given):
            raise ConfigError(f"exit_layer must be a callable or {ENTROPY_BINS} finite "
                              f"per-bin predictions, not {len(given)} values",
                              field="exit_layer")
        per_bin = [v if reachable[b] else math.nan for b, v in enumerate(given)]

    # Points the curve sustains, by rising frequency, then rising voltage.
    usable = [i for i, p in enumerate(points)
              if p.frequency_hz <= curve.f_max(p.voltage_v) * (1 + 1e-9)]
    if not usable:
        raise ConfigError("no operating point is sustained by the V-f curve",
                          field="operating_points")
    usable.sort(key=lambda i: (points[i].frequency_hz, points[i].voltage_v))
    fastest = max(usable, key=lambda i: (points[i].frequency_hz, -points[i].voltage_v))
    left_s = target - t1 - tsw

    entries, f_req, feasible = [], [], []
    for b in range(ENTROPY_BINS):
        if not reachable[b]:
            entries.append(fastest)
            f_req.append(math.nan)
            feasible.append(True)
            continue
        layers_left = per_bin[b] - 1
        if layers_left <= 0:
            need, ok_time = 0.0, target >= t1
        elif left_s <= 0:
            need, ok_time = math.inf, False
        else:
            need, ok_time = cycles_per_layer * layers_left / left_s, True
        chosen = next((i for i in usable if points[i].frequency_hz >= need * (1 - 1e-12)),
                      None)
        if chosen is None or not ok_time:
            entries.append(fastest)
            feasible.append(False)
        else:
            entries.append(chosen)
            feasible.append(True)
        f_req.append(need)
    return EntropyDVFSTable(entries=tuple(entries), exit_layer=tuple(per_bin),
                            f_req_hz=tuple(f_req), feasible=tuple(feasible),
                            reachable=tuple(reachable), enpy_scale=scale)
