"""Neural-network models and data sets that run offline in numpy.

``minilm``: MiniLM-L6 (all-MiniLM-L6-v2) as a numpy BERT encoder; ``sentences``: labelled
movie-review sentences (Pang & Lee polarity snippets) for sentence classification.
"""

from .minilm import MiniLM, load_minilm, load_safetensors
from .sentences import PolaritySentences, load_polarity_sentences

__all__ = ["MiniLM", "load_minilm", "load_safetensors", "PolaritySentences",
           "load_polarity_sentences"]
