"""The study-kind specifics of the analyses: each kind's task, measures and
default analyses, and the spec checks of the tests bound to one kind.

What the statistics stage knows of each kind of study lives here, apart from
the tests themselves (:mod:`stecflow.analysis.registry`): which task a kind has
(REG ``rating`` and ``identification``, the text studies of issue #16, seed
000's situated identification), which measures its judgments table gives
(:data:`JUDGMENT_MEASURES`, or a text study's criteria), which analyses run by
default (:func:`default_analyses`, what TUNA-REG'09 reported), which tests a
study of each kind takes (:func:`check_study_source`), and the spec checks of
the tests that analyse one kind only (:func:`checked_situated_spec`,
:func:`checked_preference_spec`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.core.errors import ConfigError

__all__ = [
    "DECISION_METRICS",
    "JUDGMENT_MEASURES",
    "PREFERENCE_KEYS",
    "SITUATED_KEYS",
    "SITUATED_STUDY_TASK",
    "TEXT_PREFERENCE_TASK",
    "TEXT_RATING_TASK",
    "check_study_source",
    "checked_preference_spec",
    "checked_situated_spec",
    "decision_metric_ids",
    "default_analyses",
    "measure_column",
    "study_criteria",
    "study_measures",
]

#: The tasks of the text studies (issue #16): ratings per criterion, and
#: pairwise preferences (analysed by ``preference`` only).
TEXT_RATING_TASK = "text_rating"
TEXT_PREFERENCE_TASK = "text_preference"

#: Keys a ``preference`` analysis may have.
PREFERENCE_KEYS = ("id", "test", "source", "reference")


#: The task of a situated identification study (seed 000), which only
#: ``situated_ttests`` analyses.
SITUATED_STUDY_TASK = "situated_identification"

#: Keys an analysis of each situated kind may have (the others do not apply).
SITUATED_KEYS = {
    "situated_ttests": ("id", "test", "source", "comparisons", "alternative"),
    "confusion": ("id", "test", "source", "measures"),
}

#: Registry names of the metrics whose item scores ``confusion`` reads.
DECISION_METRICS = ("decision_precision", "decision_recall")

#: Measures of human studies: the column of ``judgments/<study>.tsv``, the flag
#: selecting the trials analysed, whether higher is better, and the tasks having it.
JUDGMENT_MEASURES: dict[str, tuple[str, str, bool, tuple[str, ...]]] = {
    "adequacy": ("adequacy", "in_analysis", True, ("rating",)),
    "fluency": ("fluency", "in_analysis", True, ("rating",)),
    # per-rater z-scores (study option normalise: z, stecflow.judgments.normalise)
    "adequacy_z": ("adequacy_z", "in_analysis", True, ()),
    "fluency_z": ("fluency_z", "in_analysis", True, ()),
    "identification_accuracy": ("correct", "in_analysis", True, ("identification",)),
    "identification_time": (
        "identification_time_adj_ms",
        "in_time_analysis",
        False,
        ("identification",),
    ),
    "reading_time": (
        "reading_time_adj_ms",
        "in_time_analysis",
        False,
        ("identification",),
    ),
}


def study_measures(study: Mapping[str, Any]) -> list[str]:
    if study["task"] == TEXT_RATING_TASK:
        measures = study_criteria(study)
    else:
        measures = [
            m for m, (*_, tasks) in JUDGMENT_MEASURES.items() if study["task"] in tasks
        ]
    if study.get("normalise") == "z":  # <measure>_z: per-rater z-scores
        measures += [
            f"{m}_z"
            for m in measures
            if study["task"] == TEXT_RATING_TASK or m in ("adequacy", "fluency")
        ]
    return measures


def study_criteria(study: Mapping[str, Any]) -> list[str]:
    """The criterion IDs of a text study (its measures)."""
    return [str(c["id"]) for c in study.get("criteria") or [] if c.get("id")]


def measure_column(measure: str, criteria: Sequence[str] = ()) -> tuple[str, str, bool]:
    """(column, flag, higher is better) of a study measure.

    A text study's criterion is its own column of the judgments table, over the
    trials ``in_analysis``, higher better; the REG measures are
    :data:`JUDGMENT_MEASURES`. *criteria* (the source study's) win over the REG
    names; a name that is neither (a criterion of a correlation's
    ``<study>:<criterion>``, checked by
    :func:`~stecflow.analysis.specs.analysis_specs`) is a criterion.
    """
    if measure in criteria or measure not in JUDGMENT_MEASURES:
        return measure, "in_analysis", True
    column, flag, higher, _ = JUDGMENT_MEASURES[measure]
    return column, flag, higher


def decision_metric_ids(metrics: Mapping[str, Any]) -> list[str]:
    """IDs of the first decision_precision and decision_recall metrics, or []."""
    found = []
    for name in DECISION_METRICS:
        ids = [m for m, metric in metrics.items() if metric.name == name]
        if not ids:
            return []
        found.append(ids[0])
    return found


#: The attribute-set metrics of the default analyses of a campaign that scores no
#: word strings (correlated; ANOVA and Tukey on Dice, Kruskal-Wallis on accuracy).
_SET_DEFAULTS = ("dice", "masi", "set_accuracy", "set_edit")


def default_analyses(
    metrics: Mapping[str, Any], studies: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """What TUNA-REG'09 reported, for the metrics and studies configured.

    *metrics* are those the campaign computes (``_computed_metrics`` of
    :mod:`stecflow.analysis.specs`): the analyses of word strings (string-edit
    distance, string accuracy, BLEU-3, NIST-5) where it scores them; otherwise,
    in an attribute-selection campaign, the same analyses of the attribute sets
    as TUNA-AS'08 reported them (Dice for string-edit distance, set accuracy for
    string accuracy, correlations of Dice, MASI, accuracy and set-edit
    distance); no analysis names a metric the campaign does not compute.

    For the situated task (seed 000) instead: ``confusion`` when the decision
    metrics are scored (the seed's intrinsic evaluation is P, R, F and each
    instance's class, its Table 4, with no test across systems), and for each
    situated study its ``situated_ttests`` (§5.3); the REG analyses of studies
    are not made for them (their measures are not the REG ones).
    """
    out: list[dict[str, Any]] = []
    if decision_metric_ids(metrics):
        out.append({"id": "confusion", "test": "confusion"})
    strings = [m for m in ("string_accuracy", "se", "bleu3", "nist5") if m in metrics]
    # an attribute-selection campaign (no word strings scored): the measures
    # TUNA-AS'08 reported, as config/b5-ref.yaml sets them
    sets = [] if strings else [m for m in _SET_DEFAULTS if m in metrics]
    correlated = strings or sets
    for measure in ("se", "dice"):
        if measure in correlated:
            out += [
                {"id": f"{measure}-anova", "test": "anova", "measure": measure},
                {"id": f"{measure}-tukey", "test": "tukey", "measure": measure},
            ]
    accuracy = next(
        (m for m in ("string_accuracy", "set_accuracy") if m in correlated), None
    )
    if accuracy:
        out.append({"id": "accuracy-kruskal", "test": "kruskal", "measure": accuracy})
    two_way = ["system", "subdomain"]
    for study in studies:
        sid = study["id"]
        if study["task"] == SITUATED_STUDY_TASK:
            out.append(
                {"id": f"{sid}-ttests", "test": "situated_ttests", "source": sid}
            )
        elif study["task"] == TEXT_PREFERENCE_TASK:
            out.append({"id": f"{sid}-preference", "test": "preference", "source": sid})
        elif study["task"] == TEXT_RATING_TASK:
            for measure in study_criteria(study):
                out += [
                    {
                        "id": f"{sid}-{measure}-{test}",
                        "test": test,
                        "source": sid,
                        "measure": measure,
                    }
                    for test in ("anova", "tukey")
                ]
        elif study["task"] == "rating":
            for measure in ("adequacy", "fluency"):
                out += [
                    {
                        "id": f"{sid}-{measure}-anova",
                        "test": "anova",
                        "source": sid,
                        "measure": measure,
                        "factors": two_way,
                    },
                    {
                        "id": f"{sid}-{measure}-tukey",
                        "test": "tukey",
                        "source": sid,
                        "measure": measure,
                        "factors": two_way,
                    },
                ]
            correlated += [f"{sid}:adequacy", f"{sid}:fluency"]
        else:
            out += [
                {
                    "id": f"{sid}-time-anova",
                    "test": "anova",
                    "source": sid,
                    "measure": "identification_time",
                    "factors": two_way,
                },
                {
                    "id": f"{sid}-time-tukey",
                    "test": "tukey",
                    "source": sid,
                    "measure": "identification_time",
                    "factors": two_way,
                },
                {
                    "id": f"{sid}-accuracy-kruskal",
                    "test": "kruskal",
                    "source": sid,
                    "measure": "identification_accuracy",
                },
            ]
            correlated += [
                f"{sid}:identification_accuracy",
                f"{sid}:identification_time",
            ]
    if len(correlated) >= 2:
        out.append(
            {"id": "correlations", "test": "correlations", "measures": correlated}
        )
    return out


def check_study_source(
    spec: dict[str, Any], study: Mapping[str, Any], where: str
) -> None:
    """Whether the analysis *spec* may read *study*, its ``source``, by its kind.

    A situated or a preference study takes its own test only (a ConfigError
    says which); an analysis of a text-rating study gets its ``criteria``.
    """
    test = spec["test"]
    if study["task"] == SITUATED_STUDY_TASK:
        raise ConfigError(
            f"{spec['source']} is a {SITUATED_STUDY_TASK} study: analyse it with"
            f" test situated_ttests, not {test}",
            field=f"{where}.test",
        )
    if study["task"] == TEXT_PREFERENCE_TASK:
        raise ConfigError(
            f"{spec['source']} is a {TEXT_PREFERENCE_TASK} study: analyse it"
            f" with test preference, not {test}",
            field=f"{where}.test",
        )
    if study["task"] == TEXT_RATING_TASK:
        spec["criteria"] = study_measures(study)


def checked_preference_spec(
    entry: Mapping[str, Any],
    where: str,
    studies: Mapping[str, Mapping[str, Any]],
    seen: set[str],
) -> dict[str, Any]:
    """A ``preference`` entry: its source must be a text_preference study."""
    spec = dict(entry)
    if spec["id"] in seen:
        raise ConfigError(f"analysis ID {spec['id']!r} is used twice", field=where)
    seen.add(spec["id"])
    extra = sorted(set(spec) - set(PREFERENCE_KEYS))
    if extra:
        raise ConfigError(
            f"{extra[0]} does not apply to a preference analysis (keys: "
            + ", ".join(PREFERENCE_KEYS)
            + ")",
            field=f"{where}.{extra[0]}",
        )
    preference = [s for s, st in studies.items() if st["task"] == TEXT_PREFERENCE_TASK]
    if spec.get("source") not in preference:
        what = "not" if spec.get("source") in studies else "unknown: give"
        raise ConfigError(
            f"source {spec.get('source')!r} is {what} a {TEXT_PREFERENCE_TASK}"
            f" study ({', '.join(preference) or 'none is configured'})",
            field=f"{where}.source",
        )
    systems = [str(s) for s in studies[spec["source"]].get("systems") or []]
    reference = spec.get("reference")
    if reference is not None and systems and reference not in systems:
        raise ConfigError(
            f"reference {reference!r} is not a system of study {spec['source']}"
            f" ({', '.join(systems)})",
            field=f"{where}.reference",
        )
    return spec


def checked_situated_spec(
    entry: Mapping[str, Any],
    where: str,
    metrics: Mapping[str, Any],
    studies: Mapping[str, Mapping[str, Any]],
    seen: set[str],
) -> dict[str, Any]:
    """A ``situated_ttests`` or ``confusion`` entry with its defaults."""
    from stecflow.analysis.situated import MEASURES
    from stecflow.judgments.situated import CLASSES

    test = entry["test"]
    spec = dict(entry)
    if spec["id"] in seen:
        raise ConfigError(f"analysis ID {spec['id']!r} is used twice", field=where)
    seen.add(spec["id"])
    extra = [k for k in spec if k not in SITUATED_KEYS[test]]
    if extra:
        raise ConfigError(
            f"{extra[0]} does not apply to {test} (its keys:"
            f" {', '.join(SITUATED_KEYS[test])})",
            field=f"{where}.{extra[0]}",
        )
    if test == "confusion":
        spec.setdefault("source", "scores")
        if spec["source"] != "scores":
            raise ConfigError(
                "confusion reads the item scores: its source is scores",
                field=f"{where}.source",
            )
        decision = decision_metric_ids(metrics)
        if not decision:
            raise ConfigError(
                "confusion needs the metrics decision_precision and decision_recall"
                " (the situated_dialogue task's) in scoring.metrics",
                field=f"{where}.test",
            )
        chosen = list(spec.setdefault("measures", decision))
        names = [getattr(metrics.get(m), "name", None) for m in chosen]
        if len(chosen) != 2 or tuple(names) != DECISION_METRICS:
            raise ConfigError(
                "measures of confusion: the IDs of a decision_precision and a"
                f" decision_recall metric, in this order (e.g. {', '.join(decision)})",
                field=f"{where}.measures",
            )
        return spec
    source = spec.get("source")
    situated = [
        s for s, study in studies.items() if study["task"] == SITUATED_STUDY_TASK
    ]
    if source not in studies or studies[source]["task"] != SITUATED_STUDY_TASK:
        what = "no source" if source is None else f"{source!r} is not"
        raise ConfigError(
            f"situated_ttests analyses a {SITUATED_STUDY_TASK} study: {what} one"
            f" ({', '.join(situated) or 'none is configured'})",
            field=f"{where}.source",
        )
    for k, comparison in enumerate(spec.get("comparisons") or []):
        at = f"{where}.comparisons[{k}]"
        if not isinstance(comparison, Sequence) or isinstance(comparison, str):
            comparison = [comparison]
        if len(comparison) != 3:
            raise ConfigError(
                "a comparison is [class_a, class_b, measure], e.g. [TP, FN, ir]",
                field=at,
            )
        a, b, measure = comparison
        for n, cls in enumerate((a, b)):
            if cls not in CLASSES:
                raise ConfigError(
                    f"unknown class {cls!r}; classes: {', '.join(CLASSES)}",
                    field=f"{at}[{n}]",
                )
        if a == b:
            raise ConfigError(f"{a} is compared with itself", field=at)
        if measure not in MEASURES:
            raise ConfigError(
                f"unknown measure {measure!r}; measures: {', '.join(MEASURES)}",
                field=f"{at}[2]",
            )
    return spec
