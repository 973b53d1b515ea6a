"""sacreBLEU's BLEU, chrF++ and TER (stecflow.metrics.sacrebleu) and ROUGE-L.

Values are compared with sacreBLEU's command line run on the same files (a
multi-reference set written here, English, Chinese and Japanese), item statistics
summed with sacreBLEU's corpus_score, and ROUGE-L with hand-worked numbers and,
where installed, the rouge-score package.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from stecflow.metrics import get_metric
from stecflow.metrics import sacrebleu as sb
from stecflow.metrics.rouge_l import ROUGEL, lcs_length, rouge_score_tokens
from tests.conftest import python_stdout

# A small multi-reference set: three systems' worth of phenomena (punctuation,
# case, a perfect match, an empty output, numbers, a hyphen).
EN_HYPS = [
    "The cat sat on the mat.",
    "A dog barked loudly at the postman!",
    "It is raining.",
    "",
    "Alan Bean was born in Wheeler, Texas, on 15 March 1932.",
    "The chair's top-left corner is RED",
]
EN_REFS = [
    [
        "The cat sat on a mat.",
        "The dog barked at the postman.",
        "It rains today.",
        "Nothing was said.",
        "Alan Bean, born on March 15, 1932, comes from Wheeler, Texas.",
        "The top-left corner of the chair is red.",
    ],
    [
        "A cat was sitting on the mat.",
        "A dog was barking loudly at the mailman.",
        "It is raining.",
        "There is nothing.",
        "Alan Bean was born in Wheeler, Texas on March 15th, 1932.",
        "The chair is red in its top-left corner.",
    ],
]
ZH_HYPS = ["猫坐在垫子上。", "今天下雨了，我们待在家里。", "他在2024年去了北京。"]
ZH_REFS = [
    ["猫坐在垫子上。", "今天下雨，所以我们在家。", "他于2024年前往北京。"],
    ["一只猫坐在垫子上。", "因为下雨，我们今天待在家里。", "2024年他去了北京。"],
]
JA_HYPS = ["猫がマットの上に座った。", "今日は雨が降っています。"]
JA_REFS = [
    ["猫はマットの上に座っていた。", "今日は雨です。"],
    ["一匹の猫がマットに座った。", "今日は雨が降っている。"],
]


def _item_major(streams):
    return [list(refs) for refs in zip(*streams, strict=True)]


def _write(tmp_path, hyps, streams):
    (tmp_path / "hyp.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    names = []
    for n, stream in enumerate(streams, start=1):
        path = tmp_path / f"ref{n}.txt"
        path.write_text("\n".join(stream) + "\n", encoding="utf-8")
        names.append(str(path))
    return str(tmp_path / "hyp.txt"), names


def _cli(hyp, refs, *args):
    """sacreBLEU's command line: a list of {name, score, signature} (6 decimals)."""
    out = subprocess.run(
        [sys.executable, "-m", "sacrebleu", *refs, "-i", hyp, "-w", "6", *args],
        capture_output=True,
        text=True,
        check=True,
        encoding="utf-8",
    )
    result = json.loads(out.stdout)
    return result if isinstance(result, list) else [result]


def _close(ours, cli_score):
    assert abs(ours - cli_score) <= 5.1e-7, (ours, cli_score)


INSTALLED_TOKENIZERS = [
    t for t in sb.TOKENIZERS if t != "ja-mecab" or sb.ja_mecab_available()
]


@pytest.mark.parametrize("tokenize", ["13a", "intl", "char", "none", "zh"])
def test_bleu_chrf_ter_equal_the_command_line_english(tmp_path, tokenize):
    hyp, refs = _write(tmp_path, EN_HYPS, EN_REFS)
    cli = _cli(hyp, refs, "-m", "bleu", "chrf", "ter", "-cw", "2", "-tok", tokenize)
    item_refs = _item_major(EN_REFS)
    bleu = get_metric("bleu", tokenize=tokenize)
    chrf = get_metric("chrf")
    ter = get_metric("ter")
    for metric, row in zip((bleu, chrf, ter), cli, strict=True):
        _close(metric.corpus_score(EN_HYPS, item_refs), row["score"])
        assert metric.sacrebleu_signature(2) == row["signature"]
    assert cli[0]["signature"].startswith(f"nrefs:2|case:mixed|eff:no|tok:{tokenize}|")
    assert cli[1]["name"] == "chrF2++"


def test_bleu_zh_on_chinese_text_equals_the_command_line(tmp_path):
    hyp, refs = _write(tmp_path, ZH_HYPS, ZH_REFS)
    cli = _cli(hyp, refs, "-m", "bleu", "chrf", "-cw", "2", "-tok", "zh")
    item_refs = _item_major(ZH_REFS)
    bleu_zh = get_metric("bleu", tokenize="zh")
    _close(bleu_zh.corpus_score(ZH_HYPS, item_refs), cli[0]["score"])
    _close(get_metric("chrf").corpus_score(ZH_HYPS, item_refs), cli[1]["score"])
    # the zh tokeniser matters: 13a sees each sentence as about one word
    assert bleu_zh.corpus_score(ZH_HYPS, item_refs) != pytest.approx(
        get_metric("bleu").corpus_score(ZH_HYPS, item_refs)
    )
    assert cli[0]["score"] > 10


@pytest.mark.skipif(not sb.ja_mecab_available(), reason="MeCab/ipadic not installed")
def test_bleu_ja_mecab_equals_the_command_line(tmp_path):
    hyp, refs = _write(tmp_path, JA_HYPS, JA_REFS)
    cli = _cli(hyp, refs, "-m", "bleu", "-tok", "ja-mecab")
    bleu = get_metric("bleu", tokenize="ja-mecab")
    _close(bleu.corpus_score(JA_HYPS, _item_major(JA_REFS)), cli[0]["score"])
    assert bleu.sacrebleu_signature(2) == cli[0]["signature"]
    assert "tok:ja-mecab-" in cli[0]["signature"]
    assert "|tok:ja-mecab|" in bleu.signature()
    assert "|mecab-python3:" in bleu.signature()


def test_ja_mecab_without_mecab_says_what_to_install(monkeypatch):
    monkeypatch.setattr(sb, "ja_mecab_available", lambda: False)
    with pytest.raises(ValueError, match=r"pip install sacrebleu\[ja\]"):
        get_metric("bleu", tokenize="ja-mecab")
    get_metric("bleu", tokenize="zh")  # the others need nothing


@pytest.mark.parametrize(
    ("options", "cli_args"),
    [
        ({"lowercase": True}, ["-lc"]),
        ({"smooth": "floor"}, ["-s", "floor"]),
        ({"smooth": "add-k", "smooth_value": 2}, ["-s", "add-k", "-sv", "2"]),
        ({"smooth": "none", "tokenize": "intl"}, ["-s", "none", "-tok", "intl"]),
    ],
)
def test_bleu_options_equal_the_command_line(tmp_path, options, cli_args):
    hyp, refs = _write(tmp_path, EN_HYPS, EN_REFS)
    (row,) = _cli(hyp, refs, "-m", "bleu", *cli_args)
    bleu = get_metric("bleu", **options)
    _close(bleu.corpus_score(EN_HYPS, _item_major(EN_REFS)), row["score"])
    assert bleu.sacrebleu_signature(2) == row["signature"]


@pytest.mark.parametrize(
    ("options", "cli_args", "name"),
    [
        ({"word_order": 0}, ["-cw", "0"], "chrF2"),
        (
            {"beta": 1, "char_order": 4},
            ["-cw", "2", "--chrf-beta", "1", "-cc", "4"],
            "chrF1++",
        ),
        (
            {"lowercase": True, "whitespace": True},
            ["-cw", "2", "--chrf-lowercase", "--chrf-whitespace"],
            "chrF2++",
        ),
        ({"eps_smoothing": True}, ["-cw", "2", "--chrf-eps-smoothing"], "chrF2++"),
    ],
)
def test_chrf_options_equal_the_command_line(tmp_path, options, cli_args, name):
    hyp, refs = _write(tmp_path, EN_HYPS, EN_REFS)
    (row,) = _cli(hyp, refs, "-m", "chrf", *cli_args)
    chrf = get_metric("chrf", **options)
    _close(chrf.corpus_score(EN_HYPS, _item_major(EN_REFS)), row["score"])
    assert chrf.sacrebleu_signature(2) == row["signature"]
    assert row["name"] == name


@pytest.mark.parametrize(
    ("options", "cli_args"),
    [
        ({"normalized": True}, ["--ter-normalized"]),
        (
            {"no_punct": True, "case_sensitive": True},
            ["--ter-no-punct", "--ter-case-sensitive"],
        ),
        (
            {"normalized": True, "asian_support": True},
            ["--ter-normalized", "--ter-asian-support"],
        ),
    ],
)
def test_ter_options_equal_the_command_line(tmp_path, options, cli_args):
    for hyps, streams in ((EN_HYPS, EN_REFS), (ZH_HYPS, ZH_REFS)):
        hyp, refs = _write(tmp_path, hyps, streams)
        (row,) = _cli(hyp, refs, "-m", "ter", *cli_args)
        ter = get_metric("ter", **options)
        _close(ter.corpus_score(hyps, _item_major(streams)), row["score"])
        assert ter.sacrebleu_signature(2) == row["signature"]


@pytest.mark.parametrize(
    ("name", "cls", "options"),
    [
        ("bleu", "BLEU", {"tokenize": "13a"}),
        ("bleu", "BLEU", {"tokenize": "zh", "lowercase": True}),
        ("chrf", "CHRF", {}),
        ("ter", "TER", {"normalized": True}),
    ],
)
def test_item_statistics_summed_equal_sacrebleu_corpus_score(name, cls, options):
    from sacrebleu import metrics

    ours = get_metric(name, **options)
    theirs = getattr(metrics, cls)(
        **{"word_order": 2} if name == "chrf" else {},
        **{"smooth_method": "exp"} if name == "bleu" else {},
        **{k: v for k, v in options.items()},
    )
    hyps = EN_HYPS + ZH_HYPS
    streams = [a + b for a, b in zip(EN_REFS, ZH_REFS, strict=True)]
    refs = _item_major(streams)
    stats = ours.corpus_stats(hyps, refs)
    # one tuple per item, each the item's own statistics
    assert stats == [ours.segment_stats(h, r) for h, r in zip(hyps, refs, strict=True)]
    expected = theirs.corpus_score(hyps, streams)
    assert ours.aggregate(stats) == expected.score
    summed = [sum(col) for col in zip(*stats, strict=True)]
    if name == "bleu":
        assert summed[:2] == [expected.sys_len, expected.ref_len]
        assert summed[2:6] == expected.counts and summed[6:] == expected.totals
    # a subset is scored at corpus level on its own items, not averaged
    sub = theirs.corpus_score(hyps[:3], [s[:3] for s in streams]).score
    assert ours.aggregate(stats[:3]) == sub


def test_variable_number_of_references():
    from sacrebleu.metrics import BLEU

    refs = [["the cat sat on a mat", "a cat sat"], ["it is raining"], ["x y z"]]
    hyps = ["the cat sat on the mat", "it rains", "x y"]
    bleu = get_metric("bleu")
    stats = bleu.corpus_stats(hyps, refs)
    assert stats == [bleu.segment_stats(h, r) for h, r in zip(hyps, refs, strict=True)]
    streams = [
        ["the cat sat on a mat", "it is raining", "x y z"],
        ["a cat sat", None, None],
    ]
    theirs = BLEU()
    assert bleu.aggregate(stats) == theirs.corpus_score(hyps, streams).score
    assert sb.reference_count(refs) == "var"
    assert bleu.sacrebleu_signature("var") == str(theirs.get_signature())


def test_item_scores_are_sacrebleu_sentence_scores():
    import sacrebleu

    refs = _item_major(EN_REFS)
    for metric, sentence in (
        (get_metric("bleu"), sacrebleu.sentence_bleu),
        (get_metric("chrf"), lambda h, r: sacrebleu.sentence_chrf(h, r, word_order=2)),
        (get_metric("ter"), sacrebleu.sentence_ter),
    ):
        stats = metric.corpus_stats(EN_HYPS, refs)
        for hyp, item_refs, item_stats in zip(EN_HYPS, refs, stats, strict=True):
            expected = sentence(hyp, item_refs).score
            assert metric.score_from_stats(item_stats) == pytest.approx(expected)


def test_resampled_scores_equal_aggregates_of_the_resamples():
    refs = _item_major(EN_REFS)
    rng = np.random.default_rng(7)
    counts = rng.multinomial(len(EN_HYPS), [1 / len(EN_HYPS)] * len(EN_HYPS), 5)
    for name in ("bleu", "chrf", "ter"):
        metric = get_metric(name)
        stats = metric.corpus_stats(EN_HYPS, refs)
        got = metric.resample_scores(stats, counts)
        for row, value in zip(counts, got, strict=True):
            resample = [stats[i] for i in np.repeat(np.arange(len(stats)), row)]
            assert value == pytest.approx(metric.aggregate(resample))


def test_signatures_are_sacrebleus_fields_and_need_no_import():
    from sacrebleu.metrics import BLEU

    assert sb.SMOOTH_DEFAULTS == BLEU.SMOOTH_DEFAULTS
    cases = [
        ("bleu", {}),
        ("bleu", {"tokenize": "char", "lowercase": True, "effective_order": True}),
        ("bleu", {"smooth": "add-k", "smooth_value": 0.5}),
        ("chrf", {"word_order": 0, "eps_smoothing": True, "whitespace": True}),
        ("ter", {"no_punct": True, "asian_support": True, "case_sensitive": True}),
    ]
    for name, options in cases:
        metric = get_metric(name, **options)
        head, _, rest = metric.signature().partition("|version:1")
        theirs = metric.sacrebleu_signature(1)
        assert (
            head
            == metric.display_name
            + "|"
            + theirs.split("|", 1)[1].rsplit("|version:", 1)[0]
        )
        assert rest.startswith("|sacrebleu:")
    assert (
        get_metric("bleu")
        .signature()
        .startswith("BLEU|case:mixed|eff:no|tok:13a|smooth:exp|version:1|sacrebleu:")
    )
    assert "|beta:1|" in get_metric("chrf", beta=1).signature()
    code = (
        "import sys\n"
        "from stecflow.metrics import get_metric\n"
        "[get_metric(n).signature() for n in ('bleu', 'chrf', 'ter', 'rouge_l')]\n"
        "print('sacrebleu' in sys.modules)\n"
    )
    assert python_stdout(code).strip() == "False"


def test_bad_options_and_inputs_are_rejected():
    with pytest.raises(ValueError, match="option tokenize must be one of"):
        get_metric("bleu", tokenize="spm")
    with pytest.raises(ValueError, match="option smooth must be one of"):
        get_metric("bleu", smooth="add-one")
    with pytest.raises(ValueError, match="word_order must be an integer >= 0"):
        get_metric("chrf", word_order=-1)
    with pytest.raises(ValueError, match="does not accept option"):
        get_metric("ter", lowercase=True)
    with pytest.raises(ValueError, match="at least one reference"):
        get_metric("bleu").segment_stats("a", [])
    with pytest.raises(TypeError, match="expected strings"):
        get_metric("chrf").corpus_stats(["a"], [[None]])
    with pytest.raises(ValueError, match="n_refs"):
        get_metric("ter").sacrebleu_signature(0)
    assert get_metric("ter").higher_is_better is False


# -- ROUGE-L ------------------------------------------------------------------------


def test_rouge_l_hand_worked():
    """hyp: the red chair is on the left (7 tokens).

    ref 1, "the chair on the left is red": LCS the chair on the left = 5, so
    P = R = F = 5/7. ref 2, "a red chair": LCS red chair = 2, P = 2/7, R = 2/3,
    F = 2 (2/7)(2/3) / (2/7 + 2/3) = 0.4. Best: 5/7.
    """
    rouge = ROUGEL()
    hyp = "The red chair is on the LEFT."
    assert (
        lcs_length(
            ["the", "red", "chair", "is", "on", "the", "left"],
            ["the", "chair", "on", "the", "left", "is", "red"],
        )
        == 5
    )
    stats = rouge.segment_stats(hyp, ["A red chair!", "The chair on the left is red"])
    assert stats == (5 / 7, 5 / 7, 5 / 7, 5, 7, 7)
    assert rouge.score_segment(hyp, ["A red chair"]) == pytest.approx(0.4)
    assert rouge.score_segment("", ["a red chair"]) == 0.0
    # system score: mean of the item F
    assert rouge.corpus_score([hyp, ""], [["a red chair"], ["x"]]) == pytest.approx(0.2)
    assert rouge_score_tokens("Café top-left") == ["caf", "top", "left"]
    assert rouge.level == "item" and rouge.name == "rouge_l"


def test_rouge_l_equals_the_rouge_score_package():
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    refs = _item_major(EN_REFS)
    for stem in (False, True):
        scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=stem)
        ours = ROUGEL(use_stemmer=stem)
        for hyp, item_refs in zip(EN_HYPS, refs, strict=True):
            expected = scorer.score_multi(item_refs, hyp)["rougeL"]
            got = ours.segment_stats(hyp, item_refs)
            assert got[:3] == (expected.fmeasure, expected.precision, expected.recall)
    assert not math.isnan(ROUGEL().corpus_score(EN_HYPS, refs))


# -- through the scoring stage -------------------------------------------------------


def test_scoring_stage_scores_each_subset_at_corpus_level(tiny_campaign):
    """score_outputs with the new metrics: each subset's value is sacreBLEU's
    corpus score of that subset's raw word strings."""
    import sacrebleu

    from stecflow.data.corpus import read_items
    from stecflow.scoring.score import score_outputs
    from stecflow.submissions.outputs import read_outputs

    items = read_items(tiny_campaign / "testset.xml")
    data = (tiny_campaign / "submissions/alpha/sys1/outputs.xml").read_bytes()
    outputs, problems = read_outputs(data, "o.xml", items, ["end_to_end"])
    assert problems == []
    scoring = {
        "bootstrap": {"resamples": 100, "seed": 3},
        "metrics": [{"id": "bleu"}, {"id": "chrf"}, {"id": "ter"}, {"id": "rouge_l"}],
        "text": {"lowercase": True},  # must not reach sacreBLEU's metrics
    }
    item_rows, rows = score_outputs(items, outputs, scoring)
    by_id = {o.item_id: o.word_string for o in outputs}
    for subset, chosen in [
        ("all", items),
        ("people", items[2:]),
        ("-LOC", items[1::2]),
    ]:
        hyps = [by_id[i.id] for i in chosen]
        streams = [[i.references[k].word_string for i in chosen] for k in (0, 1)]
        expected = {
            "bleu": sacrebleu.corpus_bleu(hyps, streams).score,
            "chrf": sacrebleu.corpus_chrf(hyps, streams, word_order=2).score,
            "ter": sacrebleu.corpus_ter(hyps, streams).score,
        }
        for metric, score in expected.items():
            [row] = [r for r in rows if r["metric"] == metric and r["subset"] == subset]
            assert row["value"] == score, (metric, subset)
            assert row["ci_low"] <= row["ci_high"]
    [rouge] = [r for r in rows if r["metric"] == "rouge_l" and r["subset"] == "all"]
    items_f = [
        r["value"]
        for r in item_rows
        if r["metric"] == "rouge_l" and r["reference"] == "*"
    ]
    assert rouge["value"] == pytest.approx(sum(items_f) / len(items_f))
    sig = {r["metric"]: r["signature"] for r in rows}
    assert sig["bleu"].startswith(
        "BLEU|case:mixed|eff:no|tok:13a|smooth:exp|bs:100|seed:3|"
    )
