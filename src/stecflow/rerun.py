"""Re-running a release: its statistics and report again from the archive alone,
compared byte for byte.
"""

from __future__ import annotations

import os
from pathlib import Path

from stecflow.core.errors import StecflowError

__all__ = ["rerun_release"]


def rerun_release(
    archive: str | Path,
    out: str | Path,
    *,
    source_testset: str | Path | None = None,
    previous_release: str | Path | None = None,
) -> list[tuple[str, bool]]:
    """Unpack a release archive into *out*, run its statistics and report again
    from the archived files alone (into ``<out>/rerun/``), and compare them
    with the archived ones byte for byte.

    Returns ``(archive path, identical)`` for every statistics file and the
    report. The archive's MANIFEST.tsv is checked first.
    """
    import json
    import zipfile

    home = Path(out).resolve()
    try:
        zipped = zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as exc:
        raise StecflowError(
            f"{archive}: not a readable release archive ({exc})"
        ) from exc
    with zipped:
        for name in zipped.namelist():
            if name.startswith(("/", "\\")) or ".." in Path(name).parts:
                raise StecflowError(f"{archive}: unsafe entry name {name!r}")
        try:
            results = json.loads(zipped.read("config.json")).get("results")
        except (KeyError, ValueError) as exc:
            raise StecflowError(f"{archive}: no readable config.json") from exc
        # laid out as the campaign's results folder, so that paths the stages
        # record (relative to the project) come out the same
        results = Path(str(results or "results"))
        if results.is_absolute() or ".." in results.parts:
            results = Path(results.name)
        zipped.extractall(home / results)
    if source_testset is not None:
        source_testset = Path(source_testset).resolve()
    if previous_release is not None:
        previous_release = Path(previous_release).resolve()
    before = Path.cwd()
    os.chdir(home)
    try:
        return _rerun_in(results, source_testset, previous_release, str(archive))
    finally:
        os.chdir(before)


def _rerun_in(
    out: Path,
    source_testset: Path | None,
    previous_release: Path | None,
    archive: str,
) -> list[tuple[str, bool]]:
    """The work of :func:`rerun_release`, in the folder the archive went to."""
    import hashlib
    import json

    from stecflow.analysis.run import run_analysis
    from stecflow.analysis.specs import analysis_specs
    from stecflow.core.io import read_tsv
    from stecflow.release.archive import released_outputs
    from stecflow.report import render_report
    from stecflow.scoring.specs import metric_directions

    for row in read_tsv(out / "MANIFEST.tsv"):
        data = (out / row["path"]).read_bytes()
        if hashlib.sha256(data).hexdigest() != row["sha256"]:
            raise StecflowError(
                f"{archive}: {row['path']} does not match its sha256 in MANIFEST.tsv:"
                " the archive was damaged or changed; get it again from where it"
                " was published (README.md, section Re-running)"
            )
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    previous = (config.get("report") or {}).get("previous_release")
    if previous and previous_release is None:
        raise StecflowError(
            f"this release compares its results with the previous release ({previous});"
            " give that archive with --previous, as README.md's section Re-running"
            " says"
        )
    studies = [str(s["id"]) for s in config.get("studies") or []]
    tasks = config["campaign"]["tasks"]
    statistics = config.get("statistics") or {}
    again = Path("rerun")
    analyses = [spec["id"] for spec in analysis_specs(config)]
    for spec in analysis_specs(config):
        sources = {spec.get("source")} | {
            m.split(":")[0] for m in spec.get("measures", []) if ":" in m
        }
        run_analysis(
            spec,
            out / "scores" / "items.tsv",
            out / "scores" / "analysed.tsv",
            again / "stats" / f"{spec['id']}.tsv",
            again / "stats" / f"{spec['id']}.json",
            alpha=statistics.get("alpha", 0.05),
            higher_is_better=metric_directions(config["scoring"], tasks),
            exclude_references_from_correlations=statistics.get(
                "exclude_references_from_correlations", True
            ),
            judgments={
                s: out / "judgments" / f"{s}.tsv"
                for s in sorted(x for x in sources if x)
                if s in studies
            },
            ss_type=statistics.get("ss_type", 3),
            digits=statistics.get("digits", 2),
            posthoc=statistics.get("posthoc"),
        )
    testsets = sorted((out / "data").glob("testset.*"))
    if not testsets and source_testset is not None:
        # prepared as the campaign's rule prepare_testset did
        from stecflow.campaign import prepare_testset, prepared_testset_name

        data_format = str((config.get("data") or {}).get("format") or "tuna")
        prepared = out / "data" / prepared_testset_name(data_format)
        prepared.parent.mkdir(parents=True, exist_ok=True)
        prepare_testset(source_testset, data_format, prepared)
        testsets = [prepared]
    if not testsets:
        raise StecflowError(
            f"{archive} holds no test set (release.include_testset is false): get"
            " it as README.md's section Re-running says and give it with"
            " --source-testset"
        )
    source = source_testset
    if source is None:
        found = sorted((out / "data" / "source").glob("*"))
        source = found[0] if found else None
    lock = (out / "environment" / "requirements.lock").read_text(encoding="utf-8")
    snakemake_version = next(
        (p.split("==")[1] for p in lock.splitlines() if p.startswith("snakemake==")),
        None,
    )
    summary = read_tsv(out / "validation" / "summary.tsv")
    render_report(
        config=config,
        validation_summary=out / "validation" / "summary.tsv",
        validation_records=[
            out / "validation" / r["team"] / f"{r['system']}.json" for r in summary
        ],
        systems=out / "scores" / "systems.tsv",
        testset=testsets[0],
        template=out / "rerun" / "templates" / "report" / "index.html.j2",
        out_html=again / "report" / "index.html",
        stats_records=[again / "stats" / f"{a}.json" for a in analyses],
        stats_tables=[again / "stats" / f"{a}.tsv" for a in analyses],
        source_testset=source,
        judgment_measures=[
            out / "judgments" / "measures" / f"{s}.tsv" for s in studies
        ],
        judgment_summaries=[
            out / "judgments" / "summary" / f"{s}.json" for s in studies
        ],
        judgment_quality=[out / "judgments" / "quality" / f"{s}.tsv" for s in studies],
        snakemake_version=snakemake_version,
        previous_release=previous_release,
        significance=out / "scores" / "significance.tsv",
        clusters=out / "scores" / "clusters.tsv",
        agreement=[
            p
            for s in studies
            if (p := out / "judgments" / "agreement" / f"{s}.json").is_file()
        ],
        power=[p for s in studies if (p := out / "power" / f"{s}.tsv").is_file()],
        item_scores=[
            p
            for r in summary
            if (
                p := out / "scores" / "items" / r["team"] / f"{r['system']}.tsv"
            ).is_file()
        ],
        outputs=released_outputs(
            [out / "validation" / r["team"] / f"{r['system']}.json" for r in summary],
            out / "submissions",
            testsets[0],
            tasks,
        ),
    )
    compared = [f"stats/{a}.{ext}" for a in analyses for ext in ("tsv", "json")]
    compared.append("report/index.html")
    return [
        (name, (again / name).read_bytes() == (out / name).read_bytes())
        for name in compared
    ]
