"""How a score is shown: one place for the report and ``stecflow score``.

The campaign report and the command line that teams run on their development data
show scores through these functions, so that a team's number reads exactly like
the organisers' table: the same label and unit (from :func:`.inputs.metric_infos`,
whose table says which metrics are percentages and which are rescaled), the same
decimals, the same interval, the same notes and the same signature.

:func:`score_text` formats one score with its interval; :func:`score_table` lays
out one system's scores (metrics × subsets) as a report :class:`~.tables.Table`,
which renders as text, CSV and LaTeX; :func:`score_records` gives the same strings
as long-format rows for TSV and JSON; :func:`render_scores` picks the format.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stecflow.core.io import format_float
from stecflow.report.formatting import DASH, fixed, parse_float
from stecflow.report.inputs import MetricInfo, fallback_metric
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = [
    "OUTPUT_FORMATS",
    "RECORD_COLUMNS",
    "ScoreText",
    "interval_note",
    "render_scores",
    "score_records",
    "score_table",
    "score_text",
    "subset_header",
    "subset_title",
    "unit_notes",
]

#: The formats :func:`render_scores` writes.
OUTPUT_FORMATS = ("table", "tsv", "json", "latex")

#: Columns of :func:`score_records` (and of ``stecflow score --tsv``). ``metric``,
#: ``subset_kind``, ``subset``, ``value``, ``ci_low``, ``ci_high`` and ``n`` are
#: named and written as in the report's CSV downloads.
RECORD_COLUMNS = (
    "metric",
    "label",
    "subset_kind",
    "subset",
    "n",
    "value",
    "ci_low",
    "ci_high",
    "higher_is_better",
    "status",
    "reason",
    "signature",
)

_ORDER = {"all": 0, "subdomain": 1, "condition": 2}


@dataclass(frozen=True)
class ScoreText:
    """A score as shown: value and interval bounds, on the report's scale.

    ``low`` and ``high`` are empty when the score has no interval (resampling
    off, or too few items).
    """

    text: str
    low: str = ""
    high: str = ""

    @property
    def interval(self) -> str:
        """``[low, high]``, or empty."""
        return f"[{self.low}, {self.high}]" if self.low and self.high else ""


def score_text(
    info: MetricInfo, value: Any, low: Any = None, high: Any = None
) -> ScoreText | None:
    """Format a stored score and its interval as the report shows them.

    Parameters
    ----------
    info
        The metric's display info (scale, percentage, decimals).
    value, low, high
        The score and its interval bounds as stored (floats, TSV strings or
        ``None``); ``scores/systems.tsv`` and
        :func:`stecflow.scoring.score.score_outputs`
        hold them on the metric's own scale (BLEU 0–100, accuracies 0–1).

    Returns
    -------
    ScoreText or None
        ``None`` when there is no score.

    Examples
    --------
    >>> from stecflow.report.inputs import MetricInfo
    >>> acc = MetricInfo("acc", "acc", "Acc", "Acc", "text", "item", True,
    ...                  percent=True)
    >>> score_text(acc, 0.5, "0.25", 0.75)
    ScoreText(text='50.00', low='25.00', high='75.00')
    >>> score_text(acc, 0.5).interval, score_text(acc, "nan")
    ('', None)

    A number is first rounded as the workflow stores it (10 significant digits),
    so a score straight from scoring reads as the report's copy of it:

    >>> se = MetricInfo("se", "se", "SE", "SE", "text", "item", False)
    >>> score_text(se, 1.1250000000000002).text, score_text(se, "1.125").text
    ('1.12', '1.12')
    """
    shown = info.show(_stored(value))
    if shown is None:
        return None
    lo, hi = (info.show(_stored(v)) for v in (low, high))
    if lo is None or hi is None:
        return ScoreText(fixed(shown, info.digits))
    return ScoreText(
        fixed(shown, info.digits), fixed(lo, info.digits), fixed(hi, info.digits)
    )


def _stored(value: Any) -> float | None:
    """*value* as the workflow's files hold it (:func:`.format_float`)."""
    number = parse_float(value)
    return None if number is None else float(format_float(number))


def subset_title(kind: str, name: str, everything: str = "All test data") -> str:
    """A subset's title (``All test data``, ``People``, ``+LOC``).

    Examples
    --------
    >>> subset_title("all", "all"), subset_title("subdomain", "people")
    ('All test data', 'People')
    >>> subset_title("condition", "+LOC"), subset_title("all", "all", "All items")
    ('+LOC', 'All items')
    """
    if kind == "all":
        return everything
    return name[:1].upper() + name[1:] if kind == "subdomain" else name


def subset_header(
    kind: str, name: str, n: Any, everything: str = "All test data"
) -> str:
    """A subset's column title with its size: ``People (n = 56)``.

    >>> subset_header("subdomain", "people", 56)
    'People (n = 56)'
    """
    return f"{subset_title(kind, name, everything)} (n = {n})"


def interval_note(scoring: Mapping[str, Any] | None, lead: str = "Second line") -> str:
    """What the interval beside a score is; empty without resampling.

    >>> interval_note({"bootstrap": {"resamples": 200, "seed": 11}}, "In brackets")
    'In brackets: 95% percentile bootstrap confidence interval (200 resamples of the items, seed 11).'
    >>> interval_note({"bootstrap": {"resamples": 0}})
    ''
    """  # noqa: E501
    boot = (scoring or {}).get("bootstrap") or {}
    resamples = int(boot.get("resamples", 1000))
    if not resamples:
        return ""
    level = f"{100 * float(boot.get('confidence', 0.95)):g}%"
    return (
        f"{lead}: {level} percentile bootstrap confidence interval"
        f" ({resamples} resamples of the items, seed {boot.get('seed', 2009)})."
    )


def unit_notes(infos: Sequence[MetricInfo]) -> list[str]:
    """Notes on scales and units of the metrics shown (BLEU 0–1, % of items)."""
    notes = []
    hundredths = [i.label for i in infos if i.scale == 0.01]  # sacreBLEU's BLEU
    if hundredths:
        notes.append(
            f"{', '.join(hundredths)} on a 0–1 scale (sacreBLEU's 0–100 divided by"
            " 100)."
        )
    percent = [i.label for i in infos if i.percent]
    if percent:
        notes.append(f"{', '.join(percent)} in % of items.")
    corpus = [i.label for i in infos if i.level == "corpus"]
    if corpus:
        notes.append(
            f"{', '.join(corpus)} computed at corpus level on each subset;"
            " the other measures are means of item scores."
        )
    return notes


# ---------------------------------------------------------------------------
# one system's scores (stecflow score)


def _info(infos: Mapping[str, MetricInfo], row: Mapping[str, Any]) -> MetricInfo:
    info = infos.get(row["metric"])
    if info is not None:
        return info
    higher = row.get("higher_is_better")
    return fallback_metric(
        row["metric"],
        str(row.get("metric_name") or ""),
        higher in (True, "true", "True"),
    )


def _metrics(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    ids: list[str] = []
    for row in rows:
        if row.get("metric") and row["metric"] not in ids:
            ids.append(row["metric"])
    return ids


def _subsets(rows: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, Any]]:
    """``(kind, name, n)`` of the subsets scored, all first, then as scoring
    orders; n counts the subset's items, as the report's headers do (also those
    a metric leaves out, e.g. precision the instances the system did not mark)."""
    seen: dict[tuple[str, str], Any] = {}
    for row in rows:
        if row.get("status") == "scored":
            n = row.get("n", "")
            if isinstance(n, int) and isinstance(row.get("n_skipped"), int):
                n += row["n_skipped"]
            seen.setdefault((row["subset_kind"], row["subset"]), n)
    keys = sorted(seen, key=lambda k: (_ORDER.get(k[0], 3), k[1]))
    return [(kind, name, seen[(kind, name)]) for kind, name in keys]


def _skipped(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    return {
        r["metric"]: str(r.get("reason") or r.get("status") or "")
        for r in rows
        if r.get("metric") and r.get("status") != "scored"
    }


def score_records(
    rows: Sequence[Mapping[str, Any]], infos: Mapping[str, MetricInfo]
) -> list[dict[str, Any]]:
    """One system's scores as long-format rows of report strings.

    Parameters
    ----------
    rows
        System rows of :func:`stecflow.scoring.score.score_outputs` (or of
        ``scores/systems.tsv`` for one system).
    infos
        Display info by metric ID (:func:`.inputs.metric_infos`).

    Returns
    -------
    list of dict
        The columns of :data:`RECORD_COLUMNS`, in metric order, then subsets
        (all, subdomains, conditions). ``value``, ``ci_low`` and ``ci_high`` are
        the report's strings (empty when missing); a metric that was not computed
        has one row with ``status`` ``skipped`` and the reason.
    """
    records = []
    order = {m: n for n, m in enumerate(_metrics(rows))}
    for row in sorted(
        (r for r in rows if r.get("metric")),
        key=lambda r: (
            order[r["metric"]],
            _ORDER.get(r.get("subset_kind") or "all", 3),
            r.get("subset") or "",
        ),
    ):
        info = _info(infos, row)
        shown = score_text(
            info, row.get("value"), row.get("ci_low"), row.get("ci_high")
        )
        scored = row.get("status") == "scored"
        records.append(
            {
                "metric": row["metric"],
                "label": info.header,
                "subset_kind": row.get("subset_kind") or "all",
                "subset": row.get("subset") or "all",
                "n": row.get("n", "") if scored else "",
                "value": shown.text if shown and scored else "",
                "ci_low": shown.low if shown and scored else "",
                "ci_high": shown.high if shown and scored else "",
                "higher_is_better": info.higher_is_better,
                "status": row.get("status") or "",
                "reason": row.get("reason") or "",
                "signature": row.get("signature") or "",
            }
        )
    return records


def score_table(
    rows: Sequence[Mapping[str, Any]],
    infos: Mapping[str, MetricInfo],
    scoring: Mapping[str, Any] | None,
    *,
    caption: str = "Automatic scores.",
    table_id: str = "scores",
    everything: str = "All items",
) -> Table:
    """One system's scores as a table: a row per metric, a column per subset.

    Cells are :func:`score_text` with the interval as second line (in brackets
    in the LaTeX and text renderings); the notes are the report's (units, scales,
    metrics not computed, what the interval is) and the signatures.
    """
    subsets = _subsets(rows)
    columns = [Column("metric", "Metric", align="l", csv=("metric", "label"))]
    for kind, name, n in subsets:
        stem = "" if kind == "all" else f"{name}_"
        columns.append(
            Column(
                f"{stem}value",
                subset_header(kind, name, n, everything),
                csv=(f"{stem}value", f"{stem}ci_low", f"{stem}ci_high"),
            )
        )
    skipped = _skipped(rows)
    shown: list[MetricInfo] = []
    body = []
    for metric in _metrics(rows):
        mine = [r for r in rows if r.get("metric") == metric]
        info = _info(infos, mine[0])
        cells = [Cell(info.header, csv=(metric, info.header))]
        by_subset = {(r.get("subset_kind"), r.get("subset")): r for r in mine}
        if metric not in skipped:
            shown.append(info)
        for kind, name, _ in subsets:
            row = by_subset.get((kind, name))
            text = None
            if row is not None and row.get("status") == "scored":
                text = score_text(
                    info, row["value"], row.get("ci_low"), row.get("ci_high")
                )
            if text is None:
                why = skipped.get(metric, "not computed for this subset")
                cells.append(Cell(DASH, csv=("", "", ""), title=why))
            else:
                cells.append(
                    Cell(text.text, text.interval, csv=(text.text, text.low, text.high))
                )
        body.append(Row(tuple(cells)))
    notes = unit_notes(shown)
    reasons: dict[str, list[str]] = {}
    for metric, reason in skipped.items():
        reasons.setdefault(reason, []).append(_info(infos, {"metric": metric}).label)
    for reason, labels in reasons.items():
        notes.append(f"{DASH} {', '.join(labels)}: not computed: {reason}.")
    signatures = _signatures(rows, infos)
    notes += [f"Signature {label}: {signature}" for label, signature in signatures]
    return Table(
        table_id,
        caption,
        columns,
        body,
        notes,
        latex_detail=True,
        detail_note=interval_note(scoring, "In brackets"),
    )


def _signatures(
    rows: Sequence[Mapping[str, Any]], infos: Mapping[str, MetricInfo]
) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for metric in _metrics(rows):
        found = sorted(
            {
                str(r["signature"])
                for r in rows
                if r.get("metric") == metric and r.get("signature")
            }
        )
        label = _info(infos, {"metric": metric}).header
        out += [(label, signature) for signature in found]
    return out


def render_scores(
    rows: Sequence[Mapping[str, Any]],
    infos: Mapping[str, MetricInfo],
    scoring: Mapping[str, Any] | None,
    fmt: str = "table",
    *,
    caption: str = "Automatic scores.",
    header: Mapping[str, Any] | None = None,
) -> str:
    """One system's scores as text (``table``), TSV, JSON or LaTeX.

    Parameters
    ----------
    rows, infos, scoring
        As for :func:`score_table`.
    fmt
        One of :data:`OUTPUT_FORMATS`.
    caption
        The table's caption (first line of the text, LaTeX caption).
    header
        Extra top-level keys of the JSON document (e.g. file names, item counts).

    Returns
    -------
    str
        Ending with a newline.
    """
    from stecflow.core.io import format_tsv

    if fmt not in OUTPUT_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {OUTPUT_FORMATS}")
    if fmt == "tsv":
        return format_tsv(score_records(rows, infos), RECORD_COLUMNS)
    table = score_table(rows, infos, scoring, caption=caption)
    if fmt == "latex":
        return table.to_latex()
    if fmt == "json":
        document = {
            **(header or {}),
            "scores": score_records(rows, infos),
            "notes": table.html_notes,
        }
        return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    return caption + "\n\n" + table.to_text() + "\n"
