"""Lowering: HLS (Python kernels -> Amaranth) and workload graphs (importers, tiling, mapping)."""
