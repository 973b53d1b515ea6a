# code: stecflow.campaign.prepare_testset (via workflow/scripts/prepare_testset.py)
rule prepare_testset:
    """Read the test set in its own format and write it as stecflow XML."""
    input:
        testset=config["data"]["testset"],
    output:
        testset=TESTSET,
    log:
        f"{RESULTS}/logs/prepare_testset/prepare_testset.log",
    benchmark:
        f"{RESULTS}/benchmarks/prepare_testset/prepare_testset.tsv"
    resources:
        mem_mb=mem_mb(300, 40),
        runtime=runtime(5, 1),
    params:
        data_format=config["data"]["format"],
    script:
        "../scripts/prepare_testset.py"


# {submission} is "<team>/<system>." (dot included), so "{submission}json" is
# <team>/<system>.json: see wildcard_constraints in common.smk.
# code: stecflow.submissions.validation.validate_to_files (via workflow/scripts/validate_submission.py)
rule validate_submission:
    """Check one submission against the test set; broken ones are recorded as rejected."""
    input:
        testset=TESTSET,
        files=get_submission_files,
    output:
        record=f"{RESULTS}/validation/{{submission}}json",
        report=f"{RESULTS}/validation/{{submission}}md",
    log:
        f"{RESULTS}/logs/validate_submission/{{submission}}log",
    benchmark:
        f"{RESULTS}/benchmarks/validate_submission/{{submission}}tsv"
    resources:
        mem_mb=mem_mb(300, 20),
        runtime=runtime(5),
    params:
        submission_dir=get_submission_dir,
        team=get_team,
        system=get_system,
        tasks=config["campaign"]["tasks"],
        deadline=config["campaign"]["deadline"],
        limits=config["submissions"]["limits"],
        properties=config["submissions"]["properties"],
    script:
        "../scripts/validate_submission.py"


# code: stecflow.submissions.summary.summarise_validation (via workflow/scripts/summarise_validation.py)
rule summarise_validation:
    """Tabulate every submission's validation status."""
    input:
        records=get_validation_records,
    output:
        summary=f"{RESULTS}/validation/summary.tsv",
    log:
        f"{RESULTS}/logs/summarise_validation/summarise_validation.log",
    benchmark:
        f"{RESULTS}/benchmarks/summarise_validation/summarise_validation.tsv"
    localrule: True
    resources:
        mem_mb=mem_mb(300, 5),
        runtime=runtime(5),
    params:
        discovery_problems=get_discovery_problems,
    script:
        "../scripts/summarise_validation.py"
