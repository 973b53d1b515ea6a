# code: stecflow.campaign.testset.prepare_testset (via workflow/scripts/prepare_testset.py)
rule prepare_testset:
    """Read the test set in its own format and write it as stecflow XML (and, for
    the XML, its compact form for the per-submission jobs)."""
    input:
        testset=config["data"]["testset"],
        files=get_testset_files,
    output:
        **PREPARED_OUTPUTS,
    log:
        f"{RESULTS}/logs/prepare_testset/prepare_testset.log",
    resources:
        mem_mb=mem_mb(300, 40),
        runtime=runtime(5, 1),
    params:
        data_format=config["data"]["format"],
    script:
        "../scripts/prepare_testset.py"


# One job per submission validates it, then scores it in the same interpreter on
# the test set read once (a rejected submission gets pass-through score files);
# each output is the record the later stages read, as with one job per stage.
# {submission} is "<team>/<system>." (dot included), so "{submission}json" is
# <team>/<system>.json: see wildcard_constraints in common.smk.
# code: stecflow.scoring.check.check_submission (via workflow/scripts/check_submission.py)
rule check_submission:
    """Validate one submission against the test set (broken ones are recorded as
    rejected), then score it with every configured metric."""
    input:
        testset=JOB_TESTSET,
        files=get_submission_files,
    output:
        record=f"{RESULTS}/validation/{{submission}}json",
        report=f"{RESULTS}/validation/{{submission}}md",
        item_scores=f"{RESULTS}/scores/items/{{submission}}tsv",
        summary=f"{RESULTS}/scores/systems/{{submission}}json",
    log:
        f"{RESULTS}/logs/check_submission/{{submission}}log",
    resources:
        # measured (benchmarks/README.md, each job's log): 286 MB at 10,000
        # items, whose compact test set and outputs file are about 16 MB; 62 MB
        # for a tiny campaign
        mem_mb=mem_mb(300, 16),
        runtime=runtime(10, 5),
    # no input functions here: Snakemake calls each one for each of the
    # campaign's jobs as it builds the DAG (the adapter reads the team and the
    # system from the wildcard)
    params:
        submissions_root=config["submissions"]["root"],
        tasks=TASKS,
        deadline=config["campaign"]["deadline"],
        limits=config["submissions"]["limits"],
        properties=config["submissions"]["properties"],
        scoring=config["scoring"],
        subsets=config["data"]["subsets"],
        signatures=METRIC_SIGNATURES,
    script:
        "../scripts/check_submission.py"


# code: stecflow.submissions.summary.summarise_validation (via workflow/scripts/summarise_validation.py)
rule summarise_validation:
    """Tabulate every submission's validation status, and gather the records."""
    input:
        records=get_validation_records,
    output:
        summary=f"{RESULTS}/validation/summary.tsv",
        # every record, one a line: the report's one input for them all
        records=f"{RESULTS}/validation/records.jsonl",
    log:
        f"{RESULTS}/logs/summarise_validation/summarise_validation.log",
    priority: PRIORITY["summarise_validation"]
    localrule: True
    resources:
        mem_mb=mem_mb(300, 5),
        runtime=runtime(5),
    params:
        discovery_problems=get_discovery_problems,
    script:
        "../scripts/summarise_validation.py"
