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
    benchmark:
        "results/benchmarks/build_release/build_release.tsv"
    localrule: True
    resources:
        mem_mb=mem_mb(500, 5),
        runtime=runtime(10),
    params:
        config=config,
        submissions_root=config["submissions"]["root"],
    script:
        "../scripts/build_release.py"
