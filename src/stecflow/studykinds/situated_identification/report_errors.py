"""The situated study's error analysis by expression form (seed 000 §5.3.1-5.3.2).

The seed looks at the instances "for which a majority of evaluators failed to
identify the target" (2 FP-DP, 4 FP-Orig, 3 of which were action-mentioning
expressions; 4 FN, two of them "sore to onazi katati" ...). :func:`error_rows`
counts, per instance class and expression form, the instances tested and those
whose identification rate (correct / responses) is below a threshold
(:data:`THRESHOLD`, 0.5: most participants got them wrong), with the wrong
responses; :func:`error_blocks` draws that table and the list of the instances
below the threshold with the expression shown.

The instances and their rates are the judgments summary's ``instances`` (one
row per instance and class, from the merged judgments); the form of an
expression shown as in the corpus is its reference's ``form`` field in the test
set's items (``ctx.items``), the system's expression in the FP-system class is
the pronoun the system proposed.

May import what the report may (:mod:`stecflow.core`, :mod:`stecflow.report`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from stecflow.report.context import Block, Context, notice
from stecflow.report.formatting import DASH
from stecflow.report.inputs import JudgmentStudy
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["SYSTEM_FORM", "THRESHOLD", "error_blocks", "error_rows", "wrong_instances"]

#: An instance "most participants got wrong": identification rate below this.
THRESHOLD = 0.5
#: The form of the expression an FP-system trial shows (the system's pronoun).
SYSTEM_FORM = "demonstrative_pronoun"
_CLASS_ORDER = ("TP", "FN", "FP-Orig", "FP-system")
_FORM_ORDER = (
    "demonstrative_pronoun",
    "demonstrative_adjective",
    "definite_description",
    "unique_name",
    "action_mentioning",
    "other",
)


def _int(value: Any) -> int:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return 0


def _rate(row: Mapping[str, Any]) -> float | None:
    n = _int(row.get("n_responses"))
    return _int(row.get("n_correct")) / n if n else None


def _form(row: Mapping[str, Any], forms: Mapping[str, str]) -> str:
    if row.get("class") == "FP-system":
        return SYSTEM_FORM
    return forms.get(str(row.get("instance")), "unknown")


def _order(cls: str, form: str) -> tuple[int, int, str]:
    c = _CLASS_ORDER.index(cls) if cls in _CLASS_ORDER else len(_CLASS_ORDER)
    f = _FORM_ORDER.index(form) if form in _FORM_ORDER else len(_FORM_ORDER)
    return c, f, f"{cls}|{form}"


def error_rows(
    instances: Iterable[Mapping[str, Any]],
    forms: Mapping[str, str],
    threshold: float = THRESHOLD,
) -> list[dict[str, Any]]:
    """Instances below *threshold* per class and expression form.

    Parameters
    ----------
    instances : iterable of mapping
        The judgments summary's ``instances``: ``instance``, ``class``,
        ``n_correct``, ``n_responses``.
    forms : mapping
        Instance ID -> the corpus expression's form.
    threshold : float
        An instance is wrong for most participants when its identification
        rate (correct / responses) is below it.

    Returns
    -------
    list of dict
        Per (class, form), in the seed's class order and the format's form
        order: ``class``, ``form``, ``n_instances``, ``n_below`` (instances
        below the threshold), ``share_below`` (``n_below / n_instances``),
        ``n_wrong`` and ``n_responses`` (responses that missed the target, all
        responses).

    Examples
    --------
    >>> rows = error_rows(
    ...     [{"instance": "a", "class": "FN", "n_correct": 1, "n_responses": 4},
    ...      {"instance": "b", "class": "FN", "n_correct": 3, "n_responses": 4}],
    ...     {"a": "demonstrative_pronoun", "b": "demonstrative_pronoun"})
    >>> [(r["n_instances"], r["n_below"], r["share_below"], r["n_wrong"])
    ...  for r in rows]
    [(2, 1, 0.5, 4)]
    """
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for row in instances:
        cls = str(row.get("class", ""))
        form = _form(row, forms)
        cell = cells.setdefault(
            (cls, form),
            {
                "class": cls,
                "form": form,
                "n_instances": 0,
                "n_below": 0,
                "n_wrong": 0,
                "n_responses": 0,
            },
        )
        rate = _rate(row)
        cell["n_instances"] += 1
        cell["n_below"] += int(rate is not None and rate < threshold)
        cell["n_responses"] += _int(row.get("n_responses"))
        cell["n_wrong"] += _int(row.get("n_responses")) - _int(row.get("n_correct"))
    out = [cells[k] for k in sorted(cells, key=lambda k: _order(*k))]
    for cell in out:
        cell["share_below"] = cell["n_below"] / cell["n_instances"]
    return out


def wrong_instances(
    instances: Iterable[Mapping[str, Any]],
    forms: Mapping[str, str],
    threshold: float = THRESHOLD,
) -> list[dict[str, Any]]:
    """The instances below *threshold*: ``instance``, ``class``, ``form``,
    ``ir``, ``n_correct``, ``n_responses``, by class, then rate, then ID."""
    out = []
    for row in instances:
        rate = _rate(row)
        if rate is None or rate >= threshold:
            continue
        out.append(
            {
                "instance": str(row.get("instance")),
                "class": str(row.get("class")),
                "form": _form(row, forms),
                "ir": rate,
                "n_correct": _int(row.get("n_correct")),
                "n_responses": _int(row.get("n_responses")),
            }
        )
    return sorted(
        out, key=lambda r: (_order(r["class"], r["form"])[0], r["ir"], r["instance"])
    )


def _item_fields(ctx: Context) -> tuple[dict[str, str], dict[str, str]]:
    """Instance ID -> the corpus expression's form, and -> its words."""
    forms, words = {}, {}
    for item in ctx.items:
        for reference in getattr(item, "references", ()):
            fields = dict(getattr(reference, "fields", ()) or ())
            if "form" in fields:
                forms[item.id] = str(fields["form"])
                words[item.id] = str(reference.word_string or "")
                break
    return forms, words


def _label(form: str) -> str:
    return form.replace("_", " ")


def error_blocks(
    ctx: Context,
    study: JudgmentStudy,
    class_title: Any,
    threshold: float = THRESHOLD,
) -> list[Block]:
    """The error table by class and form, and the list of the instances most
    participants got wrong (*class_title* names a class for the table)."""
    instances = [
        r for r in study.summary.get("instances") or [] if isinstance(r, Mapping)
    ]
    if not instances:
        return [
            notice(
                "The judgments summary has no per-instance identification rates.",
                "placeholder",
            )
        ]
    forms, words = _item_fields(ctx)
    rows = error_rows(instances, forms, threshold)
    pct = f"{threshold:.0%}"
    notes = [
        f"An instance counts as wrong for most participants when fewer than {pct}"
        " of the responses to it chose the target (its identification rate is"
        f" below {threshold:g}); “I don't know” counts as not correct.",
        "Form: of the corpus expression, or for the system's trials the"
        " demonstrative pronoun it proposed.",
    ]
    if study.summary.get("simulated"):
        notes.append("Simulated data: answers of simulated evaluators, not people.")
    blocks = [
        ctx.table(
            Table(
                f"situated-{study.study}-errors",
                f"Instances most participants got wrong by class and expression"
                f" form, study {study.study} (seed 000 §5.3.1-5.3.2): instances"
                f" tested, those with an identification rate below {threshold:g}"
                " and their share, and the wrong responses.",
                [
                    Column("class", "Class", align="l"),
                    Column("form", "Form", align="l"),
                    Column("n_instances", "Instances"),
                    Column("n_below", f"IR < {threshold:g}"),
                    Column("share_below", "Share"),
                    Column(
                        "wrong", "Wrong / responses", csv=("n_wrong", "n_responses")
                    ),
                ],
                [
                    Row(
                        (
                            Cell(class_title(r["class"]), csv=(r["class"],)),
                            Cell(_label(r["form"]), csv=(r["form"],)),
                            Cell(str(r["n_instances"])),
                            Cell(str(r["n_below"])),
                            Cell(f"{r['share_below']:.3f}"),
                            Cell(
                                f"{r['n_wrong']} / {r['n_responses']}",
                                csv=(str(r["n_wrong"]), str(r["n_responses"])),
                            ),
                        )
                    )
                    for r in rows
                ],
                notes,
            )
        )
    ]
    wrong = wrong_instances(instances, forms, threshold)
    listed: Sequence[Row] = [
        Row(
            (
                Cell(class_title(r["class"]), csv=(r["class"],)),
                Cell(r["instance"]),
                Cell(
                    "(the system's pronoun)"
                    if r["class"] == "FP-system"
                    else words.get(r["instance"], DASH)
                ),
                Cell(_label(r["form"]), csv=(r["form"],)),
                Cell(f"{r['ir']:.3f}"),
                Cell(f"{r['n_correct']} / {r['n_responses']}"),
            )
        )
        for r in wrong
    ]
    if listed:
        blocks.append(
            ctx.table(
                Table(
                    f"situated-{study.study}-wrong",
                    f"The instances most participants got wrong, study"
                    f" {study.study}: the expression shown, its form and the"
                    " identification rate.",
                    [
                        Column("class", "Class", align="l"),
                        Column("instance", "Instance", align="l"),
                        Column("expression", "Expression", align="l"),
                        Column("form", "Form", align="l"),
                        Column("ir", "IR"),
                        Column("correct", "Correct / responses"),
                    ],
                    list(listed),
                    notes[:1],
                )
            )
        )
    return blocks
