"""Time every metric against its peer on the same inputs, and check the values.

One run generates a seeded TUNA-shaped test set (attribute sets of furniture
descriptions in domains of seven entities, two references per item, word strings
realised from them with noise), then times each stecflow metric and its peer on
exactly the same inputs, as the scoring stage calls ours
(``metric.corpus_stats(hyps, refs, contexts)``) and as a user calls the peer:

* string-edit distance SE against rapidfuzz's batch API
  (``rapidfuzz.process.cpdist`` with ``Indel.distance``: Levenshtein with
  weights 1, 1, 2, the same kernel SE calls), both on tokens computed outside
  the loop (our token cache warm, the peer's lists built beforehand); one row
  also times both with the text normalisation inside (our cache cleared; the
  peer tokenises with the same normaliser before its batch call);
* the attribute-set metrics (Dice, MASI, Accuracy, set edit distance, under- and
  over-specification) against a plain-Python ``frozenset`` floor (the formula
  written inline, nothing else), and MASI also against NLTK's
  ``masi_distance``;
* BLEU-3 against sacreBLEU (``tokenize="none"`` on the same tokens), NIST-5
  against NLTK's ``corpus_nist`` (a different definition: REFERENCE.md §11, so
  its value is not compared), ROUGE-2 against rouge-score (one reference, its
  tokeniser replaced by a look-up of the same tokens).

Every time is the median of ``--repeat`` runs (at least 5); the ratio is ours
over the peer's time (below 1: ours is faster). Values must be equal (to 1e-12;
rounding of the peers' float formulas against our exact fractions) or the
script exits with status 1.

Usage::

    python benchmarks/metrics.py [--items 20000] [--repeat 5] [--record]

``--record`` appends the table to benchmarks/README.md under a dated heading.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stecflow.metrics import get_metric, normalise_attribute_set
from stecflow.metrics.sets import NormalisedSets
from stecflow.metrics.strings import token_table
from stecflow.metrics.text import TextNormaliser, _tokens

ROOT = Path(__file__).resolve().parents[1]

VALUES = {
    "type": ("chair", "sofa", "desk", "fan"),
    "colour": ("red", "blue", "green", "grey"),
    "size": ("large", "small"),
    "orientation": ("front", "back", "left", "right"),
    "x-dimension": ("1", "2", "3", "4", "5"),
    "y-dimension": ("1", "2", "3"),
}
WORDS = {
    "type": {"chair": "chair", "sofa": "sofa", "desk": "desk", "fan": "fan"},
    "colour": {"red": "red", "blue": "blue", "green": "green", "grey": "grey"},
    "size": {"large": "large", "small": "small"},
    "orientation": {
        "front": "facing the viewer",
        "back": "facing away",
        "left": "facing left",
        "right": "facing right",
    },
    "x-dimension": {v: f"in column {v}" for v in VALUES["x-dimension"]},
    "y-dimension": {v: f"in row {v}" for v in VALUES["y-dimension"]},
}
NOISE = ("very", "big", "one", "there", "the", "picture", "a", "little")


@dataclass
class TestSet:
    """The inputs every metric and peer receives."""

    hyp_sets: list[frozenset[tuple[str, str]]] = field(default_factory=list)
    ref_sets: list[list[frozenset[tuple[str, str]]]] = field(default_factory=list)
    contexts: list[dict[str, Any]] = field(default_factory=list)
    hyp_texts: list[str] = field(default_factory=list)
    ref_texts: list[list[str]] = field(default_factory=list)


def _entity(rng: random.Random) -> frozenset[tuple[str, str]]:
    return frozenset((name, rng.choice(values)) for name, values in VALUES.items())


def _description(
    rng: random.Random, target: frozenset[tuple[str, str]]
) -> frozenset[tuple[str, str]]:
    attrs = sorted(target)
    chosen = set(rng.sample(attrs, rng.randint(1, 4)))
    if rng.random() < 0.2:  # a wrong value (false of the target)
        name = rng.choice(sorted(VALUES))
        chosen = {a for a in chosen if a[0] != name}
        chosen.add((name, rng.choice(VALUES[name])))
    return frozenset(chosen)


def _realise(rng: random.Random, attrs: frozenset[tuple[str, str]]) -> str:
    words = ["the"]
    d = dict(attrs)
    words += [WORDS[n][d[n]] for n in ("size", "colour") if n in d]
    words.append(WORDS["type"][d["type"]] if "type" in d else "one")
    words += [
        WORDS[n][d[n]] for n in ("orientation", "x-dimension", "y-dimension") if n in d
    ]
    words = [w for w in words if w]
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words) + 1), rng.choice(NOISE))
    if rng.random() < 0.2 and len(words) > 2:
        del words[rng.randrange(len(words))]
    text = " ".join(words)
    if rng.random() < 0.3:
        text = text[0].upper() + text[1:] + "."
    if rng.random() < 0.1:
        text = text.replace(" facing", ", facing")
    return text


def _realise_partial(rng: random.Random, attrs: frozenset[tuple[str, str]]) -> str:
    d = dict(attrs)
    fixed = frozenset(
        (n, v)
        for n, v in d.items()
        if n in ("type", "size", "colour") or rng.random() < 0.5
    )
    return _realise(rng, fixed)


def make_testset(n: int, seed: int = 2009) -> TestSet:
    """A seeded TUNA-shaped test set of *n* items with two references each."""
    rng = random.Random(seed)
    data = TestSet()
    for _ in range(n):
        target = _entity(rng)
        distractors = [_entity(rng) for _ in range(6)]
        hyp = _description(rng, target)
        refs = [_description(rng, target) for _ in range(2)]
        data.hyp_sets.append(hyp)
        data.ref_sets.append(refs)
        data.contexts.append({"target": target, "distractors": distractors})
        data.hyp_texts.append(
            _realise_partial(rng, hyp | {("type", dict(target)["type"])})
        )
        data.ref_texts.append([_realise_partial(rng, r) for r in refs])
    return data


def timed_pair(
    ours: Callable[[], Any],
    peer: Callable[[], Any],
    repeat: int,
    setup: Callable[[], Any] | None = None,
) -> tuple[float, float, Any, Any]:
    """Median CPU times of *ours* and *peer*, run alternately, and their results.

    The two are interleaved so that both see the same load of the shared machine,
    and timed with the process's CPU clock (``time.process_time``), which waiting
    for a core does not inflate. *setup* runs untimed before each call.
    """
    times: tuple[list[float], list[float]] = ([], [])
    results: list[Any] = [None, None]
    for _ in range(repeat):
        for k, function in enumerate((ours, peer)):
            if setup is not None:
                setup()
            start = time.process_time()
            results[k] = function()
            times[k].append(time.process_time() - start)
    return (
        statistics.median(times[0]),
        statistics.median(times[1]),
        results[0],
        results[1],
    )


# -- peers -----------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def floor_dice(hyps, refs, contexts):
    return [
        _mean([2 * len(h & r) / (len(h) + len(r)) for r in rs])
        for h, rs in zip(hyps, refs, strict=False)
    ]


def _floor_masi(a, b):
    common = len(a & b)
    if a == b:
        return 1.0
    if common == 0:
        return 0.0
    weight = 2 / 3 if (a <= b or b <= a) else 1 / 3
    return common / len(a | b) * weight


def floor_masi(hyps, refs, contexts):
    return [
        _mean([_floor_masi(h, r) for r in rs])
        for h, rs in zip(hyps, refs, strict=False)
    ]


def nltk_masi(hyps, refs, contexts):
    from nltk.metrics.distance import masi_distance

    return [
        _mean([1 - masi_distance(h, r) for r in rs])
        for h, rs in zip(hyps, refs, strict=False)
    ]


def floor_accuracy(hyps, refs, contexts):
    return [float(any(h == r for r in rs)) for h, rs in zip(hyps, refs, strict=False)]


def _floor_set_edit(h, r):
    only_h = [n for n, _ in h - r]
    only_r = [n for n, _ in r - h]
    return sum(max(only_h.count(n), only_r.count(n)) for n in set(only_h) | set(only_r))


def floor_set_edit(hyps, refs, contexts):
    return [
        _mean([_floor_set_edit(h, r) for r in rs])
        for h, rs in zip(hyps, refs, strict=False)
    ]


def floor_underspecification(hyps, refs, contexts):
    out = []
    for h, c in zip(hyps, contexts, strict=False):
        distractors = c["distractors"]
        if h <= c["target"]:
            out.append(float(sum(1 for d in distractors if h <= d)))
        else:
            out.append(float(len(distractors)))
    return out


def _floor_kstar(target, distractors):
    from itertools import combinations

    attrs = sorted(target)
    for k in range(len(attrs) + 1):
        for combo in combinations(attrs, k):
            s = frozenset(combo)
            if not any(s <= d for d in distractors):
                return k
    return None


def floor_overspecification(hyps, refs, contexts):
    memo: dict[Any, int | None] = {}
    out = []
    for h, c in zip(hyps, contexts, strict=False):
        target, distractors = c["target"], c["distractors"]
        key = (target, tuple(distractors))
        if key not in memo:
            memo[key] = _floor_kstar(target, distractors)
        k = memo[key]
        unique = h <= target and not any(h <= d for d in distractors)
        out.append(math.nan if k is None or not unique else float(max(0, len(h) - k)))
    return out


# -- rows ------------------------------------------------------------------------


@dataclass
class Row:
    metric: str
    peer: str
    ours_s: float
    peer_s: float
    aim: float | None
    n: int
    equal: bool | None
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.ours_s / self.peer_s


def _equal(ours: Sequence[float], theirs: Sequence[float]) -> bool:
    if len(ours) != len(theirs):
        return False
    for a, b in zip(ours, theirs, strict=False):
        if math.isnan(a) or math.isnan(b):
            if not (math.isnan(a) and math.isnan(b)):
                return False
        elif abs(a - b) > 1e-12:
            return False
    return True


def set_rows(data: TestSet, repeat: int) -> list[Row]:
    """The attribute-set metrics against the plain-Python floor (and NLTK)."""
    rows = []
    cases = [
        ("dice", {}, "frozenset floor", floor_dice, 2.0),
        ("masi", {}, "frozenset floor", floor_masi, 2.0),
        ("masi", {}, "NLTK masi_distance", nltk_masi, 1.0),
        ("set_accuracy", {}, "frozenset floor", floor_accuracy, 2.0),
        ("set_edit", {}, "frozenset floor", floor_set_edit, 2.0),
        ("underspecification", {}, "frozenset floor", floor_underspecification, 2.0),
        ("overspecification", {}, "frozenset floor", floor_overspecification, 2.0),
    ]
    # pre-normalised frozensets, made once outside the loops (as the scoring
    # stage does once per submission); both sides get the same objects
    norm = normalise_attribute_set
    hyps = [norm(h) for h in data.hyp_sets]
    refs = [[norm(r) for r in rs] for rs in data.ref_sets]
    # the distractors as the scoring stage holds them (stecflow.scoring.score:
    # normalised once, in a NormalisedSets); the floor iterates the same objects
    contexts = [
        {"target": norm(c["target"]), "distractors": NormalisedSets(c["distractors"])}
        for c in data.contexts
    ]
    raw = get_metric("dice")
    raw.corpus_stats(data.hyp_sets, data.ref_sets, data.contexts)
    ours_s, peer_s, stats, theirs = timed_pair(
        lambda: raw.corpus_stats(data.hyp_sets, data.ref_sets, data.contexts),
        lambda: floor_dice(data.hyp_sets, data.ref_sets, data.contexts),
        repeat,
    )
    rows.append(
        Row(
            "Dice, plain frozensets (normalised inside, table look-up)",
            "frozenset floor",
            ours_s,
            peer_s,
            None,
            len(hyps),
            _equal(raw.item_scores(stats), theirs),
        )
    )
    for name, options, peer_name, peer, aim in cases:
        metric = get_metric(name, **options)
        metric.corpus_stats(hyps, refs, contexts)  # warm the caches once, as a job does
        ours_s, peer_s, stats, theirs = timed_pair(
            lambda metric=metric: metric.corpus_stats(hyps, refs, contexts),
            lambda peer=peer: peer(hyps, refs, contexts),
            repeat,
        )
        ours = metric.item_scores(stats)
        rows.append(
            Row(
                metric.display_name,
                peer_name,
                ours_s,
                peer_s,
                aim,
                len(hyps),
                _equal(ours, theirs),
            )
        )
    return rows


def se_rows(data: TestSet, repeat: int) -> list[Row]:
    """SE against rapidfuzz's batch API on the same tokens."""
    from rapidfuzz.distance import Indel
    from rapidfuzz.process import cpdist

    norm = TextNormaliser()
    hyps, refs = data.hyp_texts, data.ref_texts
    hyp_tokens = [list(norm.tokens(h)) for h in hyps]
    ref_tokens = [[list(norm.tokens(r)) for r in rs] for rs in refs]

    def peer_tokens(hyp_tokens, ref_tokens) -> list[float]:
        # one batch call per reference position (every item has the same number)
        k = len(ref_tokens[0])
        columns = [
            cpdist(hyp_tokens, [rs[j] for rs in ref_tokens], scorer=Indel.distance)
            for j in range(k)
        ]
        total = columns[0]
        for column in columns[1:]:
            total = total + column
        return (total / k).tolist()

    def peer_text() -> list[float]:
        # the same normaliser (its cache cleared before each run, as ours)
        ht = [list(norm.tokens(h)) for h in hyps]
        rt = [[list(norm.tokens(r)) for r in rs] for rs in refs]
        return peer_tokens(ht, rt)

    def cold() -> None:
        _tokens.cache_clear()
        table = token_table(norm)
        table.clear()
        table.codes.clear()

    se = get_metric("se")
    se.corpus_stats(hyps, refs)
    ours_s, peer_s, stats, theirs = timed_pair(
        lambda: se.corpus_stats(hyps, refs),
        lambda: peer_tokens(hyp_tokens, ref_tokens),
        repeat,
    )
    rows = [
        Row(
            "SE, tokens cached",
            "rapidfuzz cpdist (Indel), same tokens",
            ours_s,
            peer_s,
            1.2,
            len(hyps),
            _equal(se.item_scores(stats), theirs),
        )
    ]
    cold_s, peer_cold_s, stats, theirs = timed_pair(
        lambda: se.corpus_stats(hyps, refs), peer_text, repeat, setup=cold
    )
    rows.append(
        Row(
            "SE, text normalisation included",
            "same normaliser + rapidfuzz cpdist",
            cold_s,
            peer_cold_s,
            1.2,
            len(hyps),
            _equal(se.item_scores(stats), theirs),
        )
    )
    return rows


def text_rows(data: TestSet, repeat: int) -> list[Row]:
    """BLEU-3, NIST-5 and ROUGE-2 against sacreBLEU, NLTK and rouge-score."""
    from nltk.translate.nist_score import corpus_nist
    from rouge_score.rouge_scorer import RougeScorer
    from sacrebleu.metrics import BLEU

    norm = TextNormaliser()
    hyps, refs = data.hyp_texts, data.ref_texts
    hyp_tokens = [norm.tokens(h) for h in hyps]
    ref_tokens = [[norm.tokens(r) for r in rs] for rs in refs]
    k = len(refs[0])
    hyp_joined = [" ".join(t) for t in hyp_tokens]
    ref_streams = [[" ".join(rt[j]) for rt in ref_tokens] for j in range(k)]
    rows = []

    ours = get_metric("bleu3")
    sacre = BLEU(max_ngram_order=3, tokenize="none", force=True)
    ours.corpus_stats(hyps, refs)
    ours_s, peer_s, value, theirs = timed_pair(
        lambda: ours.aggregate(ours.corpus_stats(hyps, refs)),
        lambda: sacre.corpus_score(hyp_joined, ref_streams).score,
        repeat,
    )
    rows.append(
        Row(
            "BLEU-3",
            "sacreBLEU corpus_score (tokenize none)",
            ours_s,
            peer_s,
            1.0,
            len(hyps),
            _equal([value], [theirs]),
        )
    )

    ours = get_metric("nist5")
    hyp_lists = [list(t) for t in hyp_tokens]
    ref_lists = [[list(r) for r in rt] for rt in ref_tokens]
    ours_s, peer_s, _, _ = timed_pair(
        lambda: ours.aggregate(ours.corpus_stats(hyps, refs)),
        lambda: corpus_nist(ref_lists, hyp_lists, n=5),
        repeat,
    )
    rows.append(
        Row(
            "NIST-5",
            "NLTK corpus_nist",
            ours_s,
            peer_s,
            1.0,
            len(hyps),
            None,
            "a different definition, REFERENCE.md §11",
        )
    )

    class Lookup:
        def __init__(self, table: dict[str, list[str]]) -> None:
            self.tokenize = table.__getitem__

    table = {h: list(t) for h, t in zip(hyps, hyp_tokens, strict=False)}
    table.update({rs[0]: list(rt[0]) for rs, rt in zip(refs, ref_tokens, strict=False)})
    scorer = RougeScorer(["rouge2"], tokenizer=Lookup(table))
    first = [[rs[0]] for rs in refs]
    ours = get_metric("rouge2")

    def peer() -> list[float]:
        return [
            scorer.score(rs[0], h)["rouge2"].recall
            for h, rs in zip(hyps, first, strict=False)
        ]

    ours.corpus_stats(hyps, first)
    ours_s, peer_s, stats, theirs = timed_pair(
        lambda: ours.corpus_stats(hyps, first), peer, repeat
    )
    rows.append(
        Row(
            "ROUGE-2 (recall, one reference)",
            "rouge-score RougeScorer, same tokens",
            ours_s,
            peer_s,
            1.0,
            len(hyps),
            _equal(ours.item_scores(stats), theirs),
        )
    )
    return rows


def machine() -> str:
    """Machine, cores, Python and commit, for the table's heading."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    ).stdout.strip()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    return (
        f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared; load"
        f" {load:.1f}), Python {platform.python_version()}; commit {commit or '?'}"
    )


def table(rows: list[Row], items: int, repeat: int) -> str:
    """The Markdown block: command, machine, one row per comparison."""
    lines = [
        f"Command: `python benchmarks/metrics.py --items {items} --repeat {repeat}`  ",
        machine(),
        "",
        "| metric | peer | ours items/s | peer items/s | ratio (time ours / peer)"
        " | aim | met? | values equal |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        equal = "not compared" if r.equal is None else ("yes" if r.equal else "**NO**")
        if r.note:
            equal += f" ({r.note})"
        if r.aim is None:
            aim, met = "— (shown for scale)", "—"
        else:
            aim, met = f"≤ {r.aim:g}", "yes" if r.ratio <= r.aim else "**no**"
        lines.append(
            f"| {r.metric} | {r.peer} | {r.n / r.ours_s:,.0f} | {r.n / r.peer_s:,.0f}"
            f" | {r.ratio:.2f} | {aim} | {met} | {equal} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--items", type=int, default=20_000, help="test-set size (default 20,000)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=5,
        help="timed runs per measure, median taken (at least 5)",
    )
    parser.add_argument(
        "--record", action="store_true", help="append the table to benchmarks/README.md"
    )
    parser.add_argument(
        "--only", choices=("sets", "se", "text"), nargs="*", help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    repeat = max(args.repeat, 5)
    data = make_testset(args.items)
    groups = {"sets": set_rows, "se": se_rows, "text": text_rows}
    rows: list[Row] = []
    for name in args.only or groups:
        rows.extend(groups[name](data, repeat))
    block = table(rows, args.items, repeat)
    print(block)
    if args.record:
        day = datetime.datetime.now(datetime.UTC).date().isoformat()
        readme = ROOT / "benchmarks" / "README.md"
        with readme.open("a", encoding="utf-8") as f:
            heading = f"### {day}, metrics against their peers ({args.items:,} items)"
            f.write(f"\n{heading}\n\n{block}\n")
    if not all(r.equal is not False for r in rows):
        print("values differ from the peer's: see the last column", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
