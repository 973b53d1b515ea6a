"""The judgments summary as written: no raw personal ID, no machine path.

``results/judgments/summary/<study>.json`` is read by the report and shipped in
the release archive as it is, so it holds only what they need: counts, the
checks and settings, and, where the report names a participant (the exclusion
audit) or a session (the corrections applied), keyed pseudonyms instead of the
IDs the responses carry (a crowdsourcing platform's participant or session ID,
the collection server's session ID). Sessions are summarised per list, and the
importers' notes on each response file are counted (they quote session IDs;
the quality table lists them).

The pseudonyms are :func:`stecflow.release.archive.pseudonym` with the release
key (``release.key``, else the campaign ID) and the column's initial then a dash,
``P-<hmac>``: the part after the dash is the part after the dash of the
released judgments' pseudonym of the same ID (``P07-<hmac>``), so the two can be
matched. Paths are made relative to the working directory (the campaign folder
when Snakemake runs the job) when under it, else reduced to the file name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["PERSONAL_KEYS", "public_quality", "public_summary", "sessions_by_list"]

#: Keys whose string values identify a person or a session.
PERSONAL_KEYS = ("participant", "session", "subject")
#: Keys whose values list participants.
PERSONAL_LISTS = ("excluded_participants",)


def sessions_by_list(sessions: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Per-session records (keyed by session ID) as counts per list.

    >>> sessions_by_list({
    ...     "a": {"list": "L01", "subject": "x", "status": "completed",
    ...           "partial": False, "n_missing": 0},
    ...     "b": {"list": "L01", "subject": "y", "status": "aborted",
    ...           "partial": True, "n_missing": 3},
    ... })["L01"]  # doctest: +NORMALIZE_WHITESPACE
    {'sessions': 2, 'subjects': 2, 'partial': 1, 'missing_trials': 3,
     'statuses': {'aborted': 1, 'completed': 1}}
    """
    lists: dict[str, list[Mapping[str, Any]]] = {}
    for info in sessions.values():
        lists.setdefault(str(info.get("list") or ""), []).append(info)
    out: dict[str, Any] = {}
    for name in sorted(lists):
        infos = lists[name]
        entry: dict[str, Any] = {
            "sessions": len(infos),
            "subjects": len({str(i.get("subject")) for i in infos}),
            "partial": sum(1 for i in infos if i.get("partial")),
            "missing_trials": sum(
                int(i["n_missing"]) if "n_missing" in i else len(i.get("missing") or ())
                for i in infos
            ),
        }
        statuses = Counter(str(i["status"]) for i in infos if i.get("status"))
        if statuses:
            entry["statuses"] = dict(sorted(statuses.items()))
        out[name] = entry
    return out


def public_summary(summary: Mapping[str, Any], key: str) -> dict[str, Any]:
    """*summary* without raw IDs or absolute paths (see the module's text).

    >>> s = public_summary(
    ...     {"sources": [{"file": "/srv/x/responses/a.tsv"}],
    ...      "corrections": {"report": [{"session": "5f1c2e", "item": "t1"}]},
    ...      "exclusions": {"excluded_participants": ["PID-1"],
    ...                     "audit": [{"participant": "PID-1", "list": "L01"}]}},
    ...     "k")
    >>> s["sources"][0]["file"]
    'a.tsv'
    >>> s["exclusions"]["audit"][0]["participant"] == s["exclusions"][
    ...     "excluded_participants"][0] != "PID-1"
    True
    >>> s["corrections"]["report"][0]["session"].startswith("S-")
    True
    """
    return _public(summary, key, None)


def public_quality(
    rows: Sequence[Mapping[str, Any]],
    key: str,
    others: Iterable[Mapping[str, Any]] = (),
) -> list[dict[str, Any]]:
    """Quality-table rows as written: the same keyed pseudonyms as the summary.

    ``results/judgments/quality/<study>.tsv`` is released as it is and listed in
    the report, so its ``participant``, ``session`` and ``subject`` cells become
    pseudonyms, an ID quoted in ``detail`` (the importers' notes quote sessions)
    its pseudonym, and ``source_file`` (also where ``detail`` quotes it) a
    relative path. *others* (the judgments' rows) adds the IDs a detail may
    quote that no quality row has in its own columns ("3 sessions did list L04:
    ..."). ``source_file`` and
    ``source_line`` still point the organiser at the raw line.

    >>> [row] = public_quality(
    ...     [{"session": "5f1c2e", "subject": "ann", "source_line": "7",
    ...       "detail": "session 5f1c2e again (first on line 2 of /srv/c/a.tsv)",
    ...       "source_file": "/srv/c/a.tsv"}], "k")
    >>> row["session"].startswith("S-"), row["session"] in row["detail"]
    (True, True)
    >>> "5f1c2e" in str(row), row["source_file"], row["source_line"]
    (False, 'a.tsv', '7')
    >>> row["detail"].endswith("(first on line 2 of a.tsv)")
    True
    >>> public_quality([{"subject": "a", "detail": "subject a answered a trial"}],
    ...                "k")[0]["detail"]  # doctest: +ELLIPSIS
    'subject S-... answered a trial'
    """
    import re

    from stecflow.release.paths import relative_path

    names: dict[str, str] = {}
    for row in [*rows, *others]:
        for column in PERSONAL_KEYS:
            value = row.get(column)
            if value not in (None, "") and str(value) not in names:
                names[str(value)] = _pseudonym(value, column, key)
    files = {
        str(row["source_file"]): relative_path(str(row["source_file"]))
        for row in rows
        if row.get("source_file")
    }
    # an ID is replaced where a detail names it ("session 5f1c2e", "evaluator e")
    # and, when it cannot be a word (a digit in it, or 6 characters or more),
    # wherever it stands (lists such as "sessions: 5f1c2e, 9a0b11")
    alternatives = "|".join(re.escape(v) for v in sorted(names, key=len, reverse=True))
    loose = [v for v in names if len(v) >= 6 or any(c.isdigit() for c in v)]
    patterns = [
        r"(\b(?:session|subject|evaluator|participant) )(" + alternatives + r")"
        r"(?![\w-])"
    ]
    if loose:
        patterns.append(
            r"((?<![\w-]))("
            + "|".join(re.escape(v) for v in sorted(loose, key=len, reverse=True))
            + r")(?![\w-])"
        )
    quoted = [re.compile(p) for p in patterns] if names else []
    out = []
    for row in rows:
        new = dict(row)
        for column in PERSONAL_KEYS:
            if new.get(column) not in (None, ""):
                new[column] = names[str(new[column])]
        if isinstance(new.get("detail"), str):
            detail = new["detail"]
            for path in files:  # "(first on line 2 of <file>)"
                detail = detail.replace(path, files[path])
            for pattern in quoted:
                detail = pattern.sub(lambda m: m.group(1) + names[m.group(2)], detail)
            new["detail"] = detail
        if new.get("source_file"):
            new["source_file"] = files[str(new["source_file"])]
        out.append(new)
    return out


def _source(entry: Any, key: str) -> Any:
    """A response file's entry: its importer notes counted, not quoted (they
    name sessions; the quality table has them, one per row)."""
    if not isinstance(entry, Mapping) or "notes" not in entry:
        return _public(entry, key, None)
    rest = {k: v for k, v in entry.items() if k != "notes"}
    return {**_public(rest, key, None), "n_notes": len(entry["notes"] or ())}


def _pseudonym(value: Any, column: str, key: str) -> Any:
    from stecflow.release.archive import pseudonym

    if value is None or value == "":
        return value
    return pseudonym(str(value), key, prefix=f"{column[0].upper()}-")


def _public(value: Any, key: str, name: str | None) -> Any:
    from stecflow.release.paths import relative_path

    if isinstance(value, Mapping):
        if name == "sessions" and all(isinstance(v, Mapping) for v in value.values()):
            return sessions_by_list(value)
        out = {}
        for k, v in value.items():
            k = str(k)
            if k == "sources" and isinstance(v, list):
                out[k] = [_source(entry, key) for entry in v]
            elif k == "sessions" and isinstance(v, Mapping):
                out["lists"] = _public(v, key, "sessions")
            elif k in PERSONAL_KEYS and not isinstance(v, Mapping | list):
                out[k] = _pseudonym(v, k, key)
            elif k in PERSONAL_LISTS and isinstance(v, list):
                out[k] = sorted(_pseudonym(p, "participant", key) for p in v)
            else:
                out[k] = _public(v, key, k)
        return out
    if isinstance(value, list | tuple):
        return [_public(v, key, name) for v in value]
    if isinstance(value, str):
        return relative_path(value)
    return value
