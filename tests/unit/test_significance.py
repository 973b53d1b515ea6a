"""Paired significance tests equal sacreBLEU's; clusters; the compare_systems stage."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from stecflow.stats._common import StatsInputError
from stecflow.stats.significance import (
    mean_score,
    mean_statistics,
    paired_ar,
    paired_bs,
    significance_clusters,
    summed,
)

# A small corpus: one reference stream, a baseline and two systems: the first a
# little better than the baseline (not significantly), the second much better.
REFS = [
    "the large red chair facing left",
    "a young man with glasses and a beard",
    "the small blue fan at the top",
    "the green desk seen from the front",
    "an old man wearing a suit and a tie",
    "the grey sofa on the right",
    "the red fan facing back",
    "a woman with light hair",
    "the big blue chair in the middle",
    "the man with dark hair and no glasses",
    "the small green sofa facing right",
    "the desk at the bottom left",
    "the large grey fan facing front",
    "a bearded man in a shirt",
    "the blue desk on the left side",
    "the old man with white hair",
]
BASELINE = [
    "the red chair facing left",
    "a man with glasses",
    "the blue fan at the top",
    "the green desk",
    "an old man in a suit",
    "the grey sofa",
    "the red fan",
    "a woman with hair",
    "the blue chair in the middle",
    "the man with hair",
    "the green sofa facing right",
    "the desk at the left",
    "the grey fan facing front",
    "a man in a shirt",
    "the blue desk on the left",
    "the old man",
]
SYSTEM_1 = [
    "the red chair facing left",
    "a man with glasses and a beard",
    "the blue fan at the top",
    "the green desk",
    "an old man wearing a suit",
    "the grey sofa",
    "the red fan",
    "a woman with hair",
    "the blue chair in the middle",
    "the man with dark hair",
    "the green sofa facing right",
    "the desk at the left",
    "the grey fan facing front",
    "a man in a shirt",
    "the blue desk on the left",
    "the old man with hair",
]
SYSTEM_2 = [
    "the large red chair facing left",
    "a young man with glasses and a beard",
    "the small blue fan at the top",
    "the green desk from the front",
    "an old man wearing a suit and a tie",
    "the grey sofa on the right",
    "the red fan facing back",
    "a woman with light hair",
    "the big blue chair in the middle",
    "the man with dark hair and glasses",
    "the small green sofa facing right",
    "the desk at the bottom left",
    "the large grey fan facing the front",
    "a bearded man in a shirt",
    "the blue desk on the left side",
    "the old man with white hair",
]
SYSTEMS = {"sys1": SYSTEM_1, "sys2": SYSTEM_2}


def _sacrebleu_metrics():
    from sacrebleu.metrics import BLEU, CHRF

    return {"BLEU": BLEU(), "chrF2++": CHRF(word_order=2)}


def _stats_and_score(metric, hyps):
    stats = np.array(metric._extract_corpus_statistics(hyps, [REFS]), dtype=float)

    def score(sums):
        return metric._compute_score_from_stats(list(sums)).score

    return stats, summed(score)


@pytest.fixture(scope="module")
def sacrebleu_results():
    """sacreBLEU's own PairedTest (its API), both tests, the default seed."""
    from sacrebleu.significance import PairedTest

    assert os.environ.get("SACREBLEU_SEED", "12345") == "12345"
    named = [("baseline", BASELINE), *SYSTEMS.items()]
    out = {}
    for test_type, samples in (("bs", 1000), ("ar", 10000)):
        _, scores = PairedTest(
            named,
            _sacrebleu_metrics(),
            [REFS],
            test_type=test_type,
            n_samples=samples,
        )()
        out[test_type] = scores
    return out


@pytest.mark.parametrize("name", ["BLEU", "chrF2++"])
@pytest.mark.parametrize("system", ["sys1", "sys2"])
@pytest.mark.parametrize("test_type", ["bs", "ar"])
def test_p_values_and_deltas_equal_sacrebleu(
    sacrebleu_results, name, system, test_type
):
    metric = _sacrebleu_metrics()[name]
    base_stats, score = _stats_and_score(metric, BASELINE)
    sys_stats, _ = _stats_and_score(metric, SYSTEMS[system])
    if test_type == "bs":
        ours = paired_bs(base_stats, sys_stats, score, resamples=1000, seed=12345)
    else:
        ours = paired_ar(base_stats, sys_stats, score, trials=10000, seed=12345)
    column = sacrebleu_results[test_type][name]
    baseline, theirs = column[0], column[1 + list(SYSTEMS).index(system)]
    assert ours.score_a == baseline.score
    assert ours.score_b == theirs.score
    assert ours.delta == theirs.score - baseline.score
    assert ours.p_value == theirs.p_value  # exactly, not only to 4 decimals
    assert (ours.samples, ours.seed, ours.n) == (
        1000 if test_type == "bs" else 10000,
        12345,
        len(REFS),
    )


def test_the_comparisons_are_not_trivial(sacrebleu_results):
    """The corpus gives both small and large p-values: the equality above bites."""
    p = [
        r.p_value
        for scores in sacrebleu_results.values()
        for name in ("BLEU", "chrF2++")
        for r in scores[name][1:]
    ]
    assert min(p) < 0.01 and max(p) > 0.01
    assert len(set(p)) > 2


@pytest.mark.parametrize("flag", ["--paired-bs", "--paired-ar"])
def test_equal_to_the_sacrebleu_command_line(tmp_path, flag):
    """The CLI on files: p-values to the 4 decimals it prints, BLEU and chrF."""
    ref = tmp_path / "ref.txt"
    ref.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    files = []
    for name, hyps in (("baseline", BASELINE), *SYSTEMS.items()):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(hyps) + "\n", encoding="utf-8")
        files.append(str(path))
    env = {**os.environ, "SACREBLEU_SEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-m", "sacrebleu", str(ref), "-i", *files, "-m", "bleu"]
        + ["chrf", "--chrf-word-order", "2", flag, "-f", "text", "--no-color"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    printed = [float(p) for p in re.findall(r"p = ([0-9.]+)", out)]
    assert len(printed) == 4  # 2 systems x 2 metrics
    ours = []
    for hyps in SYSTEMS.values():
        for metric in _sacrebleu_metrics().values():
            base_stats, score = _stats_and_score(metric, BASELINE)
            sys_stats, _ = _stats_and_score(metric, hyps)
            test = paired_bs if flag == "--paired-bs" else paired_ar
            ours.append(test(base_stats, sys_stats, score).p_value)
    # the CLI prints system by system, the metrics of each in turn
    assert sorted(round(p, 4) for p in ours) == sorted(printed)


def test_a_mean_metric_through_the_same_code():
    """Dice (a mean of item scores): its sums and p-values are the mean's."""
    from stecflow.metrics import get_metric

    dice = get_metric("dice")
    red_chair = frozenset({("type", "chair"), ("colour", "red")})
    refs = [[red_chair]] * 6
    hyp_a = [frozenset({("type", "chair")})] * 6  # Dice 2/3 on every item
    # B: 1 on three items, 0 on one, 2/3 on two: item differences +1/3 x 3, -2/3
    hyp_b = [red_chair] * 3 + [frozenset({("type", "desk")})] + hyp_a[:2]
    scores_a = dice.item_scores(dice.corpus_stats(hyp_a, refs))
    scores_b = dice.item_scores(dice.corpus_stats(hyp_b, refs))
    assert scores_b == pytest.approx([1, 1, 1, 0, 2 / 3, 2 / 3])
    a, b = mean_statistics(scores_a), mean_statistics(scores_b)
    result = paired_bs(a, b, mean_score, resamples=1000, seed=12345)
    assert result.score_a == pytest.approx(2 / 3)
    assert result.score_b == pytest.approx(
        dice.aggregate(dice.corpus_stats(hyp_b, refs))
    )
    assert result.delta == pytest.approx(1 / 18)
    # the same resamples by hand: numpy's generator, sacreBLEU's p-value
    rng = np.random.default_rng(12345)
    idxs = rng.choice(6, size=(1000, 6), replace=True)
    diffs = np.abs(np.array(scores_b)[idxs].mean(1) - np.array(scores_a)[idxs].mean(1))
    count = int(np.sum(diffs - diffs.mean() > 1 / 18 + 1e-12))
    assert result.p_value == pytest.approx((count + 1) / 1001)
    # approximate randomisation: of the 16 sign patterns of the 4 differences,
    # 8 give |sum| > 1/3 (5/3 twice, 1 six times) and 8 tie with it (ties do not
    # count, as in sacreBLEU): p is about 1/2
    ar = paired_ar(a, b, mean_score, trials=10000, seed=12345)
    rng = np.random.default_rng(12345)
    pos = rng.integers(2, size=(10000, 6), dtype=bool)
    sa = np.where(pos, scores_a, scores_b).mean(1)
    sb = np.where(pos, scores_b, scores_a).mean(1)
    expected = (int(np.sum(np.abs(sa - sb) > 1 / 18 + 1e-12)) + 1) / 10001
    assert ar.p_value == expected
    assert 0.47 < ar.p_value < 0.53


def test_undefined_items_are_left_out_of_the_mean():
    stats = mean_statistics([1.0, math.nan, 0.0])
    assert mean_score(np.ones((1, 3), dtype=int), stats).tolist() == [0.5]
    result = paired_bs(
        stats, mean_statistics([1.0, 1.0, 1.0]), mean_score, resamples=50
    )
    assert result.score_a == 0.5 and result.score_b == 1.0


def test_deterministic_and_symmetric():
    rng = np.random.default_rng(7)
    a = mean_statistics(rng.random(40))
    b = mean_statistics(rng.random(40) + 0.1)
    for test in (paired_bs, paired_ar):
        first = test(a, b, mean_score, seed=99)
        assert test(a, b, mean_score, seed=99) == first
        swapped = test(b, a, mean_score, seed=99)
        assert swapped.p_value == first.p_value
        assert swapped.delta == -first.delta
        assert test(a, b, mean_score, seed=100).p_value != first.p_value


def test_chunking_does_not_change_randomisation():
    rng = np.random.default_rng(8)
    a = mean_statistics(rng.random(30))
    b = mean_statistics(rng.random(30))
    whole = paired_ar(a, b, mean_score, trials=500, chunk=500)
    parts = paired_ar(a, b, mean_score, trials=500, chunk=7)
    assert whole == parts


def test_wrong_input_is_named():
    a = mean_statistics([1.0, 0.0])
    with pytest.raises(StatsInputError, match="same shape"):
        paired_bs(a, mean_statistics([1.0]), mean_score)
    with pytest.raises(StatsInputError, match="samples"):
        paired_bs(a, a, mean_score, resamples=0)
    with pytest.raises(StatsInputError, match="seed"):
        paired_ar(a, a, mean_score, seed=-1)


def test_clusters_on_a_hand_made_example():
    # A ~ B, B ~ C, but A and C differ: C opens cluster 2 (it differs from the
    # best of cluster 1, A) although it does not differ from B. D ~ C: cluster 2.
    # E differs from C: cluster 3. Lower is better here.
    differ = {frozenset(p) for p in [("A", "C"), ("A", "D"), ("C", "E"), ("A", "E")]}
    scores = {"A": 1.0, "B": 2.0, "C": 3.0, "D": 3.0, "E": 9.0, "X": math.nan}
    clusters = significance_clusters(
        scores, lambda x, y: frozenset((x, y)) in differ, higher_is_better=False
    )
    assert clusters == [
        ("A", 1, 1),
        ("B", 2, 1),
        ("C", 3, 2),
        ("D", 3, 2),  # tied with C: same rank
        ("E", 5, 3),
    ]
    assert significance_clusters({"A": 1.0}, lambda x, y: True) == [("A", 1, 1)]
    assert significance_clusters({}, lambda x, y: True) == []


# ---------------------------------------------------------------------------
# the scoring stage: metrics of the registry, scores/significance.tsv, clusters


def _lower(texts):
    return [t.lower() for t in texts]


def test_bleu3_of_the_registry_equals_sacrebleu_bleu3():
    """stecflow's BLEU-3 statistics and scores give sacreBLEU's paired p-values."""
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    from stecflow.metrics import get_metric
    from stecflow.scoring.significance import metric_score_function

    bleu3 = get_metric("bleu3")
    refs = [[r] for r in REFS]
    score = metric_score_function(bleu3)
    base = np.array(bleu3.corpus_stats(BASELINE, refs), dtype=float)
    named = [("baseline", BASELINE), *SYSTEMS.items()]
    for test_type, test in (
        ("bs", paired_bs),
        ("ar", paired_ar),
    ):
        theirs = PairedTest(
            named,
            {"BLEU": BLEU(max_ngram_order=3, tokenize="none", force=True)},
            [REFS],
            test_type=test_type,
        )()[1]["BLEU"]
        for n, hyps in enumerate(SYSTEMS.values(), start=1):
            stats = np.array(bleu3.corpus_stats(hyps, refs), dtype=float)
            ours = test(base, stats, score)
            assert ours.score_a == pytest.approx(theirs[0].score, abs=1e-9)
            assert ours.score_b == pytest.approx(theirs[n].score, abs=1e-9)
            assert ours.p_value == theirs[n].p_value


def test_nist_scores_its_own_resamples():
    """NIST-5's reference length is no plain sum: the metric scores each draw."""
    from stecflow.metrics import get_metric
    from stecflow.scoring.significance import metric_score_function

    nist = get_metric("nist5")
    refs = [[r] for r in REFS]
    a = nist.corpus_stats(BASELINE, refs)
    b = nist.corpus_stats(SYSTEM_2, refs)
    result = paired_bs(
        np.array(a), np.array(b), metric_score_function(nist), resamples=200
    )
    assert result.score_a == pytest.approx(nist.aggregate(a))
    assert result.score_b == pytest.approx(nist.aggregate(b))
    assert result.p_value < 0.05


def _write_stage_inputs(folder, systems, tasks=None):
    """items.tsv and analysed.tsv of *systems*: label -> (dice hyps, text hyps);
    *tasks*: label -> the task types in analysed.tsv's tasks column."""
    from stecflow.analysis.collect import ANALYSED_COLUMNS, ITEM_TABLE_COLUMNS
    from stecflow.core.io import write_tsv
    from stecflow.metrics import get_metric

    refs = [[r] for r in REFS]
    metrics = {"bleu3": get_metric("bleu3"), "se": get_metric("se")}
    items, analysed = [], []
    for label, hyps in systems.items():
        for mid, metric in metrics.items():
            stats = metric.corpus_stats(hyps, refs)
            for n, s in enumerate(stats):
                items.append(
                    {
                        "team": "t",
                        "system": label,
                        "label": label,
                        "item": f"i{n:02d}",
                        "metric": mid,
                        "value": metric.score_from_stats(s),
                        "stats": " ".join(repr(float(x)) for x in s),
                    }
                )
            analysed.append(
                {
                    "label": label,
                    "team": "t",
                    "system": label,
                    "status": "scored",
                    "metric": mid,
                    "subset": "all",
                    "value": metric.aggregate(stats),
                    "tasks": " ".join((tasks or {}).get(label, [])),
                }
            )
    write_tsv(items, ITEM_TABLE_COLUMNS, folder / "items.tsv")
    write_tsv(analysed, ANALYSED_COLUMNS, folder / "analysed.tsv")


def test_compare_systems_writes_both_tables(tmp_path):
    from stecflow.core.io import read_tsv
    from stecflow.metrics import get_metric
    from stecflow.scoring.significance import (
        CLUSTER_COLUMNS,
        SIGNIFICANCE_COLUMNS,
        compare_systems,
        metric_score_function,
    )

    _write_stage_inputs(tmp_path, {"base": BASELINE, **SYSTEMS})
    scoring = {
        "metrics": [{"id": "bleu3"}, {"id": "se"}],
        "significance": {"resamples": 300, "trials": 500, "seed": 7},
    }
    out = tmp_path / "significance.tsv", tmp_path / "clusters.tsv"
    n = compare_systems(
        tmp_path / "items.tsv", tmp_path / "analysed.tsv", *out, scoring=scoring
    )
    rows = read_tsv(out[0])
    assert n == len(rows) == 2 * 3 * 2  # metrics x pairs x methods
    assert tuple(rows[0]) == SIGNIFICANCE_COLUMNS
    assert [(r["system_a"], r["system_b"]) for r in rows[:6:2]] == [
        ("t/base", "t/sys1"),
        ("t/base", "t/sys2"),
        ("t/sys1", "t/sys2"),
    ]
    # each row is the library's test on those systems' statistics
    bleu3 = get_metric("bleu3")
    refs = [[r] for r in REFS]
    a = np.array(bleu3.corpus_stats(BASELINE, refs))
    b = np.array(bleu3.corpus_stats(SYSTEM_2, refs))
    expected = paired_ar(a, b, metric_score_function(bleu3), trials=500, seed=7)
    row = next(
        r
        for r in rows
        if (r["metric"], r["system_b"], r["method"]) == ("bleu3", "t/sys2", "paired_ar")
        and r["system_a"] == "t/base"
    )
    assert float(row["p_value"]) == pytest.approx(expected.p_value, rel=1e-9)
    assert float(row["delta"]) == pytest.approx(expected.delta, rel=1e-9)
    assert row["significant"] == "true" and row["n"] == "16"
    assert row["signature"] == "paired_ar|ar:500|seed:7|alpha:0.05"
    clusters = read_tsv(out[1])
    assert tuple(clusters[0]) == CLUSTER_COLUMNS
    bleu = [
        (c["system"], c["rank"], c["cluster"])
        for c in clusters
        if c["metric"] == "bleu3"
    ]
    assert bleu[0] == ("t/sys2", "1", "1")  # best, and significantly better
    assert {s for s, _, c in bleu if c != "1"} == {"t/sys1", "t/base"}
    # SE: lower is better
    se = [c["system"] for c in clusters if c["metric"] == "se"]
    assert se[0] == "t/sys2"
    # deterministic: the same bytes again
    first = [p.read_bytes() for p in out]
    compare_systems(
        tmp_path / "items.tsv", tmp_path / "analysed.tsv", *out, scoring=scoring
    )
    assert [p.read_bytes() for p in out] == first


def test_significance_can_be_switched_off(tmp_path):
    """methods: [] (a campaign with too many systems for n^2 tests): the rule
    still writes both tables, with their headers and no rows."""
    from stecflow.scoring.significance import (
        CLUSTER_COLUMNS,
        SIGNIFICANCE_COLUMNS,
        compare_systems,
    )

    _write_stage_inputs(tmp_path, {"base": BASELINE, **SYSTEMS})
    out = tmp_path / "significance.tsv", tmp_path / "clusters.tsv"
    scoring = {"metrics": [{"id": "se"}], "significance": {"methods": []}}
    n = compare_systems(
        tmp_path / "items.tsv", tmp_path / "analysed.tsv", *out, scoring=scoring
    )
    assert n == 0
    assert out[0].read_text().splitlines() == ["\t".join(SIGNIFICANCE_COLUMNS)]
    assert out[1].read_text().splitlines() == ["\t".join(CLUSTER_COLUMNS)]


def test_the_adapter_calls_the_library(tmp_path):
    import runpy
    from types import SimpleNamespace as N

    from tests.conftest import REPO

    _write_stage_inputs(tmp_path, {"base": BASELINE, "sys2": SYSTEM_2})
    main = runpy.run_path(str(REPO / "workflow" / "scripts" / "compare_systems.py"))
    main["main"](
        N(
            input=N(
                item_scores=str(tmp_path / "items.tsv"),
                systems=str(tmp_path / "analysed.tsv"),
            ),
            output=N(
                significance=str(tmp_path / "s.tsv"),
                clusters=str(tmp_path / "c.tsv"),
            ),
            params=N(
                scoring={
                    "metrics": [{"id": "se"}],
                    "significance": {"methods": ["paired_ar"], "trials": 100},
                },
                tasks=None,
            ),
            log=[str(tmp_path / "compare.log")],
        )
    )
    assert len((tmp_path / "s.tsv").read_text().splitlines()) == 2
    assert "se: 2 systems" in (tmp_path / "compare.log").read_text()


def test_a_campaign_of_several_tasks_ranks_each_tasks_systems(tmp_path):
    from stecflow.core.io import read_tsv, write_json
    from stecflow.scoring.significance import compare_systems

    _write_stage_inputs(tmp_path, {"base": BASELINE, **SYSTEMS})
    records = []
    for system, tasks in (
        ("base", ["end_to_end"]),
        ("sys1", ["end_to_end", "attribute_selection"]),
        ("sys2", ["attribute_selection"]),
    ):
        path = tmp_path / f"{system}.json"
        write_json({"team": "t", "system": system, "tasks": tasks}, path)
        records.append(path)
    out = tmp_path / "s.tsv", tmp_path / "c.tsv"
    compare_systems(
        tmp_path / "items.tsv",
        tmp_path / "analysed.tsv",
        *out,
        scoring={"metrics": [{"id": "bleu3"}], "significance": {"resamples": 200}},
        tasks=["end_to_end", "attribute_selection"],
        validation_paths=records,
    )
    clusters = read_tsv(out[1])
    by_task = {}
    for row in clusters:
        by_task.setdefault(row["task"], []).append((row["system"], row["rank"]))
    assert by_task["all"] == [("t/sys2", "1"), ("t/sys1", "2"), ("t/base", "3")]
    assert by_task["end_to_end"] == [("t/sys1", "1"), ("t/base", "2")]
    assert by_task["attribute_selection"] == [("t/sys2", "1"), ("t/sys1", "2")]
    # the pairs are tested once, whatever the tasks
    assert len(read_tsv(out[0])) == 3 * 2


def test_equal_scores_are_never_significant(tmp_path):
    from stecflow.core.io import read_tsv
    from stecflow.scoring.significance import compare_systems

    _write_stage_inputs(tmp_path, {"a": SYSTEM_1, "b": SYSTEM_1})
    out = tmp_path / "s.tsv", tmp_path / "c.tsv"
    compare_systems(
        tmp_path / "items.tsv",
        tmp_path / "analysed.tsv",
        *out,
        scoring={"metrics": [{"id": "bleu3"}]},
    )
    rows = read_tsv(out[0])
    # sacreBLEU's p for identical systems is 1 / (samples + 1) ...
    assert [r["p_value"] for r in rows] == ["0.000999000999", "9.9990001e-05"]
    # ... but equal scores do not differ: one cluster
    assert {r["significant"] for r in rows} == {"false"}
    assert [(r["rank"], r["cluster"]) for r in read_tsv(out[1])] == [
        ("1", "1"),
        ("1", "1"),
    ]


def test_unknown_method_is_named():
    from stecflow.core.errors import ConfigError
    from stecflow.scoring.significance import significance_settings

    with pytest.raises(ConfigError, match="paired_xx"):
        significance_settings({"methods": ["paired_xx"]})


# ---------------------------------------------------------------------------
# the report: the cluster column and the "Which systems differ" tables


def test_report_shows_clusters_and_pairs(tmp_path):
    import shutil

    from stecflow.core.io import read_tsv
    from stecflow.report import render_report
    from tests.conftest import TINY
    from tests.unit.test_report import report_inputs, table_csv
    from tests.workflow.helpers import snakemake

    campaign = tmp_path / "campaign"
    shutil.copytree(TINY, campaign)
    inputs = report_inputs(campaign)
    snakemake(campaign, "results/scores/significance.tsv")
    scores = campaign / "results" / "scores"
    html = render_report(
        **inputs,
        out_html=tmp_path / "index.html",
        significance=scores / "significance.tsv",
        clusters=scores / "clusters.tsv",
    )
    clusters = {
        (r["metric"], r["system"]): r["cluster"]
        for r in read_tsv(scores / "clusters.tsv")
    }
    main = table_csv(html, "scores-main")
    header = main[0]
    assert header[:6] == ["system", "team", "rank", "reference_set", "late", "primary"]
    # every measure over all test data carries its cluster, as the stage wrote
    for metric in ("se", "string_accuracy", "bleu3", "nist5"):
        column = header.index(f"{metric}_group")
        assert header[column - 3] == metric
        shown = {(row[1], row[0]): row[column] for row in main[1:]}
        found = {k[1]: v for k, v in clusters.items() if k[0] == metric}
        assert found and all(shown[tuple(s.split("/"))] == c for s, c in found.items())
    # every pair of systems on SE, with both methods' p-values
    rows = [r for r in read_tsv(scores / "significance.tsv") if r["metric"] == "se"]
    pairs = table_csv(html, "scores-pairs-se")
    assert len(pairs) - 1 == len(rows) // 2
    raw = {
        (r["system_a"].split("/")[1], r["system_b"].split("/")[1], r["method"]): r
        for r in rows
    }
    for a, b, _, p_bs, p_ar in pairs[1:]:  # the CSV has the p-values as stored
        assert raw[(a, b, "paired_bs")]["p_value"] == p_bs
        assert raw[(a, b, "paired_ar")]["p_value"] == p_ar
    # the page shows them to 4 decimals, starred where significant
    every = read_tsv(scores / "significance.tsv")
    starred = [r for r in every if r["significant"] == "true"]
    plain = [r for r in every if r["significant"] == "false"]
    assert starred and plain
    for row, mark in ((starred[0], "*"), (plain[0], "")):
        p = float(row["p_value"])
        text = "&lt; .0001" if p < 1e-4 else f"{p:.4f}".lstrip("0")
        assert f">{text}{mark}</td>" in html
    assert 'id="scores-clusters"' in html and "Which systems differ" in html


def test_report_has_tables_per_task_when_systems_differ(tmp_path):
    """Point 5: a system that entered one of two tasks; each task's own table."""
    import shutil

    from stecflow.report import render_report
    from tests.conftest import TINY
    from tests.unit.test_report import report_inputs, table_csv
    from tests.workflow.helpers import snakemake

    campaign = tmp_path / "campaign"
    shutil.copytree(TINY, campaign)
    meta = campaign / "submissions" / "beta" / "sys2" / "system.yaml"
    text = meta.read_text()
    assert "tasks:\n- end_to_end\n- attribute_selection\n" in text
    meta.write_text(text.replace("- attribute_selection\n", ""))
    inputs = report_inputs(campaign)
    snakemake(campaign, "results/scores/significance.tsv")
    scores = campaign / "results" / "scores"
    html = render_report(
        **inputs,
        out_html=tmp_path / "index.html",
        significance=scores / "significance.tsv",
        clusters=scores / "clusters.tsv",
    )
    assert 'id="scores-tasks"' in html
    e2e = table_csv(html, "scores-task-end-to-end")
    asel = table_csv(html, "scores-task-attribute-selection")
    # beta/sys2 did not enter attribute selection
    assert [r[1] for r in asel[1:]] == ["alpha"]
    assert sorted(r[1] for r in e2e[1:]) == ["alpha", "beta"]
    # the primary system marked: alpha/sys1 is, beta/sys2 is not
    primary = {r[1]: r[5] for r in e2e[1:]}
    assert primary == {"alpha": "true", "beta": "false"}
    assert "sys1 *</a>" in html.split('id="scores-task-end-to-end"', 1)[1]
    # end-to-end shows word-string metrics, attribute selection attribute metrics
    assert e2e[0][5] == "primary" and "se_group" in e2e[0]  # clusters among its own
    assert "se" in e2e[0] and "dice" not in e2e[0]
    assert "dice" in asel[0] and "se" not in asel[0]


@pytest.mark.parametrize("metric_id", ["se", "bleu3", "nist5"])
def test_pairwise_tests_equal_one_test_per_pair(metric_id):
    """Draws and resample scores shared between pairs give each pair's own test.

    pairwise_tests draws the bootstrap counts and randomisation draws once per
    number of items and scores each system's resamples once; every row must be
    what paired_bs and paired_ar give for that pair alone (the previous code),
    including a pair scored on different items (one system lacks an item).
    """
    from stecflow.metrics import get_metric
    from stecflow.scoring.significance import (
        metric_score_function,
        pairwise_tests,
        significance_settings,
    )

    metric = get_metric(metric_id)
    score = metric_score_function(metric)
    refs = [[r] for r in REFS]
    systems = {"baseline": BASELINE, **SYSTEMS}
    stats = {}
    for name, hyps in sorted(systems.items()):
        rows = [tuple(r) for r in metric.corpus_stats(hyps, refs)]
        stats[name] = {f"i{k:02d}": row for k, row in enumerate(rows)}
    del stats["baseline"]["i03"]  # a pair tested on the items both have
    settings = significance_settings({"resamples": 300, "trials": 400, "seed": 3})
    rows, _ = pairwise_tests(stats, metric, settings, metric_id=metric_id)
    assert len(rows) == 2 * len(stats) * (len(stats) - 1) // 2
    for row in rows:
        common = sorted(set(stats[row["system_a"]]) & set(stats[row["system_b"]]))
        a = np.array([stats[row["system_a"]][i] for i in common], dtype=float)
        b = np.array([stats[row["system_b"]][i] for i in common], dtype=float)
        if row["method"] == "paired_bs":
            alone = paired_bs(a, b, score, resamples=300, seed=3)
        else:
            alone = paired_ar(a, b, score, trials=400, seed=3)
        assert row["n"] == len(common)
        assert (row["score_a"], row["score_b"], row["delta"]) == (
            alone.score_a,
            alone.score_b,
            alone.delta,
        )
        assert row["p_value"] == alone.p_value or (
            math.isnan(row["p_value"]) and math.isnan(alone.p_value)
        )
    assert len({r["p_value"] for r in rows}) > 2  # real tests, not one constant


def test_draws_of_the_wrong_shape_are_refused():
    from stecflow.stats.significance import randomisation_draws

    a = mean_statistics([0.0, 1.0, 0.0])
    with pytest.raises(StatsInputError, match="draws of shape"):
        paired_ar(a, a, mean_score, trials=10, draws=randomisation_draws(4, 10, 1))


def test_each_tasks_systems_are_read_from_analysed_tsv(tmp_path):
    """Without validation records, the tasks column of analysed.tsv says which
    systems entered each task (the rule reads no record): the same clusters."""
    from stecflow.core.io import read_tsv
    from stecflow.scoring.significance import compare_systems

    tasks = {
        "base": ["end_to_end"],
        "sys1": ["end_to_end", "attribute_selection"],
        "sys2": ["attribute_selection"],
    }
    _write_stage_inputs(tmp_path, {"base": BASELINE, **SYSTEMS}, tasks)
    out = tmp_path / "s.tsv", tmp_path / "c.tsv"
    compare_systems(
        tmp_path / "items.tsv",
        tmp_path / "analysed.tsv",
        *out,
        scoring={"metrics": [{"id": "bleu3"}], "significance": {"resamples": 200}},
        tasks=["end_to_end", "attribute_selection"],
    )
    by_task = {}
    for row in read_tsv(out[1]):
        by_task.setdefault(row["task"], []).append((row["system"], row["rank"]))
    assert by_task["all"] == [("t/sys2", "1"), ("t/sys1", "2"), ("t/base", "3")]
    assert by_task["end_to_end"] == [("t/sys1", "1"), ("t/base", "2")]
    assert by_task["attribute_selection"] == [("t/sys2", "1"), ("t/sys1", "2")]
