"""SIMULATED participants of a text human study (``text_rating``, ``text_preference``).

Owns the model that answers a text study's trials when no people have: every
answer depends on a **latent quality of the output shown**, computed from the
output and its input (:func:`output_quality`), so that a better system comes
out better because its outputs are better, never from a constant per system:

``coverage``
    The share of the input the output mentions: for RDF-style triples, the mean
    over triples of the share of the words of its subject and object found in
    the output (``Alan_Bean`` -> ``alan``, ``bean``; ``birthPlace`` -> ``birth``,
    ``place``); for text or a JSON object, the share of the input's content
    words (three letters or more, a few function words left out; a JSON
    object's string values) found in the output.
``repetition``
    One minus the share of distinct word bigrams among the output's bigrams.
``fluency``
    ``1 - repetition`` (0 for an empty output).
``quality``
    ``coverage_weight * coverage + (1 - coverage_weight) * fluency``.

A criterion whose ID names fluency (``fluen``, ``grammat``, ``natural``,
``readab``) is answered from ``fluency``; any other from ``quality``. An
evaluator has a bias (normal, ``subject_bias_sd``, drawn once per study and
evaluator); each answer adds normal noise. A Likert answer is
``1 + round(x * (points - 1))`` and a slider answer ``round(100 * x)`` of the
noisy value ``x`` clipped to [0, 1]. A preference prefers the left output
with probability ``1 / (1 + exp(-(q_left - q_right) / temperature))``; when
the criterion allows ties, a tie comes first with probability
``tie_rate * exp(-|q_left - q_right| / tie_margin)``. With probability
``lapse_rate`` an answer is a lapse of attention instead: a value drawn
uniformly from the scale (``x`` uniform in [0, 1]), or left, right (or tie,
when allowed) with equal probability. The answer time is
``time_base_ms + time_per_word_ms * words shown`` times a log-normal factor.

Control trials (system ``CONTROL``, a ``degraded`` copy of a text,
:mod:`stecflow.studies.controls`): an attentive evaluator notices the damaged
span, so the latent value of every criterion is ``degraded_quality`` (default
0.1) before their bias and the noise (a lapse still answers at random). A share
``inattentive`` of the evaluators (config ``judgments.simulation.inattentive``,
default 0; each evaluator's own seeded draw, so the others' answers stay the
same) click through instead: every Likert scale at its middle point and every
slider where it starts (50), or always the left text in a preference study, in
700-1100 ms per trial. Their control trials are not rated below their own
median (every rating equals it), so a ``controls_below`` rule excludes them, and
a ``median_time_below_ms`` rule above 1,100 ms does too
(:mod:`stecflow.judgments.exclusions`). In a preference study's control trial
(an output against its degraded copy) an attentive evaluator takes the copy's
quality to be ``degraded_quality``. ``degraded_quality`` is not a config key
(``judgments.simulation`` is shared with the REG studies' simulator, which
refuses keys it does not know).

Every draw is seeded with :func:`stecflow.judgments._common.digest_seed` of the
study seed, the study, the evaluator and the item (and the trial's order), so a
re-run gives the same answers and one evaluator's answers do not change when
another is added. Every row produced is labelled ``simulated``.

May import: :mod:`stecflow.core`, :mod:`stecflow.judgments` (``_common``,
``importers.text``); numpy inside functions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from stecflow.core.text import strings_in
from stecflow.judgments._common import JudgmentsError, digest_seed
from stecflow.judgments.importers.text import Criterion
from stecflow.studykinds.registry import paired

__all__ = [
    "OutputQuality",
    "TextSimulationSettings",
    "output_quality",
    "simulate_text_answers",
]

#: The system of a control trial's degraded text (studies.designs.controls).
_CONTROL = "CONTROL"
_FLUENCY_WORDS = ("fluen", "grammat", "natural", "readab")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "its",
        "his",
        "her",
        "their",
        "which",
        "who",
        "whom",
        "what",
        "when",
        "where",
        "into",
        "onto",
        "than",
        "then",
        "there",
        "these",
        "those",
        "been",
        "being",
        "also",
        "not",
        "but",
    ]
)


@dataclass(frozen=True)
class TextSimulationSettings:
    """The simulated evaluators' model (config ``judgments.simulation``).

    Attributes
    ----------
    coverage_weight : float
        Weight of coverage in ``quality`` (the rest is fluency).
    subject_bias_sd : float
        SD of an evaluator's bias, on the 0-1 quality scale.
    noise_sd : float
        SD of the noise of one rating, on the 0-1 scale.
    temperature : float
        Scale of the logistic preference between two outputs' qualities.
    tie_rate, tie_margin : float
        Probability of a tie for equal qualities, and how fast it decays with
        their difference.
    lapse_rate : float
        Probability that an answer ignores the output (uniform on the scale).
    time_base_ms, time_per_word_ms, time_sd : float
        The answer time: base plus words shown, times ``exp(normal(0, time_sd))``.
    inattentive : float
        Share of evaluators who click through (see the module docstring).
    degraded_quality : float
        The latent value an attentive evaluator gives a degraded control text.
    """

    coverage_weight: float = 0.7
    subject_bias_sd: float = 0.06
    noise_sd: float = 0.10
    temperature: float = 0.15
    tie_rate: float = 0.4
    tie_margin: float = 0.1
    lapse_rate: float = 0.05
    time_base_ms: float = 3000.0
    time_per_word_ms: float = 150.0
    time_sd: float = 0.25
    inattentive: float = 0.0
    degraded_quality: float = 0.1

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> TextSimulationSettings:
        """Build from a config mapping, taking only the keys this model has.

        Raises
        ------
        JudgmentsError
            A value that is not a number of 0 or more (naming
            ``simulation.<key>``).
        """
        known = {f.name for f in fields(cls)}
        chosen = {k: v for k, v in dict(values or {}).items() if k in known}
        for key, value in chosen.items():
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or value < 0
            ):
                raise JudgmentsError(
                    f"{value!r}; expected a number of 0 or more",
                    field=f"simulation.{key}",
                )
        for key in ("inattentive", "degraded_quality"):
            if chosen.get(key, 0) > 1:
                raise JudgmentsError(
                    f"{chosen[key]!r}; expected a share between 0 and 1",
                    field=f"simulation.{key}",
                )
        return cls(**{k: float(v) for k, v in chosen.items()})


@dataclass(frozen=True)
class OutputQuality:
    """The latent quality of one output (see the module docstring)."""

    coverage: float
    repetition: float
    fluency: float
    quality: float
    words: int


def _words(text: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    return [w.lower() for w in re.findall(r"[^\W_]+", spaced)]


def _is_triples(value: Any) -> bool:
    return (
        isinstance(value, list | tuple)
        and bool(value)
        and all(
            isinstance(t, list | tuple)
            and len(t) == 3
            and all(isinstance(p, str) for p in t)
            for t in value
        )
    )


def output_quality(
    source: Any, output: str | None, *, coverage_weight: float = 0.7
) -> OutputQuality:
    """The latent quality of *output* for the input *source*.

    Parameters
    ----------
    source : str, list of [subject, predicate, object], or mapping
        The item's input, as the test set holds it.
    output : str or None
        The system's output (None or empty: quality 0).
    coverage_weight : float
        Weight of coverage in ``quality``.

    Examples
    --------
    >>> q = output_quality([["Alan_Bean", "birthPlace", "Wheeler,_Texas"]],
    ...                    "Alan Bean was born in Wheeler.")
    >>> q.coverage, q.repetition
    (0.75, 0.0)
    >>> output_quality("a red chair", "").quality
    0.0
    """
    words = _words(output or "")
    if not words:
        return OutputQuality(0.0, 0.0, 0.0, 0.0, 0)
    present = set(words)
    if _is_triples(source):
        shares = []
        for subject, _, obj in source:
            needed = set(_words(subject)) | set(_words(obj))
            if needed:
                shares.append(len(needed & present) / len(needed))
        coverage = sum(shares) / len(shares) if shares else 1.0
    else:
        needed = {
            w
            for text in strings_in(source)
            for w in _words(text)
            if len(w) >= 3 and w not in _STOP
        }
        coverage = len(needed & present) / len(needed) if needed else 1.0
    bigrams = list(zip(words, words[1:], strict=False))
    repetition = 1 - len(set(bigrams)) / len(bigrams) if bigrams else 0.0
    fluency = 1 - repetition
    quality = coverage_weight * coverage + (1 - coverage_weight) * fluency
    return OutputQuality(coverage, repetition, fluency, quality, len(words))


def _criterion_quality(criterion: Criterion, q: OutputQuality) -> float:
    if any(w in criterion.id.lower() for w in _FLUENCY_WORDS):
        return q.fluency
    return q.quality


def simulate_text_answers(
    trials: Sequence[Mapping[str, Any]],
    *,
    task: str,
    criteria: Sequence[Criterion],
    inputs: Mapping[str, Any],
    outputs: Mapping[tuple[str, str], str | None],
    seed: int,
    study: str,
    settings: TextSimulationSettings | None = None,
    qualities: Mapping[tuple[str, str], OutputQuality] | None = None,
) -> list[dict[str, Any]]:
    """Answer a text study's trials with simulated evaluators.

    Parameters
    ----------
    trials : sequence of mapping
        The design's trials (``list``, ``order``, ``item``, and ``system`` for a
        rating study or ``system_left`` and ``system_right`` for a preference
        study); one simulated evaluator per list, ``sim-<list>``.
    task : str
        ``text_rating`` or ``text_preference``.
    criteria : sequence of Criterion
        The study's criteria.
    inputs : mapping
        Item ID -> the item's input.
    outputs : mapping
        (system, item ID) -> the output shown (a missing output counts as
        empty: quality 0).
    seed : int
        The study seed.
    study : str
        The study ID (part of every draw's seed).
    settings : TextSimulationSettings, optional
        The model's settings.
    qualities : mapping, optional
        (system, item ID) -> the latent quality of that output, given by the
        caller instead of :func:`output_quality` (a REG study's descriptions:
        the rating simulator's adequacy and fluency,
        :func:`stecflow.judgments.participant.latent_ratings`).

    Returns
    -------
    list of dict
        One per trial, in the trials' order: ``subject``, ``list``, ``order``,
        ``item``, ``ratings`` (criterion ID -> value; rating) or
        ``system_left``, ``system_right``, ``preferred``, ``chosen_system``
        (preference), ``time_ms``, ``quality`` (the latent qualities used) and
        ``simulated`` (True).

    Raises
    ------
    JudgmentsError
        An item of the trials has no input (naming the item).
    """
    import numpy as np

    config = settings or TextSimulationSettings()
    cache: dict[tuple[str, str], OutputQuality] = {}

    def quality(system: str, item: str) -> OutputQuality:
        key = (system, item)
        if qualities is not None and key in qualities:
            return qualities[key]
        if key not in cache:
            cache[key] = output_quality(
                inputs[item],
                outputs.get(key),
                coverage_weight=config.coverage_weight,
            )
        return cache[key]

    biases: dict[str, float] = {}
    careless: dict[str, bool] = {}
    rows = []
    for trial in trials:
        item = str(trial["item"])
        if item not in inputs:
            raise JudgmentsError(
                f"item {item!r} of list {trial['list']} is not in the test set",
                field="item",
            )
        subject = f"sim-{trial['list']}"
        if subject not in biases:
            rng = np.random.default_rng(digest_seed(seed, study, subject, "bias"))
            biases[subject] = float(rng.normal(0.0, config.subject_bias_sd))
            careless[subject] = bool(
                config.inattentive
                and np.random.default_rng(
                    digest_seed(seed, study, subject, "inattentive")
                ).random()
                < config.inattentive
            )
        rng = np.random.default_rng(
            digest_seed(seed, study, subject, item, trial["order"])
        )
        row: dict[str, Any] = {
            "subject": subject,
            "list": trial["list"],
            "order": int(trial["order"]),
            "item": item,
            "simulated": True,
        }
        if careless[subject]:
            rows.append(_click_through(row, trial, task, criteria, rng))
            continue
        control = bool(trial.get("control"))
        if not paired(task):
            q = quality(str(trial["system"]), item)
            ratings = {}
            for criterion in criteria:
                latent = (
                    config.degraded_quality
                    if control
                    else _criterion_quality(criterion, q)
                )
                x = latent + biases[subject]
                x = min(1.0, max(0.0, x + float(rng.normal(0.0, config.noise_sd))))
                if rng.random() < config.lapse_rate:
                    x = float(rng.random())
                if criterion.scale == "likert":
                    points = criterion.points or 5
                    ratings[criterion.id] = 1 + round(x * (points - 1))
                else:
                    ratings[criterion.id] = round(100 * x)
            row.update(system=trial["system"], ratings=ratings, quality=q.quality)
            shown = q.words
        else:
            left, right = str(trial["system_left"]), str(trial["system_right"])
            ql, qr = quality(left, item), quality(right, item)
            criterion = criteria[0]
            a, b = _criterion_quality(criterion, ql), _criterion_quality(criterion, qr)
            if control:  # the degraded copy is seen as such
                a = config.degraded_quality if left == _CONTROL else a
                b = config.degraded_quality if right == _CONTROL else b
            difference = a - b
            u_tie, u_side, u_lapse = rng.random(), rng.random(), rng.random()
            p_tie = config.tie_rate * math.exp(
                -abs(difference) / max(config.tie_margin, 1e-9)
            )
            p_left = 1 / (1 + math.exp(-difference / max(config.temperature, 1e-9)))
            if u_lapse < config.lapse_rate:  # a lapse: any answer, equally likely
                options = (
                    ("left", "right", "tie")
                    if criterion.allow_tie
                    else ("left", "right")
                )
                preferred = options[min(int(u_side * len(options)), len(options) - 1)]
                chosen = {"left": left, "right": right}.get(preferred)
            elif criterion.allow_tie and u_tie < p_tie:
                preferred, chosen = "tie", None
            elif u_side < p_left:
                preferred, chosen = "left", left
            else:
                preferred, chosen = "right", right
            row.update(
                system_left=left,
                system_right=right,
                preferred=preferred,
                chosen_system=chosen,
                quality=(a, b),
            )
            shown = ql.words + qr.words
        factor = math.exp(float(rng.normal(0.0, config.time_sd)))
        row["time_ms"] = round(
            (config.time_base_ms + config.time_per_word_ms * shown) * factor
        )
        rows.append(row)
    return rows


def _click_through(
    row: dict[str, Any],
    trial: Mapping[str, Any],
    task: str,
    criteria: Sequence[Criterion],
    rng: Any,
) -> dict[str, Any]:
    """An inattentive evaluator's answer: the scale's middle (slider 50) or the
    left text, in 700-1100 ms."""
    if not paired(task):
        ratings = {
            c.id: (
                1 + round(0.5 * ((c.points or 5) - 1)) if c.scale == "likert" else 50
            )
            for c in criteria
        }
        row.update(system=trial["system"], ratings=ratings, quality=None)
    else:
        left = str(trial["system_left"])
        row.update(
            system_left=left,
            system_right=str(trial["system_right"]),
            preferred="left",
            chosen_system=left,
            quality=None,
        )
    row["time_ms"] = round(float(rng.uniform(700, 1100)))
    return row
