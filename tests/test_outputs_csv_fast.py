"""``write_csv`` writes plain cells directly: its output equals csv.DictWriter's over cells
converted one by one with ``to_jsonable`` (as it wrote before the fast path), and a small
table worked by hand."""

from __future__ import annotations

import csv
import enum
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from archsim.outputs import to_jsonable, write_csv


class Colour(enum.Enum):
    red = "r"


@dataclass(frozen=True)
class Point:
    x: int


def _reference(rows, columns=None) -> str:
    rows = [{str(k): to_jsonable(v) for k, v in r.items()} for r in rows]
    if columns is None:
        columns = []
        for r in rows:
            for k in r:
                if k not in columns:
                    columns.append(k)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), extrasaction="ignore")
    writer.writeheader()
    for r in rows:
        writer.writerow(r)
    return buf.getvalue()


ROWS = [
    {"s": "a,b", "i": 3, "f": 0.1, "b": True, "n": None, "nan": math.nan},
    {"s": 'q"uote', "np_f": np.float64(2.5), "np_i": np.int32(-7), "arr": np.arange(3),
     "e": Colour.red, "p": Path("x/y"), "d": Point(1), 7: "int key", "l": [1, math.nan]},
    {"i": -(2**70), "f": 1e-300, "b": False, "inf": math.inf, "np_nan": np.float64("nan")},
]


def test_equals_dictwriter_over_to_jsonable_cells(tmp_path):
    path = write_csv(tmp_path / "t.csv", ROWS)
    assert path.read_bytes().decode() == _reference(ROWS)


def test_explicit_columns_ignore_extra_keys_and_fill_missing(tmp_path):
    columns = ["f", "missing", "s"]
    path = write_csv(tmp_path / "t.csv", ROWS, columns=columns)
    assert path.read_bytes().decode() == _reference(ROWS, columns)


def test_small_table_by_hand(tmp_path):
    rows = [{"a": 1, "b": math.nan}, {"b": np.float64(0.5), "c": "x,y"}]
    text = write_csv(tmp_path / "t.csv", rows).read_bytes().decode()
    assert text == 'a,b,c\r\n1,,\r\n,0.5,"x,y"\r\n'
