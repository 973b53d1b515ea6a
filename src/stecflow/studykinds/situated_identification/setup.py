"""The situated study's design and stimuli stages (seed 000 §5.1) in the campaign.

Owns the step from a campaign's prepared dialogue test set and one system's
accepted ``outputs.tsv`` to the files of a ``situated_identification`` study:

* :func:`situated_instances`: the instance table
  :func:`.design.situated_design` needs, one row per
  instance (solver expression) with the system's class (TP, FP, FN, TN), the
  times of its context, the features of seed 000 Table 3 and the two expressions
  a trial can show;
* :func:`design_situated_study`: the design stage, writing ``design.tsv``,
  ``balance.tsv`` and ``design.json`` (contracts in the module's functions);
* :func:`build_situated_stimuli`: the stimuli stage, building the web experiment
  (:func:`.stimuli.build_situated_study`) from ``design.tsv``
  and a ``dmdx/README.txt`` saying why there are no DMDX files.

Every impossible request is a :class:`~stecflow.core.errors.ConfigError` naming the
study's config key (``studies[<id>].situated.<key>``) and saying what would work.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.tasks`, :mod:`stecflow.submissions`, :mod:`stecflow.baselines`,
:mod:`stecflow.studies`; pandas inside functions.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.core.errors import ConfigError
from stecflow.core.io import format_tsv, read_json, read_tsv, write_json, write_tsv

if TYPE_CHECKING:
    import pandas as pd

    from stecflow.data.dialogue import Session
    from stecflow.data.model import Item, Output

__all__ = [
    "DMDX_README",
    "INSTANCE_TABLE_COLUMNS",
    "build_situated_stimuli",
    "design_situated_study",
    "situated_instances",
]

log = logging.getLogger(__name__)

#: The columns of :func:`situated_instances`, in order: the design's
#: ``INSTANCE_COLUMNS``, the features D1..O2 and what a trial shows.
INSTANCE_TABLE_COLUMNS = (
    "instance",
    "session",
    "class",
    "target",
    "context_start_ms",
    "utterance_start_ms",
    "last_mention_ms",
    "last_action_ms",
    "D1",
    "D2",
    "D3",
    "D4",
    "D5",
    "A1",
    "A2",
    "A3",
    "A4",
    "A5",
    "O1",
    "O2",
    "form",
    "target_shape",
    "original_expression",
    "system_expression",
    "corpus_pronoun",
    "system_pronoun",
    "speaker",
)

#: The keys of ``studies[].situated`` that are arguments of ``situated_design``.
_DESIGN_KEYS = (
    "features",
    "halves_by",
    "n_per_class",
    "max_fp",
    "trial_budget",
    "max_context_ms",
    "speaker",
)

#: What ``dmdx/README.txt`` says (``{study}`` filled in).
DMDX_README = """\
Study {study}: no DMDX files

This is a situated identification study (seed 000): each trial replays a clip
of the shared work area (the pieces and the mouse cursor moving as logged, with
the preceding dialogue) before the participant chooses the piece a referring
expression refers to. DMDX item files show static displays and cannot replay
such a clip, so none are made for this study.

To run the study:

* in a browser, open ../web/index.html (offline mode: the page saves the results
  as a file at the end), or
* serve it to participants and collect the responses with

      stecflow serve {study}

The trials are those of ../design.tsv; ../balance.tsv proves its balance.
"""


#: Defaults of a situated study's ``situated`` settings (the seed's choices).
SITUATED_DEFAULTS = {
    "features": ["O1", "O2"],
    "halves_by": None,
    "n_per_class": 20,
    "max_fp": None,
    "trial_budget": 80,
    "max_context_ms": 30_000,
    "speaker": "solver",
    "majority": "strict",
    "speech": False,
    "media": None,
    "recordings": None,
}


def check_spec(spec: dict[str, Any], n: int) -> None:
    """The kind's ``check`` hook: fill a situated study's defaults; refuse what
    it cannot have (a study entry of
    :func:`stecflow.studies.setup.study_specs`, the *n*-th)."""
    where = f"studies[{n}]"
    spec["situated"] = {**SITUATED_DEFAULTS, **(spec.get("situated") or {})}
    if len(spec["systems"]) != 1:
        raise ConfigError(
            "a situated_identification study tests one system: the one whose false"
            " positives are shown against the corpus expressions (seed 000); make a"
            " study per system",
            field=f"{where}.systems",
        )
    if spec["design"] != "latin_square" or spec["shared"] or spec["practice"]:
        raise ConfigError(
            "a situated_identification study has its own two-group design (seed 000);"
            " leave out design, shared and practice",
            field=f"{where}.design",
        )
    if spec["variant"] is not None or spec.get("realise"):
        raise ConfigError(
            "variant and realise are for the REG identification studies",
            field=f"{where}.variant",
        )
    if spec["subjects"] % 2:
        raise ConfigError(
            f"{spec['subjects']} subjects cannot form the two equal groups of the"
            f" seed's design; use {spec['subjects'] + 1}",
            field=f"{where}.subjects",
        )
    situated = spec["situated"]
    if situated.get("recordings") is not None:
        if situated.get("speech") or situated.get("media"):
            raise ConfigError(
                "recordings give each clip the sound of its session; leave out"
                " speech (spoken transcript) and media (files per instance)",
                field=f"{where}.situated.recordings",
            )
        if not Path(str(situated["recordings"])).is_dir():
            raise ConfigError(
                f"{situated['recordings']} is not a folder; give the folder holding"
                " one sound recording per session, named <session id>.<suffix>"
                " (e.g. s01.wav)",
                field=f"{where}.situated.recordings",
            )


def _study_system(spec: Mapping[str, Any]) -> str:
    systems = list(spec.get("systems") or [])
    if len(systems) != 1 or not isinstance(systems[0], str) or "/" not in systems[0]:
        raise ConfigError(
            f"study {spec['id']!r} tests the FP instances of exactly one system; "
            f"give one team/system, got {systems!r}",
            field=f"studies[{spec['id']}].systems",
        )
    return systems[0]


def situated_instances(
    sessions: Iterable[Session],
    items: Sequence[Item],
    decisions: Mapping[str, Output],
    *,
    max_context_ms: int = 30_000,
) -> pd.DataFrame:
    """The instance table of a system's decisions, for the situated design.

    Parameters
    ----------
    sessions : iterable of Session
        The test set's sessions (:func:`stecflow.data.dialogue.read_sessions`).
    items : sequence of Item
        Its instances (:func:`stecflow.tasks.situated_dialogue.items_from_sessions`).
    decisions : mapping of str to Output
        Instance ID -> the system's output (``pronoun`` decision, optional
        expression), as :func:`stecflow.tasks.situated_dialogue.read_outputs`
        reads them; every instance needs one.
    max_context_ms : int, default 30000
        The longest context (seed 000: 30 s): ``context_start_ms`` is
        :func:`stecflow.data.dialogue.context_start` with this maximum, the start
        the stimuli builder and the simulated evaluators replay from (empty when
        the target was not mentioned or acted on before, or the context holding
        both would be longer).

    Returns
    -------
    pandas.DataFrame
        One row per item, in the items' order, with :data:`INSTANCE_TABLE_COLUMNS`:
        ``class`` the system's TP/FP/FN/TN
        (:func:`stecflow.metrics.classification.instance_classes` of the corpus's
        pronoun against the decision); times in ms from the session's start
        (``utterance_start_ms`` the onset of the expression's utterance,
        ``last_mention_ms`` the onset of the utterance of the last earlier mention
        of the target, ``last_action_ms`` the start of the last action on it begun
        before the onset; missing times are NaN); the features D1..O2; ``form``
        (the corpus's form); ``target_shape``; ``original_expression`` (the
        corpus's words); ``system_expression`` (the output's expression, else,
        for a pronoun decision, the language's demonstrative of
        :data:`stecflow.baselines.situated.DEMONSTRATIVES`, else empty: the
        system proposed none); ``corpus_pronoun``, ``system_pronoun``;
        ``speaker``.

    Raises
    ------
    ConfigError
        An instance without a decision, or an item of an unknown session.
    """
    import pandas as pd

    from stecflow.baselines.situated import DEMONSTRATIVES
    from stecflow.data.dialogue import context_start, context_times
    from stecflow.metrics.classification import instance_classes

    by_id = {s.id: s for s in sessions}
    missing = [item.id for item in items if item.id not in decisions]
    undecided = [
        item.id
        for item in items
        if item.id in decisions
        and not isinstance(decisions[item.id].get("pronoun"), bool)
    ]
    if missing or undecided:
        shown = ", ".join((missing + undecided)[:5])
        raise ConfigError(
            f"{len(missing) + len(undecided)} instance(s) without a pronoun decision"
            f" ({shown}); the system must decide every instance",
            field="decisions",
        )
    rows = []
    for item in items:
        instance = item.input
        session = by_id.get(getattr(instance, "session", None))
        if session is None:
            raise ConfigError(
                f"instance {item.id} is of session {item.subdomain!r}, which is "
                "not among the sessions given",
                field="sessions",
            )
        utterance, expression = session.find(item.id)
        onset, mention, action = context_times(session, item.id)
        output = decisions[item.id]
        system_pronoun = bool(output.get("pronoun"))
        shown = output.word_string or ""
        if not shown and system_pronoun:
            shown = DEMONSTRATIVES.get(session.language, "")
        rows.append(
            {
                "instance": item.id,
                "session": session.id,
                "target": expression.referent,
                "context_start_ms": context_start(session, item.id, max_context_ms),
                "utterance_start_ms": onset,
                "last_mention_ms": mention,
                "last_action_ms": action,
                **expression.features.as_dict(),
                "form": expression.form,
                "target_shape": session.piece(expression.referent).shape,
                "original_expression": utterance.span(expression),
                "system_expression": shown,
                "corpus_pronoun": expression.is_pronoun,
                "system_pronoun": system_pronoun,
                "speaker": utterance.speaker,
            }
        )
    classes = instance_classes(
        [r["corpus_pronoun"] for r in rows], [r["system_pronoun"] for r in rows]
    )
    for row, cls in zip(rows, classes, strict=True):
        row["class"] = cls
    table = pd.DataFrame(rows, columns=list(INSTANCE_TABLE_COLUMNS))
    for column in ("context_start_ms", "last_mention_ms", "last_action_ms", "D2", "A2"):
        table[column] = pd.to_numeric(table[column]).astype(float)
    for column in ("utterance_start_ms", "D4", "D5", "A4", "A5"):
        table[column] = table[column].astype("int64")
    for column in ("D1", "D3", "A1", "O1", "O2", "corpus_pronoun", "system_pronoun"):
        table[column] = table[column].astype(bool)
    return table


def _situated(spec: Mapping[str, Any]) -> dict[str, Any]:
    situated = spec.get("situated")
    if situated is None:
        return {}
    if not isinstance(situated, Mapping):
        raise ConfigError(
            "must be a mapping of the situated design's settings",
            field=f"studies[{spec['id']}].situated",
        )
    return dict(situated)


def _config_error(spec: Mapping[str, Any], error: ConfigError) -> ConfigError:
    """A design error as a config error naming the study's key."""
    study = spec["id"]
    key = error.field or ""
    if key in ("subjects", "seed"):
        where = f"studies[{study}].{key}"
    elif key in _DESIGN_KEYS:
        where = f"studies[{study}].situated.{key}"
    elif key == "instances" and "expression to show" in error.message:
        where = f"studies[{study}].systems"
    elif key == "instances":  # too few FP instances qualify
        where = f"studies[{study}].situated.max_context_ms"
    else:
        where = f"studies[{study}].situated"
    return ConfigError(f"study {study!r}: {error.message}", field=where)


def _plain(value: Any) -> Any:
    """JSON-ready Python values (numpy scalars unwrapped)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        return value.item()
    return value


def _read_decisions(
    spec: Mapping[str, Any],
    system: str,
    items: Sequence[Item],
    outputs_path: str | Path,
    record: Mapping[str, Any],
) -> dict[str, Output]:
    from stecflow.submissions.safepath import read_submission_file
    from stecflow.tasks.base import Limits
    from stecflow.tasks.situated_dialogue import read_outputs

    path = Path(outputs_path)
    data = read_submission_file(path.parent, path.name)  # no link out of it
    limits = Limits.from_config(record.get("limits"))
    outputs, problems = read_outputs(
        data, f"{system}/{path.name}", items, ["pronoun"], limits
    )
    errors = [p for p in problems if p.severity == "error"]
    if errors:  # accepted at validation: the file changed since
        shown = "; ".join(p.describe() for p in errors[:3])
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise ConfigError(
            f"study {spec['id']!r}: the outputs of {system} changed since they were"
            f" validated: {shown}{more}; run the workflow again",
            field=f"studies[{spec['id']}].systems",
        )
    return {o.item_id: o for o in outputs}


def design_situated_study(
    spec: Mapping[str, Any],
    testset_path: str | Path,
    outputs_path: str | Path,
    validation_path: str | Path,
    design_path: str | Path,
    balance_path: str | Path,
    settings_path: str | Path,
) -> dict[str, Any]:
    """Build a situated study's design from one system's decisions and write it.

    Parameters
    ----------
    spec : mapping
        The study entry (:func:`stecflow.studies.setup.study_specs`): ``id``,
        ``systems`` (exactly one ``team/system``), ``subjects``, ``seed`` and
        ``situated`` (``features``, ``halves_by``, ``n_per_class``, ``max_fp``,
        ``trial_budget``, ``max_context_ms``, ``speaker``: the arguments of
        :func:`.design.situated_design`; missing
        keys take its defaults).
    testset_path : path
        The prepared test set (``results/data/testset.json``) or a corpus folder.
    outputs_path : path
        The system's ``outputs.tsv`` in its submission folder.
    validation_path : path
        Its validation record (``results/validation/<team>/<system>.json``); its
        ``status`` must be ``accepted``.
    design_path, balance_path, settings_path : path
        ``design.tsv`` (``SITUATED_TRIAL_COLUMNS``, one row per list and trial),
        ``balance.tsv`` (the design's balance table) and ``design.json``
        (``design.settings()`` with ``task``, ``variant``, ``system``,
        ``intrinsic``, ``classes``, ``qualification``, ``allocation``,
        ``halves``: ``{"by": halves_by, "A": [FP1 IDs], "B": [FP2 IDs],
        "strata": {label: {"A": n, "B": n}}}``, ``clips``: the clip durations of
        :func:`.design_clips.clip_summary`, and ``counts``). Beside them,
        ``clips.tsv``: the clip of every instance shown
        (:data:`.design_clips.CLIP_COLUMNS`: start, end, duration and utterance
        onset in ms of session time). Deterministic bytes.

    Returns
    -------
    dict
        What ``design.json`` holds.

    Raises
    ------
    ConfigError
        Not exactly one system; its validation not accepted (naming the study,
        the system and the validation report); its outputs changed since; an
        impossible design (odd subjects, too many trials for the budget, too few
        qualifying instances), with ``field`` the config key
        (``studies[<id>].situated.<key>``) and a message saying what would work.
    """
    from stecflow.data.dialogue import read_sessions
    from stecflow.metrics.classification import ConfusionMatrix
    from stecflow.studies.designs.balance import BALANCE_COLUMNS
    from stecflow.studykinds.situated_identification.design import (
        ALLOCATION_COLUMNS,
        SITUATED_TRIAL_COLUMNS,
        situated_design,
    )
    from stecflow.studykinds.situated_identification.design_clips import (
        CLIP_COLUMNS,
        clip_rows,
        clip_summary,
    )
    from stecflow.studykinds.situated_identification.stimuli import SITUATED_TASK
    from stecflow.tasks.situated_dialogue import items_from_sessions

    study = spec["id"]
    system = _study_system(spec)
    situated = _situated(spec)
    record = read_json(validation_path)
    if record.get("status") != "accepted":
        report = Path(validation_path).with_suffix(".md")
        raise ConfigError(
            f"study {study!r} tests {system}, whose submission was not accepted at"
            f" validation (status {record.get('status')!r}); see {report}, or test"
            " another system",
            field=f"studies[{study}].systems",
        )
    named = f"{record.get('team')}/{record.get('system')}"
    if named != system:
        raise ConfigError(
            f"study {study!r} tests {system} but {validation_path} is the validation"
            f" record of {named}",
            field=f"studies[{study}].systems",
        )
    sessions = read_sessions(testset_path)
    items = items_from_sessions(sessions)
    decisions = _read_decisions(spec, system, items, outputs_path, record)
    arguments = {k: situated[k] for k in _DESIGN_KEYS if k in situated}
    columns = ", ".join(INSTANCE_TABLE_COLUMNS[8:])
    features = arguments.get("features", ("O1", "O2"))
    if isinstance(features, str) or not all(
        isinstance(f, str) and f in INSTANCE_TABLE_COLUMNS for f in features
    ):
        raise ConfigError(
            f"study {study!r}: features must be a list of columns of the instance"
            f" table ({columns}), got {features!r}",
            field=f"studies[{study}].situated.features",
        )
    halves_by = arguments.get("halves_by")
    if halves_by is not None and halves_by not in INSTANCE_TABLE_COLUMNS:
        raise ConfigError(
            f"study {study!r}: halves_by must be null (random halves) or a column"
            f" of the instance table ({columns}), got {halves_by!r}",
            field=f"studies[{study}].situated.halves_by",
        )
    try:
        table = situated_instances(
            sessions,
            items,
            decisions,
            max_context_ms=arguments.get("max_context_ms", 30_000),
        )
    except ConfigError as error:
        raise ConfigError(
            f"study {study!r}: {system}: {error.message}",
            field=f"studies[{study}].systems",
        ) from None
    try:
        design = situated_design(
            table,
            subjects=spec["subjects"],
            seed=spec["seed"],
            study=study,
            original="Orig",
            system=system,
            **arguments,
        )
    except ConfigError as error:  # DesignError is one
        raise _config_error(spec, error) from None
    trials = design.trials
    Path(design_path).parent.mkdir(parents=True, exist_ok=True)
    Path(design_path).write_text(
        format_tsv(trials.to_dict(orient="records"), SITUATED_TRIAL_COLUMNS),
        encoding="utf-8",
    )
    balance = design.balance
    write_tsv(balance.to_dict(orient="records"), BALANCE_COLUMNS, balance_path)
    classes = dict(zip(table["instance"], table["class"], strict=True))
    matrix = ConfusionMatrix(
        *(sum(c == name for c in classes.values()) for name in ("TP", "FP", "FN", "TN"))
    )
    qualification = design.qualification
    per_list = trials.groupby("list").size()
    selected = design.parameters["selected_per_class"]
    clips = clip_rows(table, trials["item"])  # seed 000 §5.1: the clips shown
    settings = {
        **design.settings(),
        "task": SITUATED_TASK,
        "variant": None,
        "system": system,
        "intrinsic": matrix.as_dict(),
        "classes": dict(sorted(classes.items())),
        "qualification": {
            cls: {
                "n": int((qualification["class"] == cls).sum()),
                "qualifying": int(
                    (qualification["qualifies"] & (qualification["class"] == cls)).sum()
                ),
            }
            for cls in ("TP", "FP", "FN", "TN")
        },
        "allocation": [
            {c: row[c] for c in ALLOCATION_COLUMNS}
            for row in design.allocation.to_dict(orient="records")
        ],
        "halves": _halves(design, table, halves_by),
        "clips": clip_summary(clips),
        "counts": {
            "fp": selected["FP"],
            "tp": selected["TP"],
            "fn": selected["FN"],
            "trials_per_subject": int(per_list.max()),
            "subjects": design.subjects,
            "lists": int(trials["list"].nunique()),
        },
    }
    settings = _plain(settings)
    write_json(settings, settings_path)
    write_tsv(clips, CLIP_COLUMNS, Path(design_path).parent / "clips.tsv")
    log.info(
        "%s: situated design of %s, %d FP + %d TP + %d FN instances, %d subjects",
        study,
        system,
        selected["FP"],
        selected["TP"],
        selected["FN"],
        design.subjects,
    )
    return settings


def _halves(design: Any, table: pd.DataFrame, halves_by: str | None) -> dict[str, Any]:
    """The FP halves (``A`` = FP1, ``B`` = FP2) and their stratum counts."""
    a, b = sorted(design.item_sets["A"]), sorted(design.item_sets["B"])
    strata: dict[str, dict[str, int]] = {}
    if halves_by is not None:
        labels = dict(zip(table["instance"], table[halves_by], strict=True))
        for half, ids in (("A", a), ("B", b)):
            for i in ids:
                counts = strata.setdefault(str(labels[i]), {"A": 0, "B": 0})
                counts[half] += 1
    return {"by": halves_by, "A": a, "B": b, "strata": dict(sorted(strata.items()))}


def _media_files(folder: Path, instances: Iterable[str], where: str) -> dict[str, str]:
    """Instance ID -> its media file in *folder* (``<instance>.<suffix>``)."""
    from stecflow.studykinds.situated_identification.stimuli import (
        AUDIO_SUFFIXES,
        VIDEO_SUFFIXES,
    )

    if not folder.is_dir():
        raise ConfigError(f"{folder} is not a folder of media files", field=where)
    suffixes = VIDEO_SUFFIXES + AUDIO_SUFFIXES
    found: dict[str, list[str]] = {}
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.suffix.lower() in suffixes:
            found.setdefault(path.stem, []).append(path.name)
    media, problems = {}, []
    for instance in sorted(set(instances)):
        names = found.get(instance, [])
        if len(names) == 1:
            media[instance] = names[0]
        elif not names:
            problems.append(f"no {instance}.<{'|'.join(s[1:] for s in suffixes)}>")
        else:
            problems.append(f"{instance} has {len(names)} files ({', '.join(names)})")
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise ConfigError(
            f"{folder}: every instance shown needs exactly one media file named"
            f" after it: {'; '.join(problems[:5])}{more}",
            field=where,
        )
    return media


def _design_lists(
    spec: Mapping[str, Any], design_path: str | Path
) -> tuple[dict[str, list[dict[str, str]]], dict[str, int]]:
    """Each list of ``design.tsv`` with its trials in ``order``, and its group."""
    from stecflow.studykinds.situated_identification.design import (
        SITUATED_TRIAL_COLUMNS,
    )

    rows = read_tsv(design_path)
    where = f"studies[{spec['id']}]"
    if not rows:
        raise ConfigError(f"{design_path} has no trials", field=where)
    absent = [c for c in SITUATED_TRIAL_COLUMNS if c not in rows[0]]
    if absent:
        raise ConfigError(
            f"{design_path} is not a situated design: no column(s) {', '.join(absent)}",
            field=where,
        )
    lists: dict[str, list[dict[str, str]]] = {}
    groups: dict[str, int] = {}
    for n, row in enumerate(rows, start=2):
        try:
            row["_order"] = int(row["order"])
            groups[row["list"]] = int(row["group"])
        except ValueError:
            raise ConfigError(
                f"{design_path}, line {n}: order and group must be integers, got"
                f" {row['order']!r} and {row['group']!r}",
                field=where,
            ) from None
        lists.setdefault(row["list"], []).append(row)
    for trials in lists.values():
        trials.sort(key=lambda r: r["_order"])
    return lists, groups


def _recordings(
    spec: Mapping[str, Any],
    situated: Mapping[str, Any],
    lists: Mapping[str, list[dict[str, str]]],
    items: Mapping[str, Item],
    sessions: Sequence[Session],
) -> dict[str, Path]:
    """The checked recording of every session the design shows (session ID ->
    path), for its clips' audio (:func:`.stimuli_clips.recording_files`)."""
    from stecflow.studykinds.situated_identification.stimuli_clips import (
        recording_files,
    )

    where = f"studies[{spec['id']}].situated.recordings"
    if situated.get("speech") or situated.get("media"):
        raise ConfigError(
            "recordings give each clip the sound of its session; leave out speech"
            " (spoken transcript) and media (files per instance)",
            field=where,
        )
    by_id = {s.id: s for s in sessions}
    clips = []
    for instance in sorted({r["item"] for t in lists.values() for r in t}):
        session = by_id[items[instance].input.session]
        utterance, _ = session.find(instance)
        clips.append({"session": session.id, "end_ms": utterance.start_ms})
    return recording_files(situated["recordings"], clips, where)


def build_situated_stimuli(
    spec: Mapping[str, Any],
    design_path: str | Path,
    testset_path: str | Path,
    web_dir: str | Path,
    dmdx_dir: str | Path,
) -> dict[str, Any]:
    """Build a situated study's web experiment from its ``design.tsv``.

    Each list of the design becomes a list of the experiment, its trials in
    ``order``: the instance's context replayed, then its utterance with the
    expression shown (the system's for ``shown = system``, else the corpus's).
    The settings are the study's ``experiment`` (``language``, ``title``,
    ``strings``, the situated strings included: see
    :func:`.stimuli.situated_settings`), ``speech``,
    ``max_context_ms``, ``media`` and ``recordings`` of its ``situated`` entry.
    ``media`` is a folder with one video or audio file per instance shown, named
    ``<instance>.<suffix>``; ``recordings`` a folder with one sound recording per
    session shown, named ``<session>.<suffix>``, from which each clip's audio is
    cut with ffmpeg (:mod:`.stimuli_clips`). ``dmdx_dir`` gets ``README.txt``
    (:data:`DMDX_README`): DMDX cannot replay a clip.

    Returns
    -------
    dict
        The summary of :func:`.stimuli.build_situated_study`
        (``study``, ``task``, ``lists``, ``trials``, ``files``, ``sha256``).

    Raises
    ------
    ConfigError
        A list over the trial budget (``studies[<id>].situated.trial_budget``),
        a design that does not fit the test set, missing media files, missing
        or unreadable recordings or ffmpeg not installed
        (``studies[<id>].situated.recordings``), a study opened with other
        stimuli (``sha256``), bad experiment settings.
    """
    from stecflow.core.errors import StimuliError
    from stecflow.data.dialogue import read_sessions
    from stecflow.studykinds.situated_identification.stimuli import (
        SituatedInstance,
        build_situated_study,
    )
    from stecflow.tasks.situated_dialogue import items_from_sessions

    study = spec["id"]
    situated = _situated(spec)
    budget = situated.get("trial_budget", 80)
    lists, groups = _design_lists(spec, design_path)
    over = {k: len(v) for k, v in sorted(lists.items()) if len(v) > budget}
    if over:
        shown = ", ".join(f"{k} ({n})" for k, n in list(over.items())[:5])
        raise ConfigError(
            f"study {study!r}: {len(over)} list(s) of {design_path} have more trials"
            f" than the budget of {budget}: {shown}; design the study again within"
            " the budget (lower n_per_class or set max_fp)",
            field=f"studies[{study}].situated.trial_budget",
        )
    sessions = read_sessions(testset_path)
    items = {item.id: item for item in items_from_sessions(sessions)}
    unknown = sorted({r["item"] for t in lists.values() for r in t} - set(items))
    if unknown:
        raise ConfigError(
            f"study {study!r}: {design_path} shows instance(s) the test set does not"
            f" have: {', '.join(unknown[:5])}; design the study again",
            field=f"studies[{study}]",
        )
    recordings = None
    if situated.get("recordings"):
        recordings = _recordings(spec, situated, lists, items, sessions)
    media: dict[str, str] = {}
    if situated.get("media"):
        media = _media_files(
            Path(situated["media"]),
            (r["item"] for t in lists.values() for r in t),
            f"studies[{study}].situated.media",
        )
    out_lists = {}
    for list_id, trials in lists.items():
        entries = []
        for row in trials:
            item = items[row["item"]]
            corpus = (item.input.text, item.input.expression.referent)
            if row["target"] != corpus[1] or (
                row["shown"] == "original" and row["expression"] != corpus[0]
            ):
                raise ConfigError(
                    f"study {study!r}: {design_path}, list {list_id}, trial"
                    f" {row['order']}: the test set's {item.id} is {corpus[0]!r}"
                    f" referring to {corpus[1]}, not {row['expression']!r} referring"
                    f" to {row['target']}; design the study again",
                    field=f"studies[{study}]",
                )
            entries.append(
                SituatedInstance(
                    session=item.input.session,
                    expression=item.id,
                    text=row["expression"] if row["shown"] == "system" else None,
                    system=row["system"],
                    media=media.get(item.id),
                    item=item.id,
                )
            )
        out_lists[list_id] = entries
    settings = dict(spec.get("experiment") or {})
    if not settings.get("title") and spec.get("title"):
        settings["title"] = spec["title"]
    try:
        summary = build_situated_study(
            sessions,
            out_lists,
            study=study,
            out_dir=web_dir,
            overwrite=True,
            settings=settings,
            max_context_ms=situated.get("max_context_ms", 30_000),
            media_dir=situated.get("media"),
            speech=bool(situated.get("speech", False)),
            groups=groups,
            recordings=recordings,
        )
    except ConfigError as error:
        field = error.field or ""
        if not field.startswith("experiment"):
            field = f"experiment.{field}" if field else "experiment"
        raise ConfigError(
            f"study {study!r}: {error.message}", field=f"studies[{study}].{field}"
        ) from None
    except StimuliError as error:
        raise ConfigError(
            f"study {study!r}: {error.message}", field=f"studies[{study}].situated"
        ) from None
    dmdx = Path(dmdx_dir)
    dmdx.mkdir(parents=True, exist_ok=True)
    (dmdx / "README.txt").write_text(DMDX_README.format(study=study), encoding="utf-8")
    return summary


def design_hook(
    spec: Mapping[str, Any],
    testset_path: str | Path,
    practice_path: str | Path | None,
    design_path: str | Path,
    balance_path: str | Path,
    settings_path: str | Path,
    system_files: Sequence[str | Path],
) -> dict[str, Any]:
    """The kind's ``design`` hook (:func:`stecflow.studies.setup.design_study`'s
    arguments): the system's ``outputs.tsv`` and validation record are its
    *system_files*; no practice items."""
    outputs_path, validation_path = system_files
    return design_situated_study(
        spec,
        testset_path,
        outputs_path,
        validation_path,
        design_path,
        balance_path,
        settings_path,
    )


def stimuli_hook(
    spec: Mapping[str, Any],
    design_path: str | Path,
    testset_path: str | Path,
    practice_path: str | Path | None,
    submission_dirs: Mapping[str, str | Path],
    images_dir: str | Path | None,
    web_dir: str | Path,
    dmdx_dir: str | Path,
    tasks: Sequence[str] | None,
) -> dict[str, Any]:
    """The kind's ``stimuli`` hook (:func:`stecflow.studies.setup.build_stimuli`'s
    arguments): the design holds the expressions it shows, so the submissions,
    pictures and practice items are not read."""
    return build_situated_stimuli(spec, design_path, testset_path, web_dir, dmdx_dir)
