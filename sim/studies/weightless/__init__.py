"""Weightless: Bloomier-filter lossy weight encoding vs pruning + clustering (Reagen et al.).

LeNet-300-100 (and LeNet-5 in the full run) trained in numpy on 5,000 real MNIST images;
the largest layer swept over sparsity and filter cell width, compared at equal accuracy
with a Deep-Compression-style sparse format (see README.md).
"""

from .study import (
    Setup,
    SweepPoint,
    data_scaling,
    layer_sweep,
    monotone_accuracy,
    run,
    setup_for,
    split_mnist,
)

__all__ = ["SweepPoint", "Setup", "setup_for", "split_mnist", "layer_sweep", "data_scaling",
           "monotone_accuracy", "run"]
