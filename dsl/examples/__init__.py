"""Example accelerators written with the accelerator DSL (:mod:`archsim.dsl.accel`)."""

__all__: list[str] = []

from .recssd import group_by_page, ndp_request_program, recssd_ndp, reference_sls

__all__ += ["recssd_ndp", "group_by_page", "ndp_request_program", "reference_sls"]
