"""The release re-runs: materials, environment, relative paths, metadata.

The inputs are the tiny campaign's validated submissions (as in test_release.py)
and hand-written judgments whose counts are known, so every figure of the
datasheet is checked against a hand count.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import tempfile
import zipfile
from datetime import date
from pathlib import Path

import pytest
import yaml

from stecflow.core.io import write_tsv
from stecflow.data.corpus import read_items
from stecflow.release.archive import build_release, public_config
from stecflow.release.citation import zenodo_metadata
from stecflow.release.environment import (
    LOCK_FILE,
    PLATFORM_FILE,
    dependency_closure,
    environment_files,
)
from stecflow.release.paths import relative_path
from stecflow.release.privacy import PersonalDataPolicy, consent_statement
from stecflow.release.studyfacts import collected_counts
from stecflow.submissions.report import write_validation
from stecflow.submissions.validation import validate_submission
from tests.conftest import REPO

TASKS = ["end_to_end", "attribute_selection"]
TEMPLATES = sorted(
    p for p in (REPO / "workflow" / "templates" / "report").iterdir() if p.is_file()
)
#: What no released file may contain (besides the project's own absolute path).
# where this machine keeps files (home, temporary files, the checkout's parent),
# named from the environment rather than written here, and a Windows drive
FORBIDDEN = (
    str(Path.home()) + os.sep,
    tempfile.gettempdir() + os.sep,
    str(REPO.parent) + os.sep,
    "C:\\",
)

#: The deposition metadata fields of Zenodo's REST API (developers.zenodo.org,
#: "Deposit metadata"), with the allowed values of the enumerated ones.
ZENODO_FIELDS = {
    "upload_type",
    "publication_type",
    "image_type",
    "publication_date",
    "title",
    "creators",
    "description",
    "access_right",
    "license",
    "embargo_date",
    "access_conditions",
    "doi",
    "prereserve_doi",
    "keywords",
    "notes",
    "related_identifiers",
    "contributors",
    "references",
    "communities",
    "grants",
    "journal_title",
    "version",
    "language",
    "locations",
    "dates",
    "method",
    "subjects",
}
ZENODO_UPLOAD_TYPES = {
    "publication",
    "poster",
    "presentation",
    "dataset",
    "image",
    "video",
    "software",
    "lesson",
    "physicalobject",
    "other",
}
ZENODO_ACCESS = {"open", "embargoed", "restricted", "closed"}
ZENODO_CREATOR_FIELDS = {"name", "affiliation", "orcid", "gnd"}
ZENODO_RELATIONS = {
    "isCitedBy",
    "cites",
    "isSupplementTo",
    "isSupplementedBy",
    "isContinuedBy",
    "continues",
    "isDescribedBy",
    "describes",
    "hasMetadata",
    "isMetadataFor",
    "isNewVersionOf",
    "isPreviousVersionOf",
    "isPartOf",
    "hasPart",
    "isReferencedBy",
    "references",
    "isDocumentedBy",
    "documents",
    "isCompiledBy",
    "compiles",
    "isVariantFormOf",
    "isOriginalFormOf",
    "isIdenticalTo",
    "isAlternateIdentifier",
    "isReviewedBy",
    "reviews",
    "isDerivedFrom",
    "isSourceOf",
    "requires",
    "isRequiredBy",
    "isObsoletedBy",
    "obsoletes",
}


def _judgment_rows(source: str) -> list[dict]:
    """3 of 6 lists collected: L01 (2 participants), L02, L04; practice rows too."""
    rows = []
    plan = [("L01", "PROLIFIC-a"), ("L01", "PROLIFIC-b"), ("L02", "PROLIFIC-c")]
    plan.append(("L04", "PROLIFIC-d"))
    for n, (lst, person) in enumerate(plan):
        for order in range(1, 6):  # 1 practice + 4 test trials each
            rows.append(
                {
                    "study": "ratings",
                    "list": lst,
                    "session": f"s-{n}",
                    "participant": person,
                    "item": f"t{order}",
                    "practice": "true" if order == 1 else "false",
                    "filler": "false",
                    "excluded": "1" if person == "PROLIFIC-b" and order > 1 else "0",
                    "adequacy": 50 + order,
                    "source_file": source,
                    "source_line": order + 1,
                }
            )
    return rows


@pytest.fixture
def campaign(tiny_campaign, tmp_path):
    """Config, records and a judgments folder with exclusions, in the campaign."""
    config = yaml.safe_load((tiny_campaign / "config" / "config.yaml").read_text())
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
        path = tmp_path / "results" / "validation" / team / f"{system}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_validation(record, path, path.with_suffix(".md"))
        records.append(path)
    judgments = tiny_campaign / "results" / "judgments" / "ratings.tsv"
    judgments.parent.mkdir(parents=True)
    # an absolute path of the organiser's machine, as the importers record it
    source = str(tiny_campaign / "responses" / "ratings-export.tsv")
    rows = _judgment_rows(source)
    write_tsv(rows, list(rows[0]), judgments)
    exclusions = judgments.parent / "exclusions" / "ratings.tsv"
    exclusions.parent.mkdir()
    write_tsv(
        [
            {
                "participant": p,
                "session": s,
                "list": lst,
                "rule": "attention",
                "value": v,
                "threshold": 0.5,
                "excluded": int(v < 0.5),
            }
            for p, s, lst, v in [
                ("PROLIFIC-a", "s-0", "L01", 1.0),
                ("PROLIFIC-b", "s-1", "L01", 0.25),
                ("PROLIFIC-c", "s-2", "L02", 0.75),
                ("PROLIFIC-d", "s-3", "L04", 1.0),
            ]
        ],
        ["participant", "session", "list", "rule", "value", "threshold", "excluded"],
        exclusions,
    )
    design = tiny_campaign / "results" / "studies" / "ratings"
    (design / "web").mkdir(parents=True)
    (design / "web" / "index.html").write_text("<!doctype html><title>x</title>\n")
    (design / "web" / ".snakemake_timestamp").write_text("")
    (design / "dmdx").mkdir()
    (design / "dmdx" / "L01.rtf").write_text("{\\rtf1 }\n")
    (design / "design.tsv").write_text("list\titem\nL01\tt1\n")
    settings = {
        "study": "ratings",
        "task": "rating",
        "kind": "latin_square",
        "n_items": 4,
        "n_trials": 24,
        "n_fillers": 0,
        "subjects": 6,
        "groups": 1,
        "squares": 2,
        "seed": 5,
        "practice_items": ["d1"],
        "systems": ["alpha/sys1", "beta/sys2"],
    }
    (design / "design.json").write_text(json.dumps(settings))
    consent = tiny_campaign / "texts" / "consent.md"
    consent.parent.mkdir()
    # it says what the release holds (stecflow.release.privacy)
    statement = consent_statement(PersonalDataPolicy())
    consent.write_text(f"# Consent\n\n{statement}\n\nYou agree to take part.\n")
    config["studies"][0]["experiment"] = {
        "consent": "texts/consent.md",
        "title": "Tiny",
        "questionnaire": "texts/missing.md",  # named but absent: left out
    }
    config["release"] = {
        **config["release"],
        "licence": "CC-BY-4.0",
        "date": "2026-06-15",
        "doi": "10.5281/zenodo.1234567",
        "keywords": ["REG", "human evaluation"],
        "language": "English",
        "language_code": "eng",
        "evaluators": "Paid crowd workers (Prolific), native speakers.",
        "ethics": "Approved by the faculty board (ref. 1).",
        "authors": [
            {"name": "Doe, Jo", "affiliation": "Univ", "orcid": "0000-0002-1825-0097"}
        ],
        "related_identifiers": [
            {
                "identifier": "10.18653/v1/W09-0629",
                "relation": "isSupplementTo",
                "resource_type": "publication-article",
            }
        ],
    }
    config["data"]["testset"] = str(tiny_campaign / "testset.xml")  # absolute
    return config, records, tiny_campaign, judgments, design


def build(campaign, out, monkeypatch, **extra):
    config, records, root, judgments, design = campaign
    monkeypatch.chdir(root)
    return build_release(
        config,
        validation_records=records,
        submissions_root=root / "submissions",
        files={"studies/ratings/design.tsv": design / "design.tsv"},
        judgments=[judgments],
        study_settings=[design / "design.json"],
        testset=root / "testset.xml",
        out_zip=out,
        study_dirs=[design / "web", design / "dmdx"],
        report_templates=TEMPLATES,
        **extra,
    )


def entries(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_relative_path():
    assert relative_path("/srv/c/responses/a.tsv", "/srv/c") == "responses/a.tsv"
    assert relative_path("/srv/other/a.tsv", "/srv/c") == "a.tsv"
    assert relative_path("/srv/cx/a.tsv", "/srv/c") == "a.tsv"  # not a prefix dir
    assert relative_path("C:\\Users\\ann\\exp\\a.tsv", "/srv/c") == "a.tsv"
    assert relative_path("responses/a.tsv", "/srv/c") == "responses/a.tsv"
    config = public_config(
        {"release": {"key": "s"}, "data": {"testset": "/srv/c/d/t.xml"}}, "/srv/c"
    )
    assert config == {"release": {"key": "(withheld)"}, "data": {"testset": "d/t.xml"}}


def test_no_absolute_path_in_any_entry(campaign, tmp_path, monkeypatch):
    build(campaign, tmp_path / "a.zip", monkeypatch)
    root = str(campaign[2])
    found = entries(tmp_path / "a.zip")
    assert len(found) > 20
    for name, data in found.items():
        for needle in (root, *FORBIDDEN):
            assert needle not in name, name
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        for needle in (root, *FORBIDDEN):
            assert needle not in text, (name, needle)
    # the importers' source column is released relative to the project
    lines = found["judgments/ratings.tsv"].decode().splitlines()
    header = lines[0].split("\t")
    sources = {line.split("\t")[header.index("source_file")] for line in lines[1:]}
    assert sources == {"responses/ratings-export.tsv"}
    config = json.loads(found["config.json"])
    assert config["data"]["testset"] == "testset.xml"


def test_study_materials_validation_reports_and_templates(
    campaign, tmp_path, monkeypatch
):
    build(campaign, tmp_path / "a.zip", monkeypatch)
    found = entries(tmp_path / "a.zip")
    assert found["studies/ratings/materials/consent.md"].startswith(b"# Consent")
    assert not [n for n in found if n.endswith("missing.md")]
    assert found["studies/ratings/web/index.html"].startswith(b"<!doctype")
    assert "studies/ratings/dmdx/L01.rtf" in found
    assert "studies/ratings/design.json" in found
    assert not [n for n in found if ".snakemake" in n]
    # the report's links ../validation/<team>/<system>.md land on these
    for team, system in [("alpha", "sys1"), ("beta", "sys2"), ("gamma", "broken")]:
        assert f"validation/{team}/{system}.md" in found
        assert json.loads(found[f"validation/{team}/{system}.json"])["team"] == team
    assert {n for n in found if n.startswith("rerun/templates/report/")} == {
        f"rerun/templates/report/{p.name}" for p in TEMPLATES
    }
    # the exclusions table is released too, pseudonymised
    exclusions = found["judgments/exclusions/ratings.tsv"].decode()
    assert "PROLIFIC" not in exclusions and "\tattention\t" in exclusions
    # one participant has one pseudonym in every table: the excluded one (b)
    [excluded] = [
        line.split("\t")[0]
        for line in exclusions.splitlines()[1:]
        if line.endswith("\t1")
    ]
    judged = found["judgments/ratings.tsv"].decode().splitlines()
    column = judged[0].split("\t").index("participant")
    second = sorted({line.split("\t")[column] for line in judged[1:]})[1]
    assert excluded == second and excluded.startswith("P2-")


def test_the_dependency_closure_follows_markers_and_extras(monkeypatch):
    """A made-up package: what it needs, its installed extras' needs and their
    needs recursively, with the extras asked for; markers that fail here and
    developers' extras are left out."""
    metadata = (
        "Name: root\nVersion: 1\nProvides-Extra: fast\nProvides-Extra: test\n"
        "Provides-Extra: absent\n"
        "Requires-Dist: jinja2>=3\n"
        'Requires-Dist: old-only; python_version < "3.0"\n'
        'Requires-Dist: requests[socks]; extra == "fast"\n'
        'Requires-Dist: pytest; extra == "test"\n'
        'Requires-Dist: jinja2; extra == "absent"\n'
        'Requires-Dist: not-installed-anywhere; extra == "absent"\n\n'
    )
    pins = dependency_closure(metadata)
    version = importlib.metadata.version
    assert pins["jinja2"] == version("jinja2")
    assert pins["markupsafe"] == version("markupsafe")  # jinja2's
    assert pins["requests"] == version("requests")  # extra "fast" is installed
    assert "urllib3" in pins and "idna" in pins  # requests'
    assert "old-only" not in pins and "pytest" not in pins
    assert "not-installed-anywhere" not in pins  # extra "absent" is not whole


def test_environment_lock_is_pinned_sorted_and_stable():
    first, second = environment_files(), environment_files()
    assert first == second
    lines = first[LOCK_FILE].decode().splitlines()
    pins = [line for line in lines if not line.startswith(("#", "-"))]
    # stecflow from the wheel beside the lock (a folder relative to the lock)
    assert "--find-links ." in lines
    names = [p.split("==")[0] for p in pins]
    assert names == sorted(names) and len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z0-9][a-z0-9-]*==\S+", p) for p in pins)
    assert f"pyyaml=={importlib.metadata.version('PyYAML')}" in pins
    assert f"jinja2=={importlib.metadata.version('jinja2')}" in pins
    # stecflow's dependencies and theirs (markupsafe: jinja2's), the developers'
    # tools left out
    for needed in ("snakemake", "pandas", "numpy", "scipy", "waitress", "markupsafe"):
        assert f"{needed}=={importlib.metadata.version(needed)}" in pins
    for unneeded in ("pytest", "ruff", "playwright", "pip", "setuptools"):
        assert not any(p.startswith(f"{unneeded}==") for p in pins)
    from packaging.requirements import Requirement  # pip's own parser

    assert str(Requirement(pins[0]).specifier).startswith("==")
    import platform

    info = first[PLATFORM_FILE].decode()
    assert info.startswith(f"python {platform.python_version()}\n")


def test_rebuild_is_byte_identical_with_the_new_entries(
    campaign, tmp_path, monkeypatch
):
    build(campaign, tmp_path / "a.zip", monkeypatch)
    build(campaign, tmp_path / "b.zip", monkeypatch)
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()


def test_collected_counts_by_hand(campaign):
    judgments = campaign[3]
    counts = collected_counts(
        judgments, judgments.parent / "exclusions" / "ratings.tsv"
    )
    # 4 sessions x (1 practice + 4 test trials); lists L01 (two people), L02, L04
    assert counts["trials"] == 16 and counts["practice"] == 4
    assert counts["participants"] == 4 and counts["sessions"] == 4
    assert counts["lists"] == {"L01": 8, "L02": 4, "L04": 4}
    assert counts["excluded_rows"] == 4
    assert counts["exclusions"] == {"participants": 1, "rules": {"attention": 1}}
    assert collected_counts(judgments)["exclusions"] is None


def test_datasheet_reports_what_was_collected(campaign, tmp_path, monkeypatch):
    build(campaign, tmp_path / "a.zip", monkeypatch)
    sheet = entries(tmp_path / "a.zip")["DATASHEET.md"].decode()
    assert (
        "Collected: 16 test trials (4 practice and 0 filler trials besides) from 4"
        " participant(s) in 4 session(s); 3 of 6 lists run (test trials per list:"
        " L01 8, L02 4, L04 4)." in sheet
    )
    assert "1 participant(s) excluded (by rule: attention 1), 4 test trials" in sheet
    assert "4 test items, 24 test trials over 2 systems" in sheet
    assert "in 6 lists (designed)" in sheet
    # the task from the registry, the language from the config
    assert "2.3 Task:** end_to_end: end-to-end generation" in sheet
    assert "2.4 Language(s) of the inputs:** English." in sheet
    assert "interface language English" in sheet
    # the paper, the authors and the evaluators from the release section
    assert "1.1.1 Main reference:** The main paper reporting the experiment is" in sheet
    assert "1.3.2.2 Affiliation of the contact author:** Univ." in sheet
    assert (
        "3.2.1 Number of evaluators:** 3 evaluator(s) whose judgments enter the"
        " results (4 took part, 1 excluded" in sheet
    )
    assert "3.2.3 Recruitment:** the organisers' description: Paid crowd" in sheet
    # what only the organisers know: the emails, the evaluators' expertise, pay
    # and relation to the authors, preregistration, the power analysis (none in
    # the campaign), the standardised criterion names, the questionnaire's
    # special category data and an impact assessment; and the preamble's
    to_complete = [x for x in sheet.splitlines() if "*to complete*" in x]
    assert [x.split("**")[1] for x in to_complete[1:]] == [
        "1.3.1.3 Email address of the person completing this sheet:",
        "1.3.2.3 Email address of the contact author:",
        "3.1.3.1 Method of statistical power analysis:",
        "3.2.2.1 Domain experts:",
        "3.2.2.2 Payment:",
        "3.2.2.3 Evaluators previously known to the authors:",
        "3.2.2.4 Researchers among the evaluators:",
        "3.3.1 Preregistration:",
        "4.3.1.2 Standardised name of the criterion:",
        "4.3.1.2 Standardised name of the criterion:",
        "5.3 Special category data:",
        "5.4 Impact assessment:",
    ]
    assert "3.1.3.2 Statistical power of the sample:** N/A" in sheet
    assert "5.1 Ethics approval:** Approved by the faculty board" in sheet
    campaign[0]["release"]["ethics"] = None
    build(campaign, tmp_path / "b.zip", monkeypatch)
    sheet = entries(tmp_path / "b.zip")["DATASHEET.md"].decode()
    assert sheet.count("*to complete*") == len(to_complete) + 1
    assert "5.1 Ethics approval:** *to complete* (release.ethics)" in sheet


def test_citation_has_the_configured_date_and_doi(campaign, tmp_path, monkeypatch):
    build(campaign, tmp_path / "a.zip", monkeypatch)
    cff = yaml.safe_load(entries(tmp_path / "a.zip")["CITATION.cff"])
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "dataset"
    assert cff["date-released"] == "2026-06-15"  # from the config, not the clock
    assert cff["doi"] == "10.5281/zenodo.1234567"
    assert cff["authors"] == [
        {
            "name": "Doe, Jo",
            "affiliation": "Univ",
            "orcid": "https://orcid.org/0000-0002-1825-0097",
        }
    ]
    assert cff["license"] == "CC-BY-4.0" and cff["keywords"] == [
        "REG",
        "human evaluation",
    ]


def test_zenodo_metadata_uses_documented_fields_only(campaign, tmp_path, monkeypatch):
    build(campaign, tmp_path / "a.zip", monkeypatch)
    metadata = json.loads(entries(tmp_path / "a.zip")[".zenodo.json"])
    assert set(metadata) <= ZENODO_FIELDS
    assert {"upload_type", "title", "creators", "description"} <= set(metadata)
    assert metadata["upload_type"] in ZENODO_UPLOAD_TYPES
    assert metadata["access_right"] in ZENODO_ACCESS
    assert date.fromisoformat(metadata["publication_date"]) == date(2026, 6, 15)
    for creator in metadata["creators"]:
        assert set(creator) <= ZENODO_CREATOR_FIELDS and creator["name"]
    for related in metadata["related_identifiers"]:
        assert set(related) <= {"identifier", "relation", "resource_type", "scheme"}
        assert related["relation"] in ZENODO_RELATIONS
    assert metadata["license"] == "cc-by-4.0" and metadata["language"] == "eng"
    assert metadata["doi"] == "10.5281/zenodo.1234567"
    assert metadata["keywords"] == ["REG", "human evaluation"]
    # the config's relation types are Zenodo's, neither more nor fewer
    schema = yaml.safe_load(
        (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text()
    )
    release = schema["properties"]["release"]["properties"]
    relation = release["related_identifiers"]["items"]["properties"]["relation"]
    assert set(relation["enum"]) == ZENODO_RELATIONS
    # with nothing configured: only what is known, nothing empty
    bare = zenodo_metadata({"campaign": {"title": "T", "description": ""}})
    assert bare == {
        "upload_type": "dataset",
        "title": "T (data release)",
        "creators": [{"name": "The organisers"}],
        "description": "<p>T</p>",
        "access_right": "open",
        "version": "1",
    }


def test_rerun_refuses_what_is_not_a_sound_archive(tmp_path):
    from stecflow.cli import main
    from stecflow.core.errors import StecflowError
    from stecflow.rerun import rerun_release

    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("../outside.txt", "x")
    with pytest.raises(StecflowError, match="unsafe entry name '../outside.txt'"):
        rerun_release(evil, tmp_path / "out")
    assert not (tmp_path / "outside.txt").exists()
    (tmp_path / "notzip.zip").write_text("hello")
    assert main(["rerun", str(tmp_path / "notzip.zip"), "--out", "o"]) == 2
