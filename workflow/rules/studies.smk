rule design_study:
    """Build one human study's design (repeated Latin squares) and its balance table."""
    input:
        testset="results/data/testset.xml",
        practice=get_practice_items,
    output:
        design="results/studies/{study}/design.tsv",
        balance="results/studies/{study}/balance.tsv",
        settings="results/studies/{study}/design.json",
    log:
        "results/logs/design_study/{study}.log",
    benchmark:
        "results/benchmarks/design_study/{study}.tsv"
    resources:
        mem_mb=mem_mb(500, 20),
        runtime=runtime(5),
    params:
        spec=get_study_spec,
    script:
        "../scripts/design_study.py"


rule build_stimuli:
    """Build a study's self-contained web experiment and DMDX item files."""
    input:
        design="results/studies/{study}/design.tsv",
        testset="results/data/testset.xml",
        practice=get_practice_items,
        outputs=get_study_outputs,
        images=get_images_dir,
    output:
        # Whole folders: the experiment is one self-contained bundle (pages,
        # scripts, pictures, audio) whose file list depends on the stimuli.
        web=directory("results/studies/{study}/web"),
        dmdx=directory("results/studies/{study}/dmdx"),
    log:
        "results/logs/build_stimuli/{study}.log",
    benchmark:
        "results/benchmarks/build_stimuli/{study}.tsv"
    resources:
        mem_mb=mem_mb(1000, 20),
        runtime=runtime(10, 1),
    params:
        spec=get_study_spec,
        submission_dirs=get_study_submission_dirs,
    script:
        "../scripts/build_stimuli.py"
