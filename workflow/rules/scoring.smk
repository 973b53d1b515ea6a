# {submission} is "<team>/<system>." (dot included), so "{submission}json" is
# <team>/<system>.json: see wildcard_constraints in common.smk.
# code: stecflow.scoring.score.score_submission (via workflow/scripts/score_submission.py)
rule score_submission:
    """Score one submission with every configured metric (rejected ones pass through)."""
    input:
        validation=f"{RESULTS}/validation/{{submission}}json",
        testset=TESTSET,
        files=get_submission_files,
    output:
        item_scores=f"{RESULTS}/scores/items/{{submission}}tsv",
        summary=f"{RESULTS}/scores/systems/{{submission}}json",
    log:
        f"{RESULTS}/logs/score_submission/{{submission}}log",
    benchmark:
        f"{RESULTS}/benchmarks/score_submission/{{submission}}tsv"
    resources:
        mem_mb=mem_mb(500, 50),
        runtime=runtime(10, 2),
    params:
        submission_dir=get_submission_dir,
        scoring=config["scoring"],
        tasks=TASKS,
        subsets=config["data"]["subsets"],
        signatures=METRIC_SIGNATURES,
    script:
        "../scripts/score_submission.py"


# code: stecflow.scoring.systems.aggregate_scores (via workflow/scripts/aggregate_scores.py)
rule aggregate_scores:
    """Tabulate every system's scores per metric and subset."""
    input:
        summaries=get_score_summaries,
    output:
        systems=f"{RESULTS}/scores/systems.tsv",
    log:
        f"{RESULTS}/logs/aggregate_scores/aggregate_scores.log",
    benchmark:
        f"{RESULTS}/benchmarks/aggregate_scores/aggregate_scores.tsv"
    localrule: True
    resources:
        mem_mb=mem_mb(300, 5),
        runtime=runtime(5),
    script:
        "../scripts/aggregate_scores.py"


# code: stecflow.scoring.significance.compare_systems (via workflow/scripts/compare_systems.py)
rule compare_systems:
    """Test which systems differ on every metric (paired bootstrap, approximate randomisation) and cluster them."""
    input:
        item_scores=f"{RESULTS}/scores/items.tsv",
        # each system's task types are in analysed.tsv (column tasks)
        systems=f"{RESULTS}/scores/analysed.tsv",
    output:
        significance=f"{RESULTS}/scores/significance.tsv",
        clusters=f"{RESULTS}/scores/clusters.tsv",
    log:
        f"{RESULTS}/logs/compare_systems/compare_systems.log",
    benchmark:
        f"{RESULTS}/benchmarks/compare_systems/compare_systems.tsv"
    resources:
        mem_mb=mem_mb(500, 20),
        runtime=runtime(10, 5),
    params:
        scoring=config["scoring"],
        tasks=TASKS,
    script:
        "../scripts/compare_systems.py"
