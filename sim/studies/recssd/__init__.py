"""RecSSD (Wilkening et al., ASPLOS 2021): in-FTL SparseLengthsSum vs a COTS SSD, end to end.

``study``: ``archsim study recssd``, the eight RecSSD models' end-to-end inference latency
(dense part from a CPU cost model fitted to real timings on this CPU, SLS part by the DRAM,
COTS-SSD and RecSSD paths) over batch sizes and index locality, the 2x headline next to ours.
"""

from .study import (
    BATCHES,
    EMBEDDING_DOMINATED,
    HEADLINE_BATCH,
    LOCALITY_K,
    MLP_DOMINATED,
    QUICK_BATCHES,
    QUICK_LOCALITY_K,
    WARM_BATCHES,
    FoldedEmbeddingCache,
    Locality,
    ModelPoint,
    evaluate_model,
    fit_dense_model,
    model_indices,
    profile_samples,
    run,
    sls_paths,
)

__all__ = ["run", "BATCHES", "EMBEDDING_DOMINATED", "HEADLINE_BATCH", "LOCALITY_K",
           "MLP_DOMINATED", "QUICK_BATCHES", "QUICK_LOCALITY_K", "WARM_BATCHES",
           "FoldedEmbeddingCache", "Locality", "ModelPoint", "evaluate_model",
           "fit_dense_model", "model_indices", "profile_samples", "sls_paths"]
