"""Deterministic writers for the tables and JSON files stecflow produces.

JSON: sorted keys, indent 2, UTF-8, trailing newline, NaN as null. TSV: a fixed
column order, ``\\n`` line endings, no index, floats through :func:`format_float`
(NaN and None as the empty string).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "format_float",
    "format_tsv",
    "iter_tsv",
    "read_json",
    "read_tsv",
    "write_json",
    "write_tsv",
]

#: Significant digits kept for floats in result files.
FLOAT_DIGITS = 10


def format_float(value: float, digits: int = FLOAT_DIGITS) -> str:
    """Format a float reproducibly; NaN and infinities become ``""``.

    >>> format_float(2 / 3), format_float(1.0), format_float(float("nan"))
    ('0.6666666667', '1', '')
    """
    if value is None or not math.isfinite(value):
        return ""
    text = f"{value:.{digits}g}"
    return "0" if text == "-0" else text


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if value.__class__.__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, (list, tuple)):
        return ",".join(_cell(v) for v in value)
    return str(value).replace("\t", " ").replace("\r", " ").replace("\n", " ")


def format_tsv(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """Render *rows* as TSV text with exactly *columns*, in the order given.

    >>> format_tsv([{"a": 1.5, "b": None}], ["a", "b"])
    'a\\tb\\n1.5\\t\\n'
    """
    return "".join(_tsv_lines(rows, columns))


def _tsv_lines(
    rows: Iterable[Mapping[str, Any]], columns: Sequence[str]
) -> Iterator[str]:
    yield "\t".join(columns) + "\n"
    for row in rows:
        yield "\t".join(_cell(row.get(c)) for c in columns) + "\n"


def write_tsv(
    rows: Iterable[Mapping[str, Any]], columns: Sequence[str], path: str | Path
) -> None:
    """Write *rows* as TSV with exactly *columns*, in the order given.

    *rows* may be a generator: lines are written as they come, so a large table
    never has to be held in memory.
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.writelines(_tsv_lines(rows, columns))


def read_tsv(path: str | Path) -> list[dict[str, str]]:
    """Read a TSV written by :func:`write_tsv` as a list of string dicts."""
    return list(iter_tsv(path))


def iter_tsv(path: str | Path) -> Iterator[dict[str, str]]:
    """Read a TSV written by :func:`write_tsv` row by row (for large tables)."""
    with open(path, encoding="utf-8", newline="") as handle:
        yield from csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def write_json(data: Any, path: str | Path) -> None:
    """Write *data* as deterministic JSON (sorted keys, NaN as null)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_clean(data), sort_keys=True, indent=2, ensure_ascii=False)
    Path(path).write_text(text + "\n", encoding="utf-8")


def read_json(path: str | Path) -> Any:
    """Read a JSON file written by :func:`write_json`."""
    return json.loads(Path(path).read_text(encoding="utf-8"))
