"""The situated-dialogue test set described as seed 000 describes REX-J (§3, Table 2).

:func:`describe_corpus` counts the referring expressions of a corpus by form and
by the features of seed 000 Table 2 ((a) demonstratives, adjectives and
pronouns, from ``form``; (b) object attributes, (c) spatial relations and (d)
actions on a piece, from the optional ``content`` annotation), each by speaker
role (solver, operator), and says what was left out of the task's instances and
why: the expressions the annotators set aside (to groups of pieces, or whose
referent could not be determined; a session's optional ``set_aside``, seed §3)
and the operator's expressions (an instance is a solver's expression, seed
§5.1; :func:`stecflow.tasks.situated_dialogue.items_from_sessions`).

:func:`corpus_tables` gives both as plain tables (``id``, ``caption``,
``columns``, ``rows``, ``notes``): the task type's ``describe_testset``, which
the report's Methods section draws (:mod:`stecflow.report.testset_tables`).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from stecflow.data.dialogue import (
    CONTENT,
    FORMS,
    SET_ASIDE,
    SPEAKERS,
    Session,
    read_corpus_file,
)

__all__ = ["FEATURE_ROWS", "corpus_tables", "describe_corpus"]

#: The rows of seed 000 Table 2: (key, label). ``demonstrative`` counts the
#: expressions of either demonstrative form.
FEATURE_ROWS: tuple[tuple[str, str], ...] = (
    ("demonstrative", "(a) Demonstratives"),
    ("demonstrative_adjective", "(a) Demonstratives: adjectives (“that triangle”)"),
    ("demonstrative_pronoun", "(a) Demonstratives: pronouns (“that one”)"),
    ("object_attribute", "(b) Object attributes (“the small triangle”)"),
    ("spatial_relation", "(c) Spatial relations (“on the left”)"),
    ("action", "(d) Actions on a piece (“the triangle you just moved”)"),
)

_FORM_LABELS = {
    "demonstrative_pronoun": "demonstrative pronoun",
    "demonstrative_adjective": "demonstrative adjective",
    "definite_description": "definite description",
    "unique_name": "unique name",
    "action_mentioning": "action-mentioning expression",
    "other": "other",
}
_SET_ASIDE_LABELS = {
    "group": "set aside by the annotators: refers to a group of pieces",
    "undetermined": "set aside by the annotators: referent could not be determined",
}


def describe_corpus(
    sessions: Iterable[Session], speakers: Sequence[str] = ("solver",)
) -> dict[str, Any]:
    """Counts of a corpus's referring expressions (seed 000 §3 and Table 2).

    Parameters
    ----------
    sessions : iterable of Session
        The corpus.
    speakers : sequence of str
        Whose expressions are the task's instances (default the solver's, as
        :func:`~stecflow.tasks.situated_dialogue.items_from_sessions`).

    Returns
    -------
    dict
        ``sessions``; ``by_form`` and ``by_feature``: key -> speaker -> count
        (every form of :data:`~stecflow.data.dialogue.FORMS`, every key of
        :data:`FEATURE_ROWS`, every speaker of
        :data:`~stecflow.data.dialogue.SPEAKERS`); ``expressions``: speaker ->
        count; ``not_annotated``: speaker -> expressions without ``content``
        (their (b)-(d) are unknown); ``set_aside``: reason -> count over the
        sessions that record it, ``set_aside_sessions`` how many do;
        ``instances`` and ``not_instances`` (speaker -> count).

    Examples
    --------
    >>> from stecflow.data.dialogue import read_corpus
    >>> from pathlib import Path
    >>> root = Path(__file__).resolve().parents[3] / "resources" / "dialogue-demo"
    >>> d = describe_corpus(read_corpus(root))
    >>> d["expressions"], d["instances"]
    ({'solver': 368, 'operator': 43}, 368)
    >>> d["by_feature"]["demonstrative_pronoun"]
    {'solver': 129, 'operator': 43}
    """
    sessions = list(sessions)
    by_form = {f: dict.fromkeys(SPEAKERS, 0) for f in FORMS}
    by_feature = {k: dict.fromkeys(SPEAKERS, 0) for k, _ in FEATURE_ROWS}
    expressions = dict.fromkeys(SPEAKERS, 0)
    not_annotated = dict.fromkeys(SPEAKERS, 0)
    for session in sessions:
        for utterance, expression in session.expressions():
            who = utterance.speaker
            expressions[who] += 1
            by_form[expression.form][who] += 1
            if expression.form.startswith("demonstrative_"):
                by_feature["demonstrative"][who] += 1
                by_feature[expression.form][who] += 1
            if expression.content is None:
                not_annotated[who] += 1
                continue
            for key in CONTENT:
                if key in expression.content:
                    by_feature[key][who] += 1
    recorded = [dict(s.set_aside) for s in sessions if s.set_aside is not None]
    return {
        "sessions": len(sessions),
        "expressions": expressions,
        "by_form": by_form,
        "by_feature": by_feature,
        "not_annotated": not_annotated,
        "set_aside": {r: sum(s[r] for s in recorded) for r in SET_ASIDE},
        "set_aside_sessions": len(recorded),
        "instances": sum(n for who, n in expressions.items() if who in speakers),
        "not_instances": {
            who: n for who, n in expressions.items() if who not in speakers
        },
    }


def _row(label: str, counts: dict[str, int]) -> list[Any]:
    return [label, *(counts[s] for s in SPEAKERS), sum(counts.values())]


def corpus_tables(path: str | Path) -> list[dict[str, Any]]:
    """The test set's description tables, from the prepared corpus file.

    Parameters
    ----------
    path : str or Path
        ``results/data/testset.json``
        (:func:`~stecflow.data.dialogue.read_corpus_file`).

    Returns
    -------
    list of dict
        Two tables, each ``id``, ``caption``, ``columns`` (``(id, title)``
        pairs, the first the row label), ``rows`` (lists of cells: text or
        counts) and ``notes``: the expressions by form and by the features of
        seed 000 Table 2 per speaker role, and what was excluded from the
        instances and why.
    """
    d = describe_corpus(read_corpus_file(path))
    columns = [("what", "Form or feature")] + [(s, s.capitalize()) for s in SPEAKERS]
    columns.append(("all", "All"))
    rows = [_row("All referring expressions (to one piece)", d["expressions"])]
    rows += [_row(f"Form: {_FORM_LABELS[f]}", d["by_form"][f]) for f in FORMS]
    rows += [_row(label, d["by_feature"][key]) for key, label in FEATURE_ROWS]
    notes = [
        "An expression may have several of the features (b)-(d) (“the small"
        " triangle on the left”: an attribute and a spatial relation), so they do"
        " not add up; the forms do. Demonstratives come from each expression's"
        " form, (b)-(d) from its content annotation (docs/dialogue-format.md).",
    ]
    if any(d["not_annotated"].values()):
        rows.append(_row("Not annotated for (b)-(d)", d["not_annotated"]))
        notes.append(
            "Expressions without a content annotation are not counted in (b)-(d)."
        )
    set_aside = sum(d["set_aside"].values())
    total = sum(d["expressions"].values()) + set_aside
    excluded: list[list[Any]] = []
    if d["set_aside_sessions"]:
        excluded += [
            [_SET_ASIDE_LABELS[r], d["set_aside"][r], "not in the files (seed 000 §3)"]
            for r in SET_ASIDE
        ]
        head = [["Referring expressions annotated", total, ""]]
    else:
        head = []
        excluded.append(
            [
                "set aside by the annotators (groups, undetermined referents)",
                "not recorded",
                "the sessions have no set_aside counts",
            ]
        )
    excluded += [
        [
            f"the {who}'s expressions",
            n,
            "not instances: an instance is an expression of the solver (seed 000"
            " §5.1, the evaluators play the operator)",
        ]
        for who, n in d["not_instances"].items()
    ]
    excluded.append(["Instances (the task's items)", d["instances"], ""])
    partial = (
        f" ({d['set_aside_sessions']} of {d['sessions']} sessions record what was"
        " set aside)"
        if 0 < d["set_aside_sessions"] < d["sessions"]
        else ""
    )
    return [
        {
            "id": "testset-expressions",
            "caption": (
                f"Referring expressions of the test set ({d['sessions']} sessions)"
                " by form and by the features of seed 000 Table 2, per speaker"
                " role."
            ),
            "columns": columns,
            "rows": rows,
            "notes": notes,
        },
        {
            "id": "testset-excluded",
            "caption": (
                "What was left out of the instances and why (seed 000 §3 and"
                f" §5.1){partial}."
            ),
            "columns": [
                ("what", "Expressions"),
                ("n", "Count"),
                ("why", "Why"),
            ],
            "rows": head + excluded,
            "notes": [],
        },
    ]
