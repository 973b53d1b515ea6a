"""The release's Human Evaluation Datasheet: HEDS 3.0, question by question.

HEDS 3.0 (Belz & Thomson 2024, "HEDS 3.0: The Human Evaluation Data Sheet
Version 3.0", arXiv:2412.07940) records one human evaluation experiment in five
sections: 1 the main reference and resources, 2 the evaluated systems, 3 the
sample, the evaluators and the design, 4 one block per quality criterion, 5
ethics. :data:`QUESTIONS` lists every question of the HEDS 3.0 form
(https://nlp-heds.github.io, github.com/DCU-NLG/HEDS-3.0) by its number, in the
form's order, with a short title of ours.

A campaign's studies are its experiments: :func:`datasheet` answers Sections 1,
2 and 5 once for the campaign, and Section 3 per study with one Section 4 per
quality criterion the study assesses (the Adequacy and Fluency of a rating
study; identification accuracy and time of an identification study; the
criteria of a text study). Every question is answered in every block it
belongs to, in order, and none twice (:func:`_block` checks it); an answer that
only the organisers can give (the paper, the contact, preregistration,
recruitment, ethics approval) says *to complete* unless the config's
``release`` section gives it.

What only a study kind can answer (its criteria, its trials, the time a trial
allows) comes from the kind's :class:`KindSheet`, which the kind's ``datasheet``
hook names (those of the built-in kinds: :mod:`stecflow.release.heds_kinds`);
this module reaches a sheet through :mod:`stecflow.studykinds.registry` and
never imports the kinds' sheets.

May import: :mod:`stecflow.core`, :mod:`stecflow.release.privacy`,
:mod:`stecflow.release.source`; :mod:`stecflow.tasks`,
:mod:`stecflow.studykinds.registry`, :mod:`stecflow.studies.settings`,
:mod:`stecflow.studies.strings` and :mod:`stecflow.studies.criteria` inside
functions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from stecflow.release.privacy import NO_ANSWER, PersonalDataPolicy
from stecflow.release.source import Source

__all__ = [
    "HEDS_VERSION",
    "QUESTIONS",
    "TO_COMPLETE",
    "datasheet",
    "section_questions",
]

#: The HEDS version the datasheet follows, as the datasheet names it.
HEDS_VERSION = (
    "HEDS 3.0 (Belz & Thomson 2024, “HEDS 3.0: The Human Evaluation Data Sheet"
    " Version 3.0”, arXiv:2412.07940; the questions and their numbers as in the"
    " HEDS 3.0 form, https://nlp-heds.github.io)"
)

#: Every question of the HEDS 3.0 form, by number, in the form's order: our
#: short title of each (the form's own wording is longer).
QUESTIONS: dict[str, str] = {
    "1.1.1": "Main reference",
    "1.1.2": "Experiment this sheet is completed for",
    "1.2": "Resources used in the experiment",
    "1.3.1.1": "Name of the person completing this sheet",
    "1.3.1.2": "Affiliation of the person completing this sheet",
    "1.3.1.3": "Email address of the person completing this sheet",
    "1.3.2.1": "Name of the contact author",
    "1.3.2.2": "Affiliation of the contact author",
    "1.3.2.3": "Email address of the contact author",
    "2.1": "Type of input",
    "2.2": "Type of output",
    "2.3": "Task",
    "2.4": "Language(s) of the inputs",
    "2.5": "Language(s) of the outputs",
    "3.1.1": "System outputs evaluated per system",
    "3.1.2": "Selection of the outputs",
    "3.1.3.1": "Method of statistical power analysis",
    "3.1.3.2": "Statistical power of the sample",
    "3.1.3.3": "Code of the power analysis",
    "3.2.1": "Number of evaluators",
    "3.2.2.1": "Domain experts",
    "3.2.2.2": "Payment",
    "3.2.2.3": "Evaluators previously known to the authors",
    "3.2.2.4": "Researchers among the evaluators",
    "3.2.3": "Recruitment",
    "3.2.4": "Training and practice",
    "3.2.5": "Other characteristics of the evaluators",
    "3.3.1": "Preregistration",
    "3.3.2": "Medium of response collection",
    "3.3.3.1": "Types of quality assurance",
    "3.3.3.2": "Quality assurance methods",
    "3.3.4.1": "Where the interface can be viewed",
    "3.3.4.2": "Information shown to evaluators",
    "3.3.5": "Freedom over when and how quickly to evaluate",
    "3.3.6": "Questions and feedback",
    "3.3.7": "Conditions of the evaluation",
    "3.3.8": "How the conditions vary between evaluators",
    "4.1.1": "Type of quality assessed",
    "4.1.2": "Aspect of the outputs assessed",
    "4.1.3": "Frame of reference",
    "4.2.1": "Objective or subjective",
    "4.2.2": "Absolute or relative",
    "4.2.3": "Intrinsic or extrinsic",
    "4.3.1.1": "Name of the criterion for evaluators",
    "4.3.1.2": "Standardised name of the criterion",
    "4.3.2": "Definition given to evaluators",
    "4.3.3": "Size of the scale or rating instrument",
    "4.3.4": "Possible values of the scale",
    "4.3.5": "How the scale is presented",
    "4.3.6": "Task without a rating instrument",
    "4.3.7": "Verbatim question, prompt or instruction",
    "4.3.8": "Form of response elicitation",
    "4.3.9": "From raw responses to reported scores",
    "4.3.10": "Effect size and significance",
    "4.3.11.1": "Inter-annotator agreement: method",
    "4.3.11.2": "Inter-annotator agreement: score",
    "4.3.12.1": "Intra-annotator agreement: method",
    "4.3.12.2": "Intra-annotator agreement: score",
    "5.1": "Ethics approval",
    "5.2": "Personal data",
    "5.3": "Special category data",
    "5.4": "Impact assessment",
}

#: Judgment columns that identify a person or a session; replaced by pseudonyms
#: (``external_session``: the crowdsourcing platform's session ID, e.g.
#: Prolific's SESSION_ID, in the session tables).
PERSONAL_COLUMNS = ("participant", "session", "subject", "external_session")
#: What marks an answer only the organisers can give.
TO_COMPLETE = "*to complete*"

#: Interface languages of the web experiment (config ``experiment.language``).
LANGUAGES = {"en": "English", "ja": "Japanese"}
#: The situated task of seed 000 (the datasheet answers differ).
SITUATED_DIALOGUE = "situated_dialogue"

_HEADINGS = {
    "1": "1. Main reference and supplementary resources",
    "2": "2. Evaluated system(s)",
    "3": "3. Sample of system outputs, evaluators and experimental design",
    "5": "5. Ethics",
}


def section_questions(section: str) -> list[str]:
    """The question numbers of one HEDS section, in the form's order.

    >>> section_questions("5")
    ['5.1', '5.2', '5.3', '5.4']
    """
    return [q for q in QUESTIONS if q.split(".", 1)[0] == section]


def _block(section: str, answers: Mapping[str, str]) -> list[str]:
    """One section's questions as Markdown list items, each exactly once."""
    wanted = section_questions(section)
    if sorted(answers) != sorted(wanted):
        missing = sorted(set(wanted) - set(answers))
        extra = sorted(set(answers) - set(wanted))
        raise ValueError(f"HEDS section {section}: missing {missing}, extra {extra}")
    return [f"- **{q} {QUESTIONS[q]}:** {_sentence(answers[q])}" for q in wanted]


def _sentence(text: str) -> str:
    text = " ".join(str(text).split())
    return text if text.endswith((".", "*", ")", "”")) else text + "."


def _software(software: Mapping[str, Any]) -> str:
    """The stecflow of ``environment/source.json``, in words."""
    return Source(
        str(software["version"]),
        software.get("git_commit"),
        software.get("dirty"),
        tuple(software.get("changed_files") or ()),
    ).describe()


def _setting(experiment: Mapping[str, Any], key: str) -> Any:
    """``experiment.<key>`` or the web experiment's default."""
    if experiment.get(key) is not None:
        return experiment[key]
    from stecflow.studies.settings import StudySettings

    defaults = {f.name: f.default for f in dataclasses.fields(StudySettings)}
    return defaults.get(key)


def _ui_string(
    key: str, study: Mapping[str, Any], experiment: Mapping[str, Any]
) -> str | None:
    """An interface string as participants saw it: ``experiment.strings``, the
    study document's texts, else the interface language's default."""
    strings = experiment.get("strings") or {}
    texts = study.get("texts") or {}
    if strings.get(key):
        return str(strings[key])
    if isinstance(texts.get(key), str) and texts[key]:
        return texts[key]
    from stecflow.studies.strings import UI_STRINGS

    language = experiment.get("language") or "en"
    value = (UI_STRINGS.get(language) or {}).get(key)
    return str(value) if value else None


def _quote(text: Any) -> str:
    return f"“{' '.join(str(text).split())}”"


# -- Sections 1 and 2 ----------------------------------------------------------


def _section_1(
    config: Mapping[str, Any], studies: Sequence[Mapping[str, Any]]
) -> dict[str, str]:
    campaign = config["campaign"]
    release = config.get("release") or {}
    papers = [
        str(r["identifier"])
        for r in release.get("related_identifiers") or []
        if isinstance(r, Mapping)
        and r.get("identifier")
        and str(r.get("resource_type") or "").startswith("publication")
    ]
    archive = f"{campaign.get('id', 'campaign')}-{campaign.get('version', '1')}.zip"
    doi = f" (https://doi.org/{release['doi']})" if release.get("doi") else ""
    listed = "; ".join(
        f"Study {n} `{s['study']}` ({s.get('title') or s['study']}, task"
        f" {s.get('task')})"
        for n, s in enumerate(studies, start=1)
    )
    authors = [a for a in release.get("authors") or [] if isinstance(a, Mapping)]
    names = ", ".join(str(a["name"]) for a in authors if a.get("name"))
    affiliations = "; ".join(
        f"{a['name']}: {a['affiliation']}" for a in authors if a.get("affiliation")
    )
    first = authors[0] if authors else {}
    return {
        "1.1.1": (
            "The main paper reporting the experiment is here: " + ", ".join(papers)
            if papers
            else f"{TO_COMPLETE} (the paper reporting the human evaluation; a"
            " publication among release.related_identifiers fills this in)"
        ),
        "1.1.2": (
            f"the {len(studies)} human evaluation stud"
            + ("y" if len(studies) == 1 else "ies")
            + f" of the campaign {_quote(campaign['title'])}, each answered below as"
            f" one experiment (Section 3 per study, Section 4 per quality"
            f" criterion): {listed}"
            if studies
            else "no human evaluation study is configured in this campaign"
        ),
        "1.2": "The resources used in the experiment can be found here: this"
        f" release archive, `{archive}`{doi}: the system outputs, the judgments"
        " (participants pseudonymised), each study's design and web experiment"
        " (`studies/<study>/`), the statistics (`stats/`), the report and the"
        " software that made them (`environment/`)",
        "1.3.1.1": (
            f"{names} (the answers are generated by stecflow from their config)"
            if names
            else f"{TO_COMPLETE} (release.authors)"
        ),
        "1.3.1.2": affiliations or f"{TO_COMPLETE} (release.authors[].affiliation)",
        "1.3.1.3": TO_COMPLETE,
        "1.3.2.1": (
            f"{first['name']} (the first of release.authors)"
            if first.get("name")
            else f"{TO_COMPLETE} (release.authors)"
        ),
        "1.3.2.2": str(first.get("affiliation") or "")
        or f"{TO_COMPLETE} (release.authors[].affiliation)",
        "1.3.2.3": TO_COMPLETE,
    }


def _section_2(tasks: Sequence[str], release: Mapping[str, Any]) -> dict[str, str]:
    """HEDS 2.1–2.5 from the task registry and the config."""
    from stecflow.tasks import registry

    language = release.get("language") or f"{TO_COMPLETE} (release.language)"
    if list(tasks) == [SITUATED_DIALOGUE]:
        return {
            "2.1": "Other: a referring expression's place in a situated dialogue:"
            " the session so far (utterances, actions on the pieces, the mouse"
            " cursor) and its referent, summarised by the features of Spanger et"
            " al. Table 3",
            "2.2": "Other: situated_dialogue (per expression, the decision to use a"
            " demonstrative pronoun or not, optionally the expression to show)",
            "2.3": "Referring expression generation: choice of referring-expression"
            " form in situated dialogue",
            "2.4": language,
            "2.5": language,
        }
    inputs, outputs, summaries = [], [], []
    for name in tasks:
        try:
            task = registry.get(name)
        except Exception:  # noqa: BLE001 — an unknown plug-in: name it only
            summaries.append(name)
            continue
        if task.input and task.input not in inputs:
            inputs.append(task.input)
        outputs.append(f"{name} ({', '.join(task.outputs) or 'outputs'})")
        summaries.append(f"{name}: {task.summary}")
    return {
        "2.1": "; ".join(inputs) or f"{TO_COMPLETE} (no registered task)",
        "2.2": ", ".join(outputs) or ", ".join(tasks),
        "2.3": "; ".join(summaries) or f"{TO_COMPLETE} (campaign.tasks)",
        "2.4": language,
        "2.5": language,
    }


# -- Section 3 -----------------------------------------------------------------


def _collected_line(study: Mapping[str, Any]) -> str:
    """HEDS 3.1.1's counts of what was collected (not what was designed)."""
    collected = study.get("collected")
    if not collected:
        return "Collected: no judgments yet."
    lists = collected["lists"]
    designed = study.get("subjects")
    per_list = ", ".join(f"{name} {n}" for name, n in lists.items()) or "none"
    controls = collected.get("controls") or 0
    line = (
        f"Collected: {collected['trials']} test trials"
        + (
            f", {controls} of them control trials (attention checks)"
            f" and {collected['trials'] - controls} of systems"
            if controls
            else ""
        )
        + f" ({collected['practice']} practice and {collected['fillers']} filler"
        f" trials besides) from {collected['participants']} participant(s) in"
        f" {collected['sessions']} session(s); {len(lists)}"
        + (f" of {designed}" if designed else "")
        + f" lists run (test trials per list: {per_list})"
        + ("; the participants are simulated" if collected.get("simulated") else "")
        + "."
    )
    exclusions = collected.get("exclusions")
    if exclusions is not None:
        rules = ", ".join(f"{k} {v}" for k, v in exclusions["rules"].items())
        line += (
            f" Exclusions (rules declared before collection):"
            f" {exclusions['participants']} participant(s) excluded"
            + (f" (by rule: {rules})" if rules else "")
            + f", {collected['excluded_rows']} test trials left out of the analyses."
        )
    else:
        line += " No exclusion rules were applied."
    return line


def _power_answers(study: Mapping[str, Any]) -> dict[str, str]:
    """HEDS 3.1.3.1–3.1.3.3 from ``results/power`` (``study["power"]``)."""
    power = study.get("power")
    if not power:
        return {
            "3.1.3.1": "None run by stecflow (the study's config has no `power`"
            f" section); {TO_COMPLETE} if the organisers ran one elsewhere",
            "3.1.3.2": "N/A: no power analysis (3.1.3.1)",
            "3.1.3.3": "N/A: no power analysis (3.1.3.1)",
        }
    settings, rows = power["settings"], power["rows"]
    parts = []
    for test in sorted({r["test"] for r in rows}):
        mine = [r for r in rows if r["test"] == test]
        enough = [int(r["participants"]) for r in mine if float(r["power"]) >= 0.8]
        shown = ", ".join(f"{r['participants']}: {float(r['power']):.2f}" for r in mine)
        parts.append(
            f"{test} ({shown}; power 0.8 from {min(enough)} participants)"
            if enough
            else f"{test} ({shown}; below 0.8 at every size)"
        )
    duration = settings.get("duration") or {}
    return {
        "3.1.3.1": "Simulation (stecflow power): "
        f"{settings['runs']} simulated studies per participant number, each run"
        " through the study's own tests, alpha"
        f" {settings['alpha']}, effects from {settings['effects']['source']}",
        "3.1.3.2": f"power per participants: {'; '.join(parts)}."
        + (
            f" Session duration median {float(duration['median_min']):.1f} min,"
            f" 90th percentile {float(duration['p90_min']):.1f} min."
            if duration
            else ""
        ),
        "3.1.3.3": f"`power/{study['study']}.json` and `.tsv` in this archive"
        " (settings and results); the code is stecflow.analysis.power in the"
        " stecflow wheel under `environment/`",
    }


def _questionnaire_answer(rows: Sequence[Mapping[str, Any]] | None) -> str:
    """HEDS 3.2.5 from the questionnaire's counts (as released), or nothing.

    >>> _questionnaire_answer([
    ...     {"field": "d.age", "type": "number", "answer": "18-27", "count": 2},
    ...     {"field": "d.age", "type": "number", "answer": "(no answer)", "count": 1},
    ...     {"field": "d.field", "type": "text", "answer": "(answered)", "count": 3},
    ...     {"field": "d.field", "type": "text", "answer": "(no answer)", "count": 0}])
    ... # doctest: +NORMALIZE_WHITESPACE
    ' Characteristics from the questionnaire (3 participant(s) answered; counts
    per answer): age 18-27 2, (no answer) 1; field free text, answered by 3
    (not released).'
    """
    if rows is None:
        return ""
    fields: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        fields.setdefault(str(row["field"]), []).append(row)
    if not fields:
        return ""
    respondents = sum(int(r["count"]) for r in next(iter(fields.values())))
    if not respondents:
        return " No questionnaire answers were collected."
    parts = []
    for name_, answers in fields.items():
        name = name_.split(".", 1)[-1]
        if answers[0]["type"] == "text":
            answered = sum(int(r["count"]) for r in answers if r["answer"] != NO_ANSWER)
            parts.append(f"{name} free text, answered by {answered} (not released)")
            continue
        shown = ", ".join(
            f"{r['answer']} {r['count']}" for r in answers if int(r["count"])
        )
        parts.append(f"{name} {shown}")
    return (
        f" Characteristics from the questionnaire ({respondents} participant(s)"
        f" answered; counts per answer): {'; '.join(parts)}."
    )


def _simulated(study: Mapping[str, Any], config_study: Mapping[str, Any]) -> bool:
    """Whether the study's participants are simulated: as collected, else as
    configured (``simulate``)."""
    collected = study.get("collected")
    if collected:
        return bool(collected.get("simulated"))
    return bool(config_study.get("simulate"))


def _platform(experiment: Mapping[str, Any]) -> str | None:
    """The recruitment platform named by the completion link's host."""
    url = experiment.get("completion_url")
    if not url:
        return None
    host = urlsplit(str(url)).hostname or str(url)
    return "Prolific" if "prolific" in host else host


def _evaluator_answers(
    study: Mapping[str, Any],
    config_study: Mapping[str, Any],
    release: Mapping[str, Any],
) -> dict[str, str]:
    """HEDS 3.2.1–3.2.5."""
    experiment = config_study.get("experiment") or {}
    collected = study.get("collected")
    simulated = _simulated(study, config_study)
    if collected:
        excluded = (collected.get("exclusions") or {}).get("participants") or 0
        counted = collected["participants"] - excluded
        number = (
            f"{counted}"
            + (" simulated" if simulated else "")
            + " evaluator(s) whose judgments enter the results"
            f" ({collected['participants']} took part, {excluded} excluded by the"
            " rules declared before collection)"
        )
    else:
        number = "no judgments collected yet"
    number += (
        f"; the design has {study.get('subjects', '?')} subject lists"
        f" ({study.get('groups', 1)} group(s))"
    )
    practice = len(study.get("practice_items") or [])
    task = study.get("task")
    sheet = _sheet(task)
    feedback = (
        sheet is not None
        and sheet.feedback
        and int(_setting(experiment, "feedback_ms") or 0) > 0
    )
    over = _ui_string("practice_over", study, experiment)
    training = (
        f"{practice} practice trial(s) at the start, on items of the"
        " development set (outside the test set), answered like the test"
        " trials"
        + (" with feedback on each answer" if feedback else "")
        + (f"; after them the page says {_quote(over)}" if over else "")
        if practice
        else "no practice trials"
    ) + "; before the trials, the written instructions (4.3.2)"
    description = release.get("evaluators")
    characteristics = (
        (f"As the organisers describe them: {description}" if description else "")
        + _questionnaire_answer(study.get("questionnaire"))
    ).strip()
    language = experiment.get("language") or "en"
    characteristics = (
        characteristics + " " if characteristics else ""
    ) + f"They used the interface in {LANGUAGES.get(language, language)}."
    if simulated:
        na = "N/A: the participants are simulated (stecflow's simulator)"
        return {
            "3.2.1": number,
            "3.2.2.1": na,
            "3.2.2.2": na,
            "3.2.2.3": na,
            "3.2.2.4": na,
            "3.2.3": na,
            "3.2.4": training,
            "3.2.5": characteristics,
        }
    power = config_study.get("power") or {}
    rate = power.get("hourly_rate")
    platform = _platform(experiment)
    recruitment = [
        f"through {platform} (the study's completion link returns participants there)"
        if platform
        else "",
        f"the organisers' description: {description}" if description else "",
    ]
    return {
        "3.2.1": number,
        "3.2.2.1": TO_COMPLETE,
        "3.2.2.2": (
            "Paid (monetary compensation): "
            f"{power.get('currency') or ''}{rate} per hour (the config's"
            " power.hourly_rate)"
            if rate
            else TO_COMPLETE
        ),
        "3.2.2.3": TO_COMPLETE,
        "3.2.2.4": TO_COMPLETE,
        "3.2.3": "; ".join(r for r in recruitment if r) or TO_COMPLETE,
        "3.2.4": training,
        "3.2.5": characteristics,
    }


def _quality_assurance(
    study: Mapping[str, Any], config_study: Mapping[str, Any]
) -> tuple[str, str]:
    """HEDS 3.3.3.1 and 3.3.3.2 from the control trials and exclusion rules."""
    controls = config_study.get("controls") or {}
    rules = [r for r in config_study.get("exclusions") or [] if isinstance(r, Mapping)]
    applied = ((study.get("collected") or {}).get("exclusions") or {}).get("rules")
    if not rules and applied:  # the rules as the exclusions table names them
        rules = [{"name": name} for name in sorted(applied)]
    types, methods = [], []
    if controls or study.get("n_controls"):
        types.append(
            "Automatic quality checking methods are used during and/or after evaluation"
        )
        amount = (
            f"{controls['per_list']} per list"
            if controls.get("per_list")
            else f"{controls['share']:g} of each list's trials"
            if controls.get("share")
            else f"{study.get('n_controls')} in all"
        )
        kind = controls.get("kind") or _kind_control(study.get("task"))
        what = {
            "degraded": "a damaged output that should be rated low (or, in a"
            " preference study, lose against its intact copy)",
            "gold": "a description that singles out the target, which should be"
            " identified",
        }.get(kind, kind)
        methods.append(
            f"control trials (attention checks), {amount}: {what}; placed by the"
            " design (seeded, never first, last or adjacent) and left out of every"
            " analysis"
        )
    if rules:
        types.append(
            "Evaluators are excluded if they fail quality checks (often or badly"
            " enough)"
        )
        for n, rule in enumerate(rules, start=1):
            name = rule.get("name") or f"rule {n}"
            if rule.get("controls_below") is not None:
                text = (
                    f"fewer than {rule['controls_below']:g} of the control trials"
                    " answered as expected"
                    + (f" (measure {rule['measure']})" if rule.get("measure") else "")
                    + (f", cut {rule['cut']:g}" if rule.get("cut") is not None else "")
                )
            elif rule.get("median_time_below_ms") is not None:
                text = f"median response time below {rule['median_time_below_ms']:g} ms"
            elif rule.get("incomplete"):
                text = "fewer trials answered than the list holds"
            elif rule.get("answer"):
                answer = rule["answer"]
                text = (
                    f"questionnaire answer {answer.get('field')} among"
                    f" {', '.join(map(str, answer.get('in') or []))}"
                )
            else:
                text = "see `judgments/exclusions/`"
            methods.append(f"exclusion rule {name}: {text}")
        methods.append(
            "the rules were declared before collection; an excluded participant"
            " leaves every analysis"
            + (
                f" (applied: {', '.join(f'{k} {v}' for k, v in applied.items())}"
                " participant(s) excluded)"
                if applied
                else ""
            )
        )
    if not types:
        return (
            "None of the above (no quality assurance methods used)",
            "N/A: no control trials or exclusion rules",
        )
    return "; ".join(types), "; ".join(methods)


def _shown(study: Mapping[str, Any], config_study: Mapping[str, Any]) -> str:
    """HEDS 3.3.4.2: what the evaluators see."""
    experiment = config_study.get("experiment") or {}
    task = study.get("task")
    before = ["the instructions"]
    if experiment.get("consent"):
        before.insert(0, "the consent text")
    if experiment.get("questionnaire"):
        before.append(
            "a questionnaire"
            + (
                " (after the last trial)"
                if experiment.get("questionnaire_at") == "end"
                else ""
            )
        )
    sheet = _sheet(task)
    trial = (
        sheet.trial(study, config_study)
        if sheet is not None
        else f"the {task} trial of the study's web experiment"
    )
    every = int(_setting(experiment, "break_every") or 0)
    return (
        f"before the trials, {', '.join(before)}; in each trial, {trial}; a"
        " progress line (trial n of N)"
        + (f"; a break is offered every {every} trials" if every else "")
    )


def _freedom(study: Mapping[str, Any], config_study: Mapping[str, Any]) -> str:
    """HEDS 3.3.5."""
    experiment = config_study.get("experiment") or {}
    every = int(_setting(experiment, "break_every") or 0)
    pause = (
        "they start when they open the link, may pause at any time"
        + (f" (a break is offered every {every} trials)" if every else "")
        + " and, reopening the same link, resume where they stopped (the page"
        " keeps the answers given)"
    )
    sheet = _sheet(study.get("task"))
    if sheet is not None and sheet.time_limit is not None:
        return (
            "Evaluators must complete each individual assessment within a set"
            f" amount of time: {sheet.time_limit(study, config_study)}; otherwise"
            f" {pause}"
        )
    return f"None of the above: {pause}; no time limit per trial or in all"


def _lab(config_study: Mapping[str, Any]) -> bool:
    """Whether the responses are DMDX files (a lab run)."""
    return any(
        str(r).lower().endswith((".azk", ".zil"))
        for r in config_study.get("responses") or []
        if isinstance(r, str)
    )


def _section_3(
    study: Mapping[str, Any],
    config_study: Mapping[str, Any],
    release: Mapping[str, Any],
) -> dict[str, str]:
    experiment = config_study.get("experiment") or {}
    systems = list(study.get("systems") or [])
    n_trials = int(study.get("n_trials") or 0)
    per_system = (
        f"{n_trials // len(systems)}"
        if systems and n_trials % len(systems) == 0
        else f"{n_trials / max(len(systems), 1):.1f} on average"
    )
    simulated = _simulated(study, config_study)
    qa_types, qa_methods = _quality_assurance(study, config_study)
    platform = _platform(experiment)
    language = experiment.get("language") or "en"
    medium = (
        "the stecflow web experiment in a web browser (stecflow's collection"
        " server, or the offline page that saves a results file), interface"
        f" language {LANGUAGES.get(language, language)}"
        + (f"; participants came from {platform}" if platform else "")
    )
    if _lab(config_study):
        medium = "DMDX in the lab (the study's DMDX scripts, `studies/<study>/dmdx/`)"
    if simulated:
        medium = (
            "none: simulated participants answered (stecflow's simulator); built"
            f" for the study and in the archive: {medium}"
        )
    subdomains = config_study.get("subdomains")
    conditions = (
        "N/A: simulated participants"
        if simulated
        else f"{TO_COMPLETE} (a lab run with DMDX: were conditions controlled?)"
        if _lab(config_study)
        else "Evaluators carry out assessments at a place of their own choosing"
        " (the web experiment in their own browser)"
    )
    width, height = experiment.get("min_width"), experiment.get("min_height")
    window = (
        f"a window of at least {width or '-'}×{height or '-'} CSS pixels"
        if width or height
        else "the window size checked against the trial's smallest layout"
        if _setting(experiment, "check_window")
        else "any window size"
    )
    variation = (
        "N/A: simulated participants"
        if simulated
        else "their device, browser, screen and surroundings and the time of day"
        f" vary ({window}); the stimuli, their order within a list and the timing"
        " of each trial are the same for everyone given the same list"
    )
    return {
        "3.1.1": f"{per_system} per system: {study.get('n_items', '?')} test items,"
        f" {n_trials} test trials over {len(systems)} systems ({', '.join(systems)})"
        + (
            f" and {study['n_controls']} control trials (attention checks)"
            if study.get("n_controls")
            else ""
        )
        + f" in {study.get('subjects', '?')} lists (designed). "
        + _collected_line(study),
        "3.1.2": "Other: no sampling: every item of the test set"
        + (
            f" in the subdomains {', '.join(map(str, subdomains))}"
            if subdomains
            else ""
        )
        + " is evaluated, for every system"
        + (
            f" ({study['n_fillers']} filler trials besides, not analysed)"
            if study.get("n_fillers")
            else ""
        ),
        **_power_answers(study),
        **_evaluator_answers(study, config_study, release),
        "3.3.1": TO_COMPLETE
        + (
            " (the exclusion rules were declared in the config before collection)"
            if config_study.get("exclusions")
            else ""
        ),
        "3.3.2": medium,
        "3.3.3.1": qa_types,
        "3.3.3.2": qa_methods,
        "3.3.4.1": f"in this archive: `studies/{study['study']}/` holds the web"
        " experiment as participants saw it (open `web/index.html`), its design"
        " and the materials",
        "3.3.4.2": _shown(study, config_study),
        "3.3.5": "N/A: simulated participants"
        if simulated
        else _freedom(study, config_study),
        "3.3.6": "None of the above in the web experiment (it has no field for"
        " questions or feedback)"
        + (
            "; the questionnaire after the last trial"
            if experiment.get("questionnaire")
            and experiment.get("questionnaire_at") == "end"
            else ""
        ),
        "3.3.7": conditions,
        "3.3.8": variation,
    }


# -- Section 4 -----------------------------------------------------------------


@dataclass
class _Criterion:
    """One quality criterion of a study: its answers to 4.1.1–4.3.9, the
    measures analyses name it by and its agreement criterion (if computed)."""

    name: str
    answers: dict[str, str]
    measures: tuple[str, ...]
    agreement: Any = None
    extra: dict[str, str] = field(default_factory=dict)


_TESTS = {
    "anova": "ANOVA",
    "tukey": "Tukey HSD",
    "kruskal": "Kruskal-Wallis test",
    "correlations": "Pearson correlations of the system means",
    "ttest": "t-test",
    "mixed": "linear mixed model",
    "manova": "MANOVA",
    "property_means": "means per system property",
}


def _analyses(
    config: Mapping[str, Any], analyses: Sequence[Mapping[str, Any]] | None
) -> list[Mapping[str, Any]]:
    """The campaign's analyses with defaults filled in, as the workflow gives
    them (:func:`stecflow.analysis.specs.analysis_specs`, a later stage),
    else the configured list."""
    if analyses is not None:
        return list(analyses)
    return list((config.get("statistics") or {}).get("analyses") or [])


def _effects(
    criterion: _Criterion,
    study_id: str,
    analyses: Sequence[Mapping[str, Any]],
    config: Mapping[str, Any],
) -> str:
    """HEDS 4.3.10 from the analyses naming this criterion's measures."""
    named = []
    for spec in analyses:
        measures = [spec["measure"]] if spec.get("measure") else []
        measures += [str(m) for m in spec.get("measures") or []]
        mine = any(
            (spec.get("source") == study_id and m in criterion.measures)
            or m in {f"{study_id}:{c}" for c in criterion.measures}
            for m in measures
        )
        if mine:
            factors = spec.get("factors")
            named.append(
                f"{_TESTS.get(str(spec.get('test')), spec.get('test'))}"
                f" (`{spec.get('id')}`"
                + (f", factors {', '.join(factors)}" if factors else "")
                + ")"
            )
    if not named:
        return "None: no analysis of the campaign names this criterion"
    alpha = (config.get("statistics") or {}).get("alpha", 0.05)
    return (
        "; ".join(named)
        + f"; significance level {alpha}; results in `stats/` and the report"
    )


def _agreement_answers(
    criterion: _Criterion,
    study: Mapping[str, Any],
    config_study: Mapping[str, Any],
) -> dict[str, str]:
    """HEDS 4.3.11–4.3.12 (stecflow.judgments.agreement)."""
    from stecflow.studies.criteria import rated_criteria

    try:
        computed = {
            c.name: c
            for c in rated_criteria({**config_study, "task": study.get("task")})
        }
    except Exception:  # noqa: BLE001 — an unknown task: none computed
        computed = {}
    found = computed.get(criterion.agreement) if criterion.agreement else None
    intra = {
        "4.3.12.1": "IntraAA not assessed: no evaluator judges the same output"
        " twice in the design",
        "4.3.12.2": "IntraAA not assessed",
    }
    if found is None:
        return {
            "4.3.11.1": "InterAA not assessed for this criterion",
            "4.3.11.2": "InterAA not assessed",
        } | intra
    settings = config_study.get("agreement") or {}
    boot = int(settings.get("bootstrap", 1000))
    method = f"Krippendorff's alpha ({found.level} metric) over every pairable value"
    if found.icc:
        method += (
            "; intraclass correlation, one-way ICC(1,1) and ICC(1,k) when raters"
            " are nested in units (a Latin-square or list design), two-way"
            " ICC(2,1) and ICC(2,k) when crossed (the table names the model used)"
        )
    method += (
        f"; percentile bootstrap intervals over the units judged ({boot} resamples,"
        f" confidence {settings.get('confidence', 0.95)})"
        if boot
        else "; no bootstrap intervals"
    )
    return {
        "4.3.11.1": method,
        "4.3.11.2": f"in `judgments/agreement/{study['study']}.tsv` of this archive"
        f" (criterion {found.name}; it says when too few units were judged by two"
        " or more evaluators to compute it)",
    } | intra


def _criteria_of(
    study: Mapping[str, Any], config_study: Mapping[str, Any], config: Mapping[str, Any]
) -> list[_Criterion]:
    task = study.get("task")
    sheet = _sheet(task)
    if sheet is not None:
        return sheet.criteria(study, config_study, config)
    return [
        _Criterion(
            str(task),
            {q: f"{TO_COMPLETE} (task {task})" for q in section_questions("4")},
            (),
        )
    ]


def _section_4(
    criterion: _Criterion,
    study: Mapping[str, Any],
    config_study: Mapping[str, Any],
    analyses: Sequence[Mapping[str, Any]],
    config: Mapping[str, Any],
) -> dict[str, str]:
    answers = {
        "4.3.1.2": f"{TO_COMPLETE} (a standardised name, e.g. from QCET, Belz et"
        " al. 2024)",
        "4.3.10": _effects(criterion, str(study["study"]), analyses, config),
        **_agreement_answers(criterion, study, config_study),
    }
    return answers | criterion.answers


# -- Section 5 -----------------------------------------------------------------


def _personal_data_answer(
    policy: PersonalDataPolicy, studies: Sequence[Mapping[str, Any]]
) -> str:
    """HEDS 5.2's release policy and the consent checks."""
    kept = [c for c in policy.keep_columns if c in PERSONAL_COLUMNS]
    parts = [
        "participant and session IDs are replaced by keyed pseudonyms"
        " (HMAC-SHA256) in the released judgments and session tables"
        + (f" (released as collected: {', '.join(kept)})" if kept else "")
    ]
    if policy.questionnaire == "aggregate":
        parts.append(
            "questionnaire answers are released only as counts per question and"
            " answer (`judgments/questionnaire/`), numbers in bins of"
            f" {policy.number_bin}, free text never"
        )
    else:
        parts.append("questionnaire answers are not released")
    if policy.answers_per_participant:
        parts.append(
            "by the organisers' choice (release.personal_data.per_participant)"
            " these answers are released per participant: "
            + ", ".join(policy.answers_per_participant)
        )
    times = {
        "date": "as dates (UTC)",
        "relative": "as seconds from the study's first session",
        "withhold": "not at all",
    }[policy.times]
    parts.append(f"session start and end times are released {times}")
    if policy.exact_times:
        parts.append(
            "exact times released by the organisers' choice: "
            + ", ".join(policy.exact_times)
        )
    for study in studies:
        state = study.get("consent")
        if state == "checked":
            parts.append(
                f"the consent text of `{study['study']}` states what is released"
                " (checked against this policy)"
            )
        elif state == "unchecked":
            parts.append(
                f"the consent text of `{study['study']}` holds no statement"
                f" stecflow recognises; {TO_COMPLETE}: check by hand that it"
                " allows this release"
            )
    return "; ".join(parts) + "."


def _section_5(
    config: Mapping[str, Any],
    studies: Sequence[Mapping[str, Any]],
    configured: Mapping[str, Mapping[str, Any]],
) -> dict[str, str]:
    release = config.get("release") or {}
    real = [
        s
        for s in studies
        if not _simulated(s, configured.get(str(s.get("study"))) or {})
    ]
    policy = _personal_data_answer(PersonalDataPolicy.from_config(release), studies)
    questionnaires = [
        str(s.get("study"))
        for s in real
        if ((configured.get(str(s.get("study"))) or {}).get("experiment") or {}).get(
            "questionnaire"
        )
    ]
    return {
        "5.1": release.get("ethics") or f"{TO_COMPLETE} (release.ethics)",
        "5.2": (
            "Yes, personal data as defined by GDPR was collected (participant and"
            " session IDs, session times"
            + (", questionnaire answers" if questionnaires else "")
            + "); "
            if real
            else "No, personal data as defined by GDPR was neither evaluated nor"
            " collected: every study's participants are simulated. The release"
            " policy: "
        )
        + policy,
        "5.3": (
            "No, special category data as defined by GDPR was neither evaluated"
            " nor collected: every study's participants are simulated"
            if not real
            else "No, special category data as defined by GDPR was neither"
            " evaluated nor collected: the studies record only responses, times"
            " and session data (no questionnaire)"
            if not questionnaires
            else f"{TO_COMPLETE}: whether the questionnaire of"
            f" {', '.join(f'`{q}`' for q in questionnaires)} asks for special"
            " category data"
        ),
        "5.4": f"{TO_COMPLETE} (any ex ante or ex post impact assessment)",
    }


# -- The datasheet -------------------------------------------------------------


def datasheet(
    config: Mapping[str, Any],
    studies: Sequence[Mapping[str, Any]],
    software: Mapping[str, Any] | None = None,
    analyses: Sequence[Mapping[str, Any]] | None = None,
) -> str:
    """Answers to the Human Evaluation Datasheet (HEDS 3.0), as Markdown.

    Every HEDS 3.0 question once per block: Sections 1 and 2 for the campaign,
    per study Section 3 and one Section 4 per quality criterion, Section 5 for
    the campaign. The answers come from the config, the task registry, the
    studies' design settings, their texts and, when a study has judgments, what
    was actually collected (``collected``:
    :func:`stecflow.release.studyfacts.collected_counts`); only what the config
    cannot know is left *to complete* for the organisers. Nothing depends on the
    clock or on the order of a mapping not written in order. *analyses* are the
    campaign's analyses with their defaults
    (:func:`stecflow.analysis.specs.analysis_specs`, which the workflow
    passes in: analysis is a later stage); without them, the configured ones.
    """
    campaign = config["campaign"]
    tasks = list(campaign.get("tasks") or [])
    release = config.get("release") or {}
    configured = {
        str(s.get("id")): s
        for s in config.get("studies") or []
        if isinstance(s, Mapping)
    }
    lines = [
        f"# Human Evaluation Datasheet: {campaign['title']}",
        "",
        f"Answers to every question of {HEDS_VERSION}, generated by stecflow from"
        " the campaign config, the task registry, the study designs and settings"
        " and the judgments collected. Each study of the campaign is one"
        " evaluation experiment: Sections 1, 2 and 5 cover the campaign, each"
        " study has its own Section 3 and one Section 4 per quality criterion."
        f" Items marked {TO_COMPLETE} need the organisers.",
        "",
        *(
            [
                f"Built by {_software(software)}; the wheel of that stecflow is"
                f" `{software['wheel']}` (sha256 {software['wheel_sha256']}).",
                "",
            ]
            if software
            else []
        ),
        f"## {_HEADINGS['1']}",
        "",
        *_block("1", _section_1(config, studies)),
        "",
        f"## {_HEADINGS['2']}",
        "",
        *_block("2", _section_2(tasks, release)),
    ]
    analyses = _analyses(config, analyses) if studies else []
    for n, study in enumerate(studies, start=1):
        config_study = configured.get(str(study.get("study"))) or {}
        sheet = _sheet(study.get("task"))
        section_3 = (
            sheet.section_3(study, config_study, release)
            if sheet is not None and sheet.section_3 is not None
            else _section_3(study, config_study, release)
        )
        lines += [
            "",
            f"## Study {n}: {study.get('title') or study['study']}"
            f" (`{study['study']}`)",
            "",
            f"### {_HEADINGS['3']}",
            "",
            *_block("3", section_3),
        ]
        criteria = _criteria_of(study, config_study, config)
        for k, criterion in enumerate(criteria, start=1):
            lines += [
                "",
                f"### 4. Quality criterion {k} of {len(criteria)}: {criterion.name}"
                f" (`{study['study']}`)",
                "",
                *_block(
                    "4", _section_4(criterion, study, config_study, analyses, config)
                ),
            ]
    lines += [
        "",
        f"## {_HEADINGS['5']}",
        "",
        *_block("5", _section_5(config, studies, configured)),
        "",
    ]
    return "\n".join(lines)


# -- What each study kind answers ------------------------------------------------


@dataclass(frozen=True)
class KindSheet:
    """What the datasheet says of one study kind: the answers only a kind can
    give. A kind names its sheet with its ``datasheet`` hook
    (:mod:`stecflow.studykinds`); a kind without one is described generically,
    its criteria's answers *to complete*."""

    #: The quality criteria the study assesses (one Section 4 each).
    criteria: Callable[..., list[_Criterion]]
    #: What a trial shows and asks (HEDS 3.3.4.2).
    trial: Callable[[Mapping[str, Any], Mapping[str, Any]], str]
    #: The time a trial allows, in words (HEDS 3.3.5); None: no limit.
    time_limit: Callable[[Mapping[str, Any], Mapping[str, Any]], str] | None = None
    #: Section 3 of its own (None: the shared one).
    section_3: Callable[..., dict[str, str]] | None = None
    #: Whether its practice trials can give feedback (``feedback_ms``).
    feedback: bool = False


def _sheet(task: Any) -> KindSheet | None:
    """The :class:`KindSheet` of the kind *task*; None for a kind stecflow does
    not know or one without a ``datasheet`` hook."""
    from stecflow.studykinds.registry import hook, is_kind

    return hook(str(task), "datasheet") if is_kind(task) else None


def _kind_control(task: Any) -> str:
    """The control trials a *task* study takes by default (its kind's)."""
    from stecflow.studykinds.registry import get, is_kind

    return (get(str(task)).control if is_kind(task) else None) or "degraded"
