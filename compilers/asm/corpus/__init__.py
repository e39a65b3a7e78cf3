"""The shipped AArch64/RV64 assembly corpus: C sources, gcc's assembly and linked ``.text``
bytes (``data/``), and the script that regenerates them (``regenerate.py``)."""

__all__: list[str] = []
