"""Withdrawals: whose answers were erased, recorded without saying who they are.

A participant who withdraws (``stecflow sessions withdraw``) has every session
erased from the study's database; what remains is one audit line in the
withdrawals file beside the database, ``<database stem>.withdrawals.tsv``
(:func:`withdrawals_path`), with the columns :data:`WITHDRAWAL_COLUMNS`:

``withdrawn_utc``
    When (ISO 8601 UTC, whole seconds, ``Z``).
``key_check``
    :func:`key_check` of the key the hashes were made with, so that a reader
    with another key refuses the file instead of matching nothing.
``hashes``
    The keyed hashes (:func:`id_hash`, HMAC-SHA256, the first
    :data:`HASH_CHARS` hexadecimal digits) of every ID the person's sessions
    had: participant, session and platform session IDs, sorted, comma-separated.
    A withdrawal given as a release pseudonym (``P07-3fa2b19c0d``) records its
    ten digits as they are.
``sessions``, ``trials``, ``answers``
    What was erased from the database (0 for a withdrawal recorded only, for
    answers collected elsewhere).

The key is the campaign's release key (``release.key``, else the campaign ID):
the hash of an ID then starts with the hexadecimal digits of its release
pseudonym (:func:`stecflow.release.archive.pseudonym`), so a person may withdraw
by the pseudonym they find in the release, and the judgments stage drops every
row whose participant, session or subject ID hashes to a recorded prefix
(:func:`withdrawal_matcher`), even from an export made before the withdrawal.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stecflow.studies.server.study import CollectionError

__all__ = [
    "HASH_CHARS",
    "ID_COLUMNS",
    "WITHDRAWAL_COLUMNS",
    "Withdrawal",
    "append_withdrawal",
    "id_hash",
    "key_check",
    "pseudonym_digits",
    "read_withdrawals",
    "withdrawal_matcher",
    "withdrawals_path",
]

#: The columns of a withdrawals file, in order.
WITHDRAWAL_COLUMNS = (
    "withdrawn_utc",
    "key_check",
    "hashes",
    "sessions",
    "trials",
    "answers",
)
#: Hexadecimal digits of an ID's keyed hash recorded (64 bits).
HASH_CHARS = 16
#: Hexadecimal digits of a release pseudonym (its part after the dash).
PSEUDONYM_CHARS = 10
#: The columns of a response or session row that hold an ID of the person.
ID_COLUMNS = ("participant", "session", "subject", "external_session")

_PSEUDONYM = re.compile(r"^(?:[A-Za-z][0-9]*-)?([0-9a-f]{10,64})$")
_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
_KEY_CHECK_TEXT = "stecflow withdrawals key check"


def id_hash(value: str, key: str) -> str:
    """The keyed hash of an ID: HMAC-SHA256 with *key*, in hexadecimal.

    Its first ten digits are those of the release pseudonym of the same ID
    with the same key.

    >>> id_hash("PROLIFIC-5f3a", "k")[:10]
    '7510b23803'
    """
    return hmac.new(key.encode(), value.encode(), hashlib.sha256).hexdigest()


def key_check(key: str) -> str:
    """Ten hexadecimal digits that tell keys apart without revealing them.

    >>> key_check("k") != key_check("other")
    True
    """
    return id_hash(_KEY_CHECK_TEXT, key)[:PSEUDONYM_CHARS]


def pseudonym_digits(text: str) -> str | None:
    """The hash digits of a release pseudonym (``P07-3fa2b19c0d``,
    ``P-3fa2b19c0d``, ``S-...``) or of a hash copied from an audit line; None
    for anything else (then *text* is an ID).

    >>> pseudonym_digits("P07-3fa2b19c0d"), pseudonym_digits("3fa2b19c0d5e6f70")
    ('3fa2b19c0d', '3fa2b19c0d5e6f70')
    >>> pseudonym_digits("PROLIFIC-5f3a") is None
    True
    """
    match = _PSEUDONYM.match(text.strip())
    return match.group(1) if match else None


def withdrawals_path(db_path: str | Path) -> Path:
    """The withdrawals file of a database: ``<stem>.withdrawals.tsv`` beside it.

    >>> withdrawals_path("results/studies/rating/responses.sqlite").as_posix()
    'results/studies/rating/responses.withdrawals.tsv'
    """
    db = Path(db_path)
    return db.with_name(f"{db.stem}.withdrawals.tsv")


@dataclass(frozen=True)
class Withdrawal:
    """One audit line of a withdrawals file (:data:`WITHDRAWAL_COLUMNS`)."""

    withdrawn_utc: str
    key_check: str
    hashes: tuple[str, ...]
    sessions: int = 0
    trials: int = 0
    answers: int = 0
    file: str = ""
    line: int = 0

    def cells(self) -> list[str]:
        """The line's cells, in :data:`WITHDRAWAL_COLUMNS` order."""
        return [
            self.withdrawn_utc,
            self.key_check,
            ",".join(self.hashes),
            str(self.sessions),
            str(self.trials),
            str(self.answers),
        ]


def append_withdrawal(path: str | Path, withdrawal: Withdrawal) -> None:
    """Append *withdrawal* to the withdrawals file *path* (created with its
    header when missing) and flush it to disk."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    new = not target.exists() or target.stat().st_size == 0
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    if new:
        writer.writerow(WITHDRAWAL_COLUMNS)
    writer.writerow(withdrawal.cells())
    with open(target, "a", encoding="utf-8", newline="") as handle:
        handle.write(buffer.getvalue())
        handle.flush()
        os.fsync(handle.fileno())


def read_withdrawals(paths: Iterable[str | Path]) -> list[Withdrawal]:
    """Read withdrawals files (a missing one holds none), in the order given.

    Raises
    ------
    CollectionError
        A header or a line that is not as :data:`WITHDRAWAL_COLUMNS` says
        (file, line and field named).
    """
    found: list[Withdrawal] = []
    for path in paths:
        name = str(path)
        if not Path(name).is_file():
            continue
        with open(name, encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle, delimiter="\t"))
        if not rows or tuple(rows[0]) != WITHDRAWAL_COLUMNS:
            raise CollectionError(
                "not a withdrawals file: the first line must be the columns "
                + ", ".join(WITHDRAWAL_COLUMNS),
                file=name,
                line=1,
            )
        for number, row in enumerate(rows[1:], start=2):
            if not any(cell.strip() for cell in row):
                continue
            found.append(_parse(row, name, number))
    return found


def _parse(row: Sequence[str], file: str, line: int) -> Withdrawal:
    def bad(field: str, expected: str) -> CollectionError:
        return CollectionError(
            f"expected {expected}", file=file, line=line, field=field
        )

    if len(row) != len(WITHDRAWAL_COLUMNS):
        raise bad("line", f"{len(WITHDRAWAL_COLUMNS)} tab-separated cells")
    cells = dict(zip(WITHDRAWAL_COLUMNS, row, strict=True))
    if not _UTC.match(cells["withdrawn_utc"]):
        raise bad("withdrawn_utc", "a time such as 2026-11-29T03:00:00Z")
    if not re.fullmatch(r"[0-9a-f]{10}", cells["key_check"]):
        raise bad("key_check", "10 hexadecimal digits")
    hashes = tuple(h for h in cells["hashes"].split(",") if h)
    if not hashes or not all(re.fullmatch(r"[0-9a-f]{10,64}", h) for h in hashes):
        raise bad("hashes", "comma-separated hashes of 10 to 64 hexadecimal digits")
    counts = {}
    for name in ("sessions", "trials", "answers"):
        if not cells[name].isdigit():
            raise bad(name, "a count (0 or more)")
        counts[name] = int(cells[name])
    return Withdrawal(
        cells["withdrawn_utc"],
        cells["key_check"],
        hashes,
        file=file,
        line=line,
        **counts,
    )


def withdrawal_matcher(
    withdrawals: Sequence[Withdrawal], key: str
) -> Callable[[Mapping[str, Any]], bool]:
    """A test of a row (a mapping with some of :data:`ID_COLUMNS`): true when
    the keyed hash of one of its IDs starts with a recorded hash.

    Raises
    ------
    CollectionError
        A withdrawal was recorded with another key than *key* (its hashes
        could match nobody).

    Examples
    --------
    >>> w = Withdrawal("2026-11-29T03:00:00Z", key_check("k"),
    ...                (id_hash("ann", "k")[:16],))
    >>> withdrawn = withdrawal_matcher([w], "k")
    >>> withdrawn({"participant": "ann"}), withdrawn({"participant": "bob"})
    (True, False)
    """
    check = key_check(key)
    for w in withdrawals:
        if w.key_check != check:
            raise CollectionError(
                "this withdrawal was recorded with another key than this "
                "campaign's release key (release.key, else the campaign ID), so "
                "its hashes match nobody; record it again with `stecflow sessions "
                "withdraw` and --config of this campaign (or --key)",
                file=w.file or None,
                line=w.line or None,
                field="key_check",
            )
    prefixes = sorted({h for w in withdrawals for h in w.hashes})
    seen: dict[str, bool] = {}

    def withdrawn(row: Mapping[str, Any]) -> bool:
        for column in ID_COLUMNS:
            value = row.get(column)
            if value is None or value == "" or value != value:  # NaN
                continue
            text = str(value)
            if text not in seen:
                digest = id_hash(text, key)
                seen[text] = any(digest.startswith(p) for p in prefixes)
            if seen[text]:
                return True
        return False

    return withdrawn
