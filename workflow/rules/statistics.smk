# code: stecflow.analysis.collect.collect_item_scores (via workflow/scripts/collect_item_scores.py)
rule collect_item_scores:
    """Gather the item scores of every system that enters the statistics."""
    input:
        summaries=get_analysed_summaries,
        item_scores=get_analysed_item_scores,
        # not validation/records.jsonl: a late submission changes that, and
        # must not re-run the statistics
        validation=get_analysed_validation_records,
    output:
        table=f"{RESULTS}/scores/items.tsv",
        systems=f"{RESULTS}/scores/analysed.tsv",
    log:
        f"{RESULTS}/logs/collect_item_scores/collect_item_scores.log",
    priority: PRIORITY["collect_item_scores"]
    localrule: True
    resources:
        mem_mb=mem_mb(300, 1),
        runtime=runtime(5),
    params:
        include_late=config["statistics"]["include_late"],
    script:
        "../scripts/collect_item_scores.py"


# One job per group of analyses that read the same tables
# (stecflow.analysis.specs.analysis_groups): the libraries load once per group,
# and new judgments of one study re-run only the analyses that read them. Each
# analysis still writes its own stats/<analysis>.tsv and .json.
for _group, _ids in ANALYSIS_GROUPS.items():

    # code: stecflow.analysis.run.run_analysis (via workflow/scripts/run_analysis.py)
    rule:
        name:
            f"run_analyses_{_group}"
        input:
            item_scores=f"{RESULTS}/scores/items.tsv",
            systems=f"{RESULTS}/scores/analysed.tsv",
            judgments=sorted(
                {p for a in _ids for p in analysis_judgment_paths(a).values()}
            ),
        output:
            tables=expand(f"{RESULTS}/stats/{{analysis}}.tsv", analysis=_ids),
            records=expand(f"{RESULTS}/stats/{{analysis}}.json", analysis=_ids),
        log:
            f"{RESULTS}/logs/run_analyses/{_group}.log",
        priority: PRIORITY.get(f"run_analyses_{_group}", PRIORITY["run_analyses"])
        resources:
            mem_mb=mem_mb(1000, 2),
            runtime=runtime(10 * len(_ids)),
        params:
            analyses=_ids,
            specs={a: ANALYSES[a] for a in _ids},
            alpha=config["statistics"]["alpha"],
            higher_is_better=HIGHER_IS_BETTER,
            exclude_references=config["statistics"][
                "exclude_references_from_correlations"
            ],
            judgments={a: analysis_judgment_paths(a) for a in _ids},
            ss_type=config["statistics"]["ss_type"],
            digits=config["statistics"]["digits"],
            posthoc=config["statistics"]["posthoc"],
        script:
            "../scripts/run_analysis.py"
