# The per-submission scoring runs in rule check_submission (validation.smk),
# right after the submission's validation, in the same job.


# code: stecflow.scoring.systems.aggregate_scores (via workflow/scripts/aggregate_scores.py)
rule aggregate_scores:
    """Tabulate every system's scores per metric and subset."""
    input:
        summaries=get_score_summaries,
    output:
        systems=f"{RESULTS}/scores/systems.tsv",
    log:
        f"{RESULTS}/logs/aggregate_scores/aggregate_scores.log",
    priority: PRIORITY["aggregate_scores"]
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
    priority: PRIORITY["compare_systems"]
    resources:
        mem_mb=mem_mb(500, 20),
        runtime=runtime(10, 5),
    params:
        scoring=config["scoring"],
        tasks=TASKS,
    script:
        "../scripts/compare_systems.py"
