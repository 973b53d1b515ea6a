rule build_release:
    """Pack the public-release archive (deterministic, consented outputs only)."""
    input:
        records=get_validation_records,
        files=get_release_files,
        judgments=expand("results/judgments/{study}.tsv", study=STUDIES),
        study_settings=expand("results/studies/{study}/design.json", study=STUDIES),
        testset="results/data/testset.xml",
    output:
        archive=RELEASE_ARCHIVE,
        manifest="results/release/MANIFEST.tsv",
    log:
        "results/logs/build_release/build_release.log",
    localrule: True
    params:
        config=config,
        submissions_root=config["submissions"]["root"],
    script:
        "../scripts/build_release.py"
