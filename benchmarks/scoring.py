"""Benchmark the scoring stage on a synthetic campaign.

Generates a TUNA-shaped test set of N items (two human references each) and S
systems (Incremental Algorithm variants with per-system preference orders, realised
by the template realiser, with seeded word-level noise), then measures:

* scoring throughput: every default metric with 1,000-resample bootstrap intervals,
  per system, as one scoring job does (``stecflow.scoring.score.score_outputs``);
* our BLEU-3 and SE against calling sacrebleu and rapidfuzz directly on the same
  strings: sacrebleu gets them already normalised and tokenised (ours normalises
  them itself, caches cleared), rapidfuzz gets the same tokens, made outside its
  loop, and the kernel SE calls (``Indel.distance``); benchmarks/metrics.py
  times every metric against its peer;
* the start-up time of one scoring job: a fresh interpreter running the
  ``score_submission`` adapter on a one-item submission (interpreter start, imports,
  reading and writing), which is what every Snakemake job pays.

Usage::

    python benchmarks/scoring.py --systems 100 --items 1000

Prints a Markdown block to paste into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from stecflow.baselines.systems import CANONICAL_ORDER, incremental
from stecflow.data.model import Item, Output
from stecflow.demo.generate import generate_corpus
from stecflow.scoring.score import score_outputs
from stecflow.tasks.reg.realiser import realise


def make_items(n: int) -> list[Item]:
    """N test items with two references each, from demo corpora of several seeds."""
    items: list[Item] = []
    seed = 0
    while len(items) < n:
        for item in generate_corpus(seed)["test"]:
            items.append(replace(item, id=f"b{len(items) + 1:05d}"))
        seed += 1
    return items[:n]


def make_system(items: list[Item], number: int) -> list[Output]:
    """One synthetic system: IA with its own preference order, plus word noise."""
    rng = random.Random(number)
    order = list(CANONICAL_ORDER)
    rng.shuffle(order)
    noise = ["very", "small", "one", "there", "here", "picture"]
    outputs = []
    for item in items:
        attrs = incremental(item.domain, order)
        words = realise(attrs).split()
        if rng.random() < 0.3:
            words.insert(rng.randrange(len(words) + 1), rng.choice(noise))
        if rng.random() < 0.2 and len(words) > 2:
            del words[rng.randrange(len(words))]
        outputs.append(Output(item.id, " ".join(words), attrs))
    return outputs


def timed(function, repeat: int = 5, setup=None) -> float:
    """Median wall time of *function* over *repeat* calls (*setup* runs untimed)."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def library_ratios(items: list[Item], outputs: list[Output]) -> dict[str, float]:
    """Our BLEU-3 and SE against sacrebleu and rapidfuzz on the same strings."""
    from rapidfuzz.distance import Indel
    from sacrebleu.metrics import BLEU

    from stecflow.metrics import get_metric
    from stecflow.metrics.strings import token_table
    from stecflow.metrics.text import TextNormaliser, _tokens

    hyps = [o.word_string for o in outputs]
    refs = [[r.word_string for r in i.references] for i in items]
    norm = TextNormaliser()
    hyp_tokens = [norm.tokens(h) for h in hyps]
    ref_tokens = [[norm.tokens(r) for r in rs] for rs in refs]
    hyp_text = [" ".join(t) for t in hyp_tokens]
    ref_text = [[" ".join(rt[k]) for rt in ref_tokens] for k in range(2)]
    ours_bleu = get_metric("bleu3")
    ours_se = get_metric("se")
    sacre = BLEU(max_ngram_order=3, tokenize="none", force=True)

    # the peer gets the same tokens, made outside its loop, and the kernel SE
    # calls (Indel = Levenshtein with weights 1, 1, 2); benchmarks/metrics.py
    # compares every metric with its peer this way
    hyp_lists = [list(t) for t in hyp_tokens]
    ref_lists = [[list(r) for r in rt] for rt in ref_tokens]

    def direct_se() -> None:
        total = 0.0
        for h, rs in zip(hyp_lists, ref_lists, strict=True):
            total += sum(Indel.distance(h, r) for r in rs) / len(rs)

    assert (
        abs(
            ours_bleu.corpus_score(hyps, refs)
            - sacre.corpus_score(hyp_text, ref_text).score
        )
        < 1e-9
    )

    def cold() -> None:
        _tokens.cache_clear()
        table = token_table(ours_se._normaliser)
        table.clear()
        table.codes.clear()

    t_our_bleu = timed(lambda: ours_bleu.corpus_score(hyps, refs), setup=cold)
    t_sacre = timed(lambda: sacre.corpus_score(hyp_text, ref_text))
    t_our_se = timed(lambda: ours_se.corpus_score(hyps, refs), setup=cold)
    ours_se.corpus_score(hyps, refs)  # fill the token cache, as the other metrics do
    t_our_se_warm = timed(lambda: ours_se.corpus_score(hyps, refs))
    t_direct_se = timed(direct_se)
    return {
        "bleu_ours_s": t_our_bleu,
        "bleu_sacrebleu_s": t_sacre,
        "bleu_ratio": t_our_bleu / t_sacre,
        "se_ours_s": t_our_se,
        "se_rapidfuzz_s": t_direct_se,
        "se_ratio": t_our_se / t_direct_se,
        "se_warm_s": t_our_se_warm,
        "se_warm_ratio": t_our_se_warm / t_direct_se,
    }


def job_startup(repo: Path) -> float:
    """Median wall time of a fresh interpreter running the per-submission job's
    adapter (``check_submission``: validation, then scoring) once, on a tiny input."""
    from stecflow.core.io import write_json

    tiny = repo / "tests" / "fixtures" / "tiny_campaign"
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        job = {
            "adapter": str(repo / "workflow" / "scripts" / "check_submission.py"),
            "testset": str(tiny / "testset.xml"),
            "submission": str(tiny / "submissions" / "alpha" / "sys1"),
            "out": str(tmp_path),
        }
        write_json(job, tmp_path / "job.json")
        code = (
            "import json, runpy, sys\n"
            "from types import SimpleNamespace as N\n"
            "j = json.load(open(sys.argv[1]))\n"
            "o = j['out']\n"
            "main = runpy.run_path(j['adapter'])['main']\n"
            "main(N(input=N(testset=j['testset']),\n"
            "       params=N(submission_dir=j['submission'], team='alpha',\n"
            "                system='sys1', tasks=[], deadline=None, scoring={},\n"
            "                limits=None, properties=None, subsets=[]),\n"
            "       output=N(record=o + '/v.json', report=o + '/v.md',\n"
            "                item_scores=o + '/i.tsv', summary=o + '/s.json'),\n"
            "       log=[o + '/log.txt']))\n"
        )
        command = [sys.executable, "-c", code, str(tmp_path / "job.json")]
        return timed(lambda: subprocess.run(command, check=True), repeat=5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=100)
    parser.add_argument("--items", type=int, default=1000)
    args = parser.parse_args()
    repo = Path(__file__).resolve().parents[1]

    start = time.perf_counter()
    items = make_items(args.items)
    systems = [make_system(items, n) for n in range(args.systems)]
    generate_s = time.perf_counter() - start

    start = time.perf_counter()
    n_rows = 0
    per_system = []
    for outputs in systems:
        t0 = time.perf_counter()
        item_rows, _ = score_outputs(items, outputs)
        per_system.append(time.perf_counter() - t0)
        n_rows += len(item_rows)
    score_s = time.perf_counter() - start
    n_metrics = 17
    ratios = library_ratios(items, systems[0])
    startup = job_startup(repo)

    def vs(ours: str, theirs: str, ratio: str) -> str:
        return (
            f"{ratios[ours] * 1000:.1f} vs {ratios[theirs] * 1000:.1f} ms"
            f" = **{ratios[ratio]:.2f}x**"
        )

    n = args.systems * args.items
    rows = [
        ("generate campaign", f"{generate_s:.1f} s"),
        (
            "score every system (17 metrics, 5 subsets, 1,000 resamples)",
            f"{score_s:.1f} s",
        ),
        ("per system (median)", f"{statistics.median(per_system):.2f} s"),
        (
            "throughput",
            f"{n / score_s:,.0f} items/s, {n * n_metrics / score_s:,.0f} scores/s",
        ),
        ("item rows written", f"{n_rows:,}"),
        (
            "BLEU-3: ours vs sacrebleu, same strings",
            vs("bleu_ours_s", "bleu_sacrebleu_s", "bleu_ratio"),
        ),
        (
            "SE: ours (cold token cache) vs rapidfuzz",
            vs("se_ours_s", "se_rapidfuzz_s", "se_ratio"),
        ),
        (
            "SE: ours (tokens cached, as in a job) vs rapidfuzz",
            vs("se_warm_s", "se_rapidfuzz_s", "se_warm_ratio"),
        ),
        (
            "start-up of one scoring job (fresh interpreter, tiny input)",
            f"{startup:.2f} s",
        ),
    ]
    cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    command = (
        f"python benchmarks/scoring.py --systems {args.systems} --items {args.items}"
    )
    print(f"### Scoring: {args.systems} systems x {args.items} items")
    print()
    print(f"Command: `{command}`  ")
    python = platform.python_version()
    print(f"Machine: {platform.machine()}, {cores} cores, Python {python}")
    print()
    print("| measure | value |")
    print("|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
