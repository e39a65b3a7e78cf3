"""Accelerator area: synthesized logic per unit and controller, memories as macros."""

from __future__ import annotations

import pytest

from .test_sim_soc_described import tiny_accelerator


def test_area_components():
    compiled = tiny_accelerator().compile()
    report = compiled.area()
    assert set(report.logic_mm2) == {"unit:inc", "controller"}
    assert all(v > 0 for v in report.logic_mm2.values())
    # macros: bits x the 45 nm 6T SRAM cell (0.346 um^2, Mistry et al., IEDM 2007) at 50 %
    # array efficiency
    cell_mm2 = 0.346e-6 / 0.5
    assert report.memory_mm2["buffer:x"] == pytest.approx(64 * 16 * cell_mm2)
    assert report.memory_mm2["program"] == pytest.approx(1024 * 32 * cell_mm2)
    assert report.total_mm2 == pytest.approx(sum(report.logic_mm2.values())
                                             + sum(report.memory_mm2.values()))
    assert "total" in str(report) and len(report.rows()) == 4


def test_area_reports_progress_per_block():
    seen = []
    tiny_accelerator().compile().area(progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 2), (2, 2)]  # the unit, then the controller
