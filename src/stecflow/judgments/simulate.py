"""Simulated participants, so that a demo campaign runs end to end with no humans.

The simulator answers every trial of a study design the way a participant of the
web experiment would, and writes the answers in the collection server's export
format (:data:`stecflow.studies.settings.RESPONSE_COLUMNS`) plus a ``simulated`` column
that is always ``true``. The file goes through the same importer and merge as real
data (:func:`stecflow.judgments.importers.read_response_table` keeps the label),
so every downstream table and the report can mark simulated judgments.

The generative model (documented for organisers in ``docs/judgments.md``)
-------------------------------------------------------------------------
**What a description says.** Its *content* S is a set of (attribute, value)
pairs: the attribute set the system produced when there is one (option
``content="attributes_first"``), otherwise read from its words with a lexicon
(:class:`Lexicon`): the template realiser's words for every attribute
(:data:`stecflow.tasks.reg.realiser.TEMPLATE_SLOTS`, grid rows and columns) and every
phrase that the human references of the items annotate with an attribute
(``ANNOTATED-WORD-STRING`` spans such as ``couch`` -> ``type:sofa`` or
``second from the right`` -> ``x-dimension:4``). Phrases are matched longest
first; only attributes that occur in the item's domain count; ``without``,
``no`` and ``not`` negate the yes/no attributes that follow.

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

import html
import json
import logging
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from stecflow.judgments._common import JudgmentsError, digest_seed, plain
from stecflow.studies.settings import RESPONSE_COLUMNS

if TYPE_CHECKING:  # pragma: no cover
    from stecflow.data.model import Item

__all__ = [
    "SIMULATED_COLUMNS",
    "Lexicon",
    "SimulationSettings",
    "description_content",
    "simulate_responses",
    "simulate_study",
    "write_simulated_responses",
]

logger = logging.getLogger(__name__)

#: Columns of a simulated response file: the server's export, then ``simulated``.
SIMULATED_COLUMNS = (*RESPONSE_COLUMNS, "simulated")

_TOKEN = re.compile(r"[a-z0-9]+")
_SPAN = re.compile(
    r"<ATTRIBUTE\s+NAME=\"([^\"]*)\"\s+VALUE=\"([^\"]*)\"\s*>(.*?)</ATTRIBUTE>",
    re.IGNORECASE | re.DOTALL,
)
_NEGATORS = {"without", "no", "not"}
_SCOPE_END = {"with", "wearing", "facing", "at", "in", "on", "looking", "who"}
_DETERMINERS = {"the", "a", "an", "this", "that"}
_ROWS: dict[str, tuple[str, ...]] = {"1": ("top",), "2": ("middle",), "3": ("bottom",)}
_COLUMNS: dict[str, tuple[str, ...]] = {
    "1": ("left",),
    "2": ("centre", "left"),
    "3": ("centre",),
    "4": ("centre", "right"),
    "5": ("right",),
}


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _norm(name: str, value: str) -> tuple[str, str]:
    value = str(value).strip().lower()
    if re.fullmatch(r"[+-]?\d+", value):
        value = str(int(value))
    return str(name).strip().lower(), value


# --------------------------------------------------------------------------- lexicon


class Lexicon:
    """Phrases (token tuples) mapped to the attributes they express.

    Built from the template realiser's vocabulary and from the annotated human
    references of the given items (see the module docstring).

    Examples
    --------
    >>> lex = Lexicon()
    >>> sorted(lex.parse("the large red chair facing left"))
    [('colour', 'red'), ('orientation', 'left'), ('size', 'large'), ('type', 'chair')]
    >>> sorted(lex.parse("the man without a beard and glasses"))
    [('hasbeard', '0'), ('hasglasses', '0'), ('type', 'person')]
    """

    def __init__(self, items: Iterable[Item] = ()) -> None:
        self.phrases: dict[tuple[str, ...], Counter[tuple[str, str]]] = {}
        self._realiser()
        for item in items:
            for reference in item.references:
                if reference.annotated_word_string:
                    self._annotated(reference.annotated_word_string)
        self.max_len = max((len(p) for p in self.phrases), default=1)

    def add(
        self, phrase: Sequence[str], attribute: tuple[str, str], n: int = 1
    ) -> None:
        """Record that *phrase* expresses *attribute* (*n* more times)."""
        key = tuple(phrase)
        if key:
            self.phrases.setdefault(key, Counter())[_norm(*attribute)] += n

    def _realiser(self) -> None:
        from stecflow.tasks.reg.realiser import TEMPLATE_SLOTS

        negative_slots = (7, 9)
        for (name, value), (slot, words) in TEMPLATE_SLOTS.items():
            if slot in negative_slots:
                continue
            self.add(_tokens(words), (name, value), 5)
            if words.startswith("a "):
                self.add(_tokens(words[2:]), (name, value), 5)
        for value, phrase in _ROWS.items():
            self.add(phrase, ("y-dimension", value), 5)
        for value, phrase in _COLUMNS.items():
            self.add(phrase, ("x-dimension", value), 5)
        for word in ("man", "woman", "guy", "person", "one"):
            if word != "one":
                self.add((word,), ("type", "person"), 3)

    def _annotated(self, annotated: str) -> None:
        for name, value, span in _SPAN.findall(annotated):
            text = re.sub(r"<[^>]+>", " ", html.unescape(span))
            self.add(_tokens(text), (name, value))

    def parse(
        self, text: str, allowed: Mapping[str, set[str]] | None = None
    ) -> frozenset[tuple[str, str]]:
        """Read the attributes a description expresses.

        Parameters
        ----------
        text : str
            The description.
        allowed : mapping, optional
            Attribute name -> values that occur in the item's domain (lower
            case); attributes outside it are ignored.

        Returns
        -------
        frozenset of (name, value)
            Lower-cased names and values.
        """
        tokens = _tokens(text)
        found: set[tuple[str, str]] = set()
        negative = False
        i = 0
        while i < len(tokens):
            match = None
            for length in range(min(self.max_len, len(tokens) - i), 0, -1):
                phrase = tuple(tokens[i : i + length])
                attribute = self._best(phrase, allowed)
                if attribute is not None:
                    match = (phrase, attribute)
                    break
            if match is not None:
                phrase, (name, value) = match
                if negative and value == "1" and not (_NEGATORS & set(phrase)):
                    value = "0"
                    if allowed is not None and value not in allowed.get(name, set()):
                        value = "1"
                found.add((name, value))
                i += len(phrase)
                continue
            token = tokens[i]
            if token in _NEGATORS:
                negative = True
            elif token in _SCOPE_END and not (
                token == "wearing" and i and tokens[i - 1] == "not"
            ):
                negative = False
            i += 1
        return frozenset(found)

    def _best(
        self, phrase: tuple[str, ...], allowed: Mapping[str, set[str]] | None
    ) -> tuple[str, str] | None:
        counts = self.phrases.get(phrase)
        if not counts:
            return None
        options = [
            (n, attribute)
            for attribute, n in counts.items()
            if allowed is None or attribute[1] in allowed.get(attribute[0], set())
        ]
        if not options:
            return None
        return sorted(options, key=lambda o: (-o[0], o[1]))[0][1]


def _domain_attributes(item: Item) -> dict[str, set[str]]:
    allowed: dict[str, set[str]] = {}
    for entity in item.domain.entities:
        for attribute in entity.attributes:
            name, value = _norm(attribute.name, attribute.value)
            allowed.setdefault(name, set()).add(value)
    return allowed


def _entity_sets(item: Item) -> list[tuple[str, frozenset[tuple[str, str]], bool]]:
    return [
        (
            e.id,
            frozenset(_norm(a.name, a.value) for a in e.attributes),
            e.is_target,
        )
        for e in item.domain.entities
    ]


def description_content(
    description: str,
    item: Item,
    *,
    attributes: Iterable[tuple[str, str]] | None = None,
    lexicon: Lexicon | None = None,
) -> frozenset[tuple[str, str]]:
    """The content S of a description in its item's domain (lower case).

    The system's attribute set when given, else the attributes read from the
    words with *lexicon* (default: a lexicon built from *item* alone).

    Examples
    --------
    >>> from stecflow.data.model import Domain, Entity, EntityAttribute, Item
    >>> e = Entity("e1", True, (EntityAttribute("type", "chair"),
    ...                         EntityAttribute("colour", "red")))
    >>> item = Item("t1", Domain((e,)), "furniture")
    >>> sorted(description_content("the red chair", item))
    [('colour', 'red'), ('type', 'chair')]
    """
    if attributes is not None:
        return frozenset(_norm(n, v) for n, v in attributes)
    lexicon = lexicon or Lexicon([item])
    return lexicon.parse(description, _domain_attributes(item))


# --------------------------------------------------------------------------- settings


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
        for name in ("p_abandon", "lapse_rate", "p_cant_tell", "p_distracted"):
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
        values = dict(values or {})
        values.pop("seed", None)
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise JudgmentsError(
                f"unknown key {unknown[0]!r}", field=f"simulation.{unknown[0]}"
            )
        return cls(**values)

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


# --------------------------------------------------------------------------- model


@dataclass(frozen=True)
class _Trial:
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


def _rng(seed: int, *keys: object) -> np.random.Generator:
    return np.random.default_rng(digest_seed(seed, "simulate", *keys))


def _dice(a: Sequence[str], b: Sequence[str]) -> float:
    ca, cb = Counter(a), Counter(b)
    total = sum(ca.values()) + sum(cb.values())
    return 2 * sum((ca & cb).values()) / total if total else 1.0


def _fluency_proxy(description: str, references: Sequence[str]) -> float:
    tokens = _tokens(description)
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
    refs = [_tokens(r) for r in references if r]
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

    def content(self, trial: _Trial, item: Item) -> frozenset[tuple[str, str]]:
        key = (trial.item, trial.description, trial.attributes)
        if key not in self._content_cache:
            attributes = (
                trial.attributes if self.s.content == "attributes_first" else None
            )
            self._content_cache[key] = description_content(
                trial.description, item, attributes=attributes, lexicon=self.lexicon
            )
        return self._content_cache[key]

    def session(self, list_id: str, k: int, trials: Sequence[_Trial]) -> list[dict]:
        session = f"sim-{list_id}-{k:02d}"
        rng = _rng(self.seed, self.study, "subject", session)
        subject = {
            "ability": rng.normal(0, self.s.ability_sd),
            "speed": rng.normal(0, self.s.speed_sd),
            "adequacy_bias": rng.normal(0, self.s.rater_sd),
            "fluency_bias": rng.normal(0, self.s.rater_sd),
        }
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
        self, session: str, trial: _Trial, subject: Mapping[str, float]
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
        words = len(_tokens(trial.description))
        if item is None:
            content: frozenset[tuple[str, str]] = frozenset()
            entities: list[tuple[str, frozenset[tuple[str, str]], bool]] = []
        else:
            content = self.content(trial, item)
            entities = _entity_sets(item)
        speed = math.exp(subject["speed"] + effects["speed"])
        if self.task == "rating":
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
        trial: _Trial,
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


# --------------------------------------------------------------------------- entry


def _output_parts(value: Any) -> tuple[str | None, frozenset[tuple[str, str]] | None]:
    if value is None:
        return None, None
    if isinstance(value, str):
        return value, None
    if isinstance(value, Mapping):
        words, attrs = value.get("word_string"), value.get("attribute_set")
    else:
        words = getattr(value, "word_string", None)
        attrs = getattr(value, "attribute_set", None)
    return words, (frozenset(attrs) if attrs is not None else None)


def _items_by_id(items: Iterable[Item]) -> dict[str, Item]:
    out: dict[str, Item] = {}
    for item in items:
        out.setdefault(item.id, item)
    return out


def simulate_responses(
    design: Any,
    items: Iterable[Item],
    outputs_by_system: Mapping[str, Mapping[str, Any]],
    *,
    task: str,
    seed: int,
    variant: str | None = None,
    settings: SimulationSettings | Mapping[str, Any] | None = None,
    study: str | None = None,
    presentation: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Simulate the answers of participants to every list of a design.

    Parameters
    ----------
    design : Design or DataFrame
        The study design (:data:`stecflow.studies.designs.TRIAL_COLUMNS`).
    items : iterable of Item
        Test and practice items (domains, references).
    outputs_by_system : mapping
        System ID -> {item ID -> output}: a word string, an
        :class:`~stecflow.data.model.Output` or a mapping with ``word_string`` and
        ``attribute_set``. A practice trial without a system (or output) shows
        the item's first human reference, as the web experiment does.
    task : {"rating", "identification"}
        The experiment.
    seed : int
        Seed of every draw.
    variant : {"together", "read_first", "spoken"}, optional
        Identification timing (default ``together``).
    settings : SimulationSettings or mapping, optional
        Model parameters.
    study : str, optional
        Study ID (default: the design's ``study`` column).
    presentation : mapping, optional
        The study's presentation settings
        (:class:`stecflow.studies.settings.StudySettings`
        keys ``timeout_ms``, ``cant_tell``, ``delay_ms``, ``speech_wpm``).

    Returns
    -------
    list of dict
        Rows of :data:`SIMULATED_COLUMNS` sorted by list, session and order
        (``simulated`` is True in every row).

    Raises
    ------
    JudgmentsError
        Unknown task, or a test trial whose system has no output for its item.
    """
    from stecflow.judgments.design import design_frame
    from stecflow.tasks.reg.realiser import realise

    if task not in ("rating", "identification"):
        raise JudgmentsError(f"{task!r} is not rating or identification", field="task")
    if task == "identification" and variant is None:
        variant = "together"
    frame = design_frame(design)
    by_id = _items_by_id(items)
    if study is None:
        studies = sorted({s for s in frame.get("study", []) if s})
        study = studies[0] if studies else "study"
    trials: dict[str, list[_Trial]] = {}
    for raw in frame.to_dict("records"):
        row = {k: plain(v) for k, v in raw.items()}
        item = by_id.get(row["item"])
        system = row.get("system")
        words, attrs = _output_parts(
            outputs_by_system.get(system, {}).get(row["item"]) if system else None
        )
        if words is None and attrs is not None:
            words = realise(attrs)
        if words is None:
            if not row["practice"] and system:
                raise JudgmentsError(
                    f"system {system} has no output for item {row['item']}",
                    field="outputs_by_system",
                )
            reference = item.references[0] if item and item.references else None
            words = reference.word_string if reference else ""
            attrs = reference.attribute_set if reference else None
        target = item.domain.target.id if item is not None else None
        trials.setdefault(row["list"], []).append(
            _Trial(
                list=row["list"],
                order=int(row["order"]),
                item=row["item"],
                system=system,
                subdomain=row.get("subdomain") or (item.subdomain if item else None),
                practice=bool(row["practice"]),
                filler=bool(row["filler"]),
                description=words or "",
                attributes=attrs,
                target=target,
            )
        )
    return _run(
        trials,
        by_id,
        task=task,
        variant=variant,
        seed=seed,
        settings=settings,
        study=study,
        presentation=presentation or {},
    )


def _run(
    trials: Mapping[str, list[_Trial]],
    items: Mapping[str, Item],
    *,
    task: str,
    variant: str | None,
    seed: int,
    settings: SimulationSettings | Mapping[str, Any] | None,
    study: str,
    presentation: Mapping[str, Any],
) -> list[dict[str, Any]]:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise JudgmentsError(
            f"must be a non-negative integer, got {seed!r}", field="seed"
        )
    config = _settings(settings)
    simulator = _Simulator(
        study,
        task,
        variant if task == "identification" else None,
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


def simulate_study(
    stimuli_path: str | Path,
    items_paths: str | Path | Sequence[str | Path],
    out_path: str | Path,
    *,
    seed: int,
    settings: SimulationSettings | Mapping[str, Any] | None = None,
) -> int:
    """Simulate a built study from its ``stimuli.json`` and write the answers.

    The descriptions are exactly those the web experiment shows (the study
    document of :func:`stecflow.studies.stimuli.make_study_files`), read from their
    words; the items give the domains and references.

    Parameters
    ----------
    stimuli_path : path
        ``results/studies/<study>/web/stimuli.json``, or the ``web`` folder or
        the study folder that holds it (for a rule whose output is the folder).
    items_paths : path or sequence of paths
        Test set (and practice items' corpus) in stecflow's XML.
    out_path : path
        The TSV to write (:func:`write_simulated_responses`).
    seed : int
        Seed of every draw.
    settings : SimulationSettings or mapping, optional
        Model parameters.

    Returns
    -------
    int
        Rows written.
    """
    from stecflow.data.corpus import read_items

    path = Path(stimuli_path)
    if path.is_dir():
        inside = [path / "stimuli.json", path / "web" / "stimuli.json"]
        path = next((p for p in inside if p.is_file()), inside[0])
    source = str(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise JudgmentsError(
            f"cannot read the study document ({exc})", file=source
        ) from None
    for key in ("study", "task", "lists", "settings"):
        if key not in document:
            raise JudgmentsError(
                f"the study document has no {key!r}", file=source, field=key
            )
    paths = [items_paths] if isinstance(items_paths, str | Path) else items_paths
    items: dict[str, Item] = {}
    for name in sorted(str(p) for p in paths):
        for item in read_items(name):
            items.setdefault(item.id, item)
    trials: dict[str, list[_Trial]] = {}
    for lst in document["lists"]:
        for t in lst["trials"]:
            trials.setdefault(lst["list"], []).append(
                _Trial(
                    list=lst["list"],
                    order=int(t["order"]),
                    item=t["item"],
                    system=t.get("system"),
                    subdomain=t.get("subdomain"),
                    practice=bool(t.get("practice")),
                    filler=bool(t.get("filler")),
                    description=t.get("description") or "",
                    attributes=None,
                    target=t.get("target"),
                )
            )
    rows = _run(
        trials,
        items,
        task=document["task"],
        variant=document.get("variant"),
        seed=seed,
        settings=settings,
        study=document["study"],
        presentation=document["settings"],
    )
    write_simulated_responses(rows, out_path)
    return len(rows)


def write_simulated_responses(
    rows: Iterable[Mapping[str, Any]], path: str | Path
) -> None:
    """Write simulated answers as the server's export plus ``simulated``.

    Columns: :data:`stecflow.studies.settings.RESPONSE_COLUMNS` then ``simulated``; rows
    sorted by list, session and order (deterministic bytes).
    """
    from stecflow.core.io import write_tsv

    ordered = sorted(
        ({k: plain(v) for k, v in row.items()} for row in rows),
        key=lambda r: (str(r.get("list")), str(r.get("session")), int(r["order"])),
    )
    write_tsv(ordered, SIMULATED_COLUMNS, path)
