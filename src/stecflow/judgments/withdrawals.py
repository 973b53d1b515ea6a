"""Withdrawn participants leave the judgments before anything is merged.

A participant who withdraws is erased from the collection server's database
(``stecflow sessions withdraw``) and recorded, without an ID, in a withdrawals
file (:mod:`stecflow.studies.server.withdrawals`). The judgments stage reads the
study's withdrawals files (``studies.<id>.withdrawals``, and
``results/studies/<id>/responses.withdrawals.tsv`` when it exists) and drops
every response row, session-table row and data-quality row whose participant,
session or subject ID hashes, with the release key, to a recorded hash: also the
rows of an export made before the withdrawal, of offline files and of the lab's
files. Judgments, measures, statistics, report and release are made from what
is left; the summary counts the withdrawals (:func:`withdrawal_summary`) and the
report's data-quality section shows them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["drop_withdrawn", "withdrawal_summary"]

logger = logging.getLogger(__name__)


def drop_withdrawn(
    rows: Sequence[Mapping[str, Any]],
    problems: Sequence[Mapping[str, Any]],
    paths: Sequence[str | Path],
    key: str,
) -> tuple[list[Any], list[Any], dict[str, int]]:
    """Leave out the rows of withdrawn participants.

    Parameters
    ----------
    rows : sequence of mapping
        Response rows (the importers' rows, or session-table rows): a row is
        dropped when its ``participant``, ``session``, ``subject`` or
        ``external_session`` hashes to a recorded hash.
    problems : sequence of mapping
        Data-quality rows; those naming a withdrawn session or subject go too,
        in their own columns or quoted in their ``detail``.
    paths : sequence of paths
        The study's withdrawals files (a missing one holds none).
    key : str
        The release key (``release.key``, else the campaign ID).

    Returns
    -------
    rows, problems : list
        What is left, in the order given.
    counts : dict
        :func:`withdrawal_summary` plus ``rows_dropped`` and
        ``problems_dropped``.

    Raises
    ------
    CollectionError
        A withdrawals file cannot be read, or was written with another key.

    Examples
    --------
    >>> import tempfile
    >>> from stecflow.studies.server.withdrawals import (
    ...     Withdrawal, append_withdrawal, id_hash, key_check)
    >>> path = Path(tempfile.mkdtemp()) / "w.tsv"
    >>> append_withdrawal(path, Withdrawal(
    ...     "2026-11-29T03:00:00Z", key_check("k"), (id_hash("ann", "k")[:16],),
    ...     sessions=1, trials=4))
    >>> kept, _, counts = drop_withdrawn(
    ...     [{"participant": "ann"}, {"participant": "bob"}], [], [path], "k")
    >>> kept, counts["withdrawn"], counts["rows_dropped"]
    ([{'participant': 'bob'}], 1, 1)
    """
    from stecflow.studies.server.withdrawals import (
        ID_COLUMNS,
        read_withdrawals,
        withdrawal_matcher,
    )

    withdrawals = read_withdrawals(sorted(str(p) for p in paths))
    counts = withdrawal_summary(withdrawals)
    if not withdrawals:
        return (
            list(rows),
            list(problems),
            {
                **counts,
                "rows_dropped": 0,
                "problems_dropped": 0,
            },
        )
    withdrawn = withdrawal_matcher(withdrawals, key)
    kept, gone = [], []
    for row in rows:
        (gone if withdrawn(row) else kept).append(row)
    # a data-quality row goes when it names a withdrawn ID in its own columns or
    # quotes one in its detail ("session 5f1c2e again ...")
    ids = {str(row[c]) for row in gone for c in ID_COLUMNS if _present(row.get(c))}
    quoted = (
        re.compile(
            r"(?<![\w-])("
            + "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
            + r")(?![\w-])"
        )
        if ids
        else None
    )
    kept_problems = [
        p
        for p in problems
        if not withdrawn(p)
        and not (quoted is not None and quoted.search(str(p.get("detail") or "")))
    ]
    counts["rows_dropped"] = len(rows) - len(kept)
    counts["problems_dropped"] = len(problems) - len(kept_problems)
    logger.info(
        "%d withdrawal(s): %d row(s) and %d data-quality row(s) left out",
        counts["withdrawn"],
        counts["rows_dropped"],
        counts["problems_dropped"],
    )
    return kept, kept_problems, counts


def _present(value: Any) -> bool:
    return value is not None and value == value and str(value) != ""


def withdrawal_summary(withdrawals: Sequence[Any]) -> dict[str, int]:
    """Counts for the judgments summary: ``withdrawn`` (participants who
    withdrew), and what was erased from the database for them
    (``sessions_erased``, ``trials_erased``, ``answers_erased``).

    >>> withdrawal_summary([])["withdrawn"]
    0
    """
    return {
        "withdrawn": len(withdrawals),
        "sessions_erased": sum(int(w.sessions) for w in withdrawals),
        "trials_erased": sum(int(w.trials) for w in withdrawals),
        "answers_erased": sum(int(w.answers) for w in withdrawals),
    }
