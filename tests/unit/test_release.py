from __future__ import annotations

import hashlib
import zipfile

import pytest
import yaml

from stecflow.core.io import parse_tsv, write_tsv
from stecflow.data.corpus import read_items
from stecflow.release.archive import (
    build_release,
    pseudonym,
    pseudonym_order,
    pseudonymise_table,
)
from stecflow.submissions.report import write_validation
from stecflow.submissions.validation import validate_submission
from tests.conftest import REPO

TASKS = ["end_to_end", "attribute_selection"]


@pytest.fixture
def inputs(tiny_campaign, tmp_path):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    items = read_items(tiny_campaign / "testset.xml")
    records = []
    for team, system in [("alpha", "sys1"), ("beta", "sys2"), ("gamma", "broken")]:
        record = validate_submission(
            tiny_campaign / "submissions" / team / system,
            items,
            team=team,
            system=system,
            campaign_tasks=TASKS,
        )
        path = tmp_path / f"{team}.json"
        write_validation(record, path, tmp_path / f"{team}.md")
        records.append(path)
    # beta withholds consent
    meta = tiny_campaign / "submissions" / "beta" / "sys2" / "system.yaml"
    meta.write_text(
        meta.read_text().replace("release_consent: true", "release_consent: false")
    )
    record = validate_submission(
        tiny_campaign / "submissions" / "beta" / "sys2",
        items,
        team="beta",
        system="sys2",
        campaign_tasks=TASKS,
    )
    write_validation(record, records[1], tmp_path / "beta.md")
    judgments = tmp_path / "rating.tsv"
    write_tsv(
        [
            {
                "study": "rating",
                "participant": "PROLIFIC-123",
                "session": "s-1",
                "item": "t1",
                "adequacy": 70,
            },
            {
                "study": "rating",
                "participant": "PROLIFIC-456",
                "session": "s-2",
                "item": "t1",
                "adequacy": 40,
            },
        ],
        ["study", "participant", "session", "item", "adequacy"],
        judgments,
    )
    scores = tmp_path / "systems.tsv"
    scores.write_text("team\tsystem\tmetric\tvalue\nalpha\tsys1\tse\t2.375\n")
    return config, records, tiny_campaign, judgments, scores


def build(inputs, out):
    config, records, campaign, judgments, scores = inputs
    return build_release(
        config,
        validation_records=records,
        submissions_root=campaign / "submissions",
        files={"scores/systems.tsv": scores},
        judgments=[judgments],
        testset=campaign / "testset.xml",
        out_zip=out,
    )


def test_archive_is_byte_identical_when_rebuilt(inputs, tmp_path):
    build(inputs, tmp_path / "a.zip")
    build(inputs, tmp_path / "b.zip")
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()


def test_entries_sorted_fixed_time_and_permissions(inputs, tmp_path):
    build(inputs, tmp_path / "a.zip")
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        infos = archive.infolist()
        names = [i.filename for i in infos]
        assert names == sorted(names)
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
        assert {i.external_attr >> 16 for i in infos} == {0o100644}
        for required in (
            "MANIFEST.tsv",
            "DATASHEET.md",
            "CITATION.cff",
            "LICENCE-NOTES.md",
            "README.md",
            "config.json",
            "data/testset.xml",
        ):
            assert required in names
        lines = archive.read("MANIFEST.tsv").decode().splitlines()
        manifest = [
            dict(zip(lines[0].split("\t"), line.split("\t"), strict=True))
            for line in lines[1:]
        ]
        for row in manifest:
            data = archive.read(row["path"])
            assert row["sha256"] == hashlib.sha256(data).hexdigest() and int(
                row["bytes"]
            ) == len(data)
        assert {r["path"] for r in manifest} == set(names) - {"MANIFEST.tsv"}


def test_only_consented_accepted_outputs_without_contact(inputs, tmp_path):
    summary = build(inputs, tmp_path / "a.zip")
    assert summary["consented"] == ["alpha/sys1"]
    assert summary["withheld"] == ["beta/sys2", "gamma/broken"]
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        meta = archive.read("submissions/alpha/sys1/system.yaml").decode()
        assert "contact" not in meta and "team: alpha" in meta
        assert not [n for n in archive.namelist() if n.startswith("submissions/beta")]


def test_participants_are_pseudonymised(inputs, tmp_path):
    build(inputs, tmp_path / "a.zip")
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        text = archive.read("judgments/rating.tsv").decode()
    assert "PROLIFIC" not in text and "s-1" not in text
    # the rank among the release's IDs, then the keyed pseudonym (HMAC)
    assert pseudonym("PROLIFIC-123", "demo-release-key", "P1-") in text
    assert pseudonym("PROLIFIC-456", "demo-release-key", "P2-") in text
    assert "\tS1-" in text and "\tS2-" in text
    # pseudonyms sort as the IDs they replace (analyses ordering by them agree)
    ids = ["b", "a", "c", "a10", "a9"]
    order = pseudonym_order([[{"participant": v} for v in ids]])
    rows, _ = pseudonymise_table([{"participant": v} for v in ids], "k", order=order)
    released = [r["participant"] for r in rows]
    assert sorted(released) == [released[ids.index(v)] for v in sorted(ids)]
    assert released[ids.index("a")] == "P1-" + pseudonym("a", "k")[1:]
    rows, _ = pseudonymise_table(
        [{"participant": "x", "session": "y"}], "k", keep=["session"]
    )
    assert rows[0]["session"] == "y" and rows[0]["participant"].startswith("P")


def test_datasheet_and_citation(inputs, tmp_path):
    build(inputs, tmp_path / "a.zip")
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        citation = archive.read("CITATION.cff").decode()
        datasheet = archive.read("DATASHEET.md").decode()
    assert "cff-version: 1.2.0" in citation and 'license: "CC-BY-4.0"' in citation
    assert "Human Evaluation Datasheet" in datasheet and "5.1 Approval" in datasheet


def test_outside_text_in_released_tables_is_safe_and_unchanged(inputs, tmp_path):
    config, records, campaign, _, scores = inputs
    columns = ["participant", "session", "condition", "value", "correction_reason"]
    reason = "mis-click\u2028(lab log)\x07"
    judgments = tmp_path / "j" / "rating.tsv"
    write_tsv(
        [
            {
                "participant": "+cmd",
                "session": "=1+1",
                "condition": "+LOC",
                "value": -0.37,
                "correction_reason": reason,
            }
        ],
        columns,
        judgments,
    )
    config = {**config, "release": {**config["release"], "keep_columns": columns}}
    build_release(
        config,
        validation_records=records,
        submissions_root=campaign / "submissions",
        files={"scores/systems.tsv": scores},
        judgments=[judgments],
        out_zip=tmp_path / "a.zip",
    )
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        data = archive.read("judgments/rating.tsv")
    # Read and written again on the way in: no second quote, nothing lost.
    assert data == judgments.read_bytes()
    assert data.decode().split("\n")[1].split("\t") == [
        "'+cmd",
        "'=1+1",
        "+LOC",
        "-0.37",
        "mis-click\\u2028(lab log)\\x07",
    ]
    [row] = parse_tsv(data.decode())
    assert (row["participant"], row["session"]) == ("+cmd", "=1+1")
    assert row["correction_reason"] == reason


@pytest.mark.parametrize(
    "text",
    [
        "team: alpha\ncontact: >\n  Jo Bloggs,\n  jo@example.org\nprimary: true\n",
        "team: alpha\ncontact:\n  jo@example.org\nprimary: true\n",
        "{team: alpha, contact: jo@example.org, primary: true}\n",
    ],
)
def test_contact_over_several_lines_or_in_flow_style_is_withheld(text):
    from stecflow.release.archive import _without_contact

    released = _without_contact(text.encode()).decode()
    assert "jo@example.org" not in released and "Bloggs" not in released
    assert yaml.safe_load(released) == {"team": "alpha", "primary": True}
