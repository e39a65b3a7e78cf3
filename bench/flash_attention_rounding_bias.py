"""Flash Attention study: is the BF16 rounding of the attention output O biased in training?

Trains Flash-BF16 and baseline-BF16 (``fp32_state``, the study's full model, seed 0) for
``--steps`` steps and, every 10th step, takes each run's attention output before its BF16
rounding (Flash: O = acc / l, recomputed with ``keep_fp32={"out"}`` and checked to round to
the run's O; baseline: P V in FP32 from the saved BF16 P) and prints the rounding error
``bf16(O) - O``: its mean relative to its mean absolute value, the same for the error times
sign(O), and per (head, feature) the mean error over batch and tokens as z-scores (RMS ~1
for unbiased i.i.d. errors). Wraps the module's ``attention_forward`` and ``_adam`` to
observe them; the training itself is unchanged.

Usage: ``python bench/flash_attention_rounding_bias.py [--steps 60]``
"""

from __future__ import annotations

import argparse
import dataclasses
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

import archsim.sim.studies.flash_attention.training as tr  # noqa: E402


def _bf16(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    setup = tr.training_setup(quick=False)
    rec: dict[str, list[tuple[int, np.ndarray, np.ndarray]]] = {"flash": [], "baseline": []}
    step = [0]
    forward, adam = tr.attention_forward, tr._adam

    def observed_forward(q, k, v, *, numerics):  # type: ignore[no-untyped-def]
        out, saved = forward(q, k, v, numerics=numerics)
        if numerics.precision == "bf16" and step[0] % 10 == 9:
            if numerics.kernel == "flash":
                o32, _ = forward(q, k, v, numerics=dataclasses.replace(
                    numerics, keep_fp32=frozenset({"out"})))
            else:
                o32 = (saved[3] @ v).astype(np.float32)
            assert np.array_equal(_bf16(o32), out)
            rec[numerics.kernel].append((step[0] + 1, o32, out))
        return out, saved

    def counting_adam(params, grads, moments, spec, t):  # type: ignore[no-untyped-def]
        step[0] = t
        adam(params, grads, moments, spec, t)

    tr.attention_forward, tr._adam = observed_forward, counting_adam  # type: ignore[assignment]
    fp32 = tr.Numerics(precision="fp32")
    flash = tr.Numerics(precision="bf16", kernel="flash", tile=setup.tile)
    base = tr.Numerics(precision="bf16")
    tr.train_paired(config=setup.config, token_ids=tr.news_char_ids(n_chars=setup.n_chars),
                    spec=tr.TrainSpec(steps=args.steps, batch=setup.spec.batch),
                    pairs=[tr.PairSpec(name="f", a=flash, b=fp32),
                           tr.PairSpec(name="b", a=base, b=fp32)], seed=0, every=5)
    for kernel, items in rec.items():
        for i, (at, o32, out) in enumerate(items):
            e = (out - o32).astype(np.float64)
            n = e.shape[0] * e.shape[2]
            z = e.mean(axis=(0, 2)) / (e.std(axis=(0, 2)) / np.sqrt(n))
            print(f"{kernel:8s} step {at:3d} layer {i % setup.config.n_layers}: "
                  f"{e.size} values, mean err / mean |err| "
                  f"{e.mean() / np.abs(e).mean():+.4f}, (err * sign O) "
                  f"{np.mean(e * np.sign(o32)) / np.abs(e).mean():+.4f}; per (head, feature) "
                  f"z RMS {np.sqrt((z ** 2).mean()):.2f}, max |z| {np.abs(z).max():.1f}")


if __name__ == "__main__":
    main()
