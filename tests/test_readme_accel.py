"""The README's accelerator example runs as written (its own asserts check RTL == golden ==
model)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_accelerator_example_runs(tmp_path, monkeypatch):
    text = README.read_text()
    section = text[text.index("### Accelerators: units, buffers"):]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    assert block is not None
    source = block.group(1)
    path = tmp_path / "readme_accel.py"  # a file of its own: @kernel reads its source
    path.write_text(source)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "readme_accel", "__file__": str(path)}
    exec(compile(source, str(path), "exec"), namespace)  # noqa: S102
    report = namespace["report"]
    assert report.cycles == namespace["run"].cycles
