"""Shared pieces of :mod:`stecflow.judgments`: the error, column lists, value parsing.

Nothing here imports pandas, so the importers' error paths stay cheap.
"""

from __future__ import annotations

import hashlib
import math
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stecflow.core.errors import StecflowError

__all__ = [
    "CHECKS",
    "IMPORT_COLUMNS",
    "JUDGMENT_COLUMNS",
    "QUALITY_COLUMNS",
    "SOURCE_FORMATS",
    "JudgmentsError",
    "problem",
]


class JudgmentsError(StecflowError, ValueError):
    """A response, design or corrections file cannot be used (file, line, field).

    It is a :class:`ValueError` too, so callers may catch either.
    """


#: Formats the importers recognise (the ``source_format`` column).
SOURCE_FORMATS = ("server", "offline", "generic", "dmdx_azk", "dmdx_zil")

#: Columns of the import table (one row per answered trial, before the merge with
#: the design), in this order. See ``docs/judgments.md`` for what each holds.
IMPORT_COLUMNS = (
    "study",
    "source_format",
    "source_file",
    "source_line",
    "session",
    "participant",
    "session_status",
    "task",
    "variant",
    "list",
    "order",
    "item",
    "system",
    "subdomain",
    "practice",
    "filler",
    "adequacy",
    "fluency",
    "chosen_entity",
    "target_entity",
    "correct",
    "cant_tell",
    "timeout",
    "aborted",
    "reading_time_ms",
    "identification_time_ms",
    "rt_ms",
    "audio_onset_ms",
    "click_x",
    "click_y",
    "simulated",
    "import_problem",
)

#: Columns of the merged judgments table (``results/judgments/<study>.tsv``).
JUDGMENT_COLUMNS = (
    "study",
    "task",
    "variant",
    "list",
    "subject_slot",
    "group",
    "session",
    "participant",
    "subject",
    "session_status",
    "order",
    "item",
    "system",
    "subdomain",
    "condition",
    "item_set",
    "practice",
    "filler",
    "control",
    "simulated",
    "adequacy",
    "fluency",
    "target_entity",
    "chosen_entity",
    "choice",
    "correct",
    "cant_tell",
    "timeout",
    "aborted",
    "reading_time_ms",
    "identification_time_ms",
    "rt_ms",
    "audio_onset_ms",
    "click_x",
    "click_y",
    "partial_session",
    "duplicate",
    "corrected",
    "corrected_fields",
    "original_values",
    "correction_reason",
    "excluded",
    "exclusion_reason",
    "in_analysis",
    "in_time_analysis",
    "reading_time_outlier",
    "identification_time_outlier",
    "rt_outlier",
    "outlier",
    "reading_time_adj_ms",
    "identification_time_adj_ms",
    "rt_adj_ms",
    "source_format",
    "source_file",
    "source_line",
)

#: Columns of the data-quality table (one row per problem found).
QUALITY_COLUMNS = (
    "study",
    "check",
    "severity",
    "source_file",
    "source_line",
    "session",
    "subject",
    "list",
    "order",
    "item",
    "system",
    "field",
    "detail",
)

#: The checks of the data-quality table and their severity. ``error``: the trial
#: is left out of every analysis; ``warning``: kept but flagged; ``info``: a fact
#: the organiser should know.
CHECKS: dict[str, str] = {
    "import_problem": "error",
    "other_study": "error",
    "unknown_list": "error",
    "unknown_subject": "error",
    "wrong_list": "warning",
    "inconsistent_list": "warning",
    "not_in_design": "error",
    "design_mismatch": "error",
    "ambiguous_trial": "error",
    "duplicate": "error",
    "aborted_trial": "error",
    "no_response": "error",
    "missing_trials": "warning",
    "partial_session": "warning",
    "list_not_run": "warning",
    "list_repeated": "info",
    "subject_multiple_sessions": "info",
    "target_mismatch": "warning",
    "correct_mismatch": "warning",
    "unknown_entity": "warning",
    "item_not_in_testset": "warning",
    "corrected": "info",
    "excluded_by_correction": "info",
    "small_outlier_cell": "warning",
    "source_note": "info",
}


def problem(
    check: str,
    detail: str,
    *,
    study: str | None = None,
    source_file: str | None = None,
    source_line: int | None = None,
    session: str | None = None,
    subject: str | None = None,
    list_id: str | None = None,
    order: int | None = None,
    item: str | None = None,
    system: str | None = None,
    field: str | None = None,
) -> dict[str, Any]:
    """Return one row of the data-quality table (severity from :data:`CHECKS`)."""
    return {
        "study": study,
        "check": check,
        "severity": CHECKS[check],
        "source_file": source_file,
        "source_line": source_line,
        "session": session,
        "subject": subject,
        "list": list_id,
        "order": order,
        "item": item,
        "system": system,
        "field": field,
        "detail": detail,
    }


# --------------------------------------------------------------------------- values

_TRUE = {"true", "t", "yes", "y", "1"}
_FALSE = {"false", "f", "no", "n", "0"}


def parse_bool(text: str) -> bool | None:
    """Parse ``true``/``false`` (also yes/no, 1/0; any case); empty is None.

    Raises ValueError for anything else.

    >>> parse_bool("TRUE"), parse_bool(""), parse_bool("0")
    (True, None, False)
    """
    value = text.strip().lower()
    if not value:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"{text!r} is not true or false")


def parse_number(text: str) -> float | None:
    """Parse a decimal number (a decimal comma is accepted); empty is None.

    Raises ValueError for text that is not a finite number.

    >>> parse_number(" 3069,16 "), parse_number("")
    (3069.16, None)
    """
    value = text.strip()
    if not value:
        return None
    if re.fullmatch(r"[+-]?\d+,\d+", value):
        value = value.replace(",", ".")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{text!r} is not a finite number")
    return number


def parse_int(text: str) -> int | None:
    """Parse a positive integer (``3`` or ``3.0``); empty is None.

    >>> parse_int("7"), parse_int("7.0"), parse_int("")
    (7, 7, None)
    """
    number = parse_number(text)
    if number is None:
        return None
    if number != int(number) or number < 1:
        raise ValueError(f"{text!r} is not a positive whole number")
    return int(number)


def clean_str(text: str | None) -> str | None:
    """Strip *text*; empty becomes None."""
    if text is None:
        return None
    value = text.strip()
    return value or None


def normalise_header(name: str) -> str:
    """Column names compare case-insensitively, with spaces and ``-`` as ``_``.

    >>> normalise_header(" Identification Time-ms ")
    'identification_time_ms'
    """
    return re.sub(r"[\s-]+", "_", name.strip().lower().lstrip("\ufeff"))


def is_missing(value: Any) -> bool:
    """True for None, NaN and pandas' missing values (as ``pandas.isna``).

    Python's and NumPy's scalars are checked without pandas, so that a job whose
    values are all such (``simulate_responses``) does not load it for this.
    """
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, str | bytes | int):
        return False
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.generic):
        if isinstance(value, np.floating | np.complexfloating):
            return bool(np.isnan(value))
        if isinstance(value, np.datetime64 | np.timedelta64):
            return bool(np.isnat(value))
        return False
    try:
        import pandas as pd

        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def plain(value: Any) -> Any:
    """Convert numpy and pandas scalars to plain Python values (missing -> None)."""
    if is_missing(value):
        return None
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        return value.item()
    return value


# --------------------------------------------------------------------------- files


def read_text(
    path: str | Path, *, encoding: str | None = None, fallback: str | None = None
) -> str:
    """Read a text file, refusing binary data and undecodable bytes.

    A UTF-8 or UTF-16 byte-order mark decides the encoding. Otherwise the file
    is decoded as *encoding* (default UTF-8); if that fails and *fallback* is
    given (DMDX writes the Windows code page, so ``cp1252`` there), as
    *fallback*. Line endings become ``\\n``.

    Raises
    ------
    JudgmentsError
        The file is missing, binary, or not in the encoding (with the line of the
        first bad byte), or the encoding name is unknown.
    """
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise JudgmentsError(
            f"cannot read the file ({exc.strerror})", file=source
        ) from None
    if data.startswith(b"\xef\xbb\xbf"):
        encoding, data = "utf-8", data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16"
    elif b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise JudgmentsError(
            "binary data (a NUL byte); give a text file (TSV, CSV or DMDX .azk)",
            file=source,
            line=line,
        )
    for candidate in (encoding or "utf-8", fallback):
        if candidate is None:
            continue
        try:
            text = data.decode(candidate)
        except LookupError:
            raise JudgmentsError(
                f"unknown encoding {candidate!r}", file=source, field="encoding"
            ) from None
        except UnicodeDecodeError as exc:
            if candidate == fallback or fallback is None:
                line = data[: exc.start].count(b"\n") + 1
                raise JudgmentsError(
                    f"not valid {candidate} (byte 0x{data[exc.start]:02x}); save the "
                    "file as UTF-8 or give its encoding",
                    file=source,
                    line=line,
                ) from None
            continue
        return text.replace("\r\n", "\n").replace("\r", "\n")
    raise AssertionError("unreachable")  # pragma: no cover


def digest_seed(seed: int, *keys: object) -> int:
    """A 128-bit seed from SHA-256 of *seed* and *keys* (never the salted ``hash``).

    >>> digest_seed(1, "a") == digest_seed(1, "a") != digest_seed(1, "b")
    True
    """
    text = "/".join([str(seed), *map(str, keys)])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:16], "big")


def settings_section(settings: Mapping[str, Any] | None, key: str) -> dict[str, Any]:
    """Return ``settings[key]`` as a dict (``{}`` when absent or None)."""
    if not settings:
        return {}
    value = settings.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise JudgmentsError(f"must be a mapping, got {value!r}", field=key)
    return dict(value)


def simulation_settings(cls: Any, values: Mapping[str, Any] | None) -> Any:
    """*cls* (a dataclass of simulation settings) built from a config mapping.

    A ``seed`` key is ignored (the config keeps the simulation seed in the same
    mapping; the simulators take it as an argument); any key that is not a field
    of *cls* raises :class:`JudgmentsError` naming ``simulation.<key>``.
    """
    from dataclasses import fields

    values = dict(values or {})
    values.pop("seed", None)
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise JudgmentsError(
            f"unknown key {unknown[0]!r}", field=f"simulation.{unknown[0]}"
        )
    return cls(**values)
