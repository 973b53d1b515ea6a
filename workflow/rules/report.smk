# code: stecflow.report.render_submissions (via workflow/scripts/render_submissions.py)
rule render_submissions:
    """Write the report's section "Submissions": one part per submission, from
    the scores and the validation records alone (so, while the statistics run)."""
    input:
        summary=f"{RESULTS}/validation/summary.tsv",
        records=f"{RESULTS}/validation/records.jsonl",
        # one per submission: its items' scores
        item_scores=per_submission(f"{RESULTS}/scores/items/{{submission}}tsv"),
        systems=f"{RESULTS}/scores/systems.tsv",
        testset=TESTSET,
        # the same items in their compact form (read fast, in little memory)
        testset_items=JOB_TESTSET,
        # the section's template (not the page's: editing that leaves it alone)
        template=workflow.source_path("../templates/report/_submissions.html.j2"),
        macros=workflow.source_path("../templates/report/_macros.html.j2"),
    output:
        html=f"{RESULTS}/report-parts/submissions.html",
    log:
        f"{RESULTS}/logs/render_submissions/render_submissions.log",
    priority: PRIORITY["render_submissions"]
    localrule: True
    resources:
        mem_mb=mem_mb(1000, 10),
        runtime=runtime(10),
    params:
        # the parts of the config the section reads: a change to the studies or
        # the statistics does not make it again
        config={k: config[k] for k in ("campaign", "scoring") if k in config},
        # consented submissions' outputs (tracked through their item scores)
        submissions_root=config["submissions"]["root"],
    script:
        "../scripts/render_submissions.py"


# code: stecflow.report.render_report (via workflow/scripts/render_report.py)
rule render_report:
    """Write the campaign report: one self-contained, deterministic HTML file."""
    input:
        summary=f"{RESULTS}/validation/summary.tsv",
        records=f"{RESULTS}/validation/records.jsonl",
        # the section "Submissions", made while the statistics run
        submissions=rules.render_submissions.output.html,
        systems=f"{RESULTS}/scores/systems.tsv",
        significance=f"{RESULTS}/scores/significance.tsv",
        clusters=f"{RESULTS}/scores/clusters.tsv",
        power=expand(f"{RESULTS}/power/{{study}}.tsv", study=POWER_STUDIES),
        stats=expand(f"{RESULTS}/stats/{{analysis}}.json", analysis=ANALYSES),
        stats_tables=expand(f"{RESULTS}/stats/{{analysis}}.tsv", analysis=ANALYSES),
        testset=TESTSET,
        # the same items in their compact form (read fast, in little memory)
        testset_items=JOB_TESTSET,
        source_testset=config["data"]["testset"],
        judgment_measures=expand(
            f"{RESULTS}/judgments/measures/{{study}}.tsv", study=STUDIES
        ),
        judgment_summaries=expand(
            f"{RESULTS}/judgments/summary/{{study}}.json", study=STUDIES
        ),
        judgment_quality=expand(
            f"{RESULTS}/judgments/quality/{{study}}.tsv", study=STUDIES
        ),
        agreement=expand(f"{RESULTS}/judgments/agreement/{{study}}.json", study=STUDIES),
        template=workflow.source_path("../templates/report/index.html.j2"),
        macros=workflow.source_path("../templates/report/_macros.html.j2"),
        situated=workflow.source_path("../templates/report/_situated.html.j2"),
        stylesheet=workflow.source_path("../templates/report/report.css"),
        script=workflow.source_path("../templates/report/sort.js"),
        previous_release=lambda wildcards: list(
            filter(None, [config.get("report", {}).get("previous_release")])
        ),
    output:
        html=report(
            f"{RESULTS}/report/index.html",
            caption="../templates/report/caption.rst",
            category="Report",
            labels={"file": "campaign report"},
        ),
    log:
        f"{RESULTS}/logs/render_report/render_report.log",
    priority: PRIORITY["render_report"]
    localrule: True
    resources:
        mem_mb=mem_mb(1000, 10),
        runtime=runtime(10),
    params:
        config=config,
        snakemake_version=snakemake.__version__,
    script:
        "../scripts/render_report.py"
