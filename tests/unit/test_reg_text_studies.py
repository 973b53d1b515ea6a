"""The text kinds (``text_rating``, ``text_preference``) on a REG test set (issue
#45, seed 001 §6): the item's domain shown as its grid in words with the target
marked, the systems' WORD-STRINGs as the texts; systems with attribute sets only
refused with a message naming the study, the system and the fix; the seeded
item sample that lets a pair design fit the test set.
"""

from __future__ import annotations

import json
import re

import pytest

from stecflow.core.errors import ConfigError
from stecflow.data.corpus import read_items
from stecflow.judgments.text_study import reg_qualities
from stecflow.studies.setup import (
    build_stimuli,
    check_studies,
    design_study,
    sample_items,
    study_specs,
)
from stecflow.tasks.reg.text_input import domain_input
from tests.unit.test_studies import asgre_shaped

SUBMISSIONS = [("alpha", "sys1"), ("beta", "sys2")]
RATING = {
    "id": "likert",
    "task": "text_rating",
    "systems": ["alpha/sys1", "beta/sys2"],
    "subjects": 2,
    "seed": 1,
    "simulate": True,
    "criteria": [
        {
            "id": "adequacy",
            "question": "How clear is this description?",
            "points": 5,
            "anchors": ["Very unclear", "Very clear"],
        }
    ],
}
PREFERENCE = {
    "id": "prefer",
    "task": "text_preference",
    "systems": ["alpha/sys1", "beta/sys2"],
    "subjects": 2,
    "seed": 1,
    "simulate": True,
    "criteria": [{"id": "adequacy", "question": "Which is clearer?"}],
}


def _config(campaign, study, data_format="tuna"):
    return {
        "data": {"format": data_format},
        "submissions": {"root": str(campaign / "submissions")},
        "studies": [study],
    }


@pytest.mark.parametrize("study", [RATING, PREFERENCE], ids=["rating", "preference"])
def test_text_kinds_take_a_reg_test_set(tiny_campaign, study):
    check_studies(_config(tiny_campaign, study), SUBMISSIONS)
    check_studies(_config(tiny_campaign, study, "b5-ref"), SUBMISSIONS)


@pytest.mark.parametrize("study", [RATING, PREFERENCE], ids=["rating", "preference"])
def test_systems_with_attribute_sets_only_are_refused(tiny_campaign, study):
    campaign = asgre_shaped(tiny_campaign)
    with pytest.raises(ConfigError) as info:
        check_studies(_config(campaign, study), SUBMISSIONS)
    assert info.value.field == "studies[0].systems"
    assert str(info.value) == (
        f"studies[0].systems: study {study['id']!r} would show participants empty"
        " descriptions: alpha/sys1 outputs attribute sets only (its tasks have no"
        " realisation or end_to_end); set realise: template to show them"
        " realised, as ASGRE did"
    )


def test_a_dialogue_test_set_is_still_refused(tiny_campaign):
    with pytest.raises(ConfigError) as info:
        check_studies(_config(tiny_campaign, RATING, "dialogue"), SUBMISSIONS)
    assert str(info.value) == (
        "studies[0].task: study 'likert': a text_rating study needs a text test"
        " set (data.format: text) or REG items (tuna, b5-ref); a dialogue test set"
        " is studied with task: situated_identification"
    )


def _built(campaign, tmp_path, study):
    [spec] = study_specs({"studies": [study]})
    testset = campaign / "testset.xml"
    out = tmp_path / spec["id"]
    design_study(
        spec, testset, None, out / "design.tsv", out / "balance.tsv", out / "d.json"
    )
    dirs = {s: campaign / "submissions" / s for s in spec["systems"]}
    tasks = ["end_to_end", "attribute_selection"]
    build_stimuli(
        spec, out / "design.tsv", testset, None, dirs, None, out / "web",
        out / "dmdx", tasks,
    )  # fmt: skip
    return json.loads((out / "stimuli-key.json").read_text()), testset


def _word_strings(campaign, system):
    text = (campaign / "submissions" / system / "outputs.xml").read_text()
    return dict(re.findall(r'<TRIAL ID="([^"]+)">.*?<WORD-STRING>([^<]*)<', text, re.S))


def test_a_rating_trial_shows_the_domain_in_words_and_the_word_string(
    tiny_campaign, tmp_path
):
    key, testset = _built(tiny_campaign, tmp_path, RATING)
    items = {i.id: i for i in read_items(testset)}
    assert sorted(key["inputs"]) == sorted(items)
    for item_id, shown in key["inputs"].items():
        text = json.dumps(shown)
        assert shown["kind"] == "html"
        assert text.count("TARGET: ") == 1  # one target, marked
        # the grid in words is the one domain_input gives (the study's seed)
        snippet = domain_input(items[item_id], 1)["html"]
        target = re.search(r"TARGET: ([^<]+)<", snippet).group(1)
        assert f"TARGET: {target}" in text
    words = {s: _word_strings(tiny_campaign, s) for s in RATING["systems"]}
    trials = [t for lst in key["lists"] for t in lst["trials"]]
    assert len(trials) == 2 * len(items)
    for trial in trials:
        assert trial["output"] == words[trial["system"]][trial["item"]]
    assert key["criteria"][0]["anchors"] == ["Very unclear", "Very clear"]


def test_a_preference_trial_shows_two_word_strings(tiny_campaign, tmp_path):
    key, _ = _built(tiny_campaign, tmp_path, PREFERENCE)
    words = {s: _word_strings(tiny_campaign, s) for s in PREFERENCE["systems"]}
    trials = [t for lst in key["lists"] for t in lst["trials"]]
    assert trials
    for trial in trials:
        assert {trial["system_left"], trial["system_right"]} == set(words)
        assert trial["output_left"] == words[trial["system_left"]][trial["item"]]
        assert trial["output_right"] == words[trial["system_right"]][trial["item"]]


def test_the_word_string_missing_at_build_time_is_refused(tiny_campaign, tmp_path):
    # check_studies reads system.yaml; the outputs themselves are checked again
    # when the stimuli are built (a system.yaml can claim end_to_end wrongly)
    folder = tiny_campaign / "submissions" / "alpha" / "sys1"
    outputs = (folder / "outputs.xml").read_text()
    (folder / "outputs.xml").write_text(
        re.sub(r"\s*<WORD-STRING>[^<]*</WORD-STRING>", "", outputs, count=1)
    )
    with pytest.raises(ConfigError) as info:
        _built(tiny_campaign, tmp_path, RATING)
    assert "study 'likert' would show participants an empty description:" in str(
        info.value
    )
    assert "alpha/sys1 has no WORD-STRING for item" in str(info.value)


def test_the_simulated_evaluators_rate_the_rating_studys_latent_adequacy(
    tiny_campaign,
):
    from stecflow.judgments.lexicon import Lexicon
    from stecflow.judgments.participant import latent_ratings

    items = read_items(tiny_campaign / "testset.xml")
    shown = {s: _word_strings(tiny_campaign, s) for s in RATING["systems"]}
    qualities = reg_qualities(items, shown)
    assert len(qualities) == 2 * len(items)
    lexicon = Lexicon(sorted(items, key=lambda i: i.id))
    for (system, item_id), q in qualities.items():
        item = next(i for i in items if i.id == item_id)
        adequacy, fluency = latent_ratings(shown[system][item_id], item, lexicon)
        assert (q.quality, q.fluency) == (adequacy / 100, fluency / 100)
        assert 0 < q.quality <= 1


def test_studies_with_one_seed_sample_the_same_items_from_each_subdomain(
    tiny_campaign,
):
    items = read_items(tiny_campaign / "testset.xml")
    first = sample_items(items, 3, 7, "a")
    assert [i.id for i in first] == [i.id for i in sample_items(items, 3, 7, "b")]
    assert len(first) == 3 and len({i.subdomain for i in first}) == len(
        {i.subdomain for i in items}
    )
    with pytest.raises(ConfigError) as info:
        sample_items(items, len(items) + 1, 7, "a")
    assert str(info.value) == (
        f"studies[a].sample_items: {len(items) + 1} items asked for, but the test"
        f" set (after subdomains) has {len(items)}"
    )
