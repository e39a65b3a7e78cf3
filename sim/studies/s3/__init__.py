"""S3 (Jin et al. 2023): length prediction vs worst-case / oracle / paged KV cache.

Throughput of S3's predicted-length KV reservation over worst-case reservation on the
serving engine, with predictor sensitivity and vLLM-style paging (see README.md).
"""

from .study import PAIRS, run

__all__ = ["PAIRS", "run"]
