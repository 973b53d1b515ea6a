# code: stecflow.studies.setup.design_study (via workflow/scripts/design_study.py)
rule design_study:
    """Build one human study's design (repeated Latin squares, or seed 000's two groups) and its balance table."""
    input:
        testset=JOB_TESTSET,  # (REG: the compact form, a tenth of the memory)
        practice=get_practice_items,
        system_files=get_design_system_files,
    output:
        design=f"{RESULTS}/studies/{{study}}/design.tsv",
        balance=f"{RESULTS}/studies/{{study}}/balance.tsv",
        settings=f"{RESULTS}/studies/{{study}}/design.json",
    log:
        f"{RESULTS}/logs/design_study/{{study}}.log",
    priority: PRIORITY["design_study"]
    resources:
        mem_mb=mem_mb(500, 20),
        runtime=runtime(5),
    params:
        spec=get_study_spec,
    script:
        "../scripts/design_study.py"


# code: stecflow.studies.setup.build_stimuli (via workflow/scripts/build_stimuli.py)
rule build_stimuli:
    """Build a study's self-contained web experiment and DMDX item files."""
    input:
        design=f"{RESULTS}/studies/{{study}}/design.tsv",
        testset=JOB_TESTSET,  # (REG: the compact form, a tenth of the memory)
        practice=get_practice_items,
        outputs=get_study_outputs,
        images=get_images_dir,
        # the organiser's consent, questionnaire, debrief and catalogue files
        screens=lambda w: [
            STUDIES[w.study].get("experiment", {}).get(key)
            for key in ("consent", "questionnaire", "debrief", "messages")
            if STUDIES[w.study].get("experiment", {}).get(key)
        ],
        # a spoken study's recordings folder and manifest (speech: recorded)
        recordings=lambda w: [
            (STUDIES[w.study].get("speech") or {}).get(key)
            for key in ("audio", "manifest")
            if (STUDIES[w.study].get("speech") or {}).get(key)
        ],
        # a situated study's session recordings, its clips' sound (situated.recordings)
        session_recordings=lambda w: [
            folder
            for folder in [(STUDIES[w.study].get("situated") or {}).get("recordings")]
            if folder
        ],
    output:
        # Whole folders: the experiment is one self-contained bundle (pages,
        # scripts, pictures, audio) whose file list depends on the stimuli.
        web=directory(f"{RESULTS}/studies/{{study}}/web"),
        dmdx=directory(f"{RESULTS}/studies/{{study}}/dmdx"),
        # the organiser's key (trials, systems, answers; never served) and one
        # offline copy per list holding that list only (stecflow.studies.blinding)
        key=f"{RESULTS}/studies/{{study}}/stimuli-key.json",
        offline=directory(f"{RESULTS}/studies/{{study}}/offline"),
    log:
        f"{RESULTS}/logs/build_stimuli/{{study}}.log",
    priority: PRIORITY["build_stimuli"]
    resources:
        mem_mb=mem_mb(1000, 20),
        runtime=runtime(10, 1),
    params:
        spec=get_study_spec,
        submission_dirs=get_study_submission_dirs,
        tasks=TASKS,
    script:
        "../scripts/build_stimuli.py"
