"""The statistics stage: run the configured analyses on scores and judgments.

The config's ``statistics.analyses`` lists analyses by ID; each becomes one job
writing ``results/stats/<id>.tsv`` (the tidy result of a :mod:`stecflow.stats`
function) and ``results/stats/<id>.json`` (the settings it ran with, the systems it
covered and the result written as the seed papers write it, e.g.
``F(7, 880) = 7.29, p < .001``).

An analysis reads either the automatic scores (``source: scores``; the measure is a
metric ID) or one human study (``source: <study ID>``; the measure is one of
:data:`JUDGMENT_MEASURES`). Correlations take measures of both kinds, human ones
written ``<study>:<measure>``, on per-system means. The kinds (``test``, see
:data:`TESTS`): ``anova`` (sums of squares of ``statistics.ss_type``), ``tukey``
(shown as ``statistics.posthoc.display``: SPSS homogeneous subsets or a compact
letter display), ``kruskal``, ``correlations``, and the kinds of
:mod:`stecflow.analysis.kinds`: ``ttest`` (paired t-tests, seed 000), ``manova``
(with Bonferroni-corrected follow-ups, seed 003 Table 4), ``mixed`` (crossed random
intercepts for subjects and items) and ``property_means`` (seed 003 Table 3); and
for the situated task of seed 000 (:mod:`stecflow.analysis.situated`)
``situated_ttests`` (paired t-tests over the evaluators of a
``situated_identification`` study, the only kind such a study takes) and
``confusion`` (each instance's TP/FP/FN/TN per system and each system's P, R, F,
from the decision metrics' item scores). A ``text_rating`` study (issue #16) is
analysed per criterion through the kinds above (``measure: <criterion id>``: the
criterion's column of its judgments table, the trials ``in_analysis``); a
``text_preference`` study takes ``preference`` only: per system its
Bradley-Terry strength (:func:`stecflow.stats.preference.bradley_terry`, ties
split half and half) tested against a reference system, with its wins, losses,
ties and win rate (Wilson interval), and in the JSON the pairwise win rates.

Factors are columns of the data (:data:`SCORE_FACTORS` for scores,
:data:`STUDY_FACTORS` for a study's trials) or system properties the campaign
declares (``submissions.properties``); a system's properties come from its
validation record, through ``scores/analysed.tsv`` (:func:`collect_item_scores`).
Texts give statistics with ``statistics.digits`` decimals.

Without an explicit list, the analyses TUNA-REG'09 reported run (seed 001 §5): a
one-way ANOVA of string-edit distance on SYSTEM with Tukey homogeneous subsets and a
Kruskal-Wallis test on Accuracy; for each rating study SYSTEM × DOMAIN ANOVAs of
Adequacy and Fluency with Tukey subsets; for each identification study a SYSTEM ×
DOMAIN ANOVA of identification time with Tukey subsets and a Kruskal-Wallis test on
identification accuracy; and the Pearson correlations between all these measures.
Only metrics the campaign scores enter: a campaign whose tasks output no word
strings (attribute selection, without ``scoring.realise``) gets the same
analyses of its attribute sets instead (Dice for string-edit distance, set
accuracy for Accuracy; correlations of Dice, MASI, accuracy and set-edit
distance, as ``config/b5-ref.yaml`` sets them). For the situated task instead:
``confusion`` when decision_precision and decision_recall are scored, and
``<study>-ttests`` for each situated study (see :func:`_default_analyses`).

An analysis that cannot be computed (a metric no analysed system has scores of,
no system entering, too few systems, a degenerate design, a missing judgments
table) writes a table whose rows say why (``computable`` false, ``reason``) and
a record with ``computable`` false (:func:`run_analysis_or_note`), which the
report shows in its place; it never stops the other analyses or the workflow.
Correlations compute the pairs they can and mark the others.

Which systems enter: accepted submissions, human reference sets included, late
ones only if ``statistics.include_late`` (the official ranking excludes them).
Correlations leave the human reference sets out by default
(``statistics.exclude_references_from_correlations``): seed 001's Table 10 is
computed over the six peer systems (with HUMAN-1 and HUMAN-2 its Fluency-ID speed
r is -0.37, not the published -0.89). A correlation's ``exclude_systems`` leaves
named systems out as well, as seed 002 left IS-FBS out of the correlations between
its two experiments (§4: the buggy version was judged in Exp 1, the corrected one
in Exp 2). Which systems were left out, and why, is recorded in the JSON.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.core.errors import ConfigError
from stecflow.core.io import (
    format_tsv,
    iter_tsv_blocks,
    iter_tsv_columns,
    read_json,
    read_tsv,
    write_json,
    write_tsv,
)
from stecflow.scoring.systems import SYSTEM_COLUMNS, system_rows

__all__ = [
    "ANALYSED_COLUMNS",
    "ITEM_TABLE_COLUMNS",
    "JUDGMENT_MEASURES",
    "SCORE_FACTORS",
    "STUDY_FACTORS",
    "TESTS",
    "analysis_groups",
    "analysis_sources",
    "analysis_specs",
    "collect_item_scores",
    "correlation_exclusions",
    "failure_reason",
    "not_computable_rows",
    "run_analysis",
    "run_analysis_or_note",
    "system_properties",
    "unscored_measures",
    "write_not_computable",
]

log = logging.getLogger(__name__)

#: The tests an analysis can run.
TESTS = (
    "anova",
    "tukey",
    "kruskal",
    "correlations",
    "ttest",
    "manova",
    "mixed",
    "property_means",
    "situated_ttests",
    "confusion",
    "preference",
)

#: The tasks of the text studies (issue #16): ratings per criterion, and
#: pairwise preferences (analysed by ``preference`` only).
TEXT_RATING_TASK = "text_rating"
TEXT_PREFERENCE_TASK = "text_preference"

#: Keys a ``preference`` analysis may have.
PREFERENCE_KEYS = ("id", "test", "source", "reference")

#: Columns of a ``preference`` analysis's table (one row per system, best first).
PREFERENCE_COLUMNS = (
    "system",
    "rank",
    "n",
    "wins",
    "losses",
    "ties",
    "win_rate",
    "win_rate_ci_low",
    "win_rate_ci_high",
    "strength",
    "se",
    "worth",
    "reference",
    "diff",
    "se_diff",
    "ci_low",
    "ci_high",
    "z",
    "p_value",
    "computable",
    "reason",
)

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

#: Tests of several measures at once (``measures``; the others take ``measure``).
MULTI_MEASURE_TESTS = ("manova", "property_means")

#: Columns of the item scores an analysis may use as factors.
SCORE_FACTORS = ("system", "item", "subdomain", "condition")

#: Columns of a study's trials (``judgments/<study>.tsv``) usable as factors.
STUDY_FACTORS = (
    "system",
    "item",
    "subdomain",
    "condition",
    "subject",
    "participant",
    "session",
    "list",
    "subject_slot",
    "group",
    "item_set",
    "variant",
)

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


def _study_measures(study: Mapping[str, Any]) -> list[str]:
    if study["task"] == TEXT_RATING_TASK:
        measures = _criteria(study)
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


def _criteria(study: Mapping[str, Any]) -> list[str]:
    """The criterion IDs of a text study (its measures)."""
    return [str(c["id"]) for c in study.get("criteria") or [] if c.get("id")]


def _measure_column(
    measure: str, criteria: Sequence[str] = ()
) -> tuple[str, str, bool]:
    """(column, flag, higher is better) of a study measure.

    A text study's criterion is its own column of the judgments table, over the
    trials ``in_analysis``, higher better; the REG measures are
    :data:`JUDGMENT_MEASURES`. *criteria* (the source study's) win over the REG
    names; a name that is neither (a criterion of a correlation's
    ``<study>:<criterion>``, checked by :func:`analysis_specs`) is a criterion.
    """
    if measure in criteria or measure not in JUDGMENT_MEASURES:
        return measure, "in_analysis", True
    column, flag, higher, _ = JUDGMENT_MEASURES[measure]
    return column, flag, higher


def _decision_metric_ids(metrics: Mapping[str, Any]) -> list[str]:
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


def _computed_metrics(
    metrics: Mapping[str, Any],
    tasks: Sequence[str] | None,
    scoring: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The configured metrics that give the campaign's outputs a score.

    A word-string metric scores nothing in a campaign whose task types output no
    word string (attribute selection) unless ``scoring.realise`` realises the
    attribute sets: every system gets a ``skipped`` row for it, and no analysis
    has data. The default analyses (:func:`_default_analyses`) use only these.

    Examples
    --------
    >>> from stecflow.metrics import get_metric
    >>> metrics = {"dice": get_metric("dice"), "se": get_metric("se")}
    >>> list(_computed_metrics(metrics, ["attribute_selection"], {}))
    ['dice']
    >>> list(_computed_metrics(metrics, ["attribute_selection"],
    ...                        {"realise": "template"}))
    ['dice', 'se']
    >>> list(_computed_metrics(metrics, ["end_to_end"], {}))
    ['dice', 'se']
    """
    from stecflow.tasks.registry import task_types

    outputs = {o for task in task_types(tasks) for o in task.outputs}
    realised = bool((scoring or {}).get("realise")) and "attribute_set" in outputs
    texts = "word_string" in outputs or realised
    return {
        mid: metric
        for mid, metric in metrics.items()
        if texts or getattr(metric, "input_type", None) != "text"
    }


def _default_analyses(
    metrics: Mapping[str, Any], studies: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """What TUNA-REG'09 reported, for the metrics and studies configured.

    *metrics* are those the campaign computes (:func:`_computed_metrics`): the
    analyses of word strings (string-edit distance, string accuracy, BLEU-3,
    NIST-5) where it scores them; otherwise, in an attribute-selection campaign,
    the same analyses of the attribute sets as TUNA-AS'08 reported them (Dice
    for string-edit distance, set accuracy for string accuracy, correlations of
    Dice, MASI, accuracy and set-edit distance); no analysis names a metric the
    campaign does not compute.

    For the situated task (seed 000) instead: ``confusion`` when the decision
    metrics are scored (the seed's intrinsic evaluation is P, R, F and each
    instance's class, its Table 4, with no test across systems), and for each
    situated study its ``situated_ttests`` (§5.3); the REG analyses of studies
    are not made for them (their measures are not the REG ones).
    """
    out: list[dict[str, Any]] = []
    if _decision_metric_ids(metrics):
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
            for measure in _criteria(study):
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


def analysis_specs(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The analyses to run, with defaults filled in, checked against the config.

    Raises
    ------
    ConfigError
        For an unknown measure or source, a test on a corpus-level metric (which
        has no item scores), bad factors (neither a column of the source nor a
        declared system property) or a repeated ID, naming the key path.
    """
    from stecflow.scoring.specs import build_metrics, metric_specs

    statistics = config.get("statistics") or {}
    tasks = (config.get("campaign") or {}).get("tasks") or None
    metrics = {
        spec.id: metric
        for spec, metric in build_metrics(metric_specs(config.get("scoring"), tasks))
    }
    studies = {s["id"]: s for s in config.get("studies") or []}
    declared = dict((config.get("submissions") or {}).get("properties") or {})
    clash = sorted(set(declared) & set(STUDY_FACTORS))
    if clash:
        raise ConfigError(
            f"system property {clash[0]!r} has the name of a data column; rename it",
            field=f"submissions.properties.{clash[0]}",
        )
    available = dict.fromkeys(metrics, "scores")
    for sid, study in studies.items():
        available.update(
            dict.fromkeys((f"{sid}:{m}" for m in _study_measures(study)), sid)
        )
    entries = statistics.get("analyses") or _default_analyses(
        _computed_metrics(metrics, tasks, config.get("scoring")),
        list(studies.values()),
    )
    specs, seen = [], set()
    for n, entry in enumerate(entries):
        where = f"statistics.analyses[{n}]"
        spec = _checked_spec(entry, where, metrics, studies, available, declared, seen)
        specs.append(spec)
    return specs


def analysis_sources(spec: Mapping[str, Any], studies: Iterable[str]) -> list[str]:
    """The studies whose judgments one analysis reads, sorted (none: scores only).

    Its ``source`` and the studies its measures name (``rating:adequacy``), where
    they are studies of the campaign.

    Examples
    --------
    >>> analysis_sources({"source": "scores", "measures": ["se", "rating:fluency"]},
    ...                  ["rating", "identification"])
    ['rating']
    """
    known = set(studies)
    sources = {spec.get("source", "scores")} | {
        m.split(":")[0] for m in spec.get("measures", []) if ":" in m
    }
    return sorted(s for s in sources if s in known)


def analysis_groups(
    specs: Iterable[Mapping[str, Any]], studies: Iterable[str]
) -> dict[str, list[str]]:
    """Group name -> the IDs of the analyses that read the same tables.

    One job runs each group (the ``run_analyses_<group>`` rules), so the
    statistics stage loads its libraries once per group, not once per analysis,
    and new judgments of one study re-run only the analyses that read them. The
    analyses of the automatic scores alone form the group ``scores``; the others
    are named after the studies they read, joined with ``+`` (sorted). Groups are
    in order of their first analysis; analyses keep the configured order.

    Examples
    --------
    >>> analysis_groups(
    ...     [{"id": "se-anova", "source": "scores"},
    ...      {"id": "r-anova", "source": "rating"},
    ...      {"id": "correlations", "source": "scores",
    ...       "measures": ["se", "rating:fluency", "identification:time"]},
    ...      {"id": "se-tukey", "source": "scores"}],
    ...     ["rating", "identification"])
    {'scores': ['se-anova', 'se-tukey'], 'rating': ['r-anova'], \
'identification+rating': ['correlations']}
    """
    known = list(studies)
    groups: dict[str, list[str]] = {}
    for spec in specs:
        name = "+".join(analysis_sources(spec, known)) or "scores"
        groups.setdefault(name, []).append(spec["id"])
    return groups


def _checked_spec(
    entry: Mapping[str, Any],
    where: str,
    metrics: Mapping[str, Any],
    studies: Mapping[str, Mapping[str, Any]],
    available: Mapping[str, str],
    declared: Mapping[str, Any],
    seen: set[str],
) -> dict[str, Any]:
    """One entry of ``statistics.analyses`` with its defaults, or a ConfigError."""
    test = entry["test"]
    if test in SITUATED_KEYS:
        return _checked_situated_spec(entry, where, metrics, studies, seen)
    if test == "preference":
        return _checked_preference_spec(entry, where, studies, seen)
    default_factors: list[str] = [] if test == "ttest" else ["system"]
    if test == "property_means":
        default_factors = list(declared)
    spec = {"factors": default_factors, "source": "scores", **entry}
    if spec["id"] in seen:
        raise ConfigError(f"analysis ID {spec['id']!r} is used twice", field=where)
    seen.add(spec["id"])
    if test == "correlations":
        spec.setdefault("measures", list(available))
        valid, chosen = list(available), spec["measures"]
    elif spec["source"] == "scores":
        valid = list(metrics)
        chosen = (
            list(spec.get("measures") or [])
            if test in MULTI_MEASURE_TESTS
            else [spec.get("measure")]
        )
    elif spec["source"] in studies:
        if studies[spec["source"]]["task"] == SITUATED_STUDY_TASK:
            raise ConfigError(
                f"{spec['source']} is a {SITUATED_STUDY_TASK} study: analyse it with"
                f" test situated_ttests, not {test}",
                field=f"{where}.test",
            )
        if studies[spec["source"]]["task"] == TEXT_PREFERENCE_TASK:
            raise ConfigError(
                f"{spec['source']} is a {TEXT_PREFERENCE_TASK} study: analyse it"
                f" with test preference, not {test}",
                field=f"{where}.test",
            )
        if studies[spec["source"]]["task"] == TEXT_RATING_TASK:
            spec["criteria"] = _study_measures(studies[spec["source"]])
        valid = _study_measures(studies[spec["source"]])
        if test in MULTI_MEASURE_TESTS:  # a study's measures and metrics joined
            valid += [m for m, metric in metrics.items() if metric.level != "corpus"]
            chosen = spec.get("measures") or []
        else:
            chosen = [spec.get("measure")]
    else:
        raise ConfigError(
            f"unknown source {spec['source']!r}; use scores or a study ID"
            f" ({', '.join(studies) or 'no studies are configured'})",
            field=f"{where}.source",
        )
    key = "measures" if test in MULTI_MEASURE_TESTS else "measure"
    if test in MULTI_MEASURE_TESTS:
        least = 2 if test == "manova" else 1
        if len(chosen) < least:
            raise ConfigError(
                f"{test} needs measures: at least {least}",
                field=f"{where}.measures",
            )
    unknown = [m for m in chosen if m not in valid]
    if unknown:
        raise ConfigError(
            f"unknown measure {unknown[0]!r}; measures here: {', '.join(valid)}",
            field=f"{where}.{key}",
        )
    corpus = [
        m
        for m in chosen
        if test != "correlations" and m in metrics and metrics[m].level == "corpus"
    ]
    if corpus:
        raise ConfigError(
            f"{corpus[0]} is a corpus-level metric: it has no per-item scores"
            f" for a {test} test (use it in correlations)",
            field=f"{where}.{key}",
        )
    if spec.get("deletion") and test != "correlations":
        raise ConfigError(
            "deletion applies to correlations only", field=f"{where}.deletion"
        )
    if spec.get("exclude_systems") and test != "correlations":
        raise ConfigError(
            "exclude_systems applies to correlations only (an analysis of"
            " item scores takes every system analysed)",
            field=f"{where}.exclude_systems",
        )
    columns = SCORE_FACTORS if spec["source"] == "scores" else STUDY_FACTORS
    allowed = [*columns, *declared]
    named = [*spec["factors"]]
    named += [spec[k] for k in ("within", "pair_by") if spec.get(k)]
    bad = [f for f in named if f not in allowed]
    if bad:
        raise ConfigError(
            f"unknown factor {bad[0]!r}: factors here are the columns"
            f" {', '.join(columns)} and the system properties declared in"
            f" submissions.properties ({', '.join(declared) or 'none'})",
            field=f"{where}.factors",
        )
    if test == "tukey" and spec["factors"][0] != "system":
        raise ConfigError(
            "a Tukey test compares systems: its factors must start with system",
            field=f"{where}.factors",
        )
    if test == "ttest":
        spec.setdefault("within", "system")
        spec.setdefault("pair_by", "item" if spec["source"] == "scores" else "subject")
        if spec["within"] == spec["pair_by"] or spec["within"] in spec["factors"]:
            raise ConfigError(
                "within, pair_by and the factors must be different columns",
                field=f"{where}.within",
            )
    if test == "mixed":
        if spec["source"] == "scores":
            raise ConfigError(
                "a mixed model needs subjects: give a study as source",
                field=f"{where}.source",
            )
        if spec["factors"][0] in ("subject", "item"):
            raise ConfigError(
                "the fixed factor of a mixed model cannot be subject or item (they"
                " are its random effects)",
                field=f"{where}.factors",
            )
    if test == "property_means" and not spec["factors"]:
        raise ConfigError(
            "property_means needs factors: declare system properties"
            " (submissions.properties) or name the factors",
            field=f"{where}.factors",
        )
    if spec.get("terms") and test != "manova":
        raise ConfigError("terms applies to manova only", field=f"{where}.terms")
    for term in spec.get("terms") or []:
        missing = [f for f in term.split(":") if f not in spec["factors"]]
        if missing:
            raise ConfigError(
                f"term {term!r} names {missing[0]!r}, which is not among the"
                f" factors ({', '.join(spec['factors'])})",
                field=f"{where}.terms",
            )
    return spec


def _checked_preference_spec(
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


def _checked_situated_spec(
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
        decision = _decision_metric_ids(metrics)
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


def _labels(identities: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """System labels for tables: the system ID, or team/system where IDs clash."""
    counts: dict[str, int] = {}
    for _, system in identities:
        counts[system] = counts.get(system, 0) + 1
    return {
        (team, system): system if counts[system] == 1 else f"{team}/{system}"
        for team, system in identities
    }


def correlation_exclusions(
    labels: Mapping[tuple[str, str], str],
    references: Iterable[str],
    exclude_systems: Sequence[str] = (),
    *,
    exclude_references: bool = True,
) -> tuple[dict[str, str], list[str]]:
    """Which analysed systems a correlation leaves out, and why.

    Parameters
    ----------
    labels
        ``(team, system)`` -> label of every system analysed.
    references
        Labels of the human reference sets among them.
    exclude_systems
        The analysis' ``exclude_systems``: ``team/system``, or a system ID that no
        other team uses, or a label.
    exclude_references
        Leave the human reference sets out (the default; seed 001 Table 10).

    Returns
    -------
    (dict, list)
        Label -> reason of every system left out, and the names in
        *exclude_systems* that match no analysed system (late, rejected or
        superseded ones, or a typo: recorded, not silently dropped).

    Examples
    --------
    >>> labels = {("human", "HUMAN-1"): "HUMAN-1", ("is", "IS-FBS"): "IS-FBS",
    ...           ("cam", "CAM-B"): "CAM-B"}
    >>> out, absent = correlation_exclusions(labels, ["HUMAN-1"],
    ...                                      ["is/IS-FBS", "GR-SC"])
    >>> out
    {'HUMAN-1': 'human reference set', 'IS-FBS': 'named in exclude_systems'}
    >>> absent
    ['GR-SC']
    """
    out: dict[str, str] = {}
    if exclude_references:
        out.update(dict.fromkeys(sorted(references), "human reference set"))
    absent = []
    for name in exclude_systems:
        team, _, system = name.rpartition("/")
        found = [
            label
            for (t, s), label in labels.items()
            if (s == system and t == team) or (not team and name in (s, label))
        ]
        if len(set(found)) == 1:
            out.setdefault(found[0], "named in exclude_systems")
        else:  # unknown, or a system ID several teams use: say team/system
            absent.append(name)
    return dict(sorted(out.items())), absent


#: Columns of ``scores/analysed.tsv`` (see :func:`collect_item_scores`):
#: ``properties`` holds the system's declared properties as JSON, ``tasks`` the
#: task types its validation record lists (space-separated), so that the
#: significance tests read them here rather than every validation record.
ANALYSED_COLUMNS = ("label", *SYSTEM_COLUMNS, "properties", "tasks")


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


def _level(value: Any) -> Any:
    """A property value as a factor level (YAML's spelling of booleans)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _add_properties(
    frame: Any, names: Sequence[str], properties: Mapping[str, Mapping[str, Any]]
) -> dict[str, list[str]]:
    """Add the system properties *names* as columns; return who lacks each."""
    lacking = {}
    for name in names:
        by_label = {
            label: _level(props.get(name)) for label, props in properties.items()
        }
        frame[name] = frame["label"].map(by_label)
        lacking[name] = sorted(
            frame.loc[frame[name].isna(), "label"].astype(str).unique().tolist()
        )
    return {k: v for k, v in lacking.items() if v}


def _trial_frame(
    judgments_path: str | Path,
    measures: Sequence[str],
    labels: Mapping[tuple[str, str], str],
    items_path: str | Path,
    criteria: Sequence[str] = (),
) -> Any:
    """A study's analysed trials, one column per measure (NaN where not analysed).

    A study measure is its value where the trial enters that measure's analysis
    (its flag, :data:`JUDGMENT_MEASURES`); a metric is the item score of the
    system shown, joined by system and item (seed 003's MANOVA of Dice, MASI,
    IT and RT on the trials).
    """
    import pandas as pd

    frame = pd.read_csv(judgments_path, sep="\t", dtype=str, keep_default_na=False)
    # control trials (system CONTROL) are never analysed as a system
    frame = frame[(frame["system"] != "") & (frame["system"] != "CONTROL")].copy()
    pairs = [tuple(s.split("/", 1)) for s in frame["system"]]
    frame["label"] = [labels.get(p, f"{p[0]}/{p[1]}") for p in pairs]
    study = [m for m in measures if m in JUDGMENT_MEASURES or m in criteria]
    flags = {_measure_column(m, criteria)[1] for m in study}
    if flags:
        frame = frame[frame[list(flags)].eq("true").any(axis=1)].copy()
    for name in study:
        column, flag, _ = _measure_column(name, criteria)
        values = pd.to_numeric(
            frame[column].replace({"true": "1", "false": "0", "": "nan"})
        )
        frame[name] = values.where(frame[flag] == "true")
    for name in measures:
        if name in study:
            continue
        scores = _item_frame(items_path, name)
        lookup = scores.set_index(["label", "item"])["value"]
        index = pd.MultiIndex.from_arrays([frame["label"], frame["item"]])
        frame[name] = lookup.reindex(index).to_numpy()
    return frame


def _score_frame(items_path: str | Path, measures: Sequence[str]) -> Any:
    """Item scores, one column per metric (rows: system x item)."""
    frame = None
    for name in measures:
        part = _item_frame(items_path, name).rename(columns={"value": name})
        part = part[["label", "item", "subdomain", "condition", name]]
        frame = (
            part
            if frame is None
            else frame.merge(part, on=["label", "item", "subdomain", "condition"])
        )
    return frame


def _item_frame(items_path: str | Path, measure: str) -> Any:
    return item_frames(items_path, [measure])[measure]


#: (items.tsv, its state) -> metric -> its rows, as :func:`item_frames` read them
_ITEM_FRAMES: dict[tuple[str, int, int, int], dict[str, Any]] = {}


def item_frames(items_path: str | Path, measures: Sequence[str]) -> dict[str, Any]:
    """The rows of ``scores/items.tsv`` of each metric in *measures*, one frame each.

    The file is read once for all the metrics not read before (it holds every
    metric of every system analysed: 1.9 million rows for 1,000 systems × 112
    items × 17 metrics), in blocks of lines, keeping their rows only, and
    without the ``stats`` column, which no analysis reads: only the lines that
    hold one of the metrics as a cell are parsed
    (:func:`~stecflow.core.io.iter_tsv_blocks`). Within one job the frames are
    kept, for the file as it is (path, identity, size, time), so the analyses of
    a group that share a metric read it once (:func:`prefetch_item_frames`);
    each call gets its own copies. A metric without rows gets an empty frame.
    """
    import io

    import pandas as pd

    stat = Path(items_path).stat()
    key = (str(items_path), stat.st_ino, stat.st_size, stat.st_mtime_ns)
    kept = _ITEM_FRAMES.setdefault(key, {})
    missing = [m for m in dict.fromkeys(measures) if m not in kept]
    if missing:
        # only the lines that can be such rows are parsed (one metric of 17:
        # a tenth of the file), in blocks of a few MB; the header alone gives
        # the columns when there are none
        blocks = iter_tsv_blocks(items_path, missing)
        header = next(blocks)

        def parse(block: str) -> Any:
            chunk = pd.read_csv(
                io.StringIO(header + block),
                sep="\t",
                dtype=str,
                keep_default_na=False,
                usecols=lambda column: column != "stats",
            )
            return chunk[chunk["metric"].isin(missing)]

        rows = pd.concat([parse(block) for block in blocks] or [parse("")])
        for measure in missing:
            frame = rows[rows["metric"] == measure].copy()
            frame["value"] = pd.to_numeric(frame["value"].replace("", "nan"))
            kept[measure] = frame
    return {m: kept[m].copy() for m in measures}


def prefetch_item_frames(
    items_path: str | Path, specs: Iterable[Mapping[str, Any]]
) -> None:
    """Read, in one pass, the item scores that the analyses *specs* will ask for."""
    measures = []
    for spec in specs:
        test = spec.get("test")
        if test in ("correlations", "preference", *SITUATED_KEYS):
            continue  # system-level scores, or a study's trials only
        if test in MULTI_MEASURE_TESTS:  # its metrics, whatever its source
            study = {*JUDGMENT_MEASURES, *(spec.get("criteria") or ())}
            measures += [m for m in spec.get("measures") or () if m not in study]
        elif spec.get("source", "scores") == "scores":
            measures.append(spec.get("measure"))
    wanted = [m for m in dict.fromkeys(measures) if isinstance(m, str)]
    if wanted:
        item_frames(items_path, wanted)


def _judgment_frame(
    judgments_path: str | Path,
    measure: str,
    labels: Mapping[tuple[str, str], str],
    criteria: Sequence[str] = (),
) -> Any:
    """Trials analysed for one judgment measure, with ``label`` and ``value``."""
    import pandas as pd

    column, flag, _ = _measure_column(measure, criteria)
    frame = pd.read_csv(judgments_path, sep="\t", dtype=str, keep_default_na=False)
    frame = frame[
        (frame[flag] == "true")
        & (frame["system"] != "")
        & (frame["system"] != "CONTROL")
    ].copy()
    frame["value"] = pd.to_numeric(
        frame[column].replace({"true": "1", "false": "0", "": "nan"})
    )
    pairs = [tuple(s.split("/", 1)) for s in frame["system"]]
    frame["label"] = [labels.get(p, f"{p[0]}/{p[1]}") for p in pairs]
    return frame


def _system_frame(
    systems_path: str | Path,
    labels: Mapping[tuple[str, str], str],
    measures: Sequence[str],
    judgments: Mapping[str, str | Path],
) -> Any:
    """One row per system: system-level scores and means of judgment measures."""
    import pandas as pd

    rows: dict[str, dict[str, Any]] = {}
    for row in read_tsv(systems_path):
        key = (row["team"], row["system"])
        if key not in labels or row["status"] != "scored" or row["subset"] != "all":
            continue
        entry = rows.setdefault(
            labels[key],
            {"system": labels[key], "reference_set": row["reference_set"] == "true"},
        )
        if row["metric"] in measures:
            entry[row["metric"]] = float(row["value"]) if row["value"] else float("nan")
    if rows:
        frame = pd.DataFrame(list(rows.values()))
    else:
        frame = pd.DataFrame(columns=["system", "reference_set"])
    for name in measures:
        if ":" in name:
            study, measure = name.split(":", 1)
            trials = _judgment_frame(judgments[study], measure, labels)
            means = trials.groupby("label")["value"].mean()
            frame[name] = frame["system"].map(means)
    return frame


def _judgment_settings(judgments_path: str | Path) -> dict[str, Any]:
    """How a study's judgments were cleaned, from the merge stage's summary.

    The summary sits beside the table (``judgments/summary/<study>.json``, written
    by the same job), so the settings behind every human figure are recorded with it.
    """
    path = Path(judgments_path)
    summary_path = path.parent / "summary" / f"{path.stem}.json"
    if not summary_path.is_file() and _is_situated_table(path):
        summary: dict[str, Any] = {}
    else:
        summary = read_json(summary_path)
    if not summary or summary.get("task") == SITUATED_STUDY_TASK:
        corrections = summary.get("corrections") or []
        return {
            "simulated": summary.get("simulated"),
            "settings": summary.get("settings"),
            "counts": summary.get("counts"),
            "corrections_applied": len(corrections),
            "discarded": len(summary.get("discarded") or []),
            "awaiting_responses": (
                bool(summary["awaiting_responses"])
                if "awaiting_responses" in summary
                else None
            ),
            "summary": str(summary_path) if summary else None,
        }
    outliers = summary.get("outliers") or {}
    return {
        "simulated": summary.get("simulated"),
        "settings": summary.get("settings"),
        "outlier_rule": outliers.get("signature"),
        "outliers": {
            measure: entry.get("count_text")
            for measure, entry in sorted((outliers.get("measures") or {}).items())
        },
        "corrections_applied": (summary.get("corrections") or {}).get("applied", 0),
        "counts": summary.get("counts"),
        "awaiting_responses": bool(summary.get("awaiting_responses")),
    }


def _is_situated_table(path: Path) -> bool:
    """Whether a judgments table has the situated columns (class, cant_tell)."""
    with open(path, encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
    return {"class", "cant_tell", "instance"} <= set(header)


def _about(row: Any) -> str:
    """What one result row is about: the effect, or the pair of measures."""
    if "measure_a" in row:
        return f"{row['measure_a']} ~ {row['measure_b']}"
    return str(row.get("source", ""))


def run_analysis(
    spec: Mapping[str, Any],
    items_path: str | Path,
    systems_path: str | Path,
    out_tsv: str | Path,
    out_json: str | Path,
    *,
    alpha: float = 0.05,
    higher_is_better: Mapping[str, bool] | None = None,
    exclude_references_from_correlations: bool = True,
    judgments: Mapping[str, str | Path] | None = None,
    ss_type: int = 3,
    digits: int = 2,
    posthoc: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run one configured analysis and write its table and its JSON record.

    Parameters
    ----------
    spec
        One entry of :func:`analysis_specs`.
    items_path
        ``scores/items.tsv`` from :func:`collect_item_scores`.
    systems_path
        ``scores/analysed.tsv`` from :func:`collect_item_scores`: which systems
        enter, their labels, their system-level scores (for correlations: BLEU
        and NIST enter with their corpus-level values) and their properties.
    alpha
        Significance level (``statistics.alpha``) of post hoc tests; 1 - alpha
        is the confidence level of t-test and mixed-model intervals.
    higher_is_better
        Metric ID -> direction, so that letter ``A`` goes to the best systems.
    exclude_references_from_correlations
        Leave the human reference sets out of correlations (default, as seed 001
        Table 10; see :func:`correlation_exclusions`, which also applies the
        spec's ``exclude_systems``).
    judgments
        Study ID -> ``judgments/<study>.tsv``, for analyses of human judgments and
        correlations with their system means.
    ss_type
        Sums of squares of ANOVAs (``statistics.ss_type``).
    digits
        Decimals of the statistics in the texts (``statistics.digits``).
    posthoc
        ``statistics.posthoc``: ``display`` (``spss_subsets`` or ``cld``) and
        ``subset_sig``.
    """
    judgments = judgments or {}
    posthoc = dict(posthoc or {})
    test = spec["test"]
    labels = {
        (team, system): label
        for team, system, label in iter_tsv_columns(
            systems_path, ("team", "system", "label")
        )
    }
    record: dict[str, Any] = {
        "id": spec["id"],
        "test": test,
        "alpha": alpha,
        "spec": dict(spec),
        "settings": {"ss_type": ss_type, "digits": digits, "posthoc": posthoc},
    }
    if test == "preference":
        return _run_preference(
            spec, judgments, labels, out_tsv, out_json, record, alpha=alpha
        )
    if test in SITUATED_KEYS:
        return _run_situated(
            spec,
            items_path,
            systems_path,
            out_tsv,
            out_json,
            record,
            judgments=judgments,
            alpha=alpha,
            digits=digits,
        )
    if test == "correlations":
        result, frame = _run_correlations(
            spec,
            systems_path,
            labels,
            judgments,
            record,
            exclude_references_from_correlations,
            confidence=1 - alpha,
        )
    else:
        result, frame = _run_item_analysis(
            spec,
            items_path,
            systems_path,
            labels,
            judgments,
            record,
            alpha=alpha,
            higher_is_better=higher_is_better,
            ss_type=ss_type,
            digits=digits,
            posthoc=posthoc,
        )
    used = {spec.get("source", "scores")} | {
        m.split(":", 1)[0] for m in spec.get("measures", []) if ":" in m
    }
    record["judgments"] = {
        study: _judgment_settings(judgments[study])
        for study in sorted(used)
        if study in judgments
    }
    # studies built but not yet run: their figures are awaited, not missing
    record["awaiting_responses"] = sorted(
        study
        for study, info in record["judgments"].items()
        if info["awaiting_responses"]
    )
    design_factors = _design_factors(spec)
    if test != "correlations" and design_factors:  # missing lists, empty cells
        from stecflow.stats.balance import design_completeness

        counts = (record["judgments"].get(spec.get("source", "")) or {}).get(
            "counts"
        ) or {}
        dv = "value" if "value" in frame else spec["measures"][0]
        columns = [("label" if f == "system" else f) for f in design_factors]
        record["design"] = design_completeness(
            frame.dropna(subset=columns),  # systems without a property are out
            dv,
            columns,
            names=design_factors,
            lists_in_design=counts.get("lists_in_design"),
            lists_run=counts.get("lists_run"),
            unit="items" if spec.get("source", "scores") == "scores" else "judgments",
        )
    if "text" not in record:
        record["text"] = []
        if test != "tukey":  # letters tables have no test statistic of their own
            from stecflow.analysis.formatting import format_result

            record["text"] = [
                {"about": _about(row), "text": text}
                for _, row in result.iterrows()
                if (text := format_result(row, digits=digits))
            ]
    write_tsv(result.to_dict(orient="records"), list(result.columns), out_tsv)
    write_json(record, out_json)
    log.info("%s: %d result rows", spec["id"], len(result))
    return record


def run_analysis_or_note(
    spec: Mapping[str, Any],
    items_path: str | Path,
    systems_path: str | Path,
    out_tsv: str | Path,
    out_json: str | Path,
    **settings: Any,
) -> dict[str, Any]:
    """:func:`run_analysis`, or, if it cannot run, a record saying why.

    An analysis that cannot be computed (a measure no system has scores of, too
    few systems, a degenerate design, a study whose systems were all rejected)
    still writes its table and record (:func:`write_not_computable`): one row
    ``computable`` false with the reason, which the report shows where the
    result would be. It never stops the other analyses or the workflow; what
    went wrong is logged with its traceback. *settings* are the keyword
    arguments of :func:`run_analysis`.
    """
    alpha = settings.get("alpha", 0.05)
    try:
        unscored = unscored_measures(spec, systems_path)
        measures = list(spec.get("measures") or [])
        if spec["test"] == "correlations" and unscored:
            kept = [m for m in measures if m not in unscored]
            if len(kept) >= 2:  # the other pairs are computed
                record = run_analysis(
                    {**spec, "measures": kept},
                    items_path,
                    systems_path,
                    out_tsv,
                    out_json,
                    **settings,
                )
                return _with_unscored_pairs(spec, unscored, record, out_tsv, out_json)
        if unscored:
            reason = "; ".join(unscored.values())
            return write_not_computable(
                spec, reason, systems_path, out_tsv, out_json, alpha=alpha
            )
        return run_analysis(
            spec, items_path, systems_path, out_tsv, out_json, **settings
        )
    except Exception as exc:  # noqa: BLE001 (every failure becomes a row)
        log.warning("%s could not be computed", spec["id"], exc_info=True)
        return write_not_computable(
            spec, failure_reason(exc), systems_path, out_tsv, out_json, alpha=alpha
        )


def unscored_measures(spec: Mapping[str, Any], systems_path: str | Path) -> dict:
    """Metric -> why no system entering the analysis has a score of it.

    The metrics an analysis of the automatic scores names (``measure``, or the
    ``measures`` of a correlation that are not ``<study>:<measure>``; those of a
    study's analysis that ``scores/analysed.tsv`` lists as metrics) that no
    analysed system has a ``scored`` row of: the reason its systems were
    skipped (``no system has scores of se: the outputs have no word strings (12
    of 12 items)``), or that no
    system enters the statistics at all. Empty when every metric has scores.
    """
    measures = list(spec.get("measures") or [])
    if spec.get("measure"):
        measures = [spec["measure"], *measures]
    measures = [m for m in measures if ":" not in m]
    if spec["test"] in ("preference", *SITUATED_KEYS) or not measures:
        return {}
    scored: set[str] = set()
    skipped: dict[str, str] = {}
    labels: set[str] = set()
    for label, metric, status, reason in iter_tsv_columns(
        systems_path, ("label", "metric", "status", "reason")
    ):
        labels.add(str(label))
        if status == "scored":
            scored.add(str(metric))
        else:
            skipped.setdefault(str(metric), str(reason or status or ""))
    if spec.get("source", "scores") != "scores":  # the study's own measures
        measures = [m for m in measures if m in scored or m in skipped]
    if not labels and spec.get("source", "scores") == "scores":
        return dict.fromkeys(
            measures,
            "no system enters the statistics (no accepted submission; late ones"
            " only with statistics.include_late)",
        )
    return {
        m: f"no system has scores of {m}"
        + (f": {skipped[m]}" if skipped.get(m) else "")
        for m in measures
        if m not in scored
    }


def _with_unscored_pairs(
    spec: Mapping[str, Any],
    unscored: Mapping[str, str],
    record: dict[str, Any],
    out_tsv: str | Path,
    out_json: str | Path,
) -> dict[str, Any]:
    """A correlation table and record computed without the *unscored* measures,
    completed with a not-computable row for each of their pairs (in the order
    of the configured measures) and the configured spec."""
    rows = read_tsv(out_tsv)
    columns = list(rows[0]) if rows else ["measure_a", "measure_b"]
    columns += [c for c in ("computable", "reason") if c not in columns]
    computed = {(r["measure_a"], r["measure_b"]): r for r in rows}
    measures = list(spec["measures"])
    table = []
    for i, a in enumerate(measures):
        for b in measures[i + 1 :]:
            row = computed.get((a, b)) or computed.get((b, a))
            if row is None:
                why = "; ".join(unscored[m] for m in (a, b) if m in unscored)
                row = {"measure_a": a, "measure_b": b, "computable": False}
                row["reason"] = why
                record["text"].append(
                    {"about": f"{a} ~ {b}", "text": f"not computable ({why})"}
                )
            table.append(row)
    record["spec"] = dict(spec)
    record["unscored"] = dict(unscored)
    write_tsv(table, columns, out_tsv)
    write_json(record, out_json)
    log.info("%s: not computable for %s", spec["id"], ", ".join(unscored))
    return record


def failure_reason(exc: BaseException) -> str:
    """Why an analysis could not be computed, from the error it raised.

    Our own errors (:class:`~stecflow.core.errors.StecflowError`, e.g. a
    statistics function's :class:`~stecflow.stats._common.StatsInputError`) and
    value errors say it themselves; anything else is named with its type.

    >>> failure_reason(ValueError("fewer than 2 systems"))
    'fewer than 2 systems'
    >>> failure_reason(ZeroDivisionError("division by zero"))
    'ZeroDivisionError: division by zero'
    """
    from stecflow.core.errors import StecflowError

    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, StecflowError | ValueError):
        return text
    return f"{type(exc).__name__}: {text}"


def not_computable_rows(spec: Mapping[str, Any], reason: str) -> list[dict[str, Any]]:
    """The table of an analysis that could not be computed: why, in the columns
    the report reads for its test (``computable`` false, ``reason``).

    One row per pair of measures for correlations (each cell of the matrix
    says why), one row of the first factor's effect otherwise.

    Examples
    --------
    >>> not_computable_rows({"test": "kruskal", "factors": ["system"]}, "no data")
    [{'source': 'system', 'computable': False, 'reason': 'no data'}]
    >>> [(r["measure_a"], r["measure_b"]) for r in not_computable_rows(
    ...     {"test": "correlations", "measures": ["dice", "masi", "se"]}, "x")]
    [('dice', 'masi'), ('dice', 'se'), ('masi', 'se')]
    """
    test = spec.get("test")
    measures = list(spec.get("measures") or [])
    if spec.get("measure"):
        measures = [spec["measure"], *measures]
    factors = list(spec.get("factors") or [])
    status = {"computable": False, "reason": reason}
    if test == "correlations":
        pairs = [
            {"measure_a": a, "measure_b": b}
            for i, a in enumerate(measures)
            for b in measures[i + 1 :]
        ]
        return [{**p, **status} for p in pairs or [{"measure_a": "", "measure_b": ""}]]
    if test == "tukey":
        return [{"system": "", "letters": "", **status}]
    if test == "ttest":
        return [{"level_a": "", "level_b": "", **status}]
    if test == "property_means":
        first = factors[0] if factors else ""
        return [
            {"factor": first, "level": "", "measure": m, **status}
            for m in measures or [""]
        ]
    if test == "preference":
        return [{"system": "", **status}]
    return [{"source": factors[0] if factors else "system", **status}]


def write_not_computable(
    spec: Mapping[str, Any],
    reason: str,
    systems_path: str | Path,
    out_tsv: str | Path,
    out_json: str | Path,
    *,
    alpha: float = 0.05,
) -> dict[str, Any]:
    """Write the table and record of an analysis that could not be computed.

    The table is :func:`not_computable_rows`; the record has the spec, the
    systems that would have entered, ``computable`` false, the ``reason`` and
    a text line ``not computable (<reason>)`` (what the report shows of the
    analyses it has no table for).
    """
    try:
        systems = sorted(
            {str(label) for (label,) in iter_tsv_columns(systems_path, ("label",))}
        )
    except Exception:  # noqa: BLE001 (the reason is the analysis's, not this)
        systems = []
    rows = not_computable_rows(spec, reason)
    about = [_about(row) if "measure_a" in row else spec["id"] for row in rows]
    record = {
        "id": spec["id"],
        "test": spec["test"],
        "alpha": alpha,
        "spec": dict(spec),
        "settings": {},
        "computable": False,
        "reason": reason,
        "systems": systems,
        "judgments": {},
        "awaiting_responses": [],
        "text": [
            {"about": a, "text": f"not computable ({reason})"}
            for a in dict.fromkeys(about)
        ],
    }
    write_tsv(rows, list(rows[0]), out_tsv)
    write_json(record, out_json)
    log.info("%s: not computable: %s", spec["id"], reason)
    return record


def _run_situated(
    spec: Mapping[str, Any],
    items_path: str | Path,
    systems_path: str | Path,
    out_tsv: str | Path,
    out_json: str | Path,
    record: dict[str, Any],
    *,
    judgments: Mapping[str, str | Path],
    alpha: float,
    digits: int,
) -> dict[str, Any]:
    """``situated_ttests`` and ``confusion`` (seed 000): table and record."""
    from stecflow.analysis import situated

    if spec["test"] == "confusion":
        precision, recall = spec.get("measures") or DECISION_METRICS
        result, extra = situated.decision_confusion(
            items_path, systems_path, precision=precision, recall=recall
        )
        record["settings"] = {"precision": precision, "recall": recall}
        record.update(extra)
        record["judgments"] = {}
        record["awaiting_responses"] = []
        columns = list(situated.CONFUSION_COLUMNS)
    else:
        study = spec["source"]
        result, extra = situated.run_situated_ttests(
            spec, judgments[study], alpha=alpha, digits=digits
        )
        record["settings"] = {
            "digits": digits,
            "confidence": 1 - alpha,
            "alternative": spec.get("alternative", "two-sided"),
            "sessions": "the trials merge_judgments kept (failed sessions are"
            " discarded there, judgments/quality)",
        }
        record.update(extra)
        info = _judgment_settings(judgments[study])
        if info["awaiting_responses"] is None:  # no summary: the table says
            info["awaiting_responses"] = extra["n_trials"] == 0
        record["judgments"] = {study: info}
        record["awaiting_responses"] = [study] if info["awaiting_responses"] else []
        columns = list(situated.SITUATED_TEST_COLUMNS)
    write_tsv(result.to_dict(orient="records"), columns, out_tsv)
    write_json(record, out_json)
    log.info("%s: %d result rows", spec["id"], len(result))
    return record


def _run_preference(
    spec: Mapping[str, Any],
    judgments: Mapping[str, str | Path],
    labels: Mapping[tuple[str, str], str],
    out_tsv: str | Path,
    out_json: str | Path,
    record: dict[str, Any],
    *,
    alpha: float,
) -> dict[str, Any]:
    """``preference``: Bradley-Terry strengths and win rates of a preference study.

    The trials are those of ``judgments/<study>.tsv`` in the analysis; systems
    are named by their labels (``team/system`` when not analysed). The table
    has one row per system (:data:`PREFERENCE_COLUMNS`, best first); the JSON
    adds the pairwise win rates (``pairs``), how ties entered the model, its
    log-likelihood and the reference.
    """
    import pandas as pd

    from stecflow.stats.preference import (
        bradley_terry,
        pairwise_preferences,
        preference_counts,
    )

    study = spec["source"]
    path = judgments[study]
    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    missing = [
        c
        for c in ("system_left", "system_right", "preferred", "in_analysis")
        if c not in frame.columns
    ]
    if missing:
        raise ConfigError(
            f"{path} has no column {missing[0]}: not the judgments of a"
            f" {TEXT_PREFERENCE_TASK} study",
            field=f"{spec['id']}.source",
        )
    frame = frame[frame["in_analysis"] == "true"]

    def label(system: str) -> str:
        team, _, name = system.partition("/")
        return labels.get((team, name), system)

    trials = pd.DataFrame(
        {
            "system_left": frame["system_left"].map(label),
            "system_right": frame["system_right"].map(label),
            "preferred": frame["preferred"],
        }
    )
    confidence = 1 - alpha
    reference = spec.get("reference")
    systems = sorted(set(trials["system_left"]) | set(trials["system_right"]))
    if reference is not None:
        reference = label(str(reference))
        if reference not in systems:
            reference = None  # not compared (yet): the first system by name
    rows: list[dict[str, Any]] = []
    pairs: list[dict[str, Any]] = []
    model: dict[str, Any] = {"ties": "half", "reference": reference}
    if len(trials):
        counts = preference_counts(trials, confidence=confidence).set_index("system")
        bt = bradley_terry(trials, reference=reference, confidence=confidence)
        for r in bt.to_dict("records"):
            c = counts.loc[r["system"]]
            rows.append(
                {
                    **{k: r[k] for k in PREFERENCE_COLUMNS if k in r},
                    "n": int(c["n"]),
                    "wins": int(c["wins"]),
                    "losses": int(c["losses"]),
                    "ties": int(c["ties"]),
                    "win_rate": float(c["win_rate"]),
                    "win_rate_ci_low": float(c["ci_low"]),
                    "win_rate_ci_high": float(c["ci_high"]),
                }
            )
        if not bool(bt["computable"].iloc[0]):  # no ranks: best win rate first
            rows.sort(key=lambda r: (-r["win_rate"], r["system"]))
        pairs = pairwise_preferences(trials, confidence=confidence).to_dict("records")
        first = bt.iloc[0]
        model.update(
            reference=str(first["reference"]),
            computable=bool(first["computable"]),
            reason=str(first["reason"]),
            log_likelihood=float(first["log_likelihood"]),
        )
    record["settings"] = {
        "confidence": confidence,
        "ties": "split half and half (a tie is half a win for each side)",
        "win_rate": "(wins + ties / 2) / comparisons, Wilson interval",
        "pairs_test": "two-sided exact binomial test of wins, ties left out",
    }
    record["model"] = model
    record["systems"] = systems
    record["n_trials"] = len(trials)
    record["pairs"] = pairs
    record["text"] = [
        {
            "about": r["system"],
            "text": f"{r['system']}: win rate {r['win_rate']:.2f}"
            f" [{r['win_rate_ci_low']:.2f}, {r['win_rate_ci_high']:.2f}]"
            + (
                f", Bradley-Terry strength {r['strength']:.2f} (SE {r['se']:.2f})"
                if r.get("computable")
                else ""
            ),
        }
        for r in rows
    ]
    info = _judgment_settings(path)
    record["judgments"] = {study: info}
    record["awaiting_responses"] = [study] if info["awaiting_responses"] else []
    write_tsv(rows, list(PREFERENCE_COLUMNS), out_tsv)
    write_json(record, out_json)
    log.info("%s: %d systems, %d trials", spec["id"], len(rows), len(trials))
    return record


def _design_factors(spec: Mapping[str, Any]) -> list[str]:
    """The factors whose cells the design check counts."""
    if spec["test"] == "ttest":
        return [*spec.get("factors", []), spec.get("within", "system")]
    if spec["test"] == "mixed":
        return list(spec["factors"][:1])
    if spec["test"] == "property_means":  # one table per factor, no model
        return []
    return list(spec.get("factors") or [])


def _run_correlations(
    spec: Mapping[str, Any],
    systems_path: str | Path,
    labels: Mapping[tuple[str, str], str],
    judgments: Mapping[str, str | Path],
    record: dict[str, Any],
    exclude_references: bool,
    confidence: float = 0.95,
) -> tuple[Any, Any]:
    from stecflow.stats.correlation import (
        MIN_SYSTEMS,
        correlation_caveats,
        pairwise_corr,
    )

    frame = _system_frame(systems_path, labels, spec["measures"], judgments)
    references = (
        frame.loc[frame["reference_set"].astype(bool), "system"] if len(frame) else []
    )
    exclusions, absent = correlation_exclusions(
        labels,
        references,
        spec.get("exclude_systems") or (),
        exclude_references=exclude_references,
    )
    record["exclusions"] = exclusions
    record["exclude_systems_not_analysed"] = absent
    for name in absent:
        log.warning(
            "%s: exclude_systems names %r, which is not among the systems"
            " analysed (write team/system)",
            spec["id"],
            name,
        )
    excluded = sorted(exclusions)
    method = spec.get("method", "pearson")
    result = pairwise_corr(
        frame,
        spec["measures"],
        method=method,
        exclude_systems=excluded,
        confidence=confidence,
        deletion=spec.get("deletion", "listwise"),
    )
    record.update(
        {
            "method": method,
            # which systems every cell rests on; the rows give each cell's n
            "deletion": str(result["deletion"].iloc[0]) if len(result) else "",
            "excluded_systems": excluded,
            "systems": sorted(frame["system"]) if len(frame) else [],
            # r over too few systems, or undefined: said in plain words
            "min_systems": MIN_SYSTEMS,
            "caveats": correlation_caveats(result),
        }
    )
    return result, frame


def _run_item_analysis(
    spec: Mapping[str, Any],
    items_path: str | Path,
    systems_path: str | Path,
    labels: Mapping[tuple[str, str], str],
    judgments: Mapping[str, str | Path],
    record: dict[str, Any],
    *,
    alpha: float,
    higher_is_better: Mapping[str, bool] | None,
    ss_type: int,
    digits: int,
    posthoc: Mapping[str, Any],
) -> tuple[Any, Any]:
    """Every analysis but correlations: on item scores or a study's trials."""
    test = spec["test"]
    source = spec.get("source", "scores")
    if test in MULTI_MEASURE_TESTS:
        measures = list(spec["measures"])
        if source == "scores":
            frame = _score_frame(items_path, measures)
        else:
            frame = _trial_frame(
                judgments[source],
                measures,
                labels,
                items_path,
                spec.get("criteria") or (),
            )
        best_high = True
    else:
        if source == "scores":
            frame = _item_frame(items_path, spec["measure"])
            best_high = (higher_is_better or {}).get(spec["measure"], True)
        else:
            criteria = spec.get("criteria") or ()
            frame = _judgment_frame(
                judgments[source], spec["measure"], labels, criteria
            )
            best_high = _measure_column(spec["measure"], criteria)[2]
        measures = ["value"]
    properties = system_properties(systems_path)
    named = [*spec.get("factors", [])]
    named += [spec[k] for k in ("within", "pair_by") if spec.get(k)]
    wanted = [f for f in dict.fromkeys(named) if f not in frame and f != "system"]
    lacking = _add_properties(frame, wanted, properties)
    if wanted:
        record["properties"] = wanted
        record["systems_without_property"] = lacking
        for name, who in lacking.items():
            log.warning(
                "%s: %s did not declare %s; left out of this analysis",
                spec["id"],
                ", ".join(who),
                name,
            )
    factors = [("label" if f == "system" else f) for f in spec.get("factors", [])]
    record["systems"] = sorted(frame["label"].unique().tolist())
    record["levels"] = {
        name: int(frame["label" if name == "system" else name].dropna().nunique())
        for name in dict.fromkeys(named)
    }
    record["n_observations"] = int(frame[measures].notna().all(axis=1).sum())
    if test == "anova":
        from stecflow.stats.anova import anova

        result = anova(frame, "value", factors, ss_type=ss_type)
    elif test == "kruskal":
        from stecflow.stats.nonparametric import kruskal

        result = kruskal(frame, "value", factors[0])
    elif test == "tukey":
        result = _tukey(frame, factors, alpha, best_high, posthoc, record)
    else:
        from stecflow.analysis import kinds

        confidence = 1 - alpha
        if test == "ttest":
            within = "label" if spec["within"] == "system" else spec["within"]
            pair_by = "label" if spec["pair_by"] == "system" else spec["pair_by"]
            result, extra = kinds.run_ttests(
                frame,
                "value",
                within,
                pair_by,
                by=factors,
                levels=spec.get("levels"),
                alternative=spec.get("alternative", "two-sided"),
                correction=spec.get("correction", "bonferroni"),
                confidence=confidence,
                digits=digits,
            )
        elif test == "manova":
            terms = spec.get("terms")
            if terms:
                terms = [
                    ":".join("label" if f == "system" else f for f in t.split(":"))
                    for t in terms
                ]
            result, extra = kinds.run_manova(
                frame,
                measures,
                factors,
                terms=terms,
                correction=spec.get("correction", "bonferroni"),
                digits=digits,
            )
        elif test == "mixed":
            result, extra = kinds.run_mixed(
                frame,
                "value",
                factors[0],
                transform=spec.get("transform", "none"),
                coding=spec.get("coding", "means"),
                confidence=confidence,
                digits=digits,
            )
        else:
            result, extra = kinds.property_means(
                frame, measures, factors, digits=digits
            )
        record.update(_system_words(extra))
    # tables speak of "system", whatever the column was called internally
    result = _system_words(result.rename(columns={"group": "system"}))
    return result, frame


def _system_words(value: Any) -> Any:
    """Say ``system`` where the tables called the system column ``label``."""
    import re

    import pandas as pd

    pattern = re.compile(r"\blabel\b")
    if isinstance(value, pd.DataFrame):
        value = value.rename(columns={"label": "system"})
        for column in ("source", "factor", "about"):
            if column in value:
                value[column] = value[column].map(
                    lambda v: pattern.sub("system", v) if isinstance(v, str) else v
                )
        return value
    if isinstance(value, dict):
        return {k: _system_words(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_system_words(v) for v in value]
    if isinstance(value, str):
        return pattern.sub("system", value)
    return value


def _tukey(
    frame: Any,
    factors: Sequence[str],
    alpha: float,
    best_high: bool,
    posthoc: Mapping[str, Any],
    record: dict[str, Any],
) -> Any:
    """Tukey HSD letters, as SPSS homogeneous subsets or a compact letter display."""
    from stecflow.stats.posthoc import homogeneous_subsets, subset_letters, tukey_cld

    display = posthoc.get("display", "spss_subsets")
    record["display"] = display
    if display == "cld":
        return tukey_cld(
            frame,
            "value",
            "label",
            model=list(factors),
            alpha=alpha,
            descending=best_high,
            case="upper",
        )
    subsets = homogeneous_subsets(
        frame,
        "value",
        "label",
        model=list(factors),
        alpha=alpha,
        sig_method=posthoc.get("subset_sig", "studentized_range"),
    )
    record["subsets"] = subsets.to_dict(orient="records")
    return subset_letters(subsets, descending=best_high)
