"""What the release's datasheet says of each built-in study kind: its sheet.

A study kind names its :class:`~stecflow.release.heds.KindSheet` with its
``datasheet`` hook (``stecflow.release.heds_kinds:RATING_SHEET``), and
:func:`stecflow.release.heds.datasheet` reaches the sheet through the kind
registry, never by importing this module. A sheet holds the answers only its
kind can give: its quality criteria, one HEDS Section 4 each (the Adequacy and
Fluency of a rating study; identification accuracy and time, and reading time
when read first, of an identification study; the configured criteria of a text
rating or text preference study; identification and its time of a situated
identification study), what a trial shows and asks (3.3.4.2), the time a trial
allows (3.3.5) and, for a situated identification study, its own Section 3.

May import: :mod:`stecflow.release.heds` (the shared answers and helpers),
:mod:`stecflow.studykinds` (whether a kind shows a pair).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stecflow.release.heds import (
    TO_COMPLETE,
    KindSheet,
    _collected_line,
    _Criterion,
    _quote,
    _section_3,
    _setting,
    _ui_string,
)
from stecflow.studykinds.registry import paired

__all__ = [
    "IDENTIFICATION_SHEET",
    "RATING_SHEET",
    "SITUATED_SHEET",
    "TEXT_PREFERENCE_SHEET",
    "TEXT_RATING_SHEET",
]


# -- Section 3 of a situated identification study ------------------------------


def _situated_section_3(
    study: Mapping[str, Any],
    config_study: Mapping[str, Any],
    release: Mapping[str, Any],
) -> dict[str, str]:
    """Section 3 of a situated identification study (Spanger et al. 5.1)."""
    counts = study.get("counts") or {}
    base = _section_3(
        {**study, "systems": [study.get("system", "?")], "n_items": "?", "groups": 2},
        config_study,
        release,
    )
    return base | {
        "3.1.1": f"{counts.get('fp', '?')} false-positive instances of"
        f" {study.get('system', '?')} (each shown with the corpus expression to one"
        " group and with the system's pronoun to the other), and"
        f" {counts.get('tp', '?')} TP and {counts.get('fn', '?')} FN instances shown"
        f" to everyone; {study.get('n_trials', '?')} trials. " + _collected_line(study),
        "3.1.2": "By an automatic random process but using stratified sampling over"
        " given properties: instances whose context (at most"
        f" {study.get('max_context_ms', 30000) / 1000:g} s) holds the last mention"
        " of and the last action on the target; TP and FN instances sampled to the"
        " corpus distribution of the features"
        f" {', '.join(study.get('features') or ['O1', 'O2'])}; two-group design, FP"
        f" halves balanced on {study.get('halves_by') or 'nothing (random halves)'},"
        f" order shuffled per evaluator, seed {study.get('seed', '?')}",
        "3.3.4.2": "a replay of the shared work area drawn from the log (pieces,"
        " actions, cursor) with the preceding utterances, then the utterance with"
        " the expression highlighted; the participant clicks a numbered piece or"
        " its button, or “I don't know”, and may replay the clip"
        + _clip_durations(study),
    }


def _clip_durations(study: Mapping[str, Any]) -> str:
    """How long the clips were (seed 000 §5.1), from design.json's ``clips``."""
    clips = study.get("clips") or {}
    if (
        not isinstance(clips, Mapping)
        or not clips.get("n")
        or clips.get("sd_ms") is None
    ):
        return ""
    return (
        f"; the {clips['n']} clips lasted {clips['mean_ms'] / 1000:.1f} s on average"
        f" (SD = {clips['sd_ms'] / 1000:.1f} s, {clips['min_ms'] / 1000:.1f} to"
        f" {clips['max_ms'] / 1000:.1f} s)"
    )


# -- Section 4: the criteria of each kind --------------------------------------


def _words(value: Any) -> str:
    return str(value).replace("_", " ")


class _Fields(dict):
    """Fields of an interface string: those known filled in, the rest kept."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _fill(text: str | None, **values: Any) -> str | None:
    """*text* with its ``{name}`` fields filled from *values* (others kept).

    >>> _fill("ends after {timeout_s} s, {other}", timeout_s=15)
    'ends after 15 s, {other}'
    """
    if text is None:
        return None
    try:
        return text.format_map(_Fields(values))
    except (ValueError, IndexError):
        return text


def _outliers(config: Mapping[str, Any]) -> str:
    rules = (config.get("judgments") or {}).get("outliers") or {}
    rule = rules.get("rule") or "sd"
    if rule == "none":
        return "no outlier treatment"
    replacement = {
        "mean_excluding_outliers": "the mean of the other times",
        "mean_including": "the mean of all times",
        "drop": "nothing (left out)",
        "winsorize": "the nearest bound (winsorised)",
    }.get(
        rules.get("replacement") or "mean_excluding_outliers", rules.get("replacement")
    )
    if rule == "fixed":
        band = f"outside {rules.get('fixed_min_ms')}–{rules.get('fixed_max_ms')} ms"
    else:
        band = (
            f"outside the mean ± {rules.get('k', 2):g} SD (over"
            f" {str(rules.get('scope') or 'all').replace('_', ' ')})"
        )
    return f"times {band} are replaced by {replacement}"


def _removed() -> str:
    return (
        "practice, filler and control trials and the trials of excluded"
        " participants are left out"
    )


def _rating_criteria(
    study: Mapping[str, Any], config_study: Mapping[str, Any], config: Mapping[str, Any]
) -> list[_Criterion]:
    experiment = config_study.get("experiment") or {}
    texts = study.get("texts") or {}
    intro = _ui_string("instructions_rating_sliders", study, experiment)
    own = experiment.get("instructions")
    z = config_study.get("normalise") == "z"
    out = []
    for name, key, aspect, frame in (
        (
            "Adequacy",
            "adequacy",
            "Content of output",
            "Quality of output relative to the input (the target among the pictures)",
        ),
        ("Fluency", "fluency", "Form of output", "Quality of output in its own right"),
    ):
        question = _ui_string(f"{key}_question", study, experiment)
        labels = list(texts.get(f"{key}_labels") or ())
        low = (experiment.get("strings") or {}).get(f"{key}_label_low") or (
            labels[0] if labels else _ui_string(f"{key}_label_low", study, experiment)
        )
        high = (experiment.get("strings") or {}).get(f"{key}_label_high") or (
            labels[-1] if labels else _ui_string(f"{key}_label_high", study, experiment)
        )
        ends = (
            f" (left end {_quote(low)}, right end {_quote(high)})"
            if low and high
            else ""
        )
        out.append(
            _Criterion(
                name,
                {
                    "4.1.1": "Goodness",
                    "4.1.2": aspect,
                    "4.1.3": frame,
                    "4.2.1": "Subjective",
                    "4.2.2": "Absolute",
                    "4.2.3": "Intrinsic",
                    "4.3.1.1": f"{name} (stecflow's name; the page shows only the"
                    " question, 4.3.7)",
                    "4.3.2": (
                        f"the organisers' instructions: {_quote(own)}"
                        if own
                        else f"the instructions say {_quote(intro)}; the question"
                        " (4.3.7) is the definition"
                        if intro
                        else "the question (4.3.7) is the definition"
                    ),
                    "4.3.3": "100",
                    "4.3.4": f"1–100 (the slider's position){ends}",
                    "4.3.5": "Slider (no numbers shown, pointer centred at the start)",
                    "4.3.6": "N/A: there is a rating instrument (4.3.3–4.3.5)",
                    "4.3.7": (_quote(question) if question else "see `studies/`")
                    + ends,
                    "4.3.8": "Direct quality estimation",
                    "4.3.9": f"each trial records the slider position (1–100);"
                    f" {_removed()}; a system's score is the mean (and SD) of its"
                    " trials' scores, per subdomain and over all"
                    + (
                        f"; besides, per-rater z-scores (`{key}_z`: each"
                        " participant's scores standardised by their own mean and"
                        " SD, as WMT's direct assessment) are averaged per system"
                        if z
                        else "; no normalisation"
                    )
                    + "; no outlier treatment of ratings",
                },
                (key, f"{key}_z"),
                agreement=key,
            )
        )
    return out


def _identification_criteria(
    study: Mapping[str, Any], config_study: Mapping[str, Any], config: Mapping[str, Any]
) -> list[_Criterion]:
    experiment = config_study.get("experiment") or {}
    judgments = config.get("judgments") or {}
    variant = study.get("variant") or config_study.get("variant") or "together"
    own = experiment.get("instructions")
    key = {
        "together": "instructions_together",
        "read_first": "instructions_read_first",
        "spoken": "instructions_spoken",
    }.get(variant, "instructions_together")
    timeout_s = f"{int(_setting(experiment, 'timeout_ms')) / 1000:g}"
    said = [
        _fill(s, timeout_s=timeout_s)
        for s in (
            _ui_string(key, study, experiment),
            _ui_string("instructions_trial_start", study, experiment),
            _ui_string("instructions_cant_tell", study, experiment)
            if _setting(experiment, "cant_tell")
            else None,
        )
        if s
    ]
    instructions = _quote(own) if own else " ".join(_quote(s) for s in said)
    timeouts = {
        "error": "count as not identified",
        "exclude": "are left out",
    }.get(judgments.get("timeouts") or "error", judgments.get("timeouts"))
    task_text = (
        "the participant clicks the picture they think the description means"
        f" ({variant} variant; the instructions in 4.3.7)"
    )
    common = {
        "4.2.1": "Objective",
        "4.2.2": "Absolute",
        "4.2.3": "Extrinsic",
        "4.3.2": f"no definition beyond the instructions: {instructions}",
        "4.3.3": "N/A: no rating instrument (a click on one picture)",
        "4.3.4": "N/A: no rating instrument",
        "4.3.5": "N/A (there is no rating instrument)",
        "4.3.6": task_text,
        "4.3.7": instructions,
        "4.3.8": "Task performance measurements",
    }
    times = (
        "wrong answers keep their times"
        if judgments.get("times_include_errors", True)
        else "only the times of right answers count"
    )
    out = [
        _Criterion(
            "Identification accuracy",
            common
            | {
                "4.1.1": "Correctness",
                "4.1.2": "Content of output",
                "4.1.3": "Quality of output relative to the input (the target among"
                " the pictures)",
                "4.3.1.1": "none shown (stecflow's name: identification accuracy)",
                "4.3.9": "a trial counts as identified when the picture clicked is the"
                f" target; time-outs {timeouts}; {_removed()}; a system's score is"
                " the share of its trials identified, per subdomain and over all",
            },
            ("identification_accuracy",),
            agreement="chosen_entity",
        ),
        _Criterion(
            "Identification time",
            common
            | {
                "4.1.1": "Goodness",
                "4.1.2": "Both form and content of output",
                "4.1.3": "Quality of output relative to the input (the target among"
                " the pictures)",
                "4.3.1.1": "none shown (stecflow's name: identification time)",
                "4.3.9": "the time from the pictures' onset to the click (ms);"
                f" {times}; {_outliers(config)}; {_removed()}; a system's score is"
                " the mean (and SD) of its times",
            },
            ("identification_time",),
        ),
    ]
    if variant == "read_first":
        out.append(
            _Criterion(
                "Reading time",
                common
                | {
                    "4.1.1": "Goodness",
                    "4.1.2": "Both form and content of output",
                    "4.1.3": "Quality of output in its own right",
                    "4.3.1.1": "none shown (stecflow's name: reading time)",
                    "4.3.9": "the time from the description's onset to the call for"
                    f" the pictures (ms); {_outliers(config)}; {_removed()}; a"
                    " system's score is the mean (and SD) of its times",
                },
                ("reading_time",),
            )
        )
    return out


def _text_criteria(
    study: Mapping[str, Any], config_study: Mapping[str, Any], config: Mapping[str, Any]
) -> list[_Criterion]:
    task = study.get("task")
    experiment = config_study.get("experiment") or {}
    own = experiment.get("instructions")
    z = config_study.get("normalise") == "z"
    out = []
    for criterion in config_study.get("criteria") or study.get("criteria") or []:
        if not isinstance(criterion, Mapping):
            criterion = {"id": str(criterion)}
        cid = str(criterion.get("id"))
        name = str(criterion.get("name") or cid)
        question = criterion.get("question")
        anchors = [str(a) for a in criterion.get("anchors") or ()]
        definition = (
            f"the organisers' instructions: {_quote(own)}"
            if own
            else "the question (4.3.7) is the definition"
        )
        answers = {
            "4.1.1": f"{TO_COMPLETE} (the organisers' criterion)",
            "4.1.2": f"{TO_COMPLETE} (the organisers' criterion)",
            "4.1.3": f"{TO_COMPLETE} (the organisers' criterion)",
            "4.2.1": "Subjective",
            "4.2.3": "Intrinsic",
            "4.3.1.1": f"{name} (the criterion's ID in the config; the page shows"
            " the question, 4.3.7)",
            "4.3.2": definition,
            "4.3.6": "N/A: there is a rating instrument (4.3.3–4.3.5)",
            "4.3.7": _quote(question) if question else "none configured",
        }
        if paired(task):
            tie = bool(criterion.get("allow_tie"))
            answers |= {
                "4.2.2": "Relative",
                "4.3.3": "3" if tie else "2",
                "4.3.4": "the first text, the second text"
                + (", no preference" if tie else ""),
                "4.3.5": "Multiple-choice options (one of the two texts"
                + (" or “No preference”" if tie else "")
                + ")",
                "4.3.8": "Relative quality estimation (including ranking)",
                "4.3.9": "each trial's preferred text is a win of its system over"
                f" the other{' (a tie: neither)' if tie else ''}; {_removed()};"
                " per system, the win rate (Wilson intervals) and Bradley-Terry"
                " strength; per pair of systems, the win rate",
            }
        else:
            scale_z = (
                f"; besides, per-rater z-scores (`{cid}_z`, as WMT's direct"
                " assessment) are averaged per system"
                if z
                else "; no normalisation"
            )
            if criterion.get("scale") == "slider":
                ends = (
                    f" (left end {_quote(anchors[0])}, right end {_quote(anchors[-1])})"
                    if len(anchors) >= 2
                    else ""
                )
                answers |= {
                    "4.3.3": "101",
                    "4.3.4": f"0–100 (the slider's position){ends}",
                    "4.3.5": "Slider (no numbers shown, pointer centred at the start)",
                }
                recorded = "the slider position (0–100)"
            else:
                points = int(criterion.get("points") or 5)
                labels = (
                    ": "
                    + ", ".join(f"{n} {_quote(a)}" for n, a in enumerate(anchors, 1))
                    if len(anchors) == points
                    else f" ({_quote(anchors[0])} to {_quote(anchors[-1])})"
                    if len(anchors) >= 2
                    else ""
                )
                answers |= {
                    "4.3.3": str(points),
                    "4.3.4": f"1–{points}{labels}",
                    "4.3.5": f"Multiple-choice options (a {points}-point Likert"
                    " scale of radio buttons)",
                }
                recorded = f"the point chosen (1–{points})"
            answers |= {
                "4.2.2": "Absolute",
                "4.3.8": "Direct quality estimation",
                "4.3.9": f"each trial records {recorded}; {_removed()}; a system's"
                " score is the mean (and SD) of its trials' scores" + scale_z,
            }
        out.append(_Criterion(name, answers, (cid, f"{cid}_z"), agreement=cid))
    return out


def _situated_criteria(
    study: Mapping[str, Any], config_study: Mapping[str, Any], config: Mapping[str, Any]
) -> list[_Criterion]:
    ident = (config.get("judgments") or {}).get("ident") or {}
    common = {
        "4.2.1": "Objective",
        "4.2.2": "Absolute",
        "4.2.3": "Extrinsic",
        "4.3.2": "no definition: the participant is asked which piece the"
        " highlighted expression refers to",
        "4.3.3": "N/A: no rating instrument (a click on one piece)",
        "4.3.4": "N/A: no rating instrument",
        "4.3.5": "N/A (there is no rating instrument)",
        "4.3.6": "the participant clicks the numbered piece (or its button) the"
        " highlighted expression refers to, or “I don't know”; the clip may be"
        " replayed",
        "4.3.7": "see the web experiment under `studies/<study>/web/`",
        "4.3.8": "Task performance measurements",
    }
    return [
        _Criterion(
            "Identification",
            common
            | {
                "4.1.1": "Correctness",
                "4.1.2": "Content of output",
                "4.1.3": "Quality of output relative to the input (the referent in"
                " the shared work area)",
                "4.3.1.1": "none shown (stecflow's names: identification rate,"
                " majority identification rate, agreement)",
                "4.3.9": "per expression, the identification rate (the share of its"
                " evaluators who chose the target), majority identification (the"
                " most chosen answer is the target; a tied mode counts as"
                f" {_words(ident.get('majority_tie') or 'not_identified')})"
                " and agreement (the share of the most chosen answer); system"
                " scores aggregated"
                f" {_words(ident.get('aggregation') or 'mean_over_items')}"
                " (Spanger et al. Tables 7–9)",
            },
            ("identification_rate", "majority_identification_rate", "agreement"),
            agreement="chosen_piece",
        ),
        _Criterion(
            "Identification time",
            common
            | {
                "4.1.1": "Goodness",
                "4.1.2": "Both form and content of output",
                "4.1.3": "Quality of output relative to the input (the referent in"
                " the shared work area)",
                "4.3.1.1": "none shown (stecflow's name: identification time)",
                "4.3.9": "the time from the onset of the utterance to the click"
                f" (ms); {_outliers(config)}; the mean per system",
            },
            ("identification_time",),
        ),
    ]


# -- Section 3.3: the trials of each kind --------------------------------------


def _rating_trial(study: Mapping[str, Any], config_study: Mapping[str, Any]) -> str:
    experiment = config_study.get("experiment") or {}
    return (
        "the grid of pictures with the target highlighted, the description"
        " (the system's output) and the two rating questions, each with its"
        " slider (no numbers, pointer centred at the start)"
        + (
            "; both sliders must be moved before going on"
            if _setting(experiment, "require_slider_touch")
            else ""
        )
    )


def _voiced(study: Mapping[str, Any], config_study: Mapping[str, Any]) -> str:
    """How a spoken study's descriptions were voiced: from its study document's
    ``speech`` when built, else from its config (espeak-ng or recordings)."""
    from stecflow.core.voicing import speech_text

    built = speech_text(study.get("speech"))
    if built:
        return built
    if (config_study.get("speech") or {}).get("source") == "recorded":
        return "recorded by the organisers"
    return "espeak-ng"


def _identification_trial(
    study: Mapping[str, Any], config_study: Mapping[str, Any]
) -> str:
    experiment = config_study.get("experiment") or {}
    variant = study.get("variant") or config_study.get("variant") or "together"
    trial = {
        "together": "a fixation cross, then the description with the grid"
        " of pictures; the participant clicks the picture meant",
        "read_first": "a fixation cross, then the description alone; the"
        " participant calls up the grid of pictures when they have read it"
        + (
            " (the description then disappears)"
            if _setting(experiment, "hide_description")
            else ""
        )
        + " and clicks the picture meant",
        "spoken": "the grid of pictures while the description is spoken"
        f" ({_voiced(study, config_study)}); the participant clicks the picture"
        " meant",
    }.get(variant, f"the {variant} identification trial")
    if _setting(experiment, "cant_tell"):
        trial += f", or {_quote(_ui_string('cant_tell', study, experiment))}"
    return trial


def _identification_time_limit(
    study: Mapping[str, Any], config_study: Mapping[str, Any]
) -> str:
    experiment = config_study.get("experiment") or {}
    timeout = int(_setting(experiment, "timeout_ms")) / 1000
    reading = _setting(experiment, "reading_timeout_ms")
    return f"an identification times out {timeout:g} s after the pictures appear" + (
        f" (the pictures are called up after {int(reading) / 1000:g} s of reading)"
        if reading
        else ""
    )


def _situated_trial(study: Mapping[str, Any], config_study: Mapping[str, Any]) -> str:
    return (
        "a replay of the shared work area drawn from the log (pieces, actions,"
        " cursor) with the preceding utterances, then the utterance with the"
        " expression highlighted"
    )


# -- The sheets ----------------------------------------------------------------


#: The sheets of the built-in kinds (their ``datasheet`` hooks).
RATING_SHEET = KindSheet(_rating_criteria, _rating_trial)
IDENTIFICATION_SHEET = KindSheet(
    _identification_criteria,
    _identification_trial,
    time_limit=_identification_time_limit,
    feedback=True,
)
SITUATED_SHEET = KindSheet(
    _situated_criteria, _situated_trial, section_3=_situated_section_3
)
TEXT_RATING_SHEET = KindSheet(
    _text_criteria,
    lambda study, config_study: (
        "the item and one system's text, with each criterion's question and scale"
    ),
)
TEXT_PREFERENCE_SHEET = KindSheet(
    _text_criteria,
    lambda study, config_study: (
        "the item and two systems' texts side by side, with the question"
    ),
)
