import pathlib

# The report's template files (all of them: templates include one another).
REPORT_TEMPLATES = sorted(
    path.name
    for path in (
        pathlib.Path(str(workflow.current_basedir)) / ".." / "templates" / "report"
    ).iterdir()
    if path.is_file()
)

# The files studies' experiment blocks name (consent, questionnaire, debrief):
# archived under studies/<study>/materials/, each consent text checked against
# release.personal_data (stecflow.release.privacy), so an edit re-packs.
EXPERIMENT_FILES = sorted(
    {
        value
        for study in config.get("studies") or []
        for value in ((study or {}).get("experiment") or {}).values()
        if isinstance(value, str)
        and len(value) < 1000
        and "\n" not in value
        and pathlib.Path(value).is_file()
    }
)


# code: stecflow.release.archive.build_release (via workflow/scripts/pack_release.py)
rule pack_release:
    """Pack the public-release archive but its statistics, report and the results
    made after the judgments (deterministic, consented outputs only), while they
    are made."""
    input:
        records=get_validation_records,
        files=get_release_files,
        judgments=expand(f"{RESULTS}/judgments/{{study}}.tsv", study=STUDIES),
        study_settings=expand(f"{RESULTS}/studies/{{study}}/design.json", study=STUDIES),
        testset=TESTSET,
        source_testset=config["data"]["testset"],
        analysed=f"{RESULTS}/scores/analysed.tsv",
        # the experiment as run: pages, pictures, DMDX files
        study_dirs=expand(
            f"{RESULTS}/studies/{{study}}/{{folder}}",
            study=STUDIES,
            folder=["web", "dmdx"],
        ),
        experiment_files=EXPERIMENT_FILES,
        # what `stecflow rerun` renders the report with: every template file
        templates=[
            workflow.source_path(f"../templates/report/{name}")
            for name in REPORT_TEMPLATES
        ],
    output:
        packed=f"{RESULTS}/release-packed/{RELEASE_NAME}.zip",
        manifest=f"{RESULTS}/release-packed/MANIFEST.tsv",
    log:
        f"{RESULTS}/logs/pack_release/pack_release.log",
    priority: PRIORITY["pack_release"]
    localrule: True
    resources:
        mem_mb=mem_mb(500, 5),
        runtime=runtime(10),
    params:
        config=config,
        submissions_root=config["submissions"]["root"],
        # where each of input.files goes in the archive (same order)
        entries=get_release_entries,
    script:
        "../scripts/pack_release.py"


# code: stecflow.release.archive.finish_release (via workflow/scripts/build_release.py)
rule build_release:
    """Add the statistics, the report, the results made after the judgments and
    the manifest to a copy of the packed archive: the public-release archive."""
    input:
        packed=rules.pack_release.output.packed,
        manifest=rules.pack_release.output.manifest,
        files=get_last_release_files,
        report=f"{RESULTS}/report/index.html",
        stats=expand(
            f"{RESULTS}/stats/{{analysis}}.{{ext}}",
            analysis=ANALYSES,
            ext=["tsv", "json"],
        ),
    output:
        archive=RELEASE_ARCHIVE,
        manifest=f"{RESULTS}/release/MANIFEST.tsv",
    log:
        f"{RESULTS}/logs/build_release/build_release.log",
    priority: PRIORITY["build_release"]
    localrule: True
    resources:
        mem_mb=mem_mb(300, 1),
        runtime=runtime(10),
    params:
        # where each of input.files goes in the archive (same order)
        entries=get_last_release_entries,
    script:
        "../scripts/build_release.py"
