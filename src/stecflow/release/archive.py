"""The packing of a campaign's public-release archive: which files go in, what of
the participants is pseudonymised or withheld, and the deterministic zip with its
``MANIFEST.tsv``.

``results/release/<campaign>-<version>.zip`` holds what organisers publish after a
campaign: the test set (or a pointer to it), the outputs of the teams that agreed
to release them (``release_consent: true`` in their ``system.yaml``;
:func:`released_outputs` reads them as the archive holds them), the scores, the
judgments with participants replaced by stable pseudonyms, the statistics, the
report, the config, a datasheet answering every question of the Human Evaluation
Datasheet, HEDS 3.0, from the config and the data, ``CITATION.cff``,
``.zenodo.json`` and the licence notes, and a ``MANIFEST.tsv`` with the size and
sha256 of every entry. The documents among them are written by their own modules:
the datasheet by :mod:`stecflow.release.heds` (from what
:mod:`stecflow.release.studyfacts` reads of each study), the README by
:mod:`stecflow.release.readme`, the citation and licence files by
:mod:`stecflow.release.citation`, the environment by
:mod:`stecflow.release.environment`.

Rebuilding from the same inputs gives identical bytes: entries are sorted (those
under :data:`LAST_ENTRIES` and ``MANIFEST.tsv`` come last), every timestamp is
1980-01-01 00:00:00, permissions are 0644, and nothing records the machine, the
user or the time.

The archive is written in two steps, so that a workflow can pack everything else
while the statistics run and the report renders: :func:`build_release` with
``finish=False`` packs all but the entries under :data:`LAST_ENTRIES`, then
:func:`finish_release` adds them and the manifest to a copy. In one call
(``finish=True``) the same two steps give the same bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import shutil
import tempfile
import zipfile
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.core.errors import ConfigError
from stecflow.core.io import format_tsv, iter_json_records, read_json, read_tsv
from stecflow.release.citation import citation_cff, licence_notes, zenodo_metadata
from stecflow.release.environment import environment_files
from stecflow.release.heds import PERSONAL_COLUMNS, datasheet
from stecflow.release.paths import relative_everywhere, relative_path
from stecflow.release.privacy import (
    QUESTIONNAIRE_COLUMNS,
    PersonalDataPolicy,
    check_consent,
    questionnaire_counts,
    read_questions,
    released_exclusions,
    released_sessions,
)
from stecflow.release.readme import readme_text
from stecflow.release.source import SOURCE_FILE
from stecflow.release.studyfacts import datasheet_studies
from stecflow.submissions.outputs import outputs_file
from stecflow.submissions.safepath import read_submission_file

logger = logging.getLogger(__name__)

__all__ = [
    "check_consents",
    "LAST_ENTRIES",
    "build_release",
    "finish_release",
    "outputs_released",
    "ReleasedOutputs",
    "released_outputs",
    "public_config",
    "pseudonym",
    "pseudonym_order",
    "pseudonymise_table",
]

#: The fixed timestamp of every archive entry (the earliest a zip can store).
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
#: Where the entries added by :func:`finish_release`, after all the others, start:
#: the statistics, the report and the results made after the judgments (their
#: agreement, the systems' significance tests and clusters) are a campaign's last,
#: so the rest (the bulk: scores, outputs, judgments) is packed while they are made.
LAST_ENTRIES = (
    "judgments/agreement/",
    "report/",
    "scores/clusters.tsv",
    "scores/significance.tsv",
    "stats/",
)
#: zlib-ng's deflate level for every entry (:func:`_deflate_with_zlib_ng`).
DEFLATE_LEVEL = 5
#: Where the archive lists the size and sha256 of its other entries.
MANIFEST = "MANIFEST.tsv"


def pseudonym(value: str, key: str, prefix: str = "P") -> str:
    """A stable pseudonym: the same value and key always give the same one.

    HMAC-SHA256 keyed with the campaign's release key, so pseudonyms cannot be
    reversed by hashing candidate IDs without the key, and stay the same across
    releases of one campaign.

    >>> pseudonym("PROLIFIC-5f3a", "key") == pseudonym("PROLIFIC-5f3a", "key")
    True
    >>> pseudonym("", "key")
    ''
    """
    if not value:
        return ""
    digest = hmac.new(key.encode(), value.encode(), hashlib.sha256).hexdigest()
    return f"{prefix}{digest[:10]}"


def pseudonymise_table(
    rows: Sequence[Mapping[str, str]],
    key: str,
    keep: Iterable[str] = (),
    order: Mapping[str, Sequence[str]] | None = None,
) -> tuple[list[dict[str, str]], list[str]]:
    """Replace personal columns by pseudonyms; drop columns not allowed.

    Returns the new rows and the columns kept, in their original order. Columns in
    :data:`PERSONAL_COLUMNS` are pseudonymised unless listed in *keep*.

    With *order* (column -> every value of that column in the release, see
    :func:`pseudonym_order`), a pseudonym starts with the value's place in that
    sorted list, ``P07-<hmac>``: pseudonyms then sort as the IDs they replace,
    so an analysis that orders rows by participant, subject or session gives the
    same bytes on the released table as on the original (``stecflow rerun``).
    The part after the dash is the keyed pseudonym, the same across releases.
    """
    if not rows:
        return [], []
    columns = list(rows[0])
    ranks = {
        column: {v: n for n, v in enumerate(values, start=1)}
        for column, values in (order or {}).items()
    }
    width = {c: len(str(len(r))) for c, r in ranks.items()}
    out = []
    for row in rows:
        new = dict(row)
        for column in PERSONAL_COLUMNS:
            if column in new and column not in keep:
                value = new[column]
                prefix = column[0].upper()
                if value and value in ranks.get(column, {}):
                    rank = ranks[column][value]
                    prefix = f"{prefix}{rank:0{width[column]}d}-"
                new[column] = pseudonym(value, key, prefix=prefix)
        out.append(new)
    return out, columns


def pseudonym_order(
    tables: Iterable[Sequence[Mapping[str, str]]],
) -> dict[str, list[str]]:
    """Every value of each personal column over *tables*, sorted (the ranks of
    :func:`pseudonymise_table`'s order-keeping pseudonyms)."""
    values: dict[str, set[str]] = {}
    for rows in tables:
        for row in rows:
            for column in PERSONAL_COLUMNS:
                if row.get(column):
                    values.setdefault(column, set()).add(str(row[column]))
    return {column: sorted(found) for column, found in values.items()}


#: Judgment columns that name a file (the importers' provenance).
FILE_COLUMNS = ("source_file", "source", "file")


def public_config(
    config: Mapping[str, Any], root: str | Path | None = None
) -> dict[str, Any]:
    """The config as released: the pseudonym key withheld (with it, pseudonyms
    could be undone) and every absolute path relative to the project."""
    public = json.loads(json.dumps(config))
    if (public.get("release") or {}).get("key"):
        public["release"]["key"] = "(withheld)"
    return relative_everywhere(public, root)


#: An archive entry: its bytes, or a file copied as it is (read when written,
#: so the archive's largest files are never all in memory at once).
Entry = bytes | Path

_CHUNK = 1 << 20


def _chunks(entry: Entry) -> Iterator[bytes]:
    if isinstance(entry, bytes):
        yield entry
        return
    with open(entry, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            yield chunk


def _deflate_with_zlib_ng(member: Any) -> None:
    """Have zipfile's writer of one entry deflate it with zlib-ng.

    At :data:`DEFLATE_LEVEL` zlib-ng deflates a campaign's tables 2.4x as fast
    as zlib's default level, and a little smaller (1,000 submissions: 469 MB
    into 53.2 MB in 3.8 s, against 54.0 MB in 9.3 s; ``benchmarks/README.md``);
    a zip reader cannot tell them apart. zipfile has no public way to choose
    its compressor, so the writer's is swapped before the first byte is written;
    a Python whose writer lacks that attribute stops here rather than write other
    bytes. The archive is byte-identical for the same inputs on the same zlib-ng
    release and processor family; what each entry holds (its sha256 in
    ``MANIFEST.tsv``) is the same everywhere.
    """
    from zlib_ng import zlib_ng

    if not hasattr(member, "_compressor"):
        raise RuntimeError(
            "this Python's zipfile no longer has the compressor stecflow replaces;"
            " the release archive cannot be written with zlib-ng"
        )
    member._compressor = zlib_ng.compressobj(DEFLATE_LEVEL, zlib_ng.DEFLATED, -15)


def _write_zip(
    files: Mapping[str, Entry], path: Path, *, base: Path | None = None
) -> None:
    """Write *files* as a deterministic zip (fixed dates and permissions, sorted);
    with *base*, a copy of that zip with *files* after its own entries."""
    partial = path.with_name(path.name + ".partial")
    try:
        if base is not None:
            shutil.copyfile(base, partial)
        mode = "a" if base is not None else "w"
        with zipfile.ZipFile(partial, mode, zipfile.ZIP_DEFLATED) as archive:
            for name in sorted(files):
                entry = files[name]
                info = zipfile.ZipInfo(name, date_time=ZIP_EPOCH)
                info.external_attr = 0o100644 << 16
                info.create_system = 3  # Unix, so the permissions above are read
                info.compress_type = zipfile.ZIP_DEFLATED
                info.file_size = (
                    len(entry) if isinstance(entry, bytes) else entry.stat().st_size
                )
                with archive.open(info, "w") as out:
                    _deflate_with_zlib_ng(out)
                    for chunk in _chunks(entry):
                        out.write(chunk)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)  # nothing half-written is left behind


MANIFEST_COLUMNS = ["path", "bytes", "sha256"]


def _manifest(
    files: Mapping[str, Entry], rows: Sequence[Mapping[str, Any]] = ()
) -> bytes:
    """The manifest of *files*, with the rows of entries listed before (*rows*)."""
    rows = list(rows)
    for name, entry in files.items():
        digest, size = hashlib.sha256(), 0
        for chunk in _chunks(entry):
            digest.update(chunk)
            size += len(chunk)
        rows.append({"path": name, "bytes": size, "sha256": digest.hexdigest()})
    rows.sort(key=lambda row: row["path"])
    return format_tsv(rows, MANIFEST_COLUMNS).encode()


def finish_release(
    packed: str | Path,
    packed_manifest: str | Path,
    files: Mapping[str, str | Path | bytes],
    out_zip: str | Path,
    out_manifest: str | Path | None = None,
) -> None:
    """Write the release archive: a copy of *packed* with *files* and the manifest.

    Parameters
    ----------
    packed, packed_manifest
        The archive of every other entry and its manifest, from
        :func:`build_release` with ``finish=False``.
    files
        Archive path -> file or bytes: the entries under :data:`LAST_ENTRIES`.
    out_zip
        The archive to write: *packed*'s entries, then *files* (sorted), then
        ``MANIFEST.tsv`` listing them all.
    out_manifest
        Also write the manifest here (beside the archive).
    """
    entries = {
        name: entry if isinstance(entry, bytes) else Path(entry)
        for name, entry in files.items()
    }
    with zipfile.ZipFile(packed) as archive:
        clash = sorted(set(entries) & set(archive.namelist()))
    if clash:
        raise ValueError(f"{packed} already holds {', '.join(clash)}")
    manifest = _manifest(entries, read_tsv(packed_manifest))
    Path(out_zip).parent.mkdir(parents=True, exist_ok=True)
    _write_zip(entries | {MANIFEST: manifest}, Path(out_zip), base=Path(packed))
    if out_manifest is not None:
        Path(out_manifest).write_bytes(manifest)


def build_release(
    config: Mapping[str, Any],
    *,
    validation_records: Sequence[str | Path],
    submissions_root: str | Path,
    files: Mapping[str, str | Path] | Sequence[str | Path],
    judgments: Sequence[str | Path] = (),
    study_settings: Sequence[str | Path] = (),
    testset: str | Path | None = None,
    out_zip: str | Path,
    out_manifest: str | Path | None = None,
    study_dirs: Sequence[str | Path] = (),
    source_testset: str | Path | None = None,
    report_templates: Sequence[str | Path] = (),
    environment: Mapping[str, bytes] | None = None,
    project_root: str | Path | None = None,
    finish: bool = True,
    analyses: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Write the release archive; return what went in.

    Parameters
    ----------
    config
        The campaign config (its ``release`` section: ``key`` for pseudonyms,
        ``include_testset``, ``testset_pointer``, ``licence``, ``authors``).
    validation_records
        Every submission's validation record (for consent and status).
    submissions_root
        The submissions folder.
    files
        Archive path -> file to copy as it is (scores, statistics, report, …); a
        plain list of ``results/…`` paths is stored without the ``results/``.
    judgments
        ``judgments/<study>.tsv`` files, pseudonymised on the way in.
    study_settings
        ``studies/<study>/design.json`` files, for the datasheet (with a situated
        study's ``clips.tsv`` beside it, its clip list).
    testset
        The test set, included when ``release.include_testset`` is true; otherwise
        README.md points to ``release.testset_pointer``.
    out_zip
        The archive to write.
    out_manifest
        Also write the archive's ``MANIFEST.tsv`` here (beside the archive).
    study_dirs
        ``studies/<study>/web`` and ``dmdx`` folders (the experiment as run),
        copied under the same names.
    source_testset
        The configured test set (file or folder), archived under
        ``data/source/`` with the normalised one, so the report's checksum of
        it can be recomputed from the archive.
    report_templates
        The report's template files, archived under ``rerun/templates/report/``
        for ``stecflow rerun``.
    environment
        The environment files (default: :func:`environment_files` of this
        Python).
    project_root
        Absolute paths under it are released relative to it (default: the
        working directory); other absolute paths by their file name.
    finish
        False: write to *out_zip* every entry but those under :data:`LAST_ENTRIES`
        (which *files* must then leave out) and no manifest, and their manifest
        to *out_manifest*, for :func:`finish_release` to complete.
    analyses
        The campaign's analyses with their defaults, for the datasheet's
        HEDS 4.3.10 (the workflow passes
        :func:`stecflow.analysis.specs.analysis_specs`); without them, the
        configured ones.
    """
    release = config.get("release") or {}
    campaign = config["campaign"]
    key = str(release.get("key") or campaign["id"])
    # what may be released about participants, and what their consent says
    policy = PersonalDataPolicy.from_config(release)
    consents = check_consents(config, policy)
    entries: dict[str, Entry] = {}
    consented, withheld = [], []
    for path in validation_records:
        record = read_json(path)
        name = f"{record['team']}/{record['system']}"
        if outputs_released(record):
            folder = Path(submissions_root) / record["team"] / record["system"]
            outputs = outputs_file(
                record.get("tasks") or (), campaign.get("tasks") or (), folder=folder
            )
            for leaf in ("system.yaml", outputs):
                data = read_submission_file(folder, leaf)  # no link out of it
                if leaf == "system.yaml":
                    data = _without_contact(data)
                entries[f"submissions/{name}/{leaf}"] = data
            consented.append(name)
        else:
            withheld.append(name)
    if not isinstance(files, Mapping):
        files = {str(Path(p).relative_to("results")): p for p in files}
    for archive_path, source in files.items():
        entries[archive_path] = Path(source)
    keep = release.get("keep_columns", ())
    tables = {}  # archive path -> every judgments-stage table released
    for path in judgments:
        path = Path(path)
        tables[f"judgments/{path.name}"] = path
        for folder in ("exclusions", "sessions"):  # beside it, when collected
            extra = path.parent / folder / path.name
            if extra.is_file():
                tables[f"judgments/{folder}/{path.name}"] = extra
    read = {name: read_tsv(path) for name, path in tables.items()}
    order = pseudonym_order(read.values())
    for name, path in tables.items():
        rows, columns = read[name], None
        if name.startswith("judgments/sessions/"):  # what the policy releases
            rows, columns = released_sessions(
                rows, list(rows[0]) if rows else _header(path), policy
            )
        elif name.startswith("judgments/exclusions/"):
            rows = released_exclusions(rows, policy)
        entries[name] = _released_table(
            rows, path, key, keep, project_root, order, columns
        )
    # the questionnaire's answers: counts per question and answer only
    questionnaires = _questionnaire_counts(config, read, policy)
    for name, rows in questionnaires.items():
        entries[name] = format_tsv(rows, QUESTIONNAIRE_COLUMNS).encode()
    for path in validation_records:  # the report links to them: ../validation/
        record = read_json(path)
        stem = f"validation/{record['team']}/{record['system']}"
        entries[f"{stem}.json"] = Path(path)
        if Path(path).with_suffix(".md").is_file():
            entries[f"{stem}.md"] = Path(path).with_suffix(".md")
    for folder in study_dirs:
        folder = Path(folder)
        for file in sorted(folder.rglob("*")):
            if file.is_file() and not file.name.startswith(".snakemake"):
                rel = file.relative_to(folder).as_posix()
                entries[f"studies/{folder.parent.name}/{folder.name}/{rel}"] = file
    for path in study_settings:
        entries[f"studies/{Path(path).parent.name}/design.json"] = Path(path)
        clips = Path(path).parent / "clips.tsv"  # a situated study's clip list
        if clips.is_file():
            entries[f"studies/{Path(path).parent.name}/clips.tsv"] = clips
    entries.update(_experiment_materials(config))
    if release.get("include_testset") and testset is not None:
        entries[f"data/{Path(testset).name}"] = Path(testset)
        if source_testset is not None and Path(source_testset).exists():
            source = Path(source_testset)
            files_of = sorted(source.rglob("*")) if source.is_dir() else [source]
            for file in files_of:
                if file.is_file():
                    rel = (
                        f"{source.name}/{file.relative_to(source).as_posix()}"
                        if source.is_dir()
                        else source.name
                    )
                    entries[f"data/source/{rel}"] = file
    for template in report_templates:
        entries[f"rerun/templates/report/{Path(template).name}"] = Path(template)
    entries.update(environment if environment is not None else environment_files())
    studies = datasheet_studies(
        config,
        study_settings,
        judgments=judgments,
        files=files,
        study_dirs=study_dirs,
        questionnaires=questionnaires,
        consents=consents,
    )
    software = (
        json.loads(entries[SOURCE_FILE])
        if isinstance(entries.get(SOURCE_FILE), bytes)
        else None
    )
    entries["DATASHEET.md"] = datasheet(config, studies, software, analyses).encode()
    entries["CITATION.cff"] = citation_cff(config).encode()
    entries[".zenodo.json"] = (
        json.dumps(zenodo_metadata(config), indent=2, ensure_ascii=False) + "\n"
    ).encode()
    entries["LICENCE-NOTES.md"] = licence_notes(config).encode()
    entries["config.json"] = (
        json.dumps(public_config(config, project_root), sort_keys=True, indent=2) + "\n"
    ).encode()
    entries["README.md"] = readme_text(
        config,
        consented,
        withheld,
        next((n for n in entries if n.startswith("data/testset.")), None),
        # the name the workflow gives it (results/release/), whatever out_zip is
        archive=f"{campaign['id']}-{campaign.get('version', '1')}.zip",
        software=software,
        project_root=project_root,
    ).encode()
    last = {n: entries.pop(n) for n in list(entries) if n.startswith(LAST_ENTRIES)}
    out = Path(out_zip)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {"consented": consented, "withheld": withheld}
    if not finish:
        if last or out_manifest is None:
            raise ValueError(
                "build_release(finish=False) packs the entries but "
                f"those under {', '.join(LAST_ENTRIES)} and needs out_manifest"
            )
        _write_zip(entries, out)
        Path(out_manifest).write_bytes(_manifest(entries))
        return {"entries": sorted(entries)} | done
    # the same two steps as a workflow takes, so that the bytes are the same
    with tempfile.TemporaryDirectory(dir=out.parent) as folder:
        packed, listed = Path(folder) / "packed.zip", Path(folder) / "packed.tsv"
        _write_zip(entries, packed)
        listed.write_bytes(_manifest(entries))
        finish_release(packed, listed, last, out, out_manifest)
    return {"entries": sorted([*entries, *last, MANIFEST])} | done


def _released_table(
    rows: Sequence[Mapping[str, Any]],
    path: Path,
    key: str,
    keep: Iterable[str],
    root: str | Path | None,
    order: Mapping[str, Sequence[str]],
    columns: Sequence[str] | None = None,
) -> bytes:
    """A judgments-stage table as released: personal columns pseudonymised and
    file columns (the importers' ``source_file``) relative to the project;
    *columns* (default the rows', else the file's header) in this order."""
    rows, found = pseudonymise_table(rows, key, keep, order)
    for row in rows:
        for column in FILE_COLUMNS:
            if row.get(column):
                row[column] = relative_path(str(row[column]), root)
    return format_tsv(rows, list(columns or found or _header(path))).encode()


def _study_questionnaire(study: Mapping[str, Any]) -> dict[str, Any] | None:
    """A configured study's questionnaire (``experiment.questionnaire``), read
    from the campaign folder; None without one."""
    path = ((study or {}).get("experiment") or {}).get("questionnaire")
    if not path or not Path(path).is_file():  # (not in the archive either)
        return None
    return read_questions(path)


def _questionnaire_counts(
    config: Mapping[str, Any],
    read: Mapping[str, Sequence[Mapping[str, Any]]],
    policy: PersonalDataPolicy,
) -> dict[str, list[dict[str, Any]]]:
    """``judgments/questionnaire/<study>.tsv`` -> its rows, for each study with
    a questionnaire or answer columns in its session table (none when the
    policy withholds the questionnaire)."""
    if policy.questionnaire != "aggregate":
        return {}
    configured = {
        str(s.get("id")): s
        for s in config.get("studies") or []
        if isinstance(s, Mapping)
    }
    out = {}
    for name, rows in read.items():
        if not name.startswith("judgments/sessions/"):
            continue
        study = Path(name).stem
        questionnaire = _study_questionnaire(configured.get(study) or {})
        columns = list(rows[0]) if rows else []
        if questionnaire is None and not any("." in c for c in columns):
            continue
        out[f"judgments/questionnaire/{study}.tsv"] = questionnaire_counts(
            study, rows, questionnaire, columns, policy
        )
    return out


def check_consents(
    config: Mapping[str, Any], policy: PersonalDataPolicy
) -> dict[str, str]:
    """Check every study's consent text (``experiment.consent``) against the
    release policy (:func:`stecflow.release.privacy.check_consent`).

    Returns
    -------
    dict
        Study -> ``checked`` (the text says what the release holds) or
        ``unchecked`` (the text holds no statement stecflow recognises), for
        the studies with a consent text.

    Raises
    ------
    ConfigError
        A consent text promises what the release would break; the message
        names the file, the study's key and the statement to put in its place.
    """
    out = {}
    for n, study in enumerate(config.get("studies") or []):
        experiment = (study or {}).get("experiment") or {}
        path = experiment.get("consent")
        if not path:
            continue
        questionnaire = _study_questionnaire(study)
        screen = (questionnaire or {}).get("screen") or "questionnaire"
        fields = (questionnaire or {}).get("fields") or []
        questions = {f"{screen}.{f['id']}": f["question"] for f in fields}
        text_fields = [f"{screen}.{f['id']}" for f in fields if f["type"] == "text"]
        language = experiment.get("language") or "en"
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
        except OSError as error:  # (not in the archive either)
            logger.warning(
                "%s (studies[%d].experiment.consent) cannot be read (%s): not"
                " checked against release.personal_data",
                path,
                n,
                error.strerror,
            )
            out[str(study["id"])] = "unchecked"
            continue
        checked, problems = check_consent(
            text, policy, language, questions, text_fields
        )
        if problems:
            raise ConfigError(
                f"the consent text of study {study['id']} promises what the release"
                " (release.personal_data) would break: "
                + "; ".join(problems).rstrip(".")
                + ". Release only what the participants agreed to (change"
                " release.personal_data), or change the consent text before"
                " anyone agrees to it, then build the release again",
                file=str(path),
                field=f"studies[{n}].experiment.consent",
            )
        out[str(study["id"])] = "checked" if checked else "unchecked"
    return out


def _header(path: Path) -> list[str]:
    """The columns of a TSV file (for a table with no rows)."""
    with open(path, encoding="utf-8") as handle:
        first = handle.readline().rstrip("\r\n")
    return first.split("\t") if first else []


def _experiment_materials(config: Mapping[str, Any]) -> dict[str, bytes]:
    """Every file a study's ``experiment`` block names (consent, questionnaire,
    debriefing, instructions…), under ``studies/<study>/materials/``."""
    entries = {}
    for study in config.get("studies") or []:
        experiment = (study or {}).get("experiment") or {}
        for value in _strings(experiment):
            if len(value) > 1000 or "\n" in value:
                continue
            try:
                file = Path(value)
                if not file.is_file():
                    continue
            except OSError:
                continue
            entries[f"studies/{study['id']}/materials/{file.name}"] = file.read_bytes()
    return entries


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _without_contact(data: bytes) -> bytes:
    """system.yaml without the contact field (personal data the team gave us).

    The lines of the ``contact`` key and its value are cut out, whatever style
    the value is written in (plain, quoted, folded over several lines), so the
    rest of the team's file stays as written; a file in flow style
    (``{team: a, contact: b}``) is written out again without the field.

    >>> _without_contact(b"team: a\\ncontact: >\\n  Jo\\n  x@y.org\\nprimary: true\\n")
    b'team: a\\nprimary: true\\n'
    >>> _without_contact(b"{team: a, contact: x@y.org}")
    b'team: a\\n'
    """
    import yaml

    from stecflow.data.yamlsafe import FAST_SAFE_LOADER

    text = data.decode("utf-8-sig")
    # accepted at validation: bounded and safe
    node = yaml.compose(text, Loader=FAST_SAFE_LOADER)
    if not isinstance(node, yaml.MappingNode):
        return data
    pairs = [(k, v) for k, v in node.value if getattr(k, "value", None) == "contact"]
    if not pairs:
        return data
    if node.flow_style:
        from stecflow.data.yamlsafe import load_yaml

        metadata = load_yaml(data, "system.yaml")
        metadata.pop("contact", None)
        return yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True).encode()
    lines = text.splitlines(keepends=True)
    drop = set()
    for key, value in pairs:
        end = value.end_mark.line + (1 if value.end_mark.column else 0)
        drop.update(range(key.start_mark.line, max(end, key.start_mark.line + 1)))
    return "".join(line for n, line in enumerate(lines) if n not in drop).encode()


def outputs_released(record: Mapping[str, Any]) -> bool:
    """True if the release publishes the outputs of the submission of *record*
    (its validation record): accepted, and its team consented
    (``release_consent: true`` in ``system.yaml``)."""
    metadata = record.get("metadata") or {}
    return record.get("status") == "accepted" and bool(metadata.get("release_consent"))


def released_outputs(
    validation_records: Sequence[str | Path],
    submissions_root: str | Path,
    testset: str | Path,
    campaign_tasks: Sequence[str] = (),
) -> ReleasedOutputs:
    """The outputs the release publishes, read as the scoring read them.

    Parameters
    ----------
    validation_records
        Every submission's validation record (or ``validation/records.jsonl``,
        which holds them all).
    submissions_root
        The submissions folder (or a release archive's ``submissions/``, which
        holds exactly these submissions' outputs files).
    testset
        The normalised test set.
    campaign_tasks
        The campaign's task types (``campaign.tasks``).

    Returns
    -------
    ReleasedOutputs
        A mapping ``(team, system)`` -> its :class:`~stecflow.data.model.Output`
        list, for each consented submission (:func:`outputs_released`) whose
        outputs file can be read; the others are left out (the report then shows
        no outputs). A submission's outputs are parsed when it is looked up, so
        a report of 1,000 submissions holds one submission's outputs at a time.
    """
    from stecflow.core.errors import StecflowError

    sources = {}
    for record in iter_json_records(validation_records):
        if not outputs_released(record):
            continue
        folder = Path(submissions_root) / record["team"] / record["system"]
        tasks = record.get("tasks") or ()
        name = outputs_file(tasks, campaign_tasks, folder=folder)
        try:
            read_submission_file(folder, name)
        except (OSError, StecflowError):  # the report says they are not available
            continue
        sources[(record["team"], record["system"])] = (folder, name, record)
    return ReleasedOutputs(dict(sorted(sources.items())), testset, campaign_tasks)


class ReleasedOutputs(Mapping[tuple[str, str], list[Any]]):
    """(team, system) -> outputs (:func:`released_outputs`), read when looked up."""

    def __init__(
        self,
        sources: Mapping[tuple[str, str], tuple[Path, str, Mapping[str, Any]]],
        testset: str | Path,
        campaign_tasks: Sequence[str],
    ) -> None:
        self._sources = dict(sources)
        self._testset = testset
        self._tasks = tuple(campaign_tasks)
        self._items: list[Any] | None = None

    def __getitem__(self, key: tuple[str, str]) -> list[Any]:
        return self.read(key)

    def read(
        self, key: tuple[str, str], item_ids: Collection[str] | None = None
    ) -> list[Any]:
        """The outputs of one submission; with *item_ids*, of those items only
        (the others' TRIALs are skipped, not read: a report lists a few items
        of each submission)."""
        from stecflow.submissions.outputs import read_outputs
        from stecflow.tasks.base import Limits
        from stecflow.tasks.registry import read_testset

        folder, name, record = self._sources[key]
        if self._items is None:
            self._items = read_testset(self._testset)
        items = self._items
        if item_ids is not None:
            items = [item for item in items if item.id in item_ids]
        outputs, _ = read_outputs(
            read_submission_file(folder, name),
            f"{record['team']}/{record['system']}/{name}",
            items,
            record.get("tasks") or (),
            Limits.from_config(record.get("limits")),
            campaign_tasks=self._tasks,
        )
        return outputs

    def __contains__(self, key: object) -> bool:  # without reading the outputs
        return key in self._sources

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._sources)

    def __len__(self) -> int:
        return len(self._sources)
