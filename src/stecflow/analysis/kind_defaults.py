"""The study-kind specifics of the analyses: each kind's task, measures and
default analyses, and the spec checks of the tests bound to one kind.

What the statistics stage knows of each kind of study lives here, apart from
the tests themselves (:mod:`stecflow.analysis.registry`): which task a kind has
(REG ``rating`` and ``identification``, the text studies of issue #16, seed
000's situated identification), which measures its judgments table gives
(:func:`judgment_measures`, or a text study's criteria), which analyses run by
default (:func:`default_analyses`, what TUNA-REG'09 reported), which tests a
study of each kind takes (:func:`check_study_source`), and the spec checks of
the tests that analyse one kind (or one task) only (:func:`checked_entry`,
:func:`checked_confusion_spec`, :func:`checked_preference_spec`; a kind's own
tests check their entries in its package, as the situated study's
``situated_ttests``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.core.errors import ConfigError
from stecflow.studykinds.registry import hook

__all__ = [
    "DECISION_METRICS",
    "judgment_measures",
    "PREFERENCE_KEYS",
    "CONFUSION_KEYS",
    "check_study_source",
    "checked_preference_spec",
    "kinds_taking",
    "taking",
    "checked_confusion_spec",
    "checked_entry",
    "decision_metric_ids",
    "default_analyses",
    "identification_analyses",
    "measure_analyses",
    "own_test_analyses",
    "rating_analyses",
    "measure_column",
    "study_criteria",
    "study_measures",
]

#: Keys a ``preference`` analysis may have.
PREFERENCE_KEYS = ("id", "test", "source", "reference")


#: Keys a ``confusion`` analysis may have (the others do not apply).
CONFUSION_KEYS = ("id", "test", "source", "measures")

#: Registry names of the metrics whose item scores ``confusion`` reads.
DECISION_METRICS = ("decision_precision", "decision_recall")


def judgment_measures() -> dict[str, tuple[str, str, bool, tuple[str, ...]]]:
    """The measures the study kinds declare
    (:attr:`~stecflow.studykinds.base.StudyKind.measures`): name -> the column
    of ``judgments/<study>.tsv``, the flag selecting the trials analysed,
    whether higher is better, and the kinds having it; and for a kind whose
    scores can be z-normalised, each interval measure's ``<measure>_z``.

    >>> judgment_measures()["identification_time"][:3]
    ('identification_time_adj_ms', 'in_time_analysis', False)
    """
    from stecflow.studykinds.registry import kinds

    found: dict[str, tuple[str, str, bool, tuple[str, ...]]] = {}
    for kind in kinds():
        for m in kind.measures:
            _, _, _, having = found.get(m.name, ("", "", True, ()))
            found[m.name] = (
                m.column or m.name,
                m.flag,
                m.higher_is_better,
                (*having, kind.name),
            )
    for kind in kinds():
        if kind.normalisable:  # per-rater z-scores (stecflow.judgments.normalise)
            for m in kind.measures:
                if m.level == "interval":
                    found.setdefault(f"{m.name}_z", (f"{m.name}_z", m.flag, True, ()))
    return found


def study_measures(study: Mapping[str, Any]) -> list[str]:
    """The measures an analysis of *study* can name: its kind's ``measures``
    hook's (a text rating's criteria), or else the measures its kind declares;
    and with ``normalise: z`` each interval measure's ``<measure>_z``."""
    from stecflow.studykinds.registry import get

    kind = get(study["task"])
    own = hook(kind.name, "measures")
    measures = list(own(study)) if own is not None else [m.name for m in kind.measures]
    if study.get("normalise") == "z" and kind.normalisable:
        interval = {m.name for m in kind.measures if m.level == "interval"}
        measures += [f"{m}_z" for m in measures if own is not None or m in interval]
    return measures


def study_criteria(study: Mapping[str, Any]) -> list[str]:
    """The criterion IDs of a text study (its measures)."""
    return [str(c["id"]) for c in study.get("criteria") or [] if c.get("id")]


def measure_column(measure: str, criteria: Sequence[str] = ()) -> tuple[str, str, bool]:
    """(column, flag, higher is better) of a study measure.

    A text study's criterion is its own column of the judgments table, over the
    trials ``in_analysis``, higher better; the measures the kinds declare are
    :func:`judgment_measures`'s. *criteria* (the source study's) win over the REG
    names; a name that is neither (a criterion of a correlation's
    ``<study>:<criterion>``, checked by
    :func:`~stecflow.analysis.specs.analysis_specs`) is a criterion.
    """
    declared = judgment_measures()
    if measure in criteria or measure not in declared:
        return measure, "in_analysis", True
    column, flag, higher, _ = declared[measure]
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
    for study in studies:
        own = hook(study["task"], "analyses")
        specs, measures = (own or measure_analyses)(study)
        out += specs
        correlated += measures
    if len(correlated) >= 2:
        out.append(
            {"id": "correlations", "test": "correlations", "measures": correlated}
        )
    return out


def _anova_tukey(
    sid: str, measures: Sequence[str], **extra: Any
) -> list[dict[str, Any]]:
    """ANOVA then Tukey's HSD of each measure of study *sid*, as
    ``<sid>-<measure>-<test>``, with *extra* keys (``factors``)."""
    return [
        {
            "id": f"{sid}-{measure}-{test}",
            "test": test,
            "source": sid,
            "measure": measure,
            **extra,
        }
        for measure in measures
        for test in ("anova", "tukey")
    ]


def measure_analyses(
    study: Mapping[str, Any],
) -> tuple[list[dict[str, Any]], list[str]]:
    """A study's default analyses when its kind gives none of its own: ANOVA
    and Tukey's HSD of each of its measures (:func:`study_measures`, the
    z-scores aside), and those measures to correlate (none: a text rating's
    criteria are not the REG measures the correlations of seed 001 cross)."""
    measures = study_measures({**study, "normalise": None})
    return _anova_tukey(study["id"], measures), []


def rating_analyses(study: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """The rating kind's ``analyses`` hook: two-way ANOVA and Tukey's HSD
    (system x subdomain) of Adequacy and Fluency, both correlated (seed 001)."""
    sid = study["id"]
    specs = _anova_tukey(sid, ("adequacy", "fluency"), factors=["system", "subdomain"])
    return specs, [f"{sid}:adequacy", f"{sid}:fluency"]


def identification_analyses(
    study: Mapping[str, Any],
) -> tuple[list[dict[str, Any]], list[str]]:
    """The identification kind's ``analyses`` hook: two-way ANOVA and Tukey's
    HSD of identification time, Kruskal-Wallis of identification accuracy,
    both correlated (seed 001)."""
    sid = study["id"]
    two_way = ["system", "subdomain"]
    specs = [
        {
            "id": f"{sid}-time-{test}",
            "test": test,
            "source": sid,
            "measure": "identification_time",
            "factors": two_way,
        }
        for test in ("anova", "tukey")
    ]
    specs.append(
        {
            "id": f"{sid}-accuracy-kruskal",
            "test": "kruskal",
            "source": sid,
            "measure": "identification_accuracy",
        }
    )
    return specs, [f"{sid}:identification_accuracy", f"{sid}:identification_time"]


def own_test_analyses(
    study: Mapping[str, Any],
) -> tuple[list[dict[str, Any]], list[str]]:
    """The ``analyses`` hook of a kind analysed by tests of its own
    (:attr:`~stecflow.studykinds.base.StudyKind.tests`): one of each, named
    ``<study>-<suffix>``, nothing correlated."""
    from stecflow.studykinds.registry import get

    sid = study["id"]
    return [
        {"id": f"{sid}-{suffix}", "test": test, "source": sid}
        for test, suffix in get(study["task"]).tests.items()
    ], []


def check_study_source(
    spec: dict[str, Any], study: Mapping[str, Any], where: str
) -> None:
    """Whether the analysis *spec* may read *study*, its ``source``, by its kind.

    A situated or a preference study takes its own test only (a ConfigError
    says which); an analysis of a text-rating study gets its ``criteria``.
    """
    from stecflow.studykinds.registry import get, hook

    test, kind = spec["test"], get(study["task"])
    if kind.tests and test not in kind.tests:
        raise ConfigError(
            f"{spec['source']} is a {kind.name} study: analyse it with test"
            f" {' or '.join(kind.tests)}, not {test}",
            field=f"{where}.test",
        )
    if hook(kind.name, "measures") is not None:  # measures from its config
        spec["criteria"] = study_measures(study)


def taking(test: str, studies: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The studies whose kind is analysed by *test* of its own."""
    from stecflow.studykinds.registry import get

    return [s for s, st in studies.items() if test in get(st["task"]).tests]


def kinds_taking(test: str) -> str:
    from stecflow.studykinds.registry import names_where

    return " or ".join(names_where(lambda kind: test in kind.tests))


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
    preference = taking("preference", studies)
    if spec.get("source") not in preference:
        what = "not" if spec.get("source") in studies else "unknown: give"
        raise ConfigError(
            f"source {spec.get('source')!r} is {what} a {kinds_taking('preference')}"
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


def checked_entry(
    entry: Mapping[str, Any], where: str, keys: Sequence[str], seen: set[str]
) -> dict[str, Any]:
    """An entry of a test of one kind's (or one task's) own: its ID not used
    before, and none but its *keys*."""
    spec = dict(entry)
    if spec["id"] in seen:
        raise ConfigError(f"analysis ID {spec['id']!r} is used twice", field=where)
    seen.add(spec["id"])
    extra = [k for k in spec if k not in keys]
    if extra:
        raise ConfigError(
            f"{extra[0]} does not apply to {spec['test']} (its keys:"
            f" {', '.join(keys)})",
            field=f"{where}.{extra[0]}",
        )
    return spec


def checked_confusion_spec(
    entry: Mapping[str, Any],
    where: str,
    metrics: Mapping[str, Any],
    seen: set[str],
) -> dict[str, Any]:
    """A ``confusion`` entry with its defaults."""
    spec = checked_entry(entry, where, CONFUSION_KEYS, seen)
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
