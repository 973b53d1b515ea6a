# code: stecflow.studykinds.registry.hook (the study kind's simulate hook; grid kinds: stecflow.judgments.simulate.simulate_job, situated: stecflow.studykinds.situated_identification.merge.simulate_job, text: stecflow.judgments.text_study.simulate_job; via workflow/scripts/simulate_responses.py)
rule simulate_responses:
    """Answer a study with simulated participants (studies with simulate: true)."""
    input:
        design=f"{RESULTS}/studies/{{study}}/design.tsv",
        key=f"{RESULTS}/studies/{{study}}/stimuli-key.json",
        outputs=get_study_outputs,
        testset=JOB_TESTSET,  # (REG: the compact form, a tenth of the memory)
        practice=get_practice_items,
        # the questions the simulated participants answer (their session table)
        questionnaire=get_study_questionnaire,
    output:
        responses=f"{RESULTS}/judgments/simulated/{{study}}.tsv",
        # their session table (stecflow.judgments.simulated_sessions)
        sessions=f"{RESULTS}/judgments/simulated/{{study}}.sessions.tsv",
    log:
        f"{RESULTS}/logs/simulate_responses/{{study}}.log",
    priority: PRIORITY["simulate_responses"]
    resources:
        mem_mb=mem_mb(500, 20),
        runtime=runtime(10),
    params:
        seed=config["judgments"]["simulation"]["seed"],
        settings=config["judgments"]["simulation"],
        task=get_study_task,
        spec=get_study,
        submission_dirs=get_study_submission_dirs,
        tasks=TASKS,
    script:
        "../scripts/simulate_responses.py"


# code: stecflow.studykinds.registry.hook (the study kind's merge hook; grid kinds: stecflow.judgments.study.merge_job, situated: stecflow.studykinds.situated_identification.merge.merge_job, text: stecflow.judgments.text_study.merge_job; via workflow/scripts/merge_judgments.py)
rule merge_judgments:
    """Merge one study's responses with its design: judgments, checks, measures."""
    input:
        design=f"{RESULTS}/studies/{{study}}/design.tsv",
        design_settings=f"{RESULTS}/studies/{{study}}/design.json",
        # maps the picture labels of offline files back (stecflow.studies.blinding)
        key=f"{RESULTS}/studies/{{study}}/stimuli-key.json",
        responses=get_study_responses,
        corrections=get_study_corrections,
        # participants who withdrew (stecflow.judgments.withdrawals)
        withdrawals=get_study_withdrawals,
        testset=JOB_TESTSET,  # (REG: the compact form, a tenth of the memory)
        practice=get_practice_items,
        # its questions, for the summary's evaluators (stecflow.judgments.evaluators)
        questionnaire=get_study_questionnaire,
    output:
        judgments=f"{RESULTS}/judgments/{{study}}.tsv",
        quality=f"{RESULTS}/judgments/quality/{{study}}.tsv",
        measures=f"{RESULTS}/judgments/measures/{{study}}.tsv",
        summary=f"{RESULTS}/judgments/summary/{{study}}.json",
        sessions=f"{RESULTS}/judgments/sessions/{{study}}.tsv",
        exclusions=f"{RESULTS}/judgments/exclusions/{{study}}.tsv",
    log:
        f"{RESULTS}/logs/merge_judgments/{{study}}.log",
    priority: PRIORITY["merge_judgments"]
    resources:
        mem_mb=mem_mb(1000, 20),
        runtime=runtime(10),
    params:
        settings=config["judgments"],
        task=get_study_task,
        spec=get_study,
        variant=get_study_variant,
        dmdx_items_dir=f"{RESULTS}/studies/{{study}}/dmdx",
        # the summary's pseudonyms, keyed as the release's (stecflow.judgments.public)
        pseudonym_key=(config.get("release") or {}).get("key")
        or config["campaign"]["id"],
        # the evaluators' summary: the native-speaker question's language, and
        # whether the release (which holds the summary) withholds the questionnaire
        language=(config.get("release") or {}).get("language"),
        withhold_questionnaire=(
            ((config.get("release") or {}).get("personal_data") or {}).get(
                "questionnaire"
            )
            == "withhold"
        ),
        # numbers in the release's bins, exact only for fields released as given
        number_bin=((config.get("release") or {}).get("personal_data") or {}).get(
            "number_bin", 10
        ),
        per_participant=((config.get("release") or {}).get("personal_data") or {}).get(
            "per_participant", []
        ),
    script:
        "../scripts/merge_judgments.py"


# code: stecflow.judgments.agreement.write_agreement (via workflow/scripts/compute_agreement.py)
rule compute_agreement:
    """Inter-rater agreement of one study: Krippendorff's alpha, ICC, bootstrap CIs."""
    input:
        judgments=f"{RESULTS}/judgments/{{study}}.tsv",
    output:
        table=f"{RESULTS}/judgments/agreement/{{study}}.tsv",
        settings=f"{RESULTS}/judgments/agreement/{{study}}.json",
    log:
        f"{RESULTS}/logs/compute_agreement/{{study}}.log",
    priority: PRIORITY["compute_agreement"]
    resources:
        mem_mb=mem_mb(500, 20),
        runtime=runtime(10),
    params:
        spec=get_study,
    script:
        "../scripts/compute_agreement.py"
