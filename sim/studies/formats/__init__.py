"""Number formats on MiniLM-L6 weights: INT, IEEE-like, block float, AdaptivFloat, MX, NxFP.

Direct-casts the weights of all-MiniLM-L6-v2 to each format and compares weight SQNR and
sentence-embedding cosine (AdaptivFloat, Tambe et al. 2020; NxFP against MX; see
README.md).
"""

from .study import (
    FormatSpec,
    MiniLM,
    format_suite,
    load_minilm,
    load_safetensors,
    load_sentences,
    run,
    sqnr_db,
)

__all__ = ["MiniLM", "FormatSpec", "load_minilm", "load_sentences", "load_safetensors",
           "format_suite", "sqnr_db", "run"]
