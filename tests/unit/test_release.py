from __future__ import annotations

import hashlib
import json
import zipfile
import zlib

import pytest
import yaml
from zlib_ng import zlib_ng

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


def test_archive_entries_equal_the_files_and_a_failure_leaves_nothing(
    inputs, tmp_path, monkeypatch
):
    """Files are streamed into the archive: each entry is its file's bytes,
    deflated by zlib-ng at DEFLATE_LEVEL; a write that fails leaves no archive and
    no partial file."""
    from stecflow.release import archive as module

    testset = inputs[2] / "testset.xml"
    build(inputs, tmp_path / "a.zip")
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        assert archive.read("data/testset.xml") == testset.read_bytes()
        assert archive.testzip() is None
    entries = {"b.txt": b"x" * 100_000, "a.txt": testset}
    module._write_zip(entries, tmp_path / "small.zip")
    with zipfile.ZipFile(tmp_path / "small.zip") as archive:
        assert archive.namelist() == ["a.txt", "b.txt"]
        assert archive.read("a.txt") == testset.read_bytes()
        deflated = zlib_ng.compressobj(module.DEFLATE_LEVEL, zlib_ng.DEFLATED, -15)
        data = testset.read_bytes()
        packed = deflated.compress(data) + deflated.flush()
        info = archive.getinfo("a.txt")
        assert info.compress_size == len(packed)
        with open(tmp_path / "small.zip", "rb") as raw:
            raw.seek(info.header_offset + 26)
            skip = int.from_bytes(raw.read(2), "little")
            skip += int.from_bytes(raw.read(2), "little")
            raw.seek(skip, 1)
            assert raw.read(info.compress_size) == packed  # zlib-ng's bytes
        plain = zlib.compressobj(6, zlib.DEFLATED, -15)
        assert len(plain.compress(data) + plain.flush()) != len(packed)

    def broken(entry):
        yield b"start"
        raise OSError("disk full")

    monkeypatch.setattr(module, "_chunks", broken)
    with pytest.raises(OSError):
        module._write_zip(entries, tmp_path / "failed.zip")
    assert sorted(p.name for p in tmp_path.glob("failed*")) == []


def build_with_report(inputs, out, report, **kwargs):
    config, records, campaign, judgments, scores = inputs
    return build_release(
        config,
        validation_records=records,
        submissions_root=campaign / "submissions",
        files={"scores/systems.tsv": scores, **report},
        judgments=[judgments],
        testset=campaign / "testset.xml",
        out_zip=out,
        **kwargs,
    )


def test_packed_while_the_report_renders_gives_the_same_bytes(inputs, tmp_path):
    """The workflow packs everything but the statistics, the report and the
    results made after the judgments, then adds them and the manifest to a copy
    (finish_release): the same bytes as in one call."""
    from stecflow.release.archive import finish_release

    report = tmp_path / "index.html"
    report.write_text("<!DOCTYPE html><title>r</title>" + "x" * 50_000)
    anova = tmp_path / "se-anova.tsv"
    anova.write_text("term\tF\nsystem\t4.2\n")
    significance = tmp_path / "significance.tsv"
    significance.write_text("metric\tsystem_a\tsystem_b\tp\nse\ta\tb\t0.5\n")
    last = {
        "report/index.html": report,
        "scores/significance.tsv": significance,
        "stats/se-anova.tsv": anova,
    }
    build_with_report(
        inputs,
        tmp_path / "one.zip",
        last,
        out_manifest=tmp_path / "one.tsv",
    )
    packed = build_with_report(
        inputs,
        tmp_path / "packed.zip",
        {},
        out_manifest=tmp_path / "packed.tsv",
        finish=False,
    )
    with zipfile.ZipFile(tmp_path / "packed.zip") as archive:
        assert archive.namelist() == packed["entries"]
        assert "MANIFEST.tsv" not in packed["entries"]
    finish_release(
        tmp_path / "packed.zip",
        tmp_path / "packed.tsv",
        last,
        tmp_path / "two.zip",
        tmp_path / "two.tsv",
    )
    one = (tmp_path / "one.zip").read_bytes()
    assert one == (tmp_path / "two.zip").read_bytes()
    assert (tmp_path / "one.tsv").read_bytes() == (tmp_path / "two.tsv").read_bytes()
    with zipfile.ZipFile(tmp_path / "two.zip") as archive:
        assert archive.testzip() is None
        names = archive.namelist()
        assert names == [*packed["entries"], "MANIFEST.tsv", *last]
        assert archive.read("report/index.html") == report.read_bytes()
        listed = archive.read("MANIFEST.tsv").decode().splitlines()
    assert [line.split("\t")[0] for line in listed[1:]] == sorted(
        n for n in names if n != "MANIFEST.tsv"
    )
    with pytest.raises(ValueError, match="already holds report/index.html"):
        finish_release(
            tmp_path / "two.zip",
            tmp_path / "two.tsv",
            {"report/index.html": report},
            tmp_path / "three.zip",
        )
    with pytest.raises(
        ValueError,
        match="packs the entries but those under judgments/agreement/, report/,"
        " scores/clusters.tsv, scores/significance.tsv, stats/",
    ):
        build_with_report(
            inputs,
            tmp_path / "four.zip",
            {"stats/se-anova.tsv": anova},
            out_manifest=tmp_path / "four.tsv",
            finish=False,
        )
    assert not list(tmp_path.glob("three*")) and not list(tmp_path.glob("four*"))


def test_entries_sorted_fixed_time_and_permissions(inputs, tmp_path):
    build(inputs, tmp_path / "a.zip")
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        infos = archive.infolist()
        names = [i.filename for i in infos]
        # sorted, but for the manifest (and the report) written last
        assert names == sorted(set(names) - {"MANIFEST.tsv"}) + ["MANIFEST.tsv"]
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
    assert "Human Evaluation Datasheet" in datasheet
    assert "5.1 Ethics approval" in datasheet


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
    # no study's consent text: the shipped one promises codes instead of IDs
    config = {
        **config,
        "studies": [],
        "release": {**config["release"], "keep_columns": columns},
    }
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
        "\ufeffteam: alpha\n# contact below\ncontact: 'jo@example.org'\nprimary: true",
        'team: alpha\n"contact": "Jo Bloggs\\n jo@example.org"\nprimary: true\n',
        "team: alpha\ncontact:\n  - Jo Bloggs\n  - jo@example.org\nprimary: true\n",
    ],
)
def test_contact_over_several_lines_or_in_flow_style_is_withheld(text, monkeypatch):
    """Also the same lines cut with libyaml's parser and with PyYAML's own."""
    from stecflow.release import archive

    released = archive._without_contact(text.encode()).decode()
    assert "jo@example.org" not in released and "Bloggs" not in released
    assert yaml.safe_load(released) == {"team": "alpha", "primary": True}
    if hasattr(yaml, "CSafeLoader"):
        monkeypatch.setattr(yaml, "CSafeLoader", yaml.SafeLoader)
        assert archive._without_contact(text.encode()).decode() == released


def test_no_external_id_in_any_released_file(inputs, tmp_path, monkeypatch):
    """Crowdsourcing IDs (participant and session) and the server's session IDs
    appear in no released file: neither in the judgments and session tables nor
    in the judgments summary and quality table, which the archive ships as the
    workflow wrote them."""
    from stecflow.judgments.study import merge_study
    from stecflow.studies.server.progress import SESSION_COLUMNS
    from tests.conftest import FIXTURES

    config, records, campaign, _, scores = inputs
    fixtures = FIXTURES / "judgments"
    results = tmp_path / "results" / "judgments"
    key = str(config["release"].get("key") or config["campaign"]["id"])
    monkeypatch.chdir(tmp_path)  # the campaign folder, as when Snakemake runs
    merge_study(
        fixtures / "design_id.tsv",
        [fixtures / "server_export.tsv", fixtures / "id-demo-L02-offline-9c1d2e3f.tsv"],
        fixtures / "corrections.tsv",
        fixtures / "testset.xml",
        {},
        results / "id-demo.tsv",
        results / "quality" / "id-demo.tsv",
        results / "summary" / "id-demo.json",
        pseudonym_key=key,
    )
    judged = parse_tsv((results / "id-demo.tsv").read_text())
    # the collection server's session table, with Prolific's study and session IDs
    external = {
        "3f9a0c2be41d7a65": "65f0a1b2c3d4e5f6a7b8c9d0",
        "a71e5b0c3d9f2468": "65f0a1b2c3d4e5f6a7b8c9d1",
        "8c04d1e97b2a6f13": "65f0a1b2c3d4e5f6a7b8c9d2",
    }
    sessions = {r["session"]: r for r in judged if r["session"] in external}
    assert set(sessions) == set(external)
    write_tsv(
        [
            {
                "study": "id-demo",
                "session": session,
                "participant": row["participant"],
                "study_id": "64e0aa11bb22cc33dd44ee55",
                "external_session": external[session],
                "list": row["list"],
                "status": "completed",
                "started_utc": "2026-05-01T10:00:00Z",
                "ended_utc": "2026-05-01T10:20:00Z",
                "duration_s": 1200,
                "n_trials_answered": 4,
                "consent": 1,
            }
            for session, row in sorted(sessions.items())
        ],
        list(SESSION_COLUMNS),
        results / "sessions" / "id-demo.tsv",
    )
    # the platform's participant IDs (not the short lab codes such as P17, which
    # occur anyway), the server's session IDs and the platform's session IDs; an
    # offline session's ID is part of its file's name, which the release keeps
    raw = {r[c] for r in judged for c in ("participant", "subject")}
    raw = {v for v in raw if len(v) >= 6} | set(external) | set(external.values())
    assert {"5f1c2e7a9b3d4e00aa11b2c3", "60a7b3c9d2e1f4a5b6c7d8e9"} <= raw
    build_release(
        config,
        validation_records=records,
        submissions_root=campaign / "submissions",
        files={
            "scores/systems.tsv": scores,
            "judgments/summary/id-demo.json": results / "summary" / "id-demo.json",
            "judgments/quality/id-demo.tsv": results / "quality" / "id-demo.tsv",
        },
        judgments=[results / "id-demo.tsv"],
        out_zip=tmp_path / "a.zip",
    )
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        found = {name: archive.read(name) for name in archive.namelist()}
    assert {
        "judgments/id-demo.tsv",
        "judgments/sessions/id-demo.tsv",
        "judgments/summary/id-demo.json",
        "judgments/quality/id-demo.tsv",
    } <= set(found)
    # the quality table (released and reported as written) names problems' sessions
    quality = parse_tsv(found["judgments/quality/id-demo.tsv"].decode())
    assert quality and any(r["session"].startswith("S-") for r in quality)
    for name, data in found.items():
        text = data.decode("utf-8", errors="replace")
        leaked = sorted(v for v in raw if v in text)
        assert not leaked, (name, leaked)
        assert str(fixtures) not in text and str(tmp_path) not in text, name
    summary = json.loads(found["judgments/summary/id-demo.json"])
    assert [s["file"] for s in summary["sources"]] == [
        "id-demo-L02-offline-9c1d2e3f.tsv",
        "server_export.tsv",
    ]
    assert summary["corrections"]["files"] == ["corrections.tsv"]
    assert summary["lists"]["L01"]["sessions"] == 2
    # a pseudonym in the summary matches the released judgments' after the dash
    released = parse_tsv(found["judgments/id-demo.tsv"].decode())
    ours = {r["session"].split("-", 1)[1] for r in released if r["session"]}
    corrected = {c["session"] for c in summary["corrections"]["report"]}
    assert corrected and {c.split("-", 1)[1] for c in corrected} <= ours
    assert pseudonym("3f9a0c2be41d7a65", key, "S-") in corrected
