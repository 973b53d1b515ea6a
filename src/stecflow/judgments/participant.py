"""How a simulated participant answers a trial: the generative model.

:func:`simulate_trials` runs :attr:`SimulationSettings.sessions_per_list`
sessions of every list, each a participant answering the list's trials
(:class:`Trial`) in order, and returns rows of the server's export
(:data:`stecflow.studies.settings.RESPONSE_COLUMNS`). The model is documented for
organisers in ``docs/judgments.md``.

**What a description says.** Its *content* S, a set of (attribute, value)
pairs: the system's attribute set or the attributes read from its words
(:mod:`stecflow.judgments.lexicon`).

**Identification.** Entity *e* gets the score m_e = |S ∩ attrs(e)| − |S \\
attrs(e)| (attributes true of it minus attributes false of it). The participant
clicks *e* with probability (1 − λ)·softmax(β·m)_e + λ/|E|, where β = ``beta``
× exp(subject ability + item clarity) (normal random effects with SDs
``ability_sd`` and ``item_sd``) and λ = ``lapse_rate``. So a distinguishing
description (only the target fits) is identified almost always, an
under-specified one about 1/k of the time among k fitting entities, and a
description that is false of the target misleads. With a "can't tell" button,
a description that fits several entities equally is answered "can't tell"
with probability ``p_cant_tell``.

**Times** (ms, lognormal noise with SD ``time_sigma`` on the log scale, subject
and item speed effects with SDs ``speed_sd`` and ``item_speed_sd``):
reading = ``read_base_ms`` + ``ms_per_word`` × words; identification =
``identify_base_ms`` + ``ms_per_attribute`` × |S| + ``ambiguity_ms`` ×
log2(entities with the best score). With probability ``p_distracted`` a
trial takes an extra exponential delay (mean ``distracted_ms``): real
participants produce such outliers. ``together``: the identification time
includes reading; ``read_first``: separate; ``spoken``: ``delay_ms`` plus
``listen_fraction`` of the speech (words at ``speech_wpm``) plus
identification. A trial whose identification time passes ``timeout_ms`` times
out.

**Ratings** (1-100, integers): Adequacy follows how well the description singles
out the target: 100 × (1/k)^0.7 for k fitting entities including the target,
15 if it is false of the target, minus 3 per attribute beyond the minimal
distinguishing size (over-specification). Fluency starts at 85 and loses points
for a missing determiner, repeated words, attribute names or numbers leaking
into the text, very short or very long strings, and gains or loses with the
mean word overlap (Dice) with the item's human references. Each rating adds a
rater bias (SD ``rater_sd``), an item effect (SD ``rating_item_sd``) and noise
(SD ``rating_noise_sd``), is rounded and clipped to 1-100.

Every random draw comes from ``numpy.random.default_rng`` seeded with SHA-256 of
the seed, the study and the draw's IDs (subject, item, trial), so the output is
identical on every machine and does not depend on iteration order.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from stecflow.judgments._common import (
    JudgmentsError,
    digest_seed,
    simulation_settings,
)
from stecflow.judgments.lexicon import (
    Lexicon,
    description_content,
    entity_sets,
    word_tokens,
)
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studykinds.registry import identifies

if TYPE_CHECKING:  # pragma: no cover
    from stecflow.data.model import Item

__all__ = ["SimulationSettings", "Trial", "latent_ratings", "simulate_trials"]

logger = logging.getLogger(__name__)

_DETERMINERS = {"the", "a", "an", "this", "that"}


@dataclass(frozen=True)
class SimulationSettings:
    """Parameters of the generative model (config ``judgments.simulation``).

    See the module docstring for what each does. Defaults give identification
    accuracies of about 0.95 for distinguishing descriptions, times in the range
    of seed 001's Table 8 and seed 003's Table 3, and ratings in the range of
    seed 001's Table 6.
    """

    sessions_per_list: int = 1
    p_abandon: float = 0.0
    content: str = "attributes_first"
    lapse_rate: float = 0.02
    beta: float = 3.0
    ability_sd: float = 0.3
    item_sd: float = 0.2
    p_cant_tell: float = 0.4
    read_base_ms: float = 500.0
    ms_per_word: float = 150.0
    identify_base_ms: float = 1200.0
    ms_per_attribute: float = 120.0
    ambiguity_ms: float = 450.0
    listen_fraction: float = 0.8
    time_sigma: float = 0.22
    speed_sd: float = 0.15
    item_speed_sd: float = 0.08
    p_distracted: float = 0.03
    distracted_ms: float = 2500.0
    rating_base_ms: float = 3500.0
    rater_sd: float = 8.0
    rating_item_sd: float = 5.0
    rating_noise_sd: float = 14.0
    inattentive: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "content":
                if value not in ("attributes_first", "words"):
                    raise JudgmentsError(
                        f"{value!r} is not attributes_first or words",
                        field="simulation.content",
                    )
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise JudgmentsError(
                    f"must be a number, got {value!r}", field=f"simulation.{f.name}"
                )
            if value < 0:
                raise JudgmentsError(
                    f"must not be negative, got {value!r}",
                    field=f"simulation.{f.name}",
                )
        for name in (
            "p_abandon",
            "lapse_rate",
            "p_cant_tell",
            "p_distracted",
            "inattentive",
        ):
            if getattr(self, name) > 1:
                raise JudgmentsError(
                    "must be a probability (0-1)", field=f"simulation.{name}"
                )
        if self.sessions_per_list < 1 or self.sessions_per_list != int(
            self.sessions_per_list
        ):
            raise JudgmentsError(
                "must be a positive integer", field="simulation.sessions_per_list"
            )

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> SimulationSettings:
        """Build from config (unknown keys raise).

        A ``seed`` key (the config keeps the simulation seed in the same
        mapping) is ignored here: the seed is an argument of the simulators.

        >>> SimulationSettings.from_mapping({"beta": 2.0, "seed": 7}).beta
        2.0
        """
        return simulation_settings(cls, values)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the summary."""
        return asdict(self)


def _settings(
    value: SimulationSettings | Mapping[str, Any] | None,
) -> SimulationSettings:
    if value is None:
        return SimulationSettings()
    if isinstance(value, SimulationSettings):
        return value
    return SimulationSettings.from_mapping(value)


@dataclass(frozen=True)
class Trial:
    """One trial as the participant sees it: the description and its item."""

    list: str
    order: int
    item: str
    system: str | None
    subdomain: str | None
    practice: bool
    filler: bool
    description: str
    attributes: frozenset[tuple[str, str]] | None
    target: str | None


def simulate_trials(
    trials: Mapping[str, list[Trial]],
    items: Mapping[str, Item],
    *,
    task: str,
    variant: str | None,
    seed: int,
    settings: SimulationSettings | Mapping[str, Any] | None,
    study: str,
    presentation: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """Answer every list's trials: ``sessions_per_list`` participants per list.

    Parameters
    ----------
    trials : mapping
        List ID -> its trials.
    items : mapping
        Item ID -> Item (domains, references); a trial of another item is
        answered without a domain.
    task, variant, seed, settings, study
        As :func:`stecflow.judgments.simulate.simulate_responses` takes them.
    presentation : mapping
        The study's presentation settings (``timeout_ms``, ``cant_tell``,
        ``delay_ms``, ``speech_wpm``).

    Returns
    -------
    list of dict
        Rows of :data:`stecflow.studies.settings.RESPONSE_COLUMNS` and
        ``simulated``, by list, session and order.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise JudgmentsError(
            f"must be a non-negative integer, got {seed!r}", field="seed"
        )
    config = _settings(settings)
    simulator = _Simulator(
        study,
        task,
        variant if identifies(task) else None,
        int(seed),
        config,
        items,
        Lexicon(items[i] for i in sorted(items)),
        presentation,
    )
    rows: list[dict[str, Any]] = []
    for list_id in sorted(trials):
        for k in range(1, int(config.sessions_per_list) + 1):
            rows.extend(simulator.session(list_id, k, trials[list_id]))
    logger.info("simulated %d answer(s) for study %s", len(rows), study)
    return rows


def _rng(seed: int, *keys: object) -> np.random.Generator:
    return np.random.default_rng(digest_seed(seed, "simulate", *keys))


def _dice(a: Sequence[str], b: Sequence[str]) -> float:
    ca, cb = Counter(a), Counter(b)
    total = sum(ca.values()) + sum(cb.values())
    return 2 * sum((ca & cb).values()) / total if total else 1.0


def _fluency_proxy(description: str, references: Sequence[str]) -> float:
    tokens = word_tokens(description)
    score = 85.0
    if not tokens:
        return 5.0
    if tokens[0] not in _DETERMINERS:
        score -= 12
    score -= 15 * sum(1 for a, b in zip(tokens, tokens[1:], strict=False) if a == b)
    if re.search(r"\b(has[A-Z]\w*|\w+-dimension|hairColour)\b", description) or any(
        t.isdigit() for t in tokens
    ):
        score -= 20
    if len(tokens) < 2:
        score -= 20
    score -= 2 * max(0, len(tokens) - 10)
    refs = [word_tokens(r) for r in references if r]
    if refs:
        overlap = float(np.mean([_dice(tokens, r) for r in refs]))
        score += 15 * (overlap - 0.5)
    return float(np.clip(score, 1, 100))


def _adequacy_proxy(
    content: frozenset[tuple[str, str]],
    entities: Sequence[tuple[str, frozenset[tuple[str, str]], bool]],
) -> float:
    from stecflow.metrics.distinguishing import minimal_distinguishing_size

    target = next((s for _, s, t in entities if t), None)
    if target is None:
        return 50.0
    if not content <= target:
        return 15.0
    fitting = sum(1 for _, s, _ in entities if content <= s)
    base = 100 * (1 / fitting) ** 0.7
    distractors = [s for _, s, t in entities if not t]
    k = minimal_distinguishing_size(target, distractors)
    if k is not None and fitting == 1:
        base -= 3 * max(0, len(content) - k)
    return float(np.clip(base, 1, 100))


def latent_ratings(
    description: str, item: Item, lexicon: Lexicon
) -> tuple[float, float]:
    """``(adequacy, fluency)``, 1-100, of a REG description before a rater's
    bias and noise: the model of the module docstring's **Ratings**, which the
    rating study's simulated participants follow. The text kinds' simulated
    evaluators judge a REG study's descriptions by it too
    (:func:`stecflow.judgments.text_study.simulate_job`), so every design of a
    human evaluation of REG outputs rates the same latent qualities."""
    entities = entity_sets(item)
    content = description_content(description, item, lexicon=lexicon)
    references = [r.word_string or "" for r in item.references]
    adequacy = _adequacy_proxy(content, entities) if entities else 60.0
    return adequacy, _fluency_proxy(description, references)


class _Simulator:
    def __init__(
        self,
        study: str,
        task: str,
        variant: str | None,
        seed: int,
        settings: SimulationSettings,
        items: Mapping[str, Item],
        lexicon: Lexicon,
        presentation: Mapping[str, Any],
    ) -> None:
        self.study = study
        self.task = task
        self.variant = variant
        self.seed = seed
        self.s = settings
        self.items = items
        self.lexicon = lexicon
        self.timeout_ms = float(presentation.get("timeout_ms") or 15000)
        self.cant_tell = bool(presentation.get("cant_tell"))
        self.delay_ms = float(presentation.get("delay_ms") or 500)
        self.wpm = float(presentation.get("speech_wpm") or 150)
        self._content_cache: dict[tuple[str, str, Any], Any] = {}

    def content(self, trial: Trial, item: Item) -> frozenset[tuple[str, str]]:
        key = (trial.item, trial.description, trial.attributes)
        if key not in self._content_cache:
            attributes = (
                trial.attributes if self.s.content == "attributes_first" else None
            )
            self._content_cache[key] = description_content(
                trial.description, item, attributes=attributes, lexicon=self.lexicon
            )
        return self._content_cache[key]

    def session(self, list_id: str, k: int, trials: Sequence[Trial]) -> list[dict]:
        session = f"sim-{list_id}-{k:02d}"
        rng = _rng(self.seed, self.study, "subject", session)
        subject = {
            "ability": rng.normal(0, self.s.ability_sd),
            "speed": rng.normal(0, self.s.speed_sd),
            "adequacy_bias": rng.normal(0, self.s.rater_sd),
            "fluency_bias": rng.normal(0, self.s.rater_sd),
        }
        # inattentive participants (share ``inattentive``): their own draw, so
        # the other draws (and every result without them) stay the same
        subject["inattentive"] = bool(
            self.s.inattentive
            and _rng(self.seed, self.study, "inattentive", session).random()
            < self.s.inattentive
        )
        ordered = sorted(trials, key=lambda t: t.order)
        stop = len(ordered)
        status = "completed"
        if self.s.p_abandon and rng.random() < self.s.p_abandon:
            stop = int(rng.integers(1, max(2, len(ordered))))
            status = "abandoned"
        rows = []
        for trial in ordered[:stop]:
            row = self.trial(session, trial, subject)
            row["session_status"] = status
            rows.append(row)
        return rows

    def item_effects(self, item_id: str) -> dict[str, float]:
        rng = _rng(self.seed, self.study, "item", item_id)
        return {
            "clarity": rng.normal(0, self.s.item_sd),
            "speed": rng.normal(0, self.s.item_speed_sd),
            "adequacy": rng.normal(0, self.s.rating_item_sd),
            "fluency": rng.normal(0, self.s.rating_item_sd),
        }

    def trial(
        self, session: str, trial: Trial, subject: Mapping[str, float]
    ) -> dict[str, Any]:
        rng = _rng(self.seed, self.study, "trial", session, trial.order)
        row: dict[str, Any] = dict.fromkeys(RESPONSE_COLUMNS)
        row.update(
            study=self.study,
            task=self.task,
            variant=self.variant,
            session=session,
            participant=session,
            list=trial.list,
            order=trial.order,
            item=trial.item,
            system=trial.system,
            subdomain=trial.subdomain,
            practice=trial.practice,
            filler=trial.filler,
            target_entity=trial.target,
            simulated=True,
        )
        item = self.items.get(trial.item)
        effects = self.item_effects(trial.item)
        words = len(word_tokens(trial.description))
        if item is None:
            content: frozenset[tuple[str, str]] = frozenset()
            entities: list[tuple[str, frozenset[tuple[str, str]], bool]] = []
        else:
            content = self.content(trial, item)
            entities = entity_sets(item)
        speed = math.exp(subject["speed"] + effects["speed"])
        if subject.get("inattentive"):
            self._inattentive(row, rng, trial, entities)
            return row
        if not identifies(self.task):
            references = [r.word_string or "" for r in item.references] if item else []
            adequacy = _adequacy_proxy(content, entities) if entities else 60.0
            fluency = _fluency_proxy(trial.description, references)
            row["adequacy"] = self._rating(
                rng, adequacy, subject["adequacy_bias"], effects["adequacy"]
            )
            row["fluency"] = self._rating(
                rng, fluency, subject["fluency_bias"], effects["fluency"]
            )
            base = self.s.rating_base_ms + 250.0 * words
            row["rt_ms"] = self._ms(base * speed * self._noise(rng))
            return row
        self._identify(
            row, rng, trial, content, entities, subject, effects, words, speed
        )
        return row

    def _inattentive(
        self,
        row: dict[str, Any],
        rng: np.random.Generator,
        trial: Trial,
        entities: Sequence[tuple[str, frozenset[tuple[str, str]], bool]],
    ) -> None:
        """Click through: sliders left where they start (50), a random picture,
        fast (700-1100 ms); such a participant fails the control trials."""
        time = self._ms(rng.uniform(700, 1100))
        if not identifies(self.task):
            row["adequacy"] = row["fluency"] = 50
            row["rt_ms"] = time
            return
        row["cant_tell"] = row["timeout"] = False
        chosen = entities[int(rng.integers(len(entities)))][0] if entities else None
        row["chosen_entity"] = chosen
        row["correct"] = chosen == trial.target
        row["identification_time_ms"] = row["rt_ms"] = time

    def _rating(
        self, rng: np.random.Generator, proxy: float, bias: float, item: float
    ) -> int:
        value = proxy + bias + item + rng.normal(0, self.s.rating_noise_sd)
        return int(np.clip(round(value), 1, 100))

    def _noise(self, rng: np.random.Generator) -> float:
        return math.exp(rng.normal(0, self.s.time_sigma))

    @staticmethod
    def _ms(value: float) -> float:
        return round(float(value), 1)

    def _identify(
        self,
        row: dict[str, Any],
        rng: np.random.Generator,
        trial: Trial,
        content: frozenset[tuple[str, str]],
        entities: Sequence[tuple[str, frozenset[tuple[str, str]], bool]],
        subject: Mapping[str, float],
        effects: Mapping[str, float],
        words: int,
        speed: float,
    ) -> None:
        if entities:
            scores = np.array(
                [len(content & s) - len(content - s) for _, s, _ in entities],
                dtype=float,
            )
            beta = self.s.beta * math.exp(subject["ability"] + effects["clarity"])
            weights = np.exp(beta * (scores - scores.max()))
            probs = (1 - self.s.lapse_rate) * weights / weights.sum()
            probs += self.s.lapse_rate / len(entities)
            best = int((scores == scores.max()).sum())
            chosen: str | None = entities[int(rng.choice(len(entities), p=probs))][0]
        else:  # an item we know nothing about (a practice item): identified
            best = 1
            chosen = trial.target
        reading = (self.s.read_base_ms + self.s.ms_per_word * words) * speed
        reading *= self._noise(rng)
        identify = (
            (
                self.s.identify_base_ms
                + self.s.ms_per_attribute * len(content)
                + self.s.ambiguity_ms * math.log2(max(best, 1))
            )
            * speed
            * self._noise(rng)
        )
        if rng.random() < self.s.p_distracted:
            identify += rng.exponential(self.s.distracted_ms)
        cant_tell = self.cant_tell and best > 1 and rng.random() < self.s.p_cant_tell
        if self.variant == "read_first":
            row["reading_time_ms"] = self._ms(reading)
            total = identify
        elif self.variant == "spoken":
            speech = 60000.0 * max(words, 1) / self.wpm
            total = self.delay_ms + self.s.listen_fraction * speech + identify
            row["audio_onset_ms"] = self._ms(self.delay_ms + rng.uniform(2, 25))
        else:
            total = reading + identify
        row["cant_tell"] = False
        row["timeout"] = False
        if total > self.timeout_ms:
            row["timeout"] = True
            return
        row["identification_time_ms"] = self._ms(total)
        row["rt_ms"] = self._ms(total + (row["reading_time_ms"] or 0.0))
        if cant_tell:
            row["cant_tell"] = True
            row["correct"] = False
            return
        row["chosen_entity"] = chosen
        row["correct"] = chosen == trial.target
        row["click_x"] = round(float(rng.uniform(0.15, 0.85)), 3)
        row["click_y"] = round(float(rng.uniform(0.15, 0.85)), 3)
