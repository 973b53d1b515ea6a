"""Simulated participants of seed 000's situated identification study (SIMULATED).

Owns :func:`simulate_situated`: every trial of a situated design
(:func:`.design.situated_design`) answered by a simulated
evaluator who watched the trial's clip, as a tidy trials table in the columns
:mod:`.measures` reads (:data:`SIMULATED_TRIAL_COLUMNS`), every
row with ``simulated = True``. Nothing here is human data.

**The clip.** A trial replays its instance's context: from
:func:`stecflow.data.dialogue.context_start` (the last mention of the target and
the last action on it, at most ``max_context_ms``; without such a context, the
``max_context_ms`` before the onset) to the onset of the utterance
(:func:`~stecflow.data.dialogue.cut_context`).

**Salience.** From the clip, as an overhearer sees it at the onset, every piece
*p* gets a salience

    s(p) = mention_weight · decay^m(p) + action_weight · decay^a(p)
           + cursor_weight · [cursor over p] + operated_weight · [p in the hand]

where m(p) is the number of distinct other pieces mentioned after *p*'s last
mention in the clip (0: *p* is the most recent mention; the term is 0 if *p* is
not mentioned in the clip) and a(p) the same for actions. For the target these
are the features of seed 000 Table 3 within the clip: D1 and D4, A1 and A4, O1,
O2. An action-mentioning expression adds ``action_mention_weight · decay^a(p)``
to the pieces acted on *in the clip*: it helps only when the action was shown.

**The expression.** Its form restricts the pieces it can mean: a demonstrative
pronoun (and ``other``) any piece; a demonstrative adjective or an
action-mentioning expression the pieces of the target's shape family
(triangles, the square, the parallelogram); a definite description or a unique
name the pieces of the target's shape. The target gets ``clarity_<form>`` on
top (what the words say beyond the shape). The trial shows the corpus's
expression (``shown = original``) or the system's (``shown = system``: a
demonstrative pronoun, the seed's "sore"). So a pronoun whose referent is not
the most recent mention competes with the piece that is, and loses unless the
cursor or the operation points at the target; no constant depends on the class
(TP, FN, FP-Orig, FP-system): the classes differ only through their contexts
and expressions.

**Choice.** P(p) = (1 − lapse_rate) · softmax(β · (s + clarity))_p over the
candidates + lapse_rate / 7 over all pieces, with β = ``beta`` · exp(ability −
difficulty): participant ability ~ N(0, ``ability_sd``), instance difficulty ~
N(0, ``difficulty_sd``). The uncertainty is U = 1 − max_p P(p). With
probability ``cant_tell_weight`` · U the evaluator answers "I don't know";
otherwise a piece drawn from P. With probability ``p_misclick`` the click lands
on another piece, the evaluator declares it, and the answer is corrected
(``corrected = True``; the seed had 3 in 2,584).

**Replays** ~ Poisson(``replay_rate`` · exp(``replay_uncertainty`` · U + r)),
r ~ N(0, ``replay_sd``) per participant.

**Identification time** (ms, from the onset of the utterance to the click, as
the seed defines it, reading and replays included) = exp(speed + item_speed +
ε) · (``read_base_ms`` + ``ms_per_char`` · characters of the utterance as shown
+ ``decide_ms`` + ``uncertainty_ms`` · U) + replays · ``replay_ms``, with speed ~
N(0, ``speed_sd``) per participant, item_speed ~ N(0, ``item_speed_sd``) per
instance and ε ~ N(0, ``time_sigma``). A replay costs a fixed ``replay_ms``
(restarting the clip and watching the part the evaluator needs; the seed gives
no replay durations), not the clip's length: otherwise the longer contexts of
some classes would make them slower whatever the evaluator understood.

**FP-system against FP-Orig.** The defaults are calibrated on TP and FN
only. On the demo design the model identifies FP-Orig slightly better than
FP-system (about .99 against .94; MIR equal) and FP-system faster, where seed
000 found FP-DP about 1 % better and slower: an original expression only ever
narrows the candidates and adds clarity, an action-mentioning one is helped
(not hurt, as the seed's overhearers were) by the action in the clip, and the
shorter pronoun is read faster. ``docs/judgments.md`` gives the figures and the
reasons; nothing here is tuned per class to change them.

**Sessions.** With probability ``p_session_failure`` a participant's session
fails part-way (``session_status = "abandoned"``, the trials after a random point
missing), as 2 of the seed's 36 did.

Every draw comes from ``numpy.random.default_rng`` seeded with SHA-256 of the
study seed, the study and the IDs (participant; instance; participant and
instance), so the table does not depend on machine or iteration order. The
model is documented for organisers in ``docs/judgments.md``.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.judgments`
(``_common``), numpy and pandas (inside functions).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

from stecflow.data.dialogue import (
    Session,
    context_start,
    cursor_at,
    cut_context,
    piece_states,
    point_in_piece,
)
from stecflow.judgments._common import (
    JudgmentsError,
    digest_seed,
    simulation_settings,
)
from stecflow.studykinds.situated_identification.measures import TRIAL_COLUMNS

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd

__all__ = [
    "FEATURE_WEIGHTS",
    "SIMULATED_TRIAL_COLUMNS",
    "SituatedSimulationSettings",
    "clip_salience",
    "simulate_situated",
]

logger = logging.getLogger(__name__)

#: Columns of :func:`simulate_situated` (those of
#: :data:`.measures.TRIAL_COLUMNS`, then ``simulated``).
SIMULATED_TRIAL_COLUMNS = (*TRIAL_COLUMNS, "simulated")

#: The settings that carry the context's effect; all 0 is the "flattened" model
#: in which the context does not matter.
FEATURE_WEIGHTS = (
    "mention_weight",
    "action_weight",
    "cursor_weight",
    "operated_weight",
    "action_mention_weight",
)

_FAMILY = {
    "large_triangle": "triangle",
    "medium_triangle": "triangle",
    "small_triangle": "triangle",
}
_PROBABILITIES = ("lapse_rate", "cant_tell_weight", "p_misclick", "p_session_failure")


@dataclass(frozen=True)
class SituatedSimulationSettings:
    """Parameters of the simulated evaluator (see the module docstring).

    The defaults are calibrated on the demo corpus (classes of the recency
    baseline, the seed's design shape) to seed 000's figures for TP and FN
    (§5.3.2-5.3.3): TP identified at about .97 (the seed: 661 of 680), FN about
    .24 lower ("about 25 %"), TP about 0.6 s faster ("between about 500-1,400
    ms"). The calibration is a choice of parameters, not a property of the
    model; the direction comes from the contexts.
    """

    beta: float = 2.5
    ability_sd: float = 0.3
    difficulty_sd: float = 0.3
    lapse_rate: float = 0.01
    mention_weight: float = 2.0
    action_weight: float = 1.0
    cursor_weight: float = 1.5
    operated_weight: float = 1.5
    action_mention_weight: float = 1.5
    decay: float = 0.4
    clarity_pronoun: float = 0.8
    clarity_adjective: float = 1.0
    clarity_description: float = 2.0
    clarity_name: float = 3.0
    clarity_action: float = 0.5
    clarity_other: float = 0.5
    cant_tell_weight: float = 0.25
    p_misclick: float = 0.0012
    replay_rate: float = 0.05
    replay_uncertainty: float = 3.0
    replay_sd: float = 0.5
    replay_ms: float = 4000.0
    read_base_ms: float = 600.0
    ms_per_char: float = 40.0
    decide_ms: float = 900.0
    uncertainty_ms: float = 2500.0
    time_sigma: float = 0.2
    speed_sd: float = 0.2
    item_speed_sd: float = 0.1
    p_session_failure: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise JudgmentsError(
                    f"must be a number, got {value!r}", field=f"simulation.{f.name}"
                )
            if not math.isfinite(value) or value < 0:
                raise JudgmentsError(
                    f"must be a finite non-negative number, got {value!r}",
                    field=f"simulation.{f.name}",
                )
        for name in (*_PROBABILITIES, "decay"):
            if getattr(self, name) > 1:
                raise JudgmentsError(
                    "must lie between 0 and 1", field=f"simulation.{name}"
                )

    @classmethod
    def from_mapping(
        cls, values: Mapping[str, Any] | None
    ) -> SituatedSimulationSettings:
        """Build from config (unknown keys raise; a ``seed`` key is ignored).

        >>> SituatedSimulationSettings.from_mapping({"beta": 2.0, "seed": 7}).beta
        2.0
        """
        return simulation_settings(cls, values)

    def flattened(self) -> SituatedSimulationSettings:
        """These settings with every context effect (:data:`FEATURE_WEIGHTS`) 0.

        >>> SituatedSimulationSettings().flattened().cursor_weight
        0.0
        """
        return SituatedSimulationSettings(
            **{**asdict(self), **dict.fromkeys(FEATURE_WEIGHTS, 0.0)}
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a summary."""
        return asdict(self)


def _ranks(events: Sequence[str]) -> dict[str, int]:
    """Piece -> distinct other pieces after its last occurrence in *events*.

    >>> _ranks(["a", "b", "a", "c", "c"])
    {'c': 0, 'a': 1, 'b': 2}
    """
    out: dict[str, int] = {}
    for piece in reversed(events):
        if piece not in out:
            out[piece] = len(out)
    return out


def clip_salience(
    session: Session,
    expression_id: str,
    start_ms: int,
    settings: SituatedSimulationSettings,
    *,
    action_mentioning: bool = False,
) -> dict[str, float]:
    """The salience of every piece at the onset, from the clip (module docstring).

    Parameters
    ----------
    session : Session
        The session of the expression.
    expression_id : str
        The expression the trial asks about.
    start_ms : int
        Where the clip starts.
    settings : SituatedSimulationSettings
        The weights.
    action_mentioning : bool
        Add the action-mentioning cue (the shown expression mentions an action).

    Returns
    -------
    dict of str to float
        Piece ID -> salience, every piece of the session.
    """
    context = cut_context(session, expression_id, start_ms)
    onset = context.end_ms
    s = settings
    mentions: list[str] = [
        e.referent for u in context.utterances for e in u.expressions
    ]
    for e in context.utterance.expressions:  # earlier in the shown utterance
        if e.id == context.expression.id:
            break
        mentions.append(e.referent)
    acted = [a.piece for a in context.actions if a.start_ms >= start_ms]
    mention_rank = _ranks(mentions)
    action_rank = _ranks(acted)
    states = piece_states(session, onset)
    cursor = cursor_at(session, onset)
    out: dict[str, float] = {}
    for piece in session.pieces:
        p = piece.id
        value = 0.0
        if p in mention_rank:
            value += s.mention_weight * s.decay ** mention_rank[p]
        if p in action_rank:
            value += s.action_weight * s.decay ** action_rank[p]
            if action_mentioning:
                value += s.action_mention_weight * s.decay ** action_rank[p]
        if cursor is not None and point_in_piece(states[p], session.area.unit, *cursor):
            value += s.cursor_weight
        if any(
            a.piece == p and a.start_ms <= onset < a.end_ms for a in session.actions
        ):
            value += s.operated_weight
        out[p] = value
    return out


def _candidates(session: Session, target: str, form: str) -> list[str]:
    shape = session.piece(target).shape
    if form in ("demonstrative_adjective", "action_mentioning"):
        family = _FAMILY.get(shape, shape)
        return [p.id for p in session.pieces if _FAMILY.get(p.shape, p.shape) == family]
    if form in ("definite_description", "unique_name"):
        return [p.id for p in session.pieces if p.shape == shape]
    return [p.id for p in session.pieces]


def _clarity(settings: SituatedSimulationSettings, form: str) -> float:
    return {
        "demonstrative_pronoun": settings.clarity_pronoun,
        "demonstrative_adjective": settings.clarity_adjective,
        "definite_description": settings.clarity_description,
        "unique_name": settings.clarity_name,
        "action_mentioning": settings.clarity_action,
    }.get(form, settings.clarity_other)


@dataclass(frozen=True)
class _Instance:
    session: Session
    expression: str
    target: str
    onset: int
    start: int
    utterance_chars: int
    span_chars: int


def _index(
    sessions: Sequence[Session], items: Sequence[str], expression_of: Mapping[str, str]
) -> dict[str, tuple[Session, str]]:
    where: dict[str, list[Session]] = {}
    for session in sessions:
        for _, e in session.expressions():
            where.setdefault(e.id, []).append(session)
    out = {}
    for item in items:
        expression = expression_of.get(item, item)
        found = where.get(expression, [])
        if len(found) != 1:
            raise JudgmentsError(
                f"instance {item}: expression {expression} is in "
                f"{len(found)} of the sessions given; give each instance the ID of "
                "exactly one expression (expression_of)",
                field="instances",
            )
        out[item] = (found[0], expression)
    return out


def _rng(seed: int, *keys: object) -> np.random.Generator:
    import numpy as np

    return np.random.default_rng(digest_seed(seed, "situated-sim", *keys))


def simulate_situated(
    design: Any,
    sessions: Sequence[Session],
    *,
    seed: int,
    settings: SituatedSimulationSettings | Mapping[str, Any] | None = None,
    study: str | None = None,
    expression_of: Mapping[str, str] | None = None,
    max_context_ms: int = 30_000,
    system_form: str = "demonstrative_pronoun",
) -> pd.DataFrame:
    """Answer every trial of a situated design with simulated evaluators.

    One simulated evaluator per list of the design (``sim-<list>``) answers the
    list's trials in order, by the model of the module docstring.

    Parameters
    ----------
    design : SituatedDesign or pandas.DataFrame
        The design or its trials (:data:`.design.
        SITUATED_TRIAL_COLUMNS`: ``list``, ``order``, ``item``, ``condition``,
        ``shown``, ``expression``, ``target`` are used).
    sessions : sequence of Session
        The sessions holding the instances' expressions.
    seed : int
        The study seed; every draw derives from it.
    settings : SituatedSimulationSettings or mapping, optional
        Model parameters (defaults if None).
    study : str, optional
        Study ID in the seeds (default: the design's ``study`` column).
    expression_of : mapping, optional
        Instance ID -> expression ID, where they differ (default: the same).
    max_context_ms : int, default 30000
        Longest clip (seed 000: 30 s), as for the design.
    system_form : str, default "demonstrative_pronoun"
        Form of the system's expression (``shown = system``).

    Returns
    -------
    pandas.DataFrame
        :data:`SIMULATED_TRIAL_COLUMNS`, sorted by subject and trial order;
        ``class`` is the trial's condition (TP, FN, FP-Orig, FP-system);
        ``chosen`` is None for "I don't know"; ``simulated`` is True in every row.

    Raises
    ------
    JudgmentsError
        A bad seed or setting, a missing design column, or an instance whose
        expression is not in exactly one session.
    """
    import numpy as np
    import pandas as pd

    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise JudgmentsError(
            f"must be a non-negative integer, got {seed!r}", field="seed"
        )
    if settings is None:
        config = SituatedSimulationSettings()
    elif isinstance(settings, SituatedSimulationSettings):
        config = settings
    else:
        config = SituatedSimulationSettings.from_mapping(settings)
    trials = getattr(design, "trials", design)
    needed = ("list", "order", "item", "condition", "shown", "expression", "target")
    missing = [c for c in needed if c not in trials.columns]
    if missing:
        raise JudgmentsError(
            f"the design lacks the column(s) {', '.join(missing)}", field=missing[0]
        )
    if study is None:
        names = sorted({str(s) for s in trials.get("study", []) if s})
        study = names[0] if names else "study"
    items = sorted({str(i) for i in trials["item"]})
    located = _index(sessions, items, dict(expression_of or {}))
    instances: dict[str, _Instance] = {}
    for item, (session, expression_id) in located.items():
        utterance, expression = session.find(expression_id)
        onset = utterance.start_ms
        start = context_start(session, expression_id, max_context_ms)
        if start is None:
            start = max(0, onset - int(max_context_ms))
        instances[item] = _Instance(
            session,
            expression_id,
            expression.referent,
            onset,
            start,
            len(utterance.text),
            expression.end - expression.start,
        )
    salience_cache: dict[tuple[str, bool], dict[str, float]] = {}
    rows: list[dict[str, Any]] = []
    frame = trials.sort_values(["list", "order"], kind="stable")
    for list_id, mine in frame.groupby("list", sort=True):
        subject = f"sim-{list_id}"
        srng = _rng(seed, study, "subject", subject)
        ability = srng.normal(0, config.ability_sd)
        speed = srng.normal(0, config.speed_sd)
        replay_bias = srng.normal(0, config.replay_sd)
        stop, status = len(mine), "completed"
        if config.p_session_failure and srng.random() < config.p_session_failure:
            stop, status = int(srng.integers(1, max(2, len(mine)))), "abandoned"
        for record in mine.iloc[:stop].to_dict("records"):
            item = str(record["item"])
            inst = instances[item]
            form = (
                system_form
                if record["shown"] == "system"
                else inst.session.find(inst.expression)[1].form
            )
            key = (item, form == "action_mentioning")
            if key not in salience_cache:
                salience_cache[key] = clip_salience(
                    inst.session,
                    inst.expression,
                    inst.start,
                    config,
                    action_mentioning=key[1],
                )
            salience = salience_cache[key]
            irng = _rng(seed, study, "instance", item)
            difficulty = irng.normal(0, config.difficulty_sd)
            item_speed = irng.normal(0, config.item_speed_sd)
            rng = _rng(seed, study, "trial", subject, item)
            pieces = [p.id for p in inst.session.pieces]
            candidates = set(_candidates(inst.session, inst.target, form))
            beta = config.beta * math.exp(ability - difficulty)
            utility = np.array(
                [
                    salience[p] + (_clarity(config, form) if p == inst.target else 0.0)
                    for p in pieces
                ]
            )
            allowed = np.array([p in candidates for p in pieces])
            logits = np.where(allowed, beta * utility, -np.inf)
            weights = np.exp(logits - logits[allowed].max())
            choice_p = (1 - config.lapse_rate) * weights / weights.sum()
            choice_p += config.lapse_rate / len(pieces)
            uncertainty = 1.0 - float(choice_p.max())
            replays = int(
                rng.poisson(
                    config.replay_rate
                    * math.exp(config.replay_uncertainty * uncertainty + replay_bias)
                )
            )
            cant_tell = bool(rng.random() < config.cant_tell_weight * uncertainty)
            chosen = (
                None if cant_tell else pieces[int(rng.choice(len(pieces), p=choice_p))]
            )
            corrected = bool(chosen is not None and rng.random() < config.p_misclick)
            chars = (
                inst.utterance_chars - inst.span_chars + len(str(record["expression"]))
            )
            base = (
                config.read_base_ms
                + config.ms_per_char * chars
                + config.decide_ms
                + config.uncertainty_ms * uncertainty
            )
            noise = rng.normal(0, config.time_sigma)
            time_ms = (
                base * math.exp(speed + item_speed + noise) + replays * config.replay_ms
            )
            rows.append(
                {
                    "subject": subject,
                    "instance": item,
                    "class": str(record["condition"]),
                    "chosen": chosen,
                    "target": inst.target,
                    "correct": chosen == inst.target,
                    "cant_tell": cant_tell,
                    "time_ms": int(round(time_ms)),
                    "replays": replays,
                    "corrected": corrected,
                    "session_status": status,
                    "simulated": True,
                    "_order": int(record["order"]),
                }
            )
    out = pd.DataFrame(rows, columns=[*SIMULATED_TRIAL_COLUMNS, "_order"])
    out = out.sort_values(["subject", "_order"], kind="stable").drop(columns="_order")
    logger.info(
        "simulated %d situated trial(s) of study %s (SIMULATED evaluators)",
        len(out),
        study,
    )
    return out.reset_index(drop=True)
