rule simulate_responses:
    """Answer a study with simulated participants (studies with simulate: true)."""
    input:
        web="results/studies/{study}/web",
        testset="results/data/testset.xml",
        practice=get_practice_items,
    output:
        responses="results/judgments/simulated/{study}.tsv",
    log:
        "results/logs/simulate_responses/{study}.log",
    benchmark:
        "results/benchmarks/simulate_responses/{study}.tsv"
    resources:
        mem_mb=mem_mb(500, 20),
        runtime=runtime(10),
    params:
        seed=config["judgments"]["simulation"]["seed"],
        settings=config["judgments"]["simulation"],
    script:
        "../scripts/simulate_responses.py"


rule merge_judgments:
    """Merge one study's responses with its design: judgments, checks, measures."""
    input:
        design="results/studies/{study}/design.tsv",
        responses=get_study_responses,
        corrections=get_study_corrections,
        testset="results/data/testset.xml",
        practice=get_practice_items,
    output:
        judgments="results/judgments/{study}.tsv",
        quality="results/judgments/quality/{study}.tsv",
        measures="results/judgments/measures/{study}.tsv",
        summary="results/judgments/summary/{study}.json",
    log:
        "results/logs/merge_judgments/{study}.log",
    benchmark:
        "results/benchmarks/merge_judgments/{study}.tsv"
    resources:
        mem_mb=mem_mb(1000, 20),
        runtime=runtime(10),
    params:
        settings=config["judgments"],
        task=get_study_task,
        variant=get_study_variant,
        dmdx_items_dir="results/studies/{study}/dmdx",
    script:
        "../scripts/merge_judgments.py"
