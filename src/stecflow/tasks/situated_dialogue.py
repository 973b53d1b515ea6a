"""Situated dialogue (seed 000): decide, per referring expression, "use a pronoun".

An *instance* is a referring expression of the solver in a situated-dialogue
session (:mod:`stecflow.data.dialogue`), identified by its expression ID. A
system sees the session up to the onset of the expression's utterance (the
features of seed 000 Table 3 summarise it) and decides whether to use a
demonstrative pronoun (DP), optionally giving the expression to show. It is
scored against the corpus: the speaker used a DP or not (seed 000 §4.1).

Items: :func:`items_from_sessions` makes one :class:`~stecflow.data.model.Item`
per instance. Its ``domain`` is the session's pieces (attribute ``shape``), the
referent the target, so anything that looks at a domain sees the real scene;
its ``input`` is an :class:`Instance` (session, utterance, expression, language);
its ``subdomain`` is the session ID (scores per session); its one reference is
the corpus's expression, with ``fields`` ``form`` and ``pronoun``.

Outputs: ``outputs.tsv`` (:data:`OUTPUTS_FILE`), a header line
``instance<TAB>pronoun<TAB>expression`` (the ``expression`` column may be left
out), then one line per instance: its ID, ``1`` (a DP) or ``0``, and the
expression to show (may be empty). An :class:`~stecflow.data.model.Output` holds
the decision as ``fields`` ``(("pronoun", bool),)`` and the expression as
``word_string`` (None when empty). :func:`read_outputs` never raises on bad
input; :func:`format_outputs` / :func:`write_outputs` write the file.

Metrics: the decision metrics of :mod:`stecflow.metrics.decisions` (precision,
recall, F of the DP class) score :func:`metric_input` ``"decision"``: the
output's and the reference's ``pronoun``.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stecflow.core.errors import CorpusError
from stecflow.data.dialogue import Expression, Features, Session, Utterance
from stecflow.data.model import (
    Domain,
    Entity,
    EntityAttribute,
    Item,
    Output,
    Reference,
)
from stecflow.tasks.base import Limits, Problem, TaskType

__all__ = [
    "COLUMNS",
    "DEFAULT_METRICS",
    "OUTPUTS_FILE",
    "TASK",
    "Instance",
    "format_outputs",
    "items_from_sessions",
    "metric_input",
    "read_outputs",
    "write_outputs",
]

#: The file of a submission folder that holds the decisions.
OUTPUTS_FILE = "outputs.tsv"
#: The header of ``outputs.tsv``; the last column may be left out.
COLUMNS = ("instance", "pronoun", "expression")
#: Precision, recall and F of the DP class (seed 000 Table 4).
DEFAULT_METRICS = ("decision_precision", "decision_recall", "decision_f")

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True)
class Instance:
    """One instance of the task: a referring expression in its session."""

    session: str
    language: str
    utterance: Utterance
    expression: Expression

    @property
    def features(self) -> Features:
        """The seed 000 Table 3 features of the expression."""
        return self.expression.features

    @property
    def pronoun(self) -> bool:
        """The corpus's decision: the speaker used a demonstrative pronoun."""
        return self.expression.is_pronoun

    @property
    def text(self) -> str:
        """The words of the expression in the corpus."""
        return self.utterance.span(self.expression)


def items_from_sessions(
    sessions: Iterable[Session], speakers: Sequence[str] = ("solver",)
) -> list[Item]:
    """One item per referring expression of *speakers*, in timeline order.

    Seed 000 §5.1 uses only the solvers' expressions (the evaluators play the
    operator), the default here.

    Raises
    ------
    CorpusError
        Two sessions use one expression ID (instances are named by it).
    """
    items: list[Item] = []
    seen: dict[str, str] = {}
    for session in sessions:
        for utterance, expression in session.expressions():
            if utterance.speaker not in speakers:
                continue
            if expression.id in seen:
                raise CorpusError(
                    f"expression ID {expression.id!r} is also used in session"
                    f" {seen[expression.id]!r}; instances are named by it, so give"
                    " every expression of a corpus its own ID",
                    file=session.id,
                    field="id",
                )
            seen[expression.id] = session.id
            instance = Instance(session.id, session.language, utterance, expression)
            domain = Domain(
                tuple(
                    Entity(
                        piece.id,
                        piece.id == expression.referent,
                        (EntityAttribute("shape", piece.shape),),
                    )
                    for piece in session.pieces
                )
            )
            reference = Reference(
                word_string=instance.text,
                id="corpus",
                fields=(("form", expression.form), ("pronoun", instance.pronoun)),
            )
            items.append(
                Item(
                    expression.id,
                    domain,
                    session.id,
                    None,
                    (reference,),
                    input=instance,
                )
            )
    return items


def metric_input(
    source: Output | Reference, input_type: str, realise: Callable[..., str] | None
) -> Any:
    """What a metric scores: the ``pronoun`` decision, or the expression as text.

    >>> metric_input(Output("e1", fields=(("pronoun", True),)), "decision", None)
    True
    >>> metric_input(Output("e1", "that one"), "text", None)
    'that one'
    """
    if input_type == "decision":
        return source.get("pronoun")
    if input_type == "text":
        return source.word_string
    return None


def _problem(
    code: str, message: str, label: str, line: int | None, field: str | None = None
) -> Problem:
    return Problem(code, message, label, line, field)


def read_outputs(
    data: bytes,
    label: str,
    items: Sequence[Item],
    required: Sequence[str],
    limits: Limits,
) -> tuple[list[Output], list[Problem]]:
    """Read ``outputs.tsv``: every problem with its line; never raises.

    Parameters
    ----------
    data
        The file's bytes (UTF-8; ``\\n`` or ``\\r\\n`` line ends).
    label
        How messages name the file.
    items
        The instances, in test-set order.
    required
        Output fields every instance needs; ``"pronoun"`` makes a missing
        instance an error.
    limits
        ``max_trials`` bounds the lines read, ``max_word_string_chars`` an
        expression.

    Returns
    -------
    (outputs, problems)
        The outputs read (test-set order) and every problem.

    Examples
    --------
    >>> item = Item("e1", Domain(()), "s1")
    >>> outs, probs = read_outputs(b"instance\\tpronoun\\ne1\\tyes\\n", "o.tsv",
    ...                            [item], ["pronoun"], Limits())
    >>> [p.describe() for p in probs][0]
    "o.tsv, line 2, pronoun: the decision must be 1 (a demonstrative pronoun) or 0, not 'yes'"
    """  # noqa: E501
    problems: list[Problem] = []
    if data.startswith(b"\xef\xbb\xbf"):
        return [], [
            _problem(
                "byte_order_mark",
                "the file starts with a byte-order mark; save it as UTF-8 without one",
                label,
                1,
            )
        ]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [], [
            _problem(
                "not_utf8",
                "bytes are not valid UTF-8; save the file as UTF-8",
                label,
                data.count(b"\n", 0, exc.start) + 1,
            )
        ]
    known = {item.id for item in items}
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    columns = len(COLUMNS)
    start = 0
    header = lines[0].rstrip("\r").split("\t") if lines else []
    if header in (list(COLUMNS), list(COLUMNS[:2])):
        columns, start = len(header), 1
    else:
        problems.append(
            _problem(
                "missing_header",
                "the first line must be the header 'instance<TAB>pronoun<TAB>"
                "expression' (or 'instance<TAB>pronoun')",
                label,
                1,
            )
        )
        if header and header[0] in {"instance", "pronoun", "expression"}:
            start = 1  # a header, misspelt: do not read it as an instance
    outputs: dict[str, Output] = {}
    first_line: dict[str, int] = {}
    rows = 0
    for n, raw in enumerate(lines[start:], start=start + 1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        rows += 1
        if rows > limits.max_trials:
            problems.append(
                _problem(
                    "too_many_lines",
                    f"more than {limits.max_trials:,} instances; the rest is not"
                    " read (submissions.limits.max_trials in the campaign config)",
                    label,
                    n,
                )
            )
            break
        cells = line.split("\t")
        if len(cells) == 2 and columns == 3:
            cells.append("")
        if len(cells) != columns:
            problems.append(
                _problem(
                    "bad_columns",
                    f"{len(cells)} tab-separated cells; expected {columns}"
                    f" ({', '.join(COLUMNS[:columns])})",
                    label,
                    n,
                )
            )
            continue
        instance, decision = cells[0].strip(), cells[1].strip()
        expression = cells[2].strip() if columns == 3 else ""
        if instance not in known:
            shown = instance if len(instance) <= 64 else instance[:61] + "..."
            problems.append(
                _problem(
                    "unknown_instance",
                    f"{shown!r} is not an instance of the test set",
                    label,
                    n,
                    "instance",
                )
            )
            continue
        if instance in first_line:
            problems.append(
                _problem(
                    "duplicate_instance",
                    f"{instance} again (first on line {first_line[instance]});"
                    " give one line per instance",
                    label,
                    n,
                    instance,
                )
            )
            continue
        first_line[instance] = n
        bad = False
        if decision not in ("0", "1"):
            shown = decision if len(decision) <= 20 else decision[:17] + "..."
            problems.append(
                _problem(
                    "bad_decision",
                    "the decision must be 1 (a demonstrative pronoun) or 0, not"
                    f" {shown!r}",
                    label,
                    n,
                    "pronoun",
                )
            )
            bad = True
        if len(expression) > limits.max_word_string_chars:
            problems.append(
                _problem(
                    "expression_too_long",
                    f"the expression has {len(expression):,} characters; the limit"
                    f" is {limits.max_word_string_chars:,}"
                    " (submissions.limits.max_word_string_chars)",
                    label,
                    n,
                    "expression",
                )
            )
            bad = True
        elif _CONTROL.search(expression):
            problems.append(
                _problem(
                    "control_character",
                    "the expression holds a control character; remove it",
                    label,
                    n,
                    "expression",
                )
            )
            bad = True
        if not bad:
            outputs[instance] = Output(
                instance,
                expression or None,
                None,
                n,
                fields=(("pronoun", decision == "1"),),
            )
    if "pronoun" in required:
        missing = [item.id for item in items if item.id not in first_line]
        for item_id in missing[:20]:
            problems.append(
                _problem(
                    "missing_instance",
                    f"no decision for instance {item_id}; give one line per instance",
                    label,
                    None,
                    item_id,
                )
            )
        if len(missing) > 20:
            problems.append(
                _problem(
                    "missing_instance",
                    f"... and {len(missing) - 20:,} more instances without a decision",
                    label,
                    None,
                )
            )
    return [outputs[i.id] for i in items if i.id in outputs], problems


def format_outputs(outputs: Iterable[Output]) -> str:
    """The text of ``outputs.tsv`` for *outputs*, in their order.

    Raises
    ------
    ValueError
        An output has no ``pronoun`` decision, or its expression holds a tab, a
        line break or another control character.

    Examples
    --------
    >>> text = format_outputs([Output("e1", "that one", fields=(("pronoun", True),)),
    ...                        Output("e2", fields=(("pronoun", False),))])
    >>> text.splitlines()
    ['instance\\tpronoun\\texpression', 'e1\\t1\\tthat one', 'e2\\t0']
    """
    lines = ["\t".join(COLUMNS)]
    for output in outputs:
        decision = output.get("pronoun")
        if not isinstance(decision, bool):
            raise ValueError(f"{output.item_id}: no pronoun decision to write")
        expression = output.word_string or ""
        if _CONTROL.search(expression) or "\t" in expression or "\n" in expression:
            raise ValueError(f"{output.item_id}: the expression holds a control char")
        cells = [output.item_id, str(int(decision))] + (
            [expression] if expression else []
        )
        lines.append("\t".join(cells))
    return "\n".join(lines) + "\n"


def write_outputs(outputs: Iterable[Output], path: str | Path) -> None:
    """Write :func:`format_outputs` to *path* (UTF-8, LF)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(format_outputs(outputs).encode("utf-8"))


def _corpus_tables(path: str | Path) -> list[dict[str, Any]]:
    """The test set by form, feature and speaker, and what is not an instance
    (:func:`stecflow.tasks.situated_corpus.corpus_tables`)."""
    from stecflow.tasks.situated_corpus import corpus_tables

    return corpus_tables(path)


TASK = TaskType(
    name="situated_dialogue",
    summary="situated dialogue (a pronoun decision per referring expression)",
    input=(
        "a referring expression of the solver in a situated-dialogue session,"
        " with the dialogue, the actions and the cursor before it"
    ),
    outputs=("pronoun",),
    outputs_file=OUTPUTS_FILE,
    read_outputs=read_outputs,
    default_metrics=DEFAULT_METRICS,
    metric_input=metric_input,
    labels={"pronoun": "pronoun", "word_string": "expression"},
    describe_testset=_corpus_tables,
)
