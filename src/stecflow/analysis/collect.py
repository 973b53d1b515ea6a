"""The item-score tables of rule ``collect_item_scores``: writing
``scores/items.tsv`` and ``scores/analysed.tsv``, and reading back the system
properties only the latter holds.

The analyses (:func:`stecflow.analysis.run.run_analysis`) and the
significance tests (:mod:`stecflow.scoring.significance`) read these two tables,
not the per-submission ones: which systems enter the statistics (accepted,
late ones only if ``statistics.include_late``), their labels, their item
scores over all references and their scores over all items.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from stecflow.core.io import format_tsv, iter_tsv_columns, read_json, write_tsv
from stecflow.scoring.systems import SYSTEM_COLUMNS, system_rows

__all__ = [
    "ANALYSED_COLUMNS",
    "ITEM_TABLE_COLUMNS",
    "collect_item_scores",
    "system_properties",
]

#: Columns of ``results/scores/items.tsv`` (every included system's item scores).
ITEM_TABLE_COLUMNS = (
    "team",
    "system",
    "label",
    "reference_set",
    "late",
    "primary",
    "item",
    "subdomain",
    "condition",
    "metric",
    "value",
    "stats",
)


#: Columns of ``scores/analysed.tsv`` (see :func:`collect_item_scores`):
#: ``properties`` holds the system's declared properties as JSON, ``tasks`` the
#: task types its validation record lists (space-separated), so that the
#: significance tests read them here rather than every validation record.
ANALYSED_COLUMNS = ("label", *SYSTEM_COLUMNS, "properties", "tasks")


def _labels(identities: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """System labels for tables: the system ID, or team/system where IDs clash."""
    counts: dict[str, int] = {}
    for _, system in identities:
        counts[system] = counts.get(system, 0) + 1
    return {
        (team, system): system if counts[system] == 1 else f"{team}/{system}"
        for team, system in identities
    }


def collect_item_scores(
    summary_paths: Sequence[str | Path],
    item_paths: Sequence[str | Path],
    out_path: str | Path,
    systems_out: str | Path | None = None,
    *,
    include_late: bool = False,
    validation_paths: Sequence[str | Path] | None = None,
) -> int:
    """Gather the item-level scores of every system that enters the statistics.

    Parameters
    ----------
    summary_paths, item_paths
        Each submission's ``scores/systems/…json`` and ``scores/items/…tsv``, in
        the same order.
    out_path
        ``scores/items.tsv``: one row per system × item × metric (the score over
        all references, with the metric's sufficient statistics in ``stats``, from
        which the significance tests rescore resamples), columns
        :data:`ITEM_TABLE_COLUMNS`.
    systems_out
        ``scores/analysed.tsv``: the same systems with their labels and their
        scores over all items (the ``subset`` *all* rows of ``scores/systems.tsv``,
        columns :data:`ANALYSED_COLUMNS`). The analyses take the systems and
        labels from it, and correlations their system-level BLEU and NIST; they
        read it rather than ``systems.tsv``, so that a late submission, which
        changes ``systems.tsv``, does not re-run them.
    include_late
        Include late submissions (default: they stay out of the official analyses).
    validation_paths
        Each submission's validation record (``validation/…json``), in the same
        order: the ``properties`` that passed validation go into
        ``scores/analysed.tsv`` (column ``properties``, JSON), where analyses by
        system property read them (:func:`system_properties`), and the task types
        the record lists (column ``tasks``), where the significance tests read them.

    Returns
    -------
    int
        The number of systems included.
    """
    import json

    chosen = []
    properties: dict[tuple[str, str], str] = {}
    tasks: dict[tuple[str, str], str] = {}
    records = list(validation_paths) if validation_paths else [None] * len(item_paths)
    for summary_path, item_path, record_path in zip(
        summary_paths, item_paths, records, strict=True
    ):
        summary = read_json(summary_path)
        if summary["status"] != "scored" or (summary["late"] and not include_late):
            continue
        chosen.append((summary, item_path))
        if record_path is not None:
            record = read_json(record_path)
            key = (summary["team"], summary["system"])
            properties[key] = json.dumps(record.get("properties") or {}, sort_keys=True)
            tasks[key] = " ".join(record.get("tasks") or [])
    labels = _labels([(s["team"], s["system"]) for s, _ in chosen])
    identity = ITEM_TABLE_COLUMNS[:6]  # then the columns of the item tables
    keep = ITEM_TABLE_COLUMNS[6:]

    def lines():  # one system's table at a time: memory does not grow with S
        yield format_tsv([], ITEM_TABLE_COLUMNS)
        for summary, item_path in chosen:
            key = (summary["team"], summary["system"])
            labelled = {**summary, "label": labels[key]}
            # the system's cells, then each row's cells as its table has them
            # (the same columns, so written the same way)
            prefix = format_tsv([labelled], identity).split("\n")[1]
            for line in _overall_lines(item_path, keep):
                yield f"{prefix}\t{line}"

    Path(out_path).parent.mkdir(parents=True, exist_ok=True)
    with open(out_path, "w", encoding="utf-8", newline="") as handle:
        handle.writelines(lines())
    if systems_out is not None:
        overall = (
            {
                "label": labels[(row["team"], row["system"])],
                **row,
                "properties": properties.get((row["team"], row["system"]), "{}"),
                "tasks": tasks.get((row["team"], row["system"]), ""),
            }
            for row in system_rows(s for s, _ in chosen)
            if row.get("subset") == "all"
        )
        write_tsv(overall, ANALYSED_COLUMNS, systems_out)
    return len(chosen)


def _overall_lines(path: str | Path, keep: Sequence[str]) -> Iterator[str]:
    """The rows of an item table scored over all references (``reference`` is
    ``*``), as lines of the cells of *keep* as written, each with its newline.

    A table whose columns are *keep* with ``reference`` inside them, as the
    scoring stage writes it, has each line cut around its reference cell
    without splitting it (2-3x faster); another table goes through
    :func:`stecflow.core.io.iter_tsv_columns`, a line of another shape (a short
    one, another ``*`` cell before the reference) through :func:`_cut_line`.

    >>> import tempfile
    >>> from stecflow.core.io import write_tsv
    >>> path = Path(tempfile.mkdtemp()) / "items.tsv"
    >>> write_tsv([{"item": "t1", "reference": "*", "value": 1},
    ...            {"item": "t1", "reference": "H1", "value": 2},
    ...            {"item": "*", "reference": "*", "value": "a\\tb"},
    ...            {"item": "t2", "reference": "*"}],
    ...           ["item", "reference", "value"], path)
    >>> list(_overall_lines(path, ["item", "value"]))
    ['t1\\t1\\n', '*\\ta\\\\tb\\n', 't2\\t\\n']
    """
    with open(path, encoding="utf-8", newline="") as handle:
        names = handle.readline().rstrip("\r\n").split("\t")
        at = names.index("reference") if "reference" in names else 0
        if not 0 < at < len(names) - 1 or names[:at] + names[at + 1 :] != list(keep):
            for cells in iter_tsv_columns(path, keep, ("reference", "*"), raw=True):
                yield "\t".join(c or "" for c in cells) + "\n"
            return
        before, after = at - 1, len(names) - at - 2  # tabs around the reference
        for line in handle:
            head, found, tail = line.partition("\t*\t")
            if not found:  # a short line may end with the reference
                if line.endswith(("\t*\n", "\t*", "\t*\r\n", "\t*\r")) and (
                    cut := _cut_line(line, at, len(names))
                ):
                    yield cut
                continue
            if (
                head.count("\t") == before
                and tail.count("\t") == after
                and tail.endswith("\n")
                and not tail.endswith("\r\n")
            ):
                yield f"{head}\t{tail}"
            elif (cut := _cut_line(line, at, len(names))) is not None:
                yield cut


def _cut_line(line: str, at: int, width: int) -> str | None:
    """*line* without its cell *at* if that cell is ``*`` (None otherwise), as
    :func:`stecflow.core.io.iter_tsv_columns` gives it: *width* cells, a short
    line padded with empty ones."""
    cells = line.rstrip("\r\n").split("\t")
    if len(cells) <= at or cells[at] != "*":
        return None
    cells = (cells + [""] * width)[:width]
    return "\t".join(cells[:at] + cells[at + 1 :]) + "\n"


def system_properties(systems_path: str | Path) -> dict[str, dict[str, Any]]:
    """Label -> declared properties of each system in ``scores/analysed.tsv``.

    Examples
    --------
    >>> import tempfile
    >>> from stecflow.core.io import write_tsv
    >>> path = Path(tempfile.mkdtemp()) / "analysed.tsv"
    >>> write_tsv([{"label": "A", "properties": '{"trainable": true}'},
    ...            {"label": "B", "properties": ""}], ["label", "properties"], path)
    >>> system_properties(path)
    {'A': {'trainable': True}, 'B': {}}
    """
    import json

    out: dict[str, dict[str, Any]] = {}
    # a row per system, metric and subset: 17,000 rows at 1,000 systems
    for label, properties in iter_tsv_columns(systems_path, ("label", "properties")):
        if label not in out:
            out[label] = json.loads(properties or "{}")
    return out
