"""Situated-dialogue sessions (seed 000, REX-J Tangram): data model, reader, features.

Owns the ``stecflow-dialogue`` JSON format (one session per file; the schema is
``schemas/dialogue.schema.json``, the documentation ``docs/dialogue-format.md``):
the frozen data classes of a session (pieces, goal, utterances with their
referring expressions, actions on pieces, the mouse-cursor track), the hardened
reader (size and depth limits, no duplicate keys, no NaN or Infinity, errors
with file, line and field for syntax, schema and consistency alike), the writer
(deterministic bytes), the piece geometry, the features of seed 000 Table 3 per
referring expression (:func:`compute_features`) and the context a trial replays
(:func:`cut_context`, :func:`context_start`).

May import: :mod:`stecflow.core`.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from stecflow.core.errors import CorpusError
from stecflow.data._json import _field, _line_finder, _parse

__all__ = [
    "ACTION_KINDS",
    "CONTENT",
    "CORPUS_FORMAT",
    "FEATURE_DESCRIPTIONS",
    "FEATURE_GROUPS",
    "FEATURE_NAMES",
    "FORMAT",
    "FORMS",
    "MAX_BYTES",
    "MAX_DEPTH",
    "SET_ASIDE",
    "SHAPES",
    "SPEAKERS",
    "Action",
    "Area",
    "Context",
    "CursorSample",
    "Expression",
    "Features",
    "Goal",
    "Piece",
    "Placement",
    "Session",
    "Utterance",
    "compute_features",
    "context_start",
    "context_times",
    "cursor_at",
    "cut_context",
    "dumps_corpus",
    "dumps_session",
    "load_corpus_file",
    "load_session",
    "piece_polygon",
    "piece_states",
    "point_in_piece",
    "read_corpus",
    "read_corpus_file",
    "read_session",
    "read_sessions",
    "session_schema",
    "with_computed_features",
    "write_corpus_file",
    "write_session",
]

#: The value of the ``format`` key.
FORMAT = "stecflow-dialogue"
#: Largest session file read, in bytes (a 10-minute session is a few hundred kB).
MAX_BYTES = 16 * 1024 * 1024
#: Deepest nesting of lists and objects accepted (the format nests 6 deep).
MAX_DEPTH = 16
#: Who speaks.
SPEAKERS = ("solver", "operator")
#: What an operator does to a piece.
ACTION_KINDS = ("move", "rotate", "flip")
#: Forms of a referring expression; the first is the seed's positive class (DP).
FORMS = (
    "demonstrative_pronoun",
    "demonstrative_adjective",
    "definite_description",
    "unique_name",
    "action_mentioning",
    "other",
)
#: What an expression may say about its referent (its optional ``content``),
#: the features of seed 000 Table 2 besides the demonstratives (the ``form``).
CONTENT = ("object_attribute", "spatial_relation", "action")
#: Why annotators set an expression aside (a session's optional ``set_aside``,
#: seed 000 §3): it refers to a group of pieces, or its referent could not be
#: determined.
SET_ASIDE = ("group", "undetermined")
#: The Tangram shapes, with their outline in units (x right, y down) before the
#: centroid is moved to the origin: legs of 2, sqrt(2) and 1 for the triangles, a
#: unit square, a parallelogram with sides 1 and sqrt(2).
SHAPES: dict[str, tuple[tuple[float, float], ...]] = {
    "large_triangle": ((0.0, 0.0), (2.0, 0.0), (0.0, 2.0)),
    "medium_triangle": ((0.0, 0.0), (math.sqrt(2), 0.0), (0.0, math.sqrt(2))),
    "small_triangle": ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0)),
    "square": ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)),
    "parallelogram": ((0.0, 0.0), (1.0, 0.0), (2.0, 1.0), (1.0, 1.0)),
}

#: The features of seed 000 Table 3, by the seed's names, grouped as the seed
#: groups them: dialogue history (D1-D5), action history (A1-A5), current
#: operation (O1, O2). The definitions are stecflow's (docs/dialogue-format.md).
FEATURE_GROUPS: dict[str, tuple[str, ...]] = {
    "dialogue_history": ("D1", "D2", "D3", "D4", "D5"),
    "action_history": ("A1", "A2", "A3", "A4", "A5"),
    "current_operation": ("O1", "O2"),
}
FEATURE_NAMES: tuple[str, ...] = tuple(n for g in FEATURE_GROUPS.values() for n in g)
#: One line per feature; the schema's descriptions say the same.
FEATURE_DESCRIPTIONS: dict[str, str] = {
    "D1": "the target is the referent of the most recent earlier referring expression",
    "D2": "ms from the onset of the utterance with the last earlier mention of the"
    " target to this onset (null: not mentioned before)",
    "D3": "the last earlier mention of the target was a demonstrative pronoun",
    "D4": "distinct other pieces mentioned after the last mention of the target",
    "D5": "earlier referring expressions to the target",
    "A1": "the target is the piece of the most recent action begun before the onset",
    "A2": "ms from the end of the last action on the target to the onset (0: still"
    " going on; null: never acted on)",
    "A3": "kind of the last action on the target (move, rotate, flip; null: none)",
    "A4": "distinct other pieces acted on after the last action on the target began",
    "A5": "actions on the target begun before the onset",
    "O1": "the mouse cursor is over the target at the onset",
    "O2": "the target is being operated at the onset",
}

_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


# ----------------------------------------------------------------- data classes


@dataclass(frozen=True)
class Area:
    """The shared work area: its size in pixels and the pixels per shape unit."""

    width: int
    height: int
    unit: float


@dataclass(frozen=True)
class Piece:
    """A piece and its state at time 0 (centroid in pixels, rotation, flip)."""

    id: str
    shape: str
    x: float
    y: float
    rotation: float
    flipped: bool


@dataclass(frozen=True)
class Placement:
    """Where one piece lies in the goal shape."""

    piece: str
    x: float
    y: float
    rotation: float
    flipped: bool


@dataclass(frozen=True)
class Goal:
    """The goal shape: its name and the placement of each piece it uses."""

    name: str
    placements: tuple[Placement, ...]


@dataclass(frozen=True)
class Features:
    """The features of seed 000 Table 3 of one referring expression.

    Named as the seed names them; see :data:`FEATURE_DESCRIPTIONS`.
    """

    D1: bool
    D2: int | None
    D3: bool
    D4: int
    D5: int
    A1: bool
    A2: int | None
    A3: str | None
    A4: int
    A5: int
    O1: bool
    O2: bool

    def as_dict(self) -> dict[str, Any]:
        """The features by name, in the seed's order."""
        return {name: getattr(self, name) for name in FEATURE_NAMES}


@dataclass(frozen=True)
class Expression:
    """A referring expression: a span ``text[start:end]`` of its utterance."""

    id: str
    start: int
    end: int
    referent: str
    form: str
    features: Features
    #: What the expression says about its referent besides a demonstrative
    #: (seed 000 Table 2, :data:`CONTENT`), in the file's order; None: not
    #: annotated, an empty tuple: none of them ("that one").
    content: tuple[str, ...] | None = None

    @property
    def is_pronoun(self) -> bool:
        """True for a demonstrative pronoun, the seed's DP class."""
        return self.form == "demonstrative_pronoun"


@dataclass(frozen=True)
class Utterance:
    """One utterance: who, when (ms), what, and its referring expressions."""

    id: str
    speaker: str
    start_ms: int
    end_ms: int
    text: str
    expressions: tuple[Expression, ...]

    def span(self, expression: Expression) -> str:
        """The words of *expression* in this utterance."""
        return self.text[expression.start : expression.end]


@dataclass(frozen=True)
class Action:
    """An action on a piece, from grasp to release, and the piece's state after it."""

    id: str
    piece: str
    kind: str
    start_ms: int
    end_ms: int
    x: float
    y: float
    rotation: float
    flipped: bool


@dataclass(frozen=True, slots=True)
class CursorSample:
    """The mouse cursor at one time."""

    t_ms: int
    x: float
    y: float


@dataclass(frozen=True)
class Session:
    """One session of the collaborative task."""

    id: str
    language: str
    source: str
    area: Area
    pieces: tuple[Piece, ...]
    goal: Goal
    utterances: tuple[Utterance, ...]
    actions: tuple[Action, ...]
    cursor: tuple[CursorSample, ...]
    #: How many referring expressions the annotators set aside (left out of the
    #: file) by reason (:data:`SET_ASIDE`: ``group``, ``undetermined``); None:
    #: not recorded.
    set_aside: tuple[tuple[str, int], ...] | None = None

    def piece(self, piece_id: str) -> Piece:
        """The piece called *piece_id* (KeyError if there is none)."""
        for piece in self.pieces:
            if piece.id == piece_id:
                return piece
        raise KeyError(piece_id)

    def expressions(self) -> list[tuple[Utterance, Expression]]:
        """Every referring expression with its utterance, in timeline order."""
        return [(u, e) for u in self.utterances for e in u.expressions]

    def find(self, expression_id: str) -> tuple[Utterance, Expression]:
        """The expression called *expression_id* and its utterance."""
        for utterance, expression in self.expressions():
            if expression.id == expression_id:
                return utterance, expression
        raise KeyError(expression_id)


@dataclass(frozen=True)
class Context:
    """What a trial replays before an expression's utterance (:func:`cut_context`).

    ``pieces`` is the state of every piece at ``start_ms``; ``actions`` are
    those that overlap ``[start_ms, end_ms)`` (one under way at ``start_ms``
    moves its piece from the state in ``pieces``); ``utterances`` are those that
    begin in the window; ``cursor`` the samples in it and ``cursor_start`` the
    cursor's position at ``start_ms`` (None before the first sample).
    ``end_ms`` is the onset of the expression's utterance.
    """

    session: str
    utterance: Utterance
    expression: Expression
    start_ms: int
    end_ms: int
    pieces: tuple[Piece, ...]
    utterances: tuple[Utterance, ...]
    actions: tuple[Action, ...]
    cursor: tuple[CursorSample, ...]
    cursor_start: tuple[float, float] | None

    @property
    def duration_ms(self) -> int:
        """Length of the replayed clip."""
        return self.end_ms - self.start_ms


# --------------------------------------------------------------------- geometry


def piece_polygon(
    shape: str, x: float, y: float, rotation: float, flipped: bool, unit: float
) -> list[tuple[float, float]]:
    """The outline of a piece in pixels.

    The shape's outline (:data:`SHAPES`) is moved so that its centroid is at the
    origin, mirrored left to right if *flipped*, rotated *rotation* degrees
    clockwise on screen (y grows downwards), scaled by *unit* and moved to
    (*x*, *y*).

    >>> [(round(a, 6), round(b, 6)) for a, b in piece_polygon(
    ...     "square", 100, 100, 0, False, 40)]
    [(80.0, 80.0), (120.0, 80.0), (120.0, 120.0), (80.0, 120.0)]
    >>> [(round(a, 6), round(b, 6)) for a, b in piece_polygon(
    ...     "small_triangle", 0, 0, 90, True, 3)]
    [(1.0, 1.0), (1.0, -2.0), (-2.0, 1.0)]
    """
    outline = SHAPES[shape]
    cx = _centroid(outline)
    angle = math.radians(rotation)
    cos, sin = math.cos(angle), math.sin(angle)
    points = []
    for px, py in outline:
        dx, dy = px - cx[0], py - cx[1]
        if flipped:
            dx = -dx
        rx, ry = dx * cos - dy * sin, dx * sin + dy * cos
        points.append((x + rx * unit, y + ry * unit))
    return points


@cache
def _centroid(outline: tuple[tuple[float, float], ...]) -> tuple[float, float]:
    """Area centroid of a simple polygon (shoelace formula)."""
    area = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(outline, outline[1:] + outline[:1], strict=True):
        cross = x0 * y1 - x1 * y0
        area += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    area /= 2
    return cx / (6 * area), cy / (6 * area)


def _inside(polygon: Sequence[tuple[float, float]], x: float, y: float) -> bool:
    """Ray casting; points on an edge may fall either side."""
    inside = False
    j = len(polygon) - 1
    for i, (xi, yi) in enumerate(polygon):
        xj, yj = polygon[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def point_in_piece(piece: Piece, unit: float, x: float, y: float) -> bool:
    """True if (*x*, *y*) lies inside *piece* in the state it has.

    >>> point_in_piece(Piece("sq", "square", 100, 100, 45, False), 40, 127, 100)
    True
    >>> point_in_piece(Piece("sq", "square", 100, 100, 0, False), 40, 127, 100)
    False
    """
    polygon = piece_polygon(
        piece.shape, piece.x, piece.y, piece.rotation, piece.flipped, unit
    )
    return _inside(polygon, x, y)


def piece_states(session: Session, t_ms: int) -> dict[str, Piece]:
    """Each piece's state once every action that ended by *t_ms* is applied.

    An action under way at *t_ms* (begun, not ended) is not applied yet: the
    piece is still in the operator's hand, at its state before the action.
    """
    states = {piece.id: piece for piece in session.pieces}
    for action in session.actions:
        if action.end_ms <= t_ms:
            states[action.piece] = replace(
                states[action.piece],
                x=action.x,
                y=action.y,
                rotation=action.rotation,
                flipped=action.flipped,
            )
    return states


def cursor_at(session: Session, t_ms: int) -> tuple[float, float] | None:
    """The cursor's position at *t_ms*: the last sample at or before it, or None."""
    times = [sample.t_ms for sample in session.cursor]
    n = bisect.bisect_right(times, t_ms)
    if n == 0:
        return None
    sample = session.cursor[n - 1]
    return sample.x, sample.y


# --------------------------------------------------------------------- features


def compute_features(session: Session) -> dict[str, Features]:
    """The seed 000 Table 3 features of every referring expression, by its ID.

    Everything is measured at the onset of the expression's utterance (``t``).
    Earlier mentions are the expressions of earlier utterances (file order) and
    those earlier in the same utterance; earlier actions are those begun before
    ``t``; the cursor is the last sample at or before ``t``. The definitions are
    :data:`FEATURE_DESCRIPTIONS` and docs/dialogue-format.md.
    """
    result: dict[str, Features] = {}
    mentions: list[tuple[int, Expression]] = []  # (utterance onset, expression)
    times = [sample.t_ms for sample in session.cursor]
    for utterance in session.utterances:
        t = utterance.start_ms
        actions = [a for a in session.actions if a.start_ms < t]
        states = piece_states(session, t)
        n = bisect.bisect_right(times, t)
        cursor = (session.cursor[n - 1].x, session.cursor[n - 1].y) if n else None
        for expression in utterance.expressions:
            target = expression.referent
            result[expression.id] = Features(
                **_dialogue_features(mentions, target, t),
                **_action_features(actions, target, t),
                O1=cursor is not None
                and point_in_piece(states[target], session.area.unit, *cursor),
                O2=any(
                    a.piece == target and a.start_ms <= t < a.end_ms
                    for a in session.actions
                ),
            )
            mentions.append((t, expression))
    return result


def _dialogue_features(
    mentions: Sequence[tuple[int, Expression]], target: str, t: int
) -> dict[str, Any]:
    last = max(
        (n for n, (_, e) in enumerate(mentions) if e.referent == target), default=None
    )
    after = mentions[last + 1 :] if last is not None else mentions
    return {
        "D1": bool(mentions) and mentions[-1][1].referent == target,
        "D2": t - mentions[last][0] if last is not None else None,
        "D3": last is not None and mentions[last][1].is_pronoun,
        "D4": len({e.referent for _, e in after} - {target}),
        "D5": sum(e.referent == target for _, e in mentions),
    }


def _action_features(actions: Sequence[Action], target: str, t: int) -> dict[str, Any]:
    last = max((n for n, a in enumerate(actions) if a.piece == target), default=None)
    after = actions[last + 1 :] if last is not None else actions
    return {
        "A1": bool(actions) and actions[-1].piece == target,
        "A2": max(0, t - actions[last].end_ms) if last is not None else None,
        "A3": actions[last].kind if last is not None else None,
        "A4": len({a.piece for a in after} - {target}),
        "A5": sum(a.piece == target for a in actions),
    }


def with_computed_features(session: Session) -> Session:
    """*session* with every expression's features replaced by computed ones."""
    computed = compute_features(session)
    return replace(
        session,
        utterances=tuple(
            replace(
                u,
                expressions=tuple(
                    replace(e, features=computed[e.id]) for e in u.expressions
                ),
            )
            for u in session.utterances
        ),
    )


# ---------------------------------------------------------------------- context


def context_times(
    session: Session, expression_id: str
) -> tuple[int, int | None, int | None]:
    """The onset of an expression's utterance, the last mention of its target
    (the onset of the utterance of the last earlier expression with the same
    referent) and the last action on it (the start of the last action on the
    referent begun before the onset); None where there is none."""
    utterance, expression = session.find(expression_id)
    onset = utterance.start_ms
    mention = None
    for u, e in session.expressions():
        if e.id == expression.id:
            break
        if e.referent == expression.referent:
            mention = u.start_ms
    action = None
    for a in session.actions:
        if a.piece == expression.referent and a.start_ms < onset:
            action = a.start_ms
    return onset, mention, action


def context_start(
    session: Session, expression_id: str, max_ms: int = 30_000
) -> int | None:
    """Where the context of an expression starts, as seed 000 §5.1 chose it.

    The context must contain both the last earlier mention of the target (the
    onset of its utterance) and the last action on it (its start) before the
    onset of the expression's utterance, and last at most *max_ms* (30 s in the
    seed). Returns the earlier of those two times (:func:`context_times`), or
    None when the target was not mentioned or not acted on before, or the
    context would be longer.
    """
    onset, mention, action = context_times(session, expression_id)
    if mention is None or action is None:
        return None
    start = min(mention, action)
    return start if onset - start <= max_ms else None


def cut_context(session: Session, expression_id: str, start_ms: int) -> Context:
    """The stretch of *session* a trial replays before an expression.

    From *start_ms* to just before the onset of the expression's utterance: the
    pieces' state at *start_ms*, the actions overlapping the window, the
    utterances beginning in it (never the expression's own) and the cursor
    samples in it.

    Raises
    ------
    KeyError
        No expression has that ID.
    ValueError
        *start_ms* is negative or after the onset.
    """
    utterance, expression = session.find(expression_id)
    end = utterance.start_ms
    if not 0 <= start_ms <= end:
        raise ValueError(
            f"the context of {expression_id} must start between 0 and the"
            f" utterance's onset ({end} ms), not at {start_ms} ms"
        )
    states = piece_states(session, start_ms)
    return Context(
        session=session.id,
        utterance=utterance,
        expression=expression,
        start_ms=start_ms,
        end_ms=end,
        pieces=tuple(states[p.id] for p in session.pieces),
        utterances=tuple(
            u
            for u in session.utterances
            if start_ms <= u.start_ms < end and u.id != utterance.id
        ),
        actions=tuple(
            a
            for a in session.actions
            if a.start_ms < end and (a.end_ms > start_ms or a.start_ms >= start_ms)
        ),
        cursor=tuple(s for s in session.cursor if start_ms <= s.t_ms < end),
        cursor_start=cursor_at(session, start_ms),
    )


# ----------------------------------------------------------------------- reader


@cache
def session_schema() -> dict[str, Any]:
    """The JSON Schema of a session file (``schemas/dialogue.schema.json``)."""
    text = (
        resources.files("stecflow.data")
        .joinpath("schemas/dialogue.schema.json")
        .read_text(encoding="utf-8")
    )
    return json.loads(text)


def _shown(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    return type(value).__name__


_TYPE_WORDS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "text",
    "boolean": "true or false",
    "object": "an object",
    "array": "a list",
    "null": "null",
}


def _schema_message(error: Any) -> str:
    got = _shown(error.instance)
    kind = error.validator
    if kind == "type":
        types = error.validator_value
        types = [types] if isinstance(types, str) else types
        return (
            f"expected {' or '.join(_TYPE_WORDS.get(t, t) for t in types)}, got {got}"
        )
    if kind == "enum":
        allowed = ", ".join(
            "null" if v is None else str(v) for v in error.validator_value
        )
        return f"expected one of {allowed}, got {got}"
    if kind == "const":
        return f"expected {error.validator_value!r}, got {got}"
    if kind == "pattern":
        return (
            f"{got} is not an ID (letters, digits, - and _, at most 64 characters)"
            if "A-Za-z0-9" in error.validator_value
            else f"{got} does not have the expected form"
        )
    if kind == "required":
        return f"required field {error.message.split(chr(39))[1]} is missing"
    if kind == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        known = ", ".join(error.schema.get("properties", {}))
        return f"unknown field {', '.join(extra)} (the fields are: {known})"
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        words = {
            "minimum": "at least",
            "exclusiveMinimum": "more than",
            "maximum": "at most",
            "exclusiveMaximum": "less than",
        }
        return f"expected {words[kind]} {error.validator_value}, got {got}"
    if kind in ("minLength", "minItems"):
        return f"{got} is too short"
    if kind in ("maxLength", "maxItems"):
        return f"{got} is too long (at most {error.validator_value:,})"
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."


def _plain_sample(sample: Any) -> bool:
    """Whether a cursor sample is of the usual shape the schema accepts: an
    object of exactly ``t_ms`` (a whole number, 0 or more), ``x`` and ``y``
    (numbers). Anything else is left to the schema (``1.0`` ms is valid)."""
    return (
        type(sample) is dict
        and len(sample) == 3
        and type(sample.get("t_ms")) is int
        and sample["t_ms"] >= 0
        and type(sample.get("x")) in (int, float)
        and type(sample.get("y")) in (int, float)
    )


def _document_order(value: Any, path: Sequence[Any]) -> tuple[int, ...]:
    """The position of *path* in the order of the file (a parsed object keeps
    its keys in the file's order): the first error of several is the first
    one written, found without locating each in the text.

    >>> _document_order({"b": [0, {"y": 1, "x": 2}], "a": 3}, ["b", 1, "x"])
    (0, 1, 1)
    """
    order: list[int] = []
    for part in path:
        order.append(list(value).index(part) if isinstance(value, dict) else part)
        value = value[part]
    return tuple(order)


def load_session(data: bytes, source: str, *, max_bytes: int = MAX_BYTES) -> Session:
    """Read one session from the bytes of a ``stecflow-dialogue`` JSON file.

    Parameters
    ----------
    data
        The file's bytes (UTF-8, no byte-order mark).
    source
        How to name the file in messages.
    max_bytes
        Refuse larger input before parsing it.

    Raises
    ------
    CorpusError
        With file, line and field: bad bytes or JSON syntax, a key given twice,
        NaN or Infinity, nesting too deep, a schema violation, or an
        inconsistency (times out of order, a span outside its utterance, an
        unknown piece, a repeated ID).

    Examples
    --------
    >>> load_session(b'{"format": "stecflow-dialogue",\\n "format": 1}', "s.json")
    Traceback (most recent call last):
    stecflow.core.errors.CorpusError: s.json, line 2, format: key given twice; keep one
    """
    text, raw = _parse(data, source, max_bytes, MAX_DEPTH)
    return _build(raw, source, _line_finder(text))


def _build(raw: Any, source: str, line: Any) -> Session:
    import jsonschema

    schema = session_schema()
    validator = jsonschema.Draft202012Validator(schema)
    cursor = raw.get("cursor") if isinstance(raw, dict) else None
    errors: list[tuple[list[Any], Any]] = []
    if isinstance(cursor, list):
        # A session may have a million cursor samples: a sample of the usual
        # shape is checked here, only another is given to the schema (its
        # pass over every sample took 26 s for 15 MiB).
        raw = {**raw, "cursor": []}
        sample_validator = validator.evolve(
            schema=schema["properties"]["cursor"]["items"]
        )
        for n, sample in enumerate(cursor):
            if not _plain_sample(sample):
                found = list(sample_validator.iter_errors(sample))
                errors += [(["cursor", n, *e.absolute_path], e) for e in found]
                if found:
                    break
    errors += [(list(e.absolute_path), e) for e in validator.iter_errors(raw)]
    if errors:
        document = {**raw, "cursor": cursor} if isinstance(cursor, list) else raw
        path, first = min(
            errors, key=lambda pe: (_document_order(document, pe[0]), len(pe[0]))
        )
        raise CorpusError(
            _schema_message(first), file=source, line=line(path), field=_field(path)
        )
    if isinstance(cursor, list):
        raw["cursor"] = cursor

    def fail(message: str, *path: Any) -> CorpusError:
        return CorpusError(message, file=source, line=line(path), field=_field(path))

    def unique(kind: str, items: Sequence[Mapping[str, Any]], *at: Any) -> None:
        seen: dict[str, int] = {}
        for n, item in enumerate(items):
            if item["id"] in seen:
                raise fail(
                    f"{kind} ID {item['id']!r} is used twice (first at"
                    f" {_field((*at, seen[item['id']]))})",
                    *at,
                    n,
                    "id",
                )
            seen[item["id"]] = n

    area = raw["area"]
    unique("piece", raw["pieces"], "pieces")
    pieces = {p["id"] for p in raw["pieces"]}

    def known(piece: str, *path: Any) -> None:
        if piece not in pieces:
            raise fail(
                f"{piece!r} is not a piece of this session (the pieces:"
                f" {', '.join(sorted(pieces))})",
                *path,
            )

    placed: set[str] = set()
    for n, placement in enumerate(raw["goal"]["placements"]):
        known(placement["piece"], "goal", "placements", n, "piece")
        if placement["piece"] in placed:
            raise fail("the piece is placed twice", "goal", "placements", n, "piece")
        placed.add(placement["piece"])
    unique("utterance", raw["utterances"], "utterances")
    unique("action", raw["actions"], "actions")
    seen_expr: dict[str, int] = {}
    previous = 0
    for n, utterance in enumerate(raw["utterances"]):
        if utterance["end_ms"] <= utterance["start_ms"]:
            raise fail(
                f"the utterance ends ({utterance['end_ms']} ms) before it starts"
                f" ({utterance['start_ms']} ms)",
                "utterances",
                n,
                "end_ms",
            )
        if utterance["start_ms"] < previous:
            raise fail(
                f"utterances out of order: this one starts at"
                f" {utterance['start_ms']} ms, the one before at {previous} ms",
                "utterances",
                n,
                "start_ms",
            )
        previous = utterance["start_ms"]
        length = len(utterance["text"])
        last_start = 0
        for k, expression in enumerate(utterance["expressions"]):
            at = ("utterances", n, "expressions", k)
            if expression["id"] in seen_expr:
                raise fail(
                    f"expression ID {expression['id']!r} is used twice",
                    *at,
                    "id",
                )
            seen_expr[expression["id"]] = n
            if not expression["start"] < expression["end"] <= length:
                raise fail(
                    f"the span {expression['start']}:{expression['end']} is outside"
                    f" the utterance's text ({length} characters) or empty",
                    *at,
                    "end" if expression["start"] < expression["end"] else "start",
                )
            if expression["start"] < last_start:
                raise fail(
                    "expressions out of order: order them by start offset",
                    *at,
                    "start",
                )
            last_start = expression["start"]
            known(expression["referent"], *at, "referent")
    previous = 0
    for n, action in enumerate(raw["actions"]):
        known(action["piece"], "actions", n, "piece")
        if action["end_ms"] < action["start_ms"]:
            raise fail(
                f"the action ends ({action['end_ms']} ms) before it starts"
                f" ({action['start_ms']} ms)",
                "actions",
                n,
                "end_ms",
            )
        if action["start_ms"] < previous:
            raise fail(
                f"actions out of order: this one starts at {action['start_ms']} ms,"
                f" the one before at {previous} ms",
                "actions",
                n,
                "start_ms",
            )
        previous = action["start_ms"]
    previous = -1
    for n, sample in enumerate(raw["cursor"]):
        if sample["t_ms"] <= previous:
            raise fail(
                f"cursor samples out of order: {sample['t_ms']} ms after"
                f" {previous} ms (times must increase)",
                "cursor",
                n,
                "t_ms",
            )
        previous = sample["t_ms"]
        for axis, size in (("x", area["width"]), ("y", area["height"])):
            if not 0 <= sample[axis] <= size:
                raise fail(
                    f"the cursor is outside the work area (0 to {size} pixels)",
                    "cursor",
                    n,
                    axis,
                )
    return Session(
        id=raw["id"],
        language=raw["language"],
        source=raw["source"],
        area=Area(area["width"], area["height"], area["unit"]),
        pieces=tuple(Piece(**p) for p in raw["pieces"]),
        goal=Goal(
            raw["goal"]["name"],
            tuple(Placement(**p) for p in raw["goal"]["placements"]),
        ),
        utterances=tuple(
            Utterance(
                id=u["id"],
                speaker=u["speaker"],
                start_ms=u["start_ms"],
                end_ms=u["end_ms"],
                text=u["text"],
                expressions=tuple(
                    Expression(
                        id=e["id"],
                        start=e["start"],
                        end=e["end"],
                        referent=e["referent"],
                        form=e["form"],
                        features=Features(**e["features"]),
                        content=(tuple(e["content"]) if "content" in e else None),
                    )
                    for e in u["expressions"]
                ),
            )
            for u in raw["utterances"]
        ),
        actions=tuple(Action(**a) for a in raw["actions"]),
        cursor=tuple(CursorSample(**s) for s in raw["cursor"]),
        set_aside=(
            tuple((k, raw["set_aside"][k]) for k in SET_ASIDE)
            if "set_aside" in raw
            else None
        ),
    )


def read_session(path: str | Path, *, max_bytes: int = MAX_BYTES) -> Session:
    """Read one session file with :func:`load_session` (size checked first)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise CorpusError(
                f"file is {size:,} bytes; the limit is {max_bytes:,} bytes",
                file=str(path),
            )
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise CorpusError(
            f"cannot read the file ({exc.strerror})", file=str(path)
        ) from None
    return load_session(data, str(path), max_bytes=max_bytes)


def read_corpus(directory: str | Path) -> tuple[Session, ...]:
    """Read every ``*.json`` session of *directory*, in file-name order.

    Raises
    ------
    CorpusError
        A file is bad (see :func:`load_session`), two sessions share an ID, or
        the directory holds no session.
    """
    directory = Path(directory)
    paths = sorted(directory.glob("*.json"))
    if not paths:
        raise CorpusError("no session files (*.json) here", file=str(directory))
    sessions: list[Session] = []
    seen: dict[str, Path] = {}
    for path in paths:
        session = read_session(path)
        if session.id in seen:
            raise CorpusError(
                f"session ID {session.id!r} is also the ID in {seen[session.id].name}",
                file=str(path),
                field="id",
            )
        seen[session.id] = path
        sessions.append(session)
    return tuple(sessions)


#: The ``format`` of a corpus file: every session of a corpus in one JSON document.
CORPUS_FORMAT = "stecflow-dialogue-corpus"
#: Largest corpus file read (a session file may have :data:`MAX_BYTES`).
MAX_CORPUS_BYTES = 256 * 1024 * 1024


def load_corpus_file(
    data: bytes, source: str, *, max_bytes: int = MAX_CORPUS_BYTES
) -> tuple[Session, ...]:
    """Read the sessions of a corpus file (:func:`dumps_corpus`) from its bytes.

    A corpus file is ``{"format": "stecflow-dialogue-corpus", "version": 1,
    "sessions": [...]}``, each session as in a session file; the campaign writes
    one as its prepared test set (``results/data/testset.json``). Parsed with the
    same guards as :func:`load_session`; errors name the line of the file and the
    field inside its session (``sessions[2].utterances[0].start_ms``).

    Raises
    ------
    CorpusError
        As :func:`load_session`, or the document is not a corpus file, or two
        sessions share an ID.
    """
    text, raw = _parse(data, source, max_bytes, MAX_DEPTH + 2)
    if (
        not isinstance(raw, dict)
        or raw.get("format") != CORPUS_FORMAT
        or not isinstance(raw.get("sessions"), list)
    ):
        raise CorpusError(
            f'not a corpus file: expected an object with "format": "{CORPUS_FORMAT}"'
            ' and a list "sessions"',
            file=source,
            line=1,
        )
    lines = _line_finder(text)
    sessions: list[Session] = []
    seen: dict[str, int] = {}
    for n, entry in enumerate(raw["sessions"]):

        def line(path: Sequence[Any], n: int = n) -> int | None:
            return lines(["sessions", n, *path])

        session = _build(entry, f"{source}, sessions[{n}]", line)
        if session.id in seen:
            raise CorpusError(
                f"session ID {session.id!r} is also the ID of"
                f" sessions[{seen[session.id]}]",
                file=source,
                line=line(["id"]),
                field=f"sessions[{n}].id",
            )
        seen[session.id] = n
        sessions.append(session)
    if not sessions:
        raise CorpusError("the corpus file holds no session", file=source)
    return tuple(sessions)


def read_corpus_file(
    path: str | Path, *, max_bytes: int = MAX_CORPUS_BYTES
) -> tuple[Session, ...]:
    """Read a corpus file with :func:`load_corpus_file` (size checked first)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise CorpusError(
                f"file is {size:,} bytes; the limit is {max_bytes:,} bytes",
                file=str(path),
            )
        data = path.read_bytes()
    except OSError as exc:
        raise CorpusError(
            f"cannot read the file ({exc.strerror})", file=str(path)
        ) from None
    return load_corpus_file(data, str(path), max_bytes=max_bytes)


def read_sessions(path: str | Path) -> tuple[Session, ...]:
    """The sessions of a corpus folder (:func:`read_corpus`) or corpus file."""
    return read_corpus(path) if Path(path).is_dir() else read_corpus_file(path)


# ----------------------------------------------------------------------- writer


def _plain(session: Session) -> dict[str, Any]:
    def record(obj: Any) -> dict[str, Any]:
        return {f.name: getattr(obj, f.name) for f in fields(obj)}

    return {
        "format": FORMAT,
        "version": 1,
        "id": session.id,
        "language": session.language,
        "source": session.source,
        "area": record(session.area),
        "pieces": [record(p) for p in session.pieces],
        "goal": {
            "name": session.goal.name,
            "placements": [record(p) for p in session.goal.placements],
        },
        "utterances": [
            {
                **{k: v for k, v in record(u).items() if k != "expressions"},
                "expressions": [
                    {
                        **{
                            k: v
                            for k, v in record(e).items()
                            if k not in ("features", "content")
                        },
                        "features": e.features.as_dict(),
                        **({} if e.content is None else {"content": list(e.content)}),
                    }
                    for e in u.expressions
                ],
            }
            for u in session.utterances
        ],
        "actions": [record(a) for a in session.actions],
        "cursor": [record(s) for s in session.cursor],
        **({} if session.set_aside is None else {"set_aside": dict(session.set_aside)}),
    }


def _pretty(value: Any, indent: int, width: int) -> str:
    compact = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if not isinstance(value, (dict, list)) or indent + len(compact) <= width:
        return compact
    if isinstance(value, dict) and tuple(value) == FEATURE_NAMES:
        return compact  # an expression's features: one line
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: "
            + _pretty(v, indent + 2, width)
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if not value:
        return "[]"
    items = [pad + _pretty(v, indent + 2, width) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def dumps_session(session: Session) -> str:
    """The session as ``stecflow-dialogue`` JSON text: deterministic, one record a line.

    Keys keep the schema's order; a list or object that fits in 100 columns
    stays on one line (a cursor sample, a piece, an action), and so do an
    expression's features.
    """
    return _pretty(_plain(session), 0, 100) + "\n"


def write_session(session: Session, path: str | Path) -> None:
    """Write *session* to *path* with :func:`dumps_session` (UTF-8, LF)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(dumps_session(session).encode("utf-8"))


def dumps_corpus(sessions: Iterable[Session]) -> str:
    """*sessions* as one corpus file (read by :func:`load_corpus_file`),
    deterministic, laid out as :func:`dumps_session` lays out a session."""
    body = ",\n    ".join(_pretty(_plain(s), 4, 100) for s in sessions)
    return (
        f'{{\n  "format": "{CORPUS_FORMAT}",\n  "version": 1,\n  "sessions": [\n'
        f"    {body}\n  ]\n}}\n"
    )


def write_corpus_file(sessions: Iterable[Session], path: str | Path) -> int:
    """Write *sessions* with :func:`dumps_corpus`; returns how many."""
    sessions = tuple(sessions)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(dumps_corpus(sessions).encode("utf-8"))
    return len(sessions)
