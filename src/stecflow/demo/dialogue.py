"""The simulated situated-dialogue corpus (seed 000's REX-J Tangram set-up).

Owns the generator of ``resources/dialogue-demo/``: deterministic Tangram-like
sessions in the ``stecflow-dialogue`` format (:mod:`stecflow.data.dialogue`),
where a simulated solver instructs a simulated operator. Seven pieces (two large
triangles, a medium triangle, two small triangles, a square, a parallelogram);
per step the solver names a piece and says what to do with it, the operator
does it (an action from grasp to release) and the mouse cursor travels to the
piece handled. The solver refers with demonstrative pronouns ("that one"),
definite descriptions ("the small triangle on the left"), unique names ("the
parallelogram") and action-mentioning expressions ("the triangle you just
moved"); the operator sometimes checks ("this one?").

Whether the solver uses a pronoun depends on the situation as seed 000 describes
it (§4: recency of mention, the current operation and the cursor; deictic use
dominates), through a noisy linear score of the features of the expression
(:data:`PRONOUN_WEIGHTS`), so that a recency baseline and a learnt classifier
have something to find and neither is perfect. Everything here is SIMULATED:
every file says so in its ``source``.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from stecflow.data.dialogue import (
    Action,
    Area,
    CursorSample,
    Expression,
    Features,
    Goal,
    Piece,
    Placement,
    Session,
    Utterance,
    compute_features,
    piece_states,
    with_computed_features,
    write_session,
)
from stecflow.demo.seeding import DEFAULT_SEED, rng_for

__all__ = [
    "AREA",
    "N_SESSIONS",
    "PIECES",
    "PRONOUN_WEIGHTS",
    "SAMPLE_MS",
    "STEPS",
    "generate_session",
    "generate_sessions",
    "main",
    "pronoun_score",
    "write_demo",
    "write_demo_submissions",
]

#: The work area: 800 x 600 pixels, 50 pixels per shape unit.
AREA = Area(width=800, height=600, unit=50)
#: The seven Tangram pieces, by ID.
PIECES: tuple[tuple[str, str], ...] = (
    ("LT1", "large_triangle"),
    ("LT2", "large_triangle"),
    ("MT", "medium_triangle"),
    ("ST1", "small_triangle"),
    ("ST2", "small_triangle"),
    ("SQ", "square"),
    ("PG", "parallelogram"),
)
#: Sessions in the committed corpus.
N_SESSIONS = 6
#: Solver instructions per session.
STEPS = 45
#: Cursor sampling period in ms.
SAMPLE_MS = 100
#: The solver's score for a demonstrative pronoun: a bias plus these weights on
#: the features (booleans count 1), plus Gaussian noise of SD :data:`NOISE_SD`;
#: a pronoun when the score is above 0. Recency of mention (D1), the cursor on
#: the target (O1) and the target in the operator's hand (O2) favour a pronoun,
#: as the seed found (§4.1: without the current-operation features the
#: classifier falls below the recency baseline).
PRONOUN_WEIGHTS: dict[str, float] = {
    "bias": -1.5,
    "D1": 1.0,
    "A1": 0.5,
    "O1": 1.7,
    "O2": 1.5,
    "never_mentioned": -0.8,
}
#: SD of the Gaussian noise of the pronoun score.
NOISE_SD = 0.8

_NOUNS = {
    "large_triangle": "large triangle",
    "medium_triangle": "medium triangle",
    "small_triangle": "small triangle",
    "square": "square",
    "parallelogram": "parallelogram",
}
_UNIQUE = {"square", "parallelogram"}
_PAST = {"move": "moved", "rotate": "turned", "flip": "flipped"}
_INSTRUCTIONS = {
    "move": ("move {re} to the {region}", "now {re}, put it at the {region}"),
    "rotate": ("rotate {re} to the right", "turn {re} a little"),
    "flip": ("flip {re} over", "turn {re} upside down"),
}
_REGIONS = {
    "top left": (200, 150),
    "top right": (600, 150),
    "bottom left": (200, 450),
    "bottom right": (600, 450),
    "middle": (400, 300),
}
_GOALS = ("house", "boat", "bird", "cat", "candle", "fox")


def pronoun_score(features: Features) -> float:
    """The noiseless part of the solver's pronoun score (:data:`PRONOUN_WEIGHTS`).

    >>> f = Features(True, 800, False, 0, 1, True, 200, "move", 0, 1, True, False)
    >>> round(pronoun_score(f), 6)  # -1.5 + D1 1.0 + A1 0.5 + O1 1.7
    1.7
    """
    w = PRONOUN_WEIGHTS
    score = w["bias"] + w["never_mentioned"] * (features.D2 is None)
    for name in ("D1", "A1", "O1", "O2"):
        score += w[name] * bool(getattr(features, name))
    return score


def _samples(
    waypoints: Sequence[tuple[int, float, float]], until: int
) -> tuple[CursorSample, ...]:
    """The cursor every :data:`SAMPLE_MS` and at each waypoint, up to *until*.

    Between waypoints the cursor moves linearly. A sample that would repeat the
    position before it is left out (the cursor stays where the last sample puts
    it).
    """
    out = []
    k = 0
    times = set(range(0, until + 1, SAMPLE_MS))
    times.update(t for t, _, _ in waypoints if t <= until)
    for t in sorted(times):
        while k + 1 < len(waypoints) and waypoints[k + 1][0] <= t:
            k += 1
        t0, x0, y0 = waypoints[k]
        if k + 1 < len(waypoints) and t > t0:
            t1, x1, y1 = waypoints[k + 1]
            share = (t - t0) / (t1 - t0)
            x, y = x0 + (x1 - x0) * share, y0 + (y1 - y0) * share
        else:
            x, y = x0, y0
        sample = CursorSample(t, round(x), round(y))
        if not out or (out[-1].x, out[-1].y) != (sample.x, sample.y):
            out.append(sample)  # the cursor stays where the last sample puts it
    return tuple(out)


class _Dialogue:
    """The state of one session while it is generated."""

    def __init__(self, seed: int, session_id: str) -> None:
        self.id = session_id
        self.rng = rng_for(seed, "dialogue", session_id)
        slots = [(x, y) for x in (120, 290, 460, 630) for y in (120, 300, 480)]
        chosen = self.rng.sample(slots, len(PIECES))
        self.pieces = tuple(
            Piece(
                pid,
                shape,
                x + self.rng.randint(-20, 20),
                y + self.rng.randint(-20, 20),
                45 * self.rng.randrange(8),
                shape == "parallelogram" and self.rng.random() < 0.5,
            )
            for (pid, shape), (x, y) in zip(PIECES, chosen, strict=True)
        )
        self.goal = Goal(
            f"{self.rng.choice(_GOALS)} (simulated layout, not a real silhouette)",
            tuple(
                Placement(
                    pid,
                    60 + 40 * n,
                    100 + 30 * (n % 3),
                    45 * self.rng.randrange(8),
                    False,
                )
                for n, (pid, _) in enumerate(PIECES)
            ),
        )
        self.utterances: list[Utterance] = []
        self.actions: list[Action] = []
        self.waypoints: list[tuple[int, float, float]] = [(0, 400, 300)]
        self.t = 1000
        self.n_expr = 0
        self.n_actions = 0

    # -- timeline helpers

    def session(self, until: int | None = None) -> Session:
        end = self.t if until is None else until
        return Session(
            id=self.id,
            language="en",
            source=(
                "SIMULATED by stecflow.demo.dialogue (not a human corpus): a"
                " Tangram-like session of a simulated solver and operator"
            ),
            area=AREA,
            pieces=self.pieces,
            goal=self.goal,
            utterances=tuple(self.utterances),
            actions=tuple(self.actions),
            cursor=_samples(self.waypoints, end),
            # The simulated solver refers to single pieces only: nothing is set
            # aside (REX-J set aside 201 expressions to groups or undetermined).
            set_aside=(("group", 0), ("undetermined", 0)),
        )

    def cursor_to(self, t: int, x: float, y: float) -> None:
        if t <= self.waypoints[-1][0]:
            t = self.waypoints[-1][0] + 1
        self.waypoints.append((t, x, y))

    def say(self, speaker: str, text: str, spans: Sequence[tuple]) -> Utterance:
        words = len(text.split())
        duration = round(words * self.rng.uniform(240, 340) + 200)
        expressions = []
        for start, end, referent, form, *content in spans:
            self.n_expr += 1
            expressions.append(
                Expression(
                    f"{self.id}-e{self.n_expr:03d}",
                    start,
                    end,
                    referent,
                    form,
                    Features(
                        False, None, False, 0, 0, False, None, None, 0, 0, False, False
                    ),
                    tuple(content[0]) if content else (),
                )
            )
        utterance = Utterance(
            f"{self.id}-u{len(self.utterances) + 1:03d}",
            speaker,
            self.t,
            self.t + duration,
            text,
            tuple(expressions),
        )
        self.utterances.append(utterance)
        return utterance

    def state(self, t: int) -> dict[str, Piece]:
        return piece_states(replace(self.session(0), cursor=()), t)

    # -- the solver's words

    def describe(self, target: str, features: Features, states: dict) -> tuple:
        """(words, form, content) of a non-pronoun expression for *target*
        (content: what it says of the piece, seed 000 Table 2)."""
        piece = states[target]
        noun = _NOUNS[piece.shape]
        recent = features.A1 and features.A2 is not None and features.A2 < 6000
        if recent and features.A3 and self.rng.random() < 0.6:
            kind = "triangle" if "triangle" in piece.shape else noun
            return (
                f"the {kind} you just {_PAST[features.A3]}",
                "action_mentioning",
                ("object_attribute", "action"),
            )
        if piece.shape in _UNIQUE:
            return f"the {noun}", "unique_name", ("object_attribute",)
        twin = [p for p in states.values() if p.shape == piece.shape and p.id != target]
        if not twin or self.rng.random() < 0.25:
            return f"the {noun}", "definite_description", ("object_attribute",)
        other = twin[0]
        if abs(piece.x - other.x) >= abs(piece.y - other.y):
            where = "on the left" if piece.x < other.x else "on the right"
        else:
            where = "at the top" if piece.y < other.y else "at the bottom"
        return (
            f"the {noun} {where}",
            "definite_description",
            ("object_attribute", "spatial_relation"),
        )

    # -- one step

    def speak(self, template: str, targets: Sequence[str]) -> Utterance:
        """The solver says *template* with an expression for each ``{n}``.

        The features of each slot are computed first (the words do not change
        them); then the pronoun score decides the form of each expression.
        """
        rng = self.rng
        states = self.state(self.t)
        probe_text, spans = self._fill(template, ["X"] * len(targets), targets)
        self.say("solver", probe_text, spans)
        probe = self.utterances.pop()
        self.n_expr -= len(targets)
        computed = compute_features(
            replace(self.session(self.t), utterances=(*self.utterances, probe))
        )
        words, forms, contents = [], [], []
        for expression in probe.expressions:
            features = computed[expression.id]
            if pronoun_score(features) + rng.gauss(0, NOISE_SD) > 0:
                words.append(rng.choice(("that one", "this one", "that")))
                forms.append("demonstrative_pronoun")
                contents.append(())
            else:
                text, form, content = self.describe(
                    expression.referent, features, states
                )
                words.append(text)
                forms.append(form)
                contents.append(content)
        text, spans = self._fill(template, words, targets, forms, contents)
        return self.say("solver", text[0].upper() + text[1:], spans)

    @staticmethod
    def _fill(
        template: str,
        words: Sequence[str],
        targets: Sequence[str],
        forms: Sequence[str] | None = None,
        contents: Sequence[tuple[str, ...]] | None = None,
    ) -> tuple[str, list[tuple]]:
        text, spans = "", []
        rest = template
        for n, (word, target) in enumerate(zip(words, targets, strict=True)):
            head, rest = rest.split("{" + str(n) + "}", 1)
            text += head
            form = forms[n] if forms else "other"
            content = contents[n] if contents else ()
            spans.append((len(text), len(text) + len(word), target, form, content))
            text += word
        return text + rest, spans

    def hover(self, target: str, p_on: float) -> None:
        """Move the cursor, before the onset, onto *target* or elsewhere."""
        rng = self.rng
        states = self.state(self.t)
        if rng.random() < p_on:
            hx, hy = states[target].x, states[target].y
        else:
            other = states[rng.choice([p for p, _ in PIECES if p != target])]
            hx, hy = other.x + rng.randint(-60, 60), other.y + rng.randint(-60, 60)
            hx, hy = min(max(hx, 5), AREA.width - 5), min(max(hy, 5), AREA.height - 5)
        self.cursor_to(self.t - rng.randint(300, 900), hx, hy)

    def step(self) -> None:
        """One exchange: an instruction and its action, or a side move."""
        rng = self.rng
        draw = rng.random()
        if draw < 0.15 and self.actions:
            self.comment()
        elif draw < 0.3:
            self.operator_initiative()
        last = self.actions[-1] if self.actions else None
        if last is not None and rng.random() < 0.45:
            target = last.piece
        else:
            target = rng.choice(PIECES)[0]
        kind = rng.choices(("move", "rotate", "flip"), weights=(6, 3, 1))[0]
        states = self.state(self.t)
        # The cursor before the solver speaks: on the target (the operator is
        # pointing at it or has just handled it) or elsewhere.
        self.hover(target, 0.5 if last is not None and last.piece == target else 0.25)
        # Sometimes the operator already holds the target when the solver speaks.
        early = None
        if last is not None and last.piece == target and rng.random() < 0.3:
            early = self.t - rng.randint(100, 500)
            early = max(early, last.end_ms + 1, self.waypoints[-1][0] + 1)
            self.cursor_to(early, states[target].x, states[target].y)
            self.actions.append(self.act(target, kind, early, states[target]))
        self.cursor_to(self.t, *self.waypoints[-1][1:])
        region = rng.choice(sorted(_REGIONS))
        if kind == "move" and rng.random() < 0.3:
            landmark = rng.choice([p for p, _ in PIECES if p != target])
            template, targets = "put {0} next to {1}", [target, landmark]
        else:
            template = rng.choice(_INSTRUCTIONS[kind]).replace("{region}", region)
            template, targets = template.replace("{re}", "{0}"), [target]
        utterance = self.speak(template, targets)
        # The operator's action (unless already under way), the cursor with it.
        if early is None:
            start = max(utterance.end_ms + rng.randint(-300, 700), self.t + 300)
            self.do(target, kind, start)
        action = self.actions[-1]
        if early is not None:
            self.cursor_to(action.end_ms, action.x, action.y)
        self.t = max(action.end_ms, utterance.end_ms) + rng.randint(300, 1200)
        if rng.random() < 0.25:
            self.operator_turn()

    def do(self, target: str, kind: str, start: int) -> Action:
        """The operator reaches *target* at *start* and acts on it."""
        state = self.state(start)[target]
        self.cursor_to(start - self.rng.randint(150, 400), state.x, state.y)
        action = self.act(target, kind, start, state)
        self.actions.append(action)
        self.cursor_to(action.start_ms, state.x, state.y)
        self.cursor_to(action.end_ms, action.x, action.y)
        return action

    def operator_initiative(self) -> None:
        """The operator tries a piece unasked (action without a mention)."""
        rng = self.rng
        target = rng.choice(PIECES)[0]
        kind = rng.choices(("move", "rotate"), weights=(2, 1))[0]
        action = self.do(target, kind, self.t)
        self.t = action.end_ms + rng.randint(300, 1000)

    def comment(self) -> None:
        """The solver mentions a piece that stays where it is (mention, no action)."""
        rng = self.rng
        target = rng.choice(PIECES)[0]
        self.hover(target, 0.2)
        self.cursor_to(self.t, *self.waypoints[-1][1:])
        template = rng.choice(("{0} is fine", "leave {0} where it is", "not {0}"))
        utterance = self.speak(template, [target])
        self.t = utterance.end_ms + rng.randint(300, 900)

    def _from(self, action: Action) -> tuple[float, float]:
        before = self.state(action.start_ms)[action.piece]
        return before.x, before.y

    def act(self, target: str, kind: str, start: int, before: Piece) -> Action:
        rng = self.rng
        x, y, rotation, flipped = before.x, before.y, before.rotation, before.flipped
        if kind == "move":
            gx, gy = _REGIONS[rng.choice(sorted(_REGIONS))]
            x = min(max(gx + rng.randint(-70, 70), 40), AREA.width - 40)
            y = min(max(gy + rng.randint(-70, 70), 40), AREA.height - 40)
        elif kind == "rotate":
            rotation = (rotation + 45 * rng.choice((1, 2, 7))) % 360
        else:
            flipped = not flipped
        self.n_actions += 1
        return Action(
            f"{self.id}-a{self.n_actions:03d}",
            target,
            kind,
            start,
            start + rng.randint(500, 1800),
            x,
            y,
            rotation,
            flipped,
        )

    def operator_turn(self) -> None:
        """The operator checks or acknowledges; a check points at the last piece."""
        rng = self.rng
        last = self.actions[-1]
        if rng.random() < 0.5:
            self.say("operator", rng.choice(("okay", "like this?", "done")), [])
        else:
            words = "this one"
            self.say(
                "operator",
                f"{words}?",
                [(0, len(words), last.piece, "demonstrative_pronoun")],
            )
        self.t = self.utterances[-1].end_ms + rng.randint(300, 900)


def generate_session(session_id: str, seed: int = DEFAULT_SEED) -> Session:
    """One simulated session of :data:`STEPS` solver instructions."""
    dialogue = _Dialogue(seed, session_id)
    for _ in range(STEPS):
        dialogue.step()
    end = max(dialogue.t, dialogue.waypoints[-1][0])
    return with_computed_features(dialogue.session(end))


def generate_sessions(
    seed: int = DEFAULT_SEED, n_sessions: int = N_SESSIONS
) -> tuple[Session, ...]:
    """The demo corpus: sessions ``s01``, ``s02``, ... (each from its own stream)."""
    return tuple(generate_session(f"s{n:02d}", seed) for n in range(1, n_sessions + 1))


def write_demo(directory: str | Path, seed: int = DEFAULT_SEED) -> list[Path]:
    """Write the demo corpus to *directory* (one ``<id>.json`` per session).

    Session files of an earlier run that the new corpus lacks are removed.
    Returns the files written, sorted.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for session in generate_sessions(seed):
        path = directory / f"{session.id}.json"
        write_session(session, path)
        written.append(path)
    for stale in sorted(set(directory.glob("*.json")) - set(written)):
        stale.unlink()
    return sorted(written)


def write_demo_submissions(
    directory: str | Path, seed: int = DEFAULT_SEED
) -> list[Path]:
    """Write the organisers' baselines on the demo corpus as its submissions.

    ``<directory>/submissions/organisers/recency`` and ``.../logistic``
    (:func:`stecflow.baselines.situated.write_baseline_submissions`, 10 folds
    grouped by session), and the logistic regression without each feature
    group, ``.../logistic-no-D``, ``-no-A`` and ``-no-O``, with the same folds
    (seed 000's Table 4): the submissions ``config/dialogue-demo.yaml`` runs.
    Needs scikit-learn (``pip install 'stecflow[dialogue]'``). Returns the files
    written, sorted.
    """
    from stecflow.baselines.situated import write_baseline_submissions
    from stecflow.data.dialogue import read_corpus
    from stecflow.tasks.situated_dialogue import items_from_sessions

    directory = Path(directory)
    items = items_from_sessions(read_corpus(directory))
    folders = write_baseline_submissions(
        items, directory / "submissions", seed=seed, ablations=True
    )
    return sorted(p for folder in folders for p in folder.iterdir())


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m stecflow.demo.dialogue [--out DIR] [--seed N]``."""
    parser = argparse.ArgumentParser(
        prog="python -m stecflow.demo.dialogue",
        description="Write the simulated situated-dialogue demo corpus and the"
        " organisers' baselines on it (its demo submissions).",
    )
    parser.add_argument("--out", default="resources/dialogue-demo", type=Path)
    parser.add_argument("--seed", default=DEFAULT_SEED, type=int)
    args = parser.parse_args(argv)
    for path in write_demo(args.out, args.seed):
        print(path)
    for path in write_demo_submissions(args.out, args.seed):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
