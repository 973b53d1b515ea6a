"""Languages written without spaces: seed 000's Japanese referring expressions.

Character and morpheme tokenisation of the text metrics (``scoring.text.tokenise``),
expression lengths as seed 000 §5.3.3 counts them, and sacreBLEU's ``char`` and
``zh`` tokenisers as an independent reference where they coincide with ours.
"""

from __future__ import annotations

import jsonschema
import pytest
import yaml
from sacrebleu.metrics import BLEU

from stecflow.metrics import TextNormaliser, get_metric
from stecflow.metrics.text import expression_length, is_cjk_char
from stecflow.scoring.specs import build_metrics, metric_specs
from tests.conftest import REPO, TINY

TEXT_METRICS = (
    "bleu3",
    "nist5",
    "rouge2",
    "rouge_su4",
    "se",
    "se_norm",
    "seb",
    "string_accuracy",
)


def chars(text, **options):
    return TextNormaliser(tokenise="characters", **options).tokens(text)


def test_characters_split_cjk_and_keep_latin_runs_and_digits_whole():
    assert chars("その平行四辺形") == ("そ", "の", "平", "行", "四", "辺", "形")
    assert chars("右のABCブロック、3つ目。") == (
        *("右", "の", "abc", "ブ", "ロ", "ッ", "ク", "3", "つ", "目"),
    )
    # The katakana long-vowel mark and half-width katakana are characters too.
    assert chars("ハート ｶﾅ") == ("ハ", "ー", "ト", "ｶ", "ﾅ")
    # Japanese punctuation follows the punctuation option, like any other.
    assert chars("それ。", punctuation="split") == ("そ", "れ", "。")
    assert chars("それ。", punctuation="keep") == ("そ", "れ", "。")
    # Text without CJK is tokenised exactly as in words mode.
    english = "The man's top-left chair."
    assert chars(english) == TextNormaliser().tokens(english)
    assert chars("") == ()


def test_words_mode_leaves_unspaced_japanese_as_one_token():
    assert TextNormaliser().tokens("その平行四辺形を") == ("その平行四辺形を",)


def test_cjk_character_classes():
    assert [is_cjk_char(c) for c in "漢ひカ々ー𠀋"] == [True] * 6
    assert [is_cjk_char(c) for c in "a1。、「한"] == [False] * 6


def test_invalid_tokenise_value():
    with pytest.raises(ValueError, match="option tokenise must be one of"):
        TextNormaliser(tokenise="chars")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="option tokenise must be one of"):
        get_metric("se", tokenise="chars")


def test_expression_length_follows_seed_000():
    # Seed 000 §5.3.3: the DP sore (それ) is "two Japanese characters"; the
    # unique name heikousihenkei (平行四辺形, "the parallelogram") has five.
    assert expression_length("それ", "characters") == 2
    assert expression_length("平行四辺形", "characters") == 5
    # Its measure: how many characters longer the original is than the DP.
    originals = ["平行四辺形", "右の大きい三角形", "小さい三角形。"]
    longer = [expression_length(o, "characters") - 2 for o in originals]
    assert longer == [3, 6, 4]
    # Words: whitespace words, or CJK characters with Latin runs as one unit.
    assert expression_length("the small triangle, left") == 4
    assert expression_length("the small triangle", "characters") == 16
    assert expression_length("ABCの形", tokenise="characters") == 3
    assert expression_length("") == expression_length("", "characters") == 0
    with pytest.raises(ValueError, match="unit"):
        expression_length("それ", "morae")  # type: ignore[arg-type]


def test_string_metrics_on_japanese_by_hand():
    hyp, ref = "その三角形", "その大きい三角形"
    # Words: one token each, so one substitution (cost 2) and SSA 1 - 1/1 = 0.
    assert get_metric("se").score_segment(hyp, [ref]) == 2
    assert get_metric("seb").score_segment(hyp, [ref]) == 0.0
    # Characters: 5 against 8, three insertions (大きい).
    assert get_metric("se", tokenise="characters").score_segment(hyp, [ref]) == 3
    assert get_metric("seb", tokenise="characters").score_segment(
        hyp, [ref]
    ) == pytest.approx(1 - 3 / 8)
    assert get_metric("se_norm", tokenise="characters").score_segment(
        hyp, [ref]
    ) == pytest.approx(3 / 13)
    sa = get_metric("string_accuracy", tokenise="characters")
    assert sa.score_segment("その三角形。", ["その 三角形"]) == 1.0
    # ROUGE-2 recall: bigrams of the reference (7) found in the output:
    # その, の三 is not, 三角, 角形 -> 3 of 7.
    rouge = get_metric("rouge2", tokenise="characters")
    assert rouge.score_segment(hyp, [ref]) == pytest.approx(3 / 7)


@pytest.mark.parametrize("name", TEXT_METRICS)
def test_tokenise_is_an_option_that_changes_the_signature(name):
    words = get_metric(name)
    characters = get_metric(name, tokenise="characters")
    assert "tokenise" in words.option_names()
    assert words.options()["tokenise"] == "words"
    assert characters.options()["tokenise"] == "characters"
    assert "tokens:" not in words.signature()
    assert "|tokens:characters|" in characters.signature()
    assert characters.signature().replace("|tokens:characters", "") == (
        words.signature()
    )
    assert "|tokens:morphemes|" in get_metric(name, tokenise="morphemes").signature()


def test_default_signatures_are_unchanged():
    assert get_metric("seb").signature().split("|version")[0] == (
        "SEB|refs:mean|case:lc|punct:strip"
    )
    assert get_metric("bleu3", tokenise="characters").signature({"bs": 10}).split(
        "|version"
    )[0] == (
        "BLEU-3|smooth:exp|eff:no|seg_eff:yes|case:lc|punct:strip|tok:none"
        "|tokens:characters|bs:10"
    )


def test_rouge155_preprocessing_refuses_other_units():
    with pytest.raises(ValueError, match="rouge155_preprocess"):
        get_metric("rouge2", rouge155_preprocess=True, tokenise="characters")
    assert get_metric("rouge2", rouge155_preprocess=True).options()["tokenise"] == (
        "words"
    )


def test_scoring_text_tokenise_reaches_every_text_metric():
    scoring = {
        "text": {"tokenise": "characters"},
        "metrics": [{"id": n} for n in ("se", "bleu3", "dice")],
    }
    built = dict((spec.id, m) for spec, m in build_metrics(metric_specs(scoring)))
    assert built["se"].tokenise == built["bleu3"].tokenise == "characters"
    assert "tokenise" not in built["dice"].options()
    assert "|tokens:characters|" in built["bleu3"].signature()


def test_config_schema_accepts_the_tokenise_key():
    schema = yaml.safe_load(
        (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text()
    )
    config = yaml.safe_load((TINY / "config" / "config.yaml").read_text())
    config.setdefault("scoring", {}).setdefault("text", {})["tokenise"] = "characters"
    jsonschema.Draft202012Validator(schema).validate(config)
    config["scoring"]["text"]["tokenise"] = "chars"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(config)


# -- sacreBLEU as an independent reference -----------------------------------------

#: Japanese in Han and kana only, without spaces or punctuation: here our
#: characters mode and sacreBLEU's ``char`` tokeniser give the same tokens.
JA_HYPS = ["その平行四辺形", "右の大きい三角形", "それ", "小さい三角形を回して"]
JA_REFS = [
    ["平行四辺形", "その平行四辺形を"],
    ["右下の大きい三角形", "大きい三角形"],
    ["小さい三角形", "左の小さい三角形"],
    ["小さい三角形を右に回して", "それを回して"],
]


def _streams(refs):
    return [list(stream) for stream in zip(*refs, strict=True)]


def test_characters_equal_sacrebleu_char_on_han_and_kana():
    from sacrebleu.tokenizers.tokenizer_char import TokenizerChar

    for text in JA_HYPS + [r for refs in JA_REFS for r in refs]:
        assert chars(text) == tuple(TokenizerChar()(text).split())
    ours = get_metric("bleu3", tokenise="characters")
    theirs = BLEU(max_ngram_order=3, tokenize="char").corpus_score(
        JA_HYPS, _streams(JA_REFS)
    )
    stats = ours.corpus_stats(JA_HYPS, JA_REFS)
    summed = [sum(col) for col in zip(*stats, strict=True)]
    assert summed[2:5] == theirs.counts and summed[5:8] == theirs.totals
    assert ours.aggregate(stats) == pytest.approx(theirs.score, abs=1e-9)
    # Lengths by hand: 7 + 8 + 2 + 10 characters; closest references 8, 9, 6, 12.
    assert summed[:2] == [27, 35] == [theirs.sys_len, theirs.ref_len]


#: Han with Latin words and digits, no kana: here characters mode equals
#: sacreBLEU's ``zh`` tokeniser (which does not split kana).
ZH_HYPS = ["红色 Chair 在左边", "大三角形 2 号", "平行四边形"]
ZH_REFS = [["红色的 chair 在左边"], ["大的三角形 2 号"], ["那个平行四边形"]]


def test_characters_equal_sacrebleu_zh_on_han_and_latin():
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    for text in ZH_HYPS + [r for refs in ZH_REFS for r in refs]:
        assert chars(text) == tuple(TokenizerZh()(text.lower()).split())
    ours = get_metric("bleu3", tokenise="characters").corpus_score(ZH_HYPS, ZH_REFS)
    theirs = BLEU(max_ngram_order=3, tokenize="zh", lowercase=True).corpus_score(
        ZH_HYPS, _streams(ZH_REFS)
    )
    assert ours == pytest.approx(theirs.score, abs=1e-9)


def test_where_we_differ_from_sacrebleu_char_and_zh():
    from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    text = "その三角形をabc"
    # zh leaves a kana run (and the Latin run stuck to it) as one token,
    assert TokenizerZh()(text).split() == ["その", "三", "角", "形", "をabc"]
    # char splits the Latin run into letters,
    assert TokenizerChar()(text).split()[-3:] == ["a", "b", "c"]
    # we split every Han and kana character and keep the Latin run whole.
    assert chars(text) == ("そ", "の", "三", "角", "形", "を", "abc")


# -- morphemes (optional: janome) --------------------------------------------------


def test_morphemes_with_janome():
    pytest.importorskip(
        "janome", reason="janome is not installed (optional extra stecflow[japanese])"
    )
    norm = TextNormaliser(tokenise="morphemes")
    assert norm.tokens("その平行四辺形を、右に回して。") == (
        *("その", "平行四辺形", "を", "右", "に", "回し", "て"),
    )
    se = get_metric("se", tokenise="morphemes")
    assert se.score_segment("その三角形", ["その大きい三角形"]) == 1
    assert expression_length("その平行四辺形を", tokenise="morphemes") == 3


def test_morphemes_without_janome_names_the_extra(monkeypatch):
    import sys

    from stecflow.metrics import text

    text._janome.cache_clear()
    text._split_tokens.cache_clear()
    monkeypatch.setitem(sys.modules, "janome", None)
    monkeypatch.setitem(sys.modules, "janome.tokenizer", None)
    try:
        with pytest.raises(ImportError, match=r"stecflow\[japanese\]"):
            TextNormaliser(tokenise="morphemes").tokens("その三角形")
    finally:
        text._janome.cache_clear()
        text._split_tokens.cache_clear()
