"""The analysis kinds of issue #18 run in the workflow, system properties included.

The tiny campaign declares one system property; its two systems give it in
system.yaml; the config asks for a paired t-test of the rating study, a MANOVA of
two metrics on the property, and the means by property. Each result equals the
library's on the files the workflow wrote.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from stecflow.core.io import read_tsv
from stecflow.stats.manova import manova
from stecflow.stats.ttests import paired_ttest
from tests.workflow.helpers import snakemake

pytestmark = pytest.mark.workflow

ANALYSES = [
    {
        "id": "adequacy-ttest",
        "test": "ttest",
        "source": "ratings",
        "measure": "adequacy",
        "pair_by": "item",
    },
    {
        "id": "metrics-manova",
        "test": "manova",
        "measures": ["dice", "se"],
        "factors": ["incremental"],
    },
    {
        "id": "adequacy-by-property",
        "test": "property_means",
        "source": "ratings",
        "measures": ["adequacy", "dice"],
    },
    {
        "id": "adequacy-mixed",
        "test": "mixed",
        "source": "ratings",
        "measure": "adequacy",
        "factors": ["system"],
    },
]


def test_ttest_manova_and_means_by_property(tiny_campaign):
    config_path = tiny_campaign / "config" / "config.yaml"
    config = yaml.safe_load(config_path.read_text())
    config["submissions"]["properties"] = {"incremental": "boolean"}
    config["statistics"]["analyses"] = ANALYSES
    config["statistics"]["digits"] = 3
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))
    for team, system, value in (("alpha", "sys1", "true"), ("beta", "sys2", "false")):
        path = tiny_campaign / "submissions" / team / system / "system.yaml"
        path.write_text(path.read_text() + f"properties:\n  incremental: {value}\n")

    snakemake(tiny_campaign)
    results = tiny_campaign / "results"
    record = json.loads((results / "validation" / "alpha" / "sys1.json").read_text())
    assert record["properties"] == {"incremental": True}

    # the paired t-test equals the library's on the analysed trials
    trials = pd.read_csv(results / "judgments" / "ratings.tsv", sep="\t", dtype=str)
    trials = trials[trials["in_analysis"] == "true"].copy()
    trials["adequacy"] = trials["adequacy"].astype(float)
    trials["label"] = trials["system"].str.split("/").str[1]
    expected = paired_ttest(trials, "adequacy", "label", "item").iloc[0]
    (row,) = read_tsv(results / "stats" / "adequacy-ttest.tsv")
    assert (row["level_a"], row["level_b"]) == ("sys1", "sys2")
    assert float(row["t"]) == pytest.approx(float(expected["t"]), rel=1e-9)
    assert float(row["p_val"]) == pytest.approx(float(expected["p_val"]), rel=1e-9)
    stats = json.loads((results / "stats" / "adequacy-ttest.json").read_text())
    assert stats["settings"]["digits"] == 3
    assert stats["text"][0]["text"].startswith(f"t(3) = {float(expected['t']):.3f}")

    # the MANOVA on the property equals the library's on the item scores
    items = pd.read_csv(results / "scores" / "items.tsv", sep="\t", dtype=str)
    wide = items.pivot_table(
        index=["label", "item"], columns="metric", values="value", aggfunc="first"
    ).reset_index()
    wide[["dice", "se"]] = wide[["dice", "se"]].astype(float)
    wide["incremental"] = wide["label"].map({"sys1": "true", "sys2": "false"})
    expected = manova(wide, ["dice", "se"], ["incremental"]).set_index("test")
    rows = {r["test"]: r for r in read_tsv(results / "stats" / "metrics-manova.tsv")}
    assert rows["pillai"]["source"] == "incremental"
    assert float(rows["pillai"]["f"]) == pytest.approx(
        float(expected.loc["pillai", "f"]), rel=1e-9
    )
    mv = json.loads((results / "stats" / "metrics-manova.json").read_text())
    assert [f["dv"] for f in mv["followups"]] == ["dice", "se"]

    # means by property: adequacy over the trials, dice joined by system and item
    table = {
        (r["measure"], r["level"]): r
        for r in read_tsv(results / "stats" / "adequacy-by-property.tsv")
    }
    for level, label in (("true", "sys1"), ("false", "sys2")):
        mine = trials[trials["label"] == label]
        assert float(table[("adequacy", level)]["mean"]) == pytest.approx(
            mine["adequacy"].mean(), rel=1e-9
        )
        dice = wide.set_index(["label", "item"])["dice"]
        joined = [dice[(label, item)] for item in mine["item"]]
        assert float(table[("dice", level)]["mean"]) == pytest.approx(
            sum(joined) / len(joined), rel=1e-9
        )
    # the report shows every analysis
    report = (results / "report" / "index.html").read_text()
    for analysis in ANALYSES:
        assert f"stats-{analysis['id']}-section" in report
    assert "Paired t-tests of Adequacy between the levels of SYSTEM" in report
    assert stats["text"][0]["text"] in report
    assert "Multivariate tests of" in report and "Univariate follow-up" in report
    assert "incremental: true" in report and "Means by system property" in report

    # the mixed model equals the library's on the analysed trials
    from stecflow.stats.mixed import mixed_model

    fit = mixed_model(trials, "adequacy", "label", "subject", "item")
    fit = fit[fit["effect"] == "fixed"].set_index("term")
    compared = 0
    for row in read_tsv(results / "stats" / "adequacy-mixed.tsv"):
        if row["effect"] == "fixed":
            term = row["term"].split("/")[-1]
            assert float(row["estimate"]) == pytest.approx(
                float(fit.loc[term, "estimate"]), rel=1e-9
            )
            compared += 1
    assert compared == 2
    assert "on Satterthwaite&#39;s degrees of freedom (as lmerTest)" in report
