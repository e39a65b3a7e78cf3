"""Text-guided resilience (Wasim et al., NeurIPS 2023): text-initialized heads vs bit flips.

MNIST MLPs with a random-init linear head vs the text-guided cosine head initialized from
MiniLM embeddings of SmolLM2-written class descriptions; FP32 single-bit activation faults
per layer, SDC-rate gains, accuracy and Top2Diff (see README.md).
"""

from .classifier import HEADS, Classifier, Recipe, TrainLog, init_classifier, train_classifier
from .descriptions import DescriptionSet, load_descriptions
from .study import FULL, QUICK, Setup, class_text_embeddings, run

__all__ = ["HEADS", "Classifier", "Recipe", "TrainLog", "init_classifier", "train_classifier",
           "DescriptionSet", "load_descriptions", "FULL", "QUICK", "Setup",
           "class_text_embeddings", "run"]
