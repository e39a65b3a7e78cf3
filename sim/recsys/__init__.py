"""Recommendation inference at scale: RecSSD's SSD paths (:mod:`.recssd`)."""

__all__: list[str] = []
