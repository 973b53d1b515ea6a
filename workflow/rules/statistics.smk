# code: stecflow.analysis.analyses.collect_item_scores (via workflow/scripts/collect_item_scores.py)
rule collect_item_scores:
    """Gather the item scores of every system that enters the statistics."""
    input:
        summaries=get_analysed_summaries,
        item_scores=get_analysed_item_scores,
        validation=get_analysed_validation_records,
    output:
        table=f"{RESULTS}/scores/items.tsv",
        systems=f"{RESULTS}/scores/analysed.tsv",
    log:
        f"{RESULTS}/logs/collect_item_scores/collect_item_scores.log",
    benchmark:
        f"{RESULTS}/benchmarks/collect_item_scores/collect_item_scores.tsv"
    localrule: True
    resources:
        mem_mb=mem_mb(300, 1),
        runtime=runtime(5),
    params:
        include_late=config["statistics"]["include_late"],
    script:
        "../scripts/collect_item_scores.py"


# code: stecflow.analysis.analyses.run_analysis (via workflow/scripts/run_analysis.py)
rule run_analysis:
    """Run one configured statistical analysis (ANOVA, Tukey, Kruskal-Wallis, correlations, t-tests, MANOVA, mixed model, means by property)."""
    input:
        item_scores=f"{RESULTS}/scores/items.tsv",
        systems=f"{RESULTS}/scores/analysed.tsv",
        judgments=get_analysis_judgments,
    output:
        table=f"{RESULTS}/stats/{{analysis}}.tsv",
        record=f"{RESULTS}/stats/{{analysis}}.json",
    log:
        f"{RESULTS}/logs/run_analysis/{{analysis}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/run_analysis/{{analysis}}.tsv"
    resources:
        mem_mb=mem_mb(1000, 2),
        runtime=runtime(10),
    params:
        spec=get_analysis_spec,
        alpha=config["statistics"]["alpha"],
        higher_is_better=HIGHER_IS_BETTER,
        exclude_references=config["statistics"]["exclude_references_from_correlations"],
        judgments=get_analysis_judgment_paths,
        ss_type=config["statistics"]["ss_type"],
        digits=config["statistics"]["digits"],
        posthoc=config["statistics"]["posthoc"],
    script:
        "../scripts/run_analysis.py"
