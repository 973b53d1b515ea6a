# Parse-time setup, run at every start (and per job on clusters): keep it cheap.
# The config is checked against its closed schema, then the submissions folder is
# scanned once, sorted; everything else is delegated to stecflow.
import functools
import os

from snakemake.common.tbdstring import TBDString

from stecflow import campaign
from stecflow.analysis import specs as analysis
from stecflow.core import ids
from stecflow.core import resources as sizing
from stecflow.scoring import specs as scoring
from stecflow.studies import setup as studies
from stecflow.studykinds import registry as study_kinds
from stecflow.submissions import outputs as submission_outputs
from stecflow.submissions import safepath, validation

# The config files first, with the hardened reader of system.yaml: an alias bomb,
# a key given twice or a control character is refused here, naming file, line
# and key path, before the schema check walks the config (20 ms).
campaign.check_config_files(workflow.configfiles)
# (stecflow's validate_config, not Snakemake's validate: the same defaults filled
# in, 0.25 s less at every start, and the key path of an error named)
campaign.validate_config(config, workflow.source_path("../schemas/config.schema.yaml"))
campaign.check_config(config)
# Every output goes under RESULTS (config key `results`, default results/). The
# folder names the campaign that owns it: another campaign pointed at it stops
# here, before any job runs; a run claims the folder when it starts (Snakefile).
RESULTS = campaign.results_dir(config)
campaign.check_results_owner(RESULTS, config["campaign"]["id"])
# The prepared test set every stage reads: stecflow XML, or for a dialogue corpus
# one JSON corpus file (see stecflow.campaign.prepare_testset).
TESTSET = f"{RESULTS}/data/{campaign.prepared_testset_name(config['data']['format'])}"
# What the per-submission jobs read: the compact form of the XML test set (loaded
# in milliseconds, see stecflow.data.compact), or the JSON test set itself.
JOB_TESTSET = f"{RESULTS}/data/{campaign.job_testset_name(config['data']['format'])}"
PREPARED_OUTPUTS = {"testset": TESTSET}
if JOB_TESTSET != TESTSET:
    PREPARED_OUTPUTS["compact"] = JOB_TESTSET
DISCOVERY = campaign.discover_submissions(config["submissions"]["root"])
SUBMISSIONS = DISCOVERY.submissions  # sorted (team, system) pairs: the sole scan
# The per-submission wildcard's values, "<team>/<system>." (see below).
SUBMISSION_WILDCARDS = [ids.submission_wildcard(t, s) for t, s in SUBMISSIONS]
# Signatures of the configured metrics: a param of the scoring rule, so changing a
# metric's settings or version re-runs scoring and what depends on it.
TASKS = config["campaign"]["tasks"]
METRIC_SIGNATURES = sorted(scoring.metric_signatures(config["scoring"], TASKS).values())
HIGHER_IS_BETTER = scoring.metric_directions(config["scoring"], TASKS)
# The files of a submission folder the campaign's task types read.
SUBMISSION_FILES = validation.submission_file_names(TASKS)
ANALYSES = {spec["id"]: spec for spec in analysis.analysis_specs(config)}
studies.check_studies(config, SUBMISSIONS)
STUDIES = {spec["id"]: spec for spec in studies.study_specs(config)}
# The analyses that read the same tables run in one job (rules run_analyses_<group>).
ANALYSIS_GROUPS = analysis.analysis_groups(ANALYSES.values(), STUDIES)
# Every job runs on one core (none of the rules declares threads), so its numerical
# libraries get one thread too; the jobs inherit this environment, locally and on a
# cluster.
sizing.cap_numeric_threads(os.environ)
# Memory and time of every job, sized from its inputs (see stecflow.core.resources);
# "to be determined" until the inputs exist.
mem_mb = functools.partial(sizing.mem_mb, pending=TBDString())
runtime = functools.partial(sizing.runtime, pending=TBDString())
# The order in which ready jobs start (Snakemake's `priority`, higher first):
# critical-path list scheduling. Each campaign-wide rule ranks by the longest
# chain of work that waits on it (its own seconds and those of the longest path
# of jobs after it, at 1,000 submissions: benchmarks/README.md, "the aggregates'
# start order"), so it always ranks above the jobs that read its outputs (a test
# checks this). The chain scores -> section "Submissions" -> report starts at
# once, and the study jobs and analyses fill the other core. Per-submission jobs
# keep 0.
PRIORITY = {
    "aggregate_scores": 15,
    "summarise_validation": 14,
    "render_submissions": 13,
    "collect_item_scores": 12,
    "design_study": 11,
    "build_stimuli": 10,
    "simulate_responses": 9,
    # the analyses of the scores (every system) before a study's (its systems)
    "run_analyses_scores": 8,
    "merge_judgments": 7,
    "power": 7,
    # the archive, then what only the report waits for
    "pack_release": 6,
    "compare_systems": 5,
    "compute_agreement": 5,
    "run_analyses": 3,
    "render_report": 2,
    "build_release": 1,
}
RELEASE_NAME = f"{config['campaign']['id']}-{config['campaign']['version']}"
RELEASE_ARCHIVE = f"{RESULTS}/release/{RELEASE_NAME}.zip"


# Per-submission files are <results>/<stage>/<team>/<system>.<ext>, written with one
# wildcard, {submission} = "<team>/<system>." (dot included), not {team}/{system}:
# Snakemake refuses wildcard values that end in one piece repeated 20 times or
# more, which valid IDs such as "aaaaaaaaaaaaaaaaaaaa" do (see stecflow.core.ids).
wildcard_constraints:
    submission=ids.SUBMISSION_WILDCARD_REGEX,
    analysis=ids.ID_REGEX,
    study=ids.ID_REGEX,


def get_testset_files(wildcards):
    """A test set given as a folder (the dialogue sessions, B5-REF's corpus):
    its files, so that editing one prepares the test set again (a folder's own
    time changes only when a file is added or removed); hidden files and a
    submissions folder kept inside it left out. A file test set: nothing more."""
    root = config["data"]["testset"]
    if not os.path.isdir(root):
        return []
    skip = os.path.realpath(config["submissions"]["root"])
    files = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(
            name
            for name in subfolders
            if not name.startswith(".")
            and os.path.realpath(os.path.join(folder, name)) != skip
        )
        files += [
            os.path.join(folder, name)
            for name in names
            if not name.startswith(".") and os.path.isfile(os.path.join(folder, name))
        ]
    return sorted(files)


def get_submission_dir(wildcards):
    """The folder of one submission."""
    team, system = ids.split_submission_wildcard(wildcards.submission)
    return f"{config['submissions']['root']}/{team}/{system}"


def get_submission_files(wildcards):
    """The submission's files, where they are files inside the submissions folder.

    Missing files and links leading out of the folder are left out (validation
    reports them), so Snakemake never reads what such a link points at.
    """
    folder = get_submission_dir(wildcards)
    return [
        f"{folder}/{name}"
        for name in SUBMISSION_FILES
        if safepath.is_submission_file(folder, name)
    ]


def per_submission(pattern):
    """*pattern* ({submission}) for every submission, in discovery order."""
    return expand(pattern, submission=SUBMISSION_WILDCARDS)


def get_validation_records(wildcards):
    """Every submission's validation record."""
    return per_submission(f"{RESULTS}/validation/{{submission}}json")


def get_score_summaries(wildcards):
    """Every submission's score summary."""
    return per_submission(f"{RESULTS}/scores/systems/{{submission}}json")


@functools.cache
def analysed_submissions():
    """The submissions the statistics read, in discovery order.

    Late ones stay out of the statistics' inputs (unless the config includes
    them), so that adding one does not re-run the analyses; so do systems that a
    corrected version supersedes (`supersedes:` in its system.yaml). Worked out on
    first use, so that per-job Snakemake processes on a cluster never read the
    metadata.
    """
    return campaign.analysed_submissions(
        config["submissions"]["root"],
        SUBMISSIONS,
        config["campaign"]["deadline"],
        include_late=config["statistics"]["include_late"],
        # what earlier builds read of the system.yaml files not changed since
        store=".snakemake/stecflow/system-yaml-at-build.json",
    )


def get_analysed_summaries(wildcards):
    """The score summaries of the submissions the statistics may read."""
    return [f"{RESULTS}/scores/systems/{t}/{s}.json" for t, s in analysed_submissions()]


def get_analysed_validation_records(wildcards):
    """The validation records (with their system properties) of those submissions."""
    return [f"{RESULTS}/validation/{t}/{s}.json" for t, s in analysed_submissions()]


def get_analysed_item_scores(wildcards):
    """The item-score tables of the submissions the statistics may read."""
    return [f"{RESULTS}/scores/items/{t}/{s}.tsv" for t, s in analysed_submissions()]


def get_study_spec(wildcards):
    """The design-relevant keys of one study's config entry (plain data)."""
    return studies.design_spec(STUDIES[wildcards.study])


def get_practice_items(wildcards):
    """Where practice items come from: the development split, if the study has any."""
    if STUDIES[wildcards.study]["practice"] and config["data"]["dev"]:
        return [config["data"]["dev"]]
    return []


def get_study_submission_dirs(wildcards):
    """team/system -> submission folder, for the systems of one study."""
    root = config["submissions"]["root"]
    return {
        system: f"{root}/{system}" for system in STUDIES[wildcards.study]["systems"]
    }


def _system_files(systems, name):
    """The *name* files of *systems* and their validation records.

    An outputs file that is a link leading out of the submissions folder is left
    out: the study's job refuses it, naming the link.
    """
    root = config["submissions"]["root"]
    return [
        f"{root}/{s}/{name}"
        for s in systems
        if not safepath.leads_outside(f"{root}/{s}/{name}", root)
    ] + study_validation_records(systems)


def study_validation_records(systems):
    """The validation records of a study's systems, whose age does not count.

    Rule check_submission rewrites a submission's record (the same bytes) when
    only its scoring must re-run, e.g. after a metric setting changed; the
    submission's own files, also inputs of the study, still re-run it when they
    change.
    """
    return [ancient(f"{RESULTS}/validation/{s}.json") for s in systems]


def get_study_outputs(wildcards):
    """The files a study's stimuli read of its systems (its kind's ``reads``), with
    their validation records: outputs.xml of REG submissions, each submission's
    own outputs file; none when the design reads the decisions (a situated
    study's design holds the expressions it shows)."""
    spec = STUDIES[wildcards.study]
    reads = study_kinds.get(spec["task"]).reads
    if reads == "decisions":  # read by the design (get_design_system_files)
        return []
    if reads == "outputs":  # each submission's own outputs file
        root = config["submissions"]["root"]
        return [
            f"{root}/{s}/"
            + submission_outputs.outputs_file([], TASKS, folder=f"{root}/{s}")
            for s in spec["systems"]
        ] + study_validation_records(spec["systems"])
    return _system_files(spec["systems"], "outputs.xml")


def get_design_system_files(wildcards):
    """The outputs.tsv and validation record of a study whose design reads its
    system's decisions (its kind's ``reads``: a situated study's choose the
    instances, seed 000); none for the others."""
    spec = STUDIES[wildcards.study]
    if study_kinds.get(spec["task"]).reads != "decisions":
        return []
    return _system_files(spec["systems"], "outputs.tsv")


def get_images_dir(wildcards):
    """The entity pictures folder, if the campaign has one."""
    return [config["data"]["images"]] if config["data"]["images"] else []


def get_study(wildcards):
    """One study's config entry, with its defaults (plain data)."""
    return STUDIES[wildcards.study]


def get_study_task(wildcards):
    """The study's kind (config ``task``: stecflow.studykinds)."""
    return STUDIES[wildcards.study]["task"]


def get_study_variant(wildcards):
    """The identification variant (None for rating)."""
    return STUDIES[wildcards.study]["variant"]


def get_study_responses(wildcards):
    """A study's response files: the simulated ones, or those the config lists."""
    spec = STUDIES[wildcards.study]
    if spec["simulate"]:
        # the simulated trials and their session table (times, questionnaire)
        return [
            f"{RESULTS}/judgments/simulated/{wildcards.study}.tsv",
            f"{RESULTS}/judgments/simulated/{wildcards.study}.sessions.tsv",
        ]
    return sorted(spec["responses"])


def get_study_questionnaire(wildcards):
    """The study's questionnaire file (experiment.questionnaire), if any."""
    experiment = STUDIES[wildcards.study].get("experiment") or {}
    return [experiment["questionnaire"]] if experiment.get("questionnaire") else []


# Studies with a power analysis (rule power, README "Planning a study").
POWER_STUDIES = sorted(sid for sid, spec in STUDIES.items() if spec.get("power"))


def get_power_inputs(wildcards):
    """The pilot files a study's power settings name (none without a pilot)."""
    power = STUDIES[wildcards.study]["power"]
    return [p for p in (power.get("pilot"), power.get("sessions")) if p]


def get_study_withdrawals(wildcards):
    """A study's withdrawals files: those the config lists, and the one that
    `stecflow sessions withdraw` writes beside the study's default database."""
    listed = STUDIES[wildcards.study].get("withdrawals") or []
    beside = f"{RESULTS}/studies/{wildcards.study}/responses.withdrawals.tsv"
    return sorted({*listed, *([beside] if os.path.exists(beside) else [])})


def get_study_corrections(wildcards):
    """The corrections file of a study, if the organisers wrote one."""
    corrections = STUDIES[wildcards.study]["corrections"]
    return [corrections] if corrections else []


def analysis_judgment_paths(analysis_id):
    """Study ID -> judgments table, for the studies one analysis reads."""
    sources = analysis.analysis_sources(ANALYSES[analysis_id], STUDIES)
    return {s: f"{RESULTS}/judgments/{s}.tsv" for s in sources}


def get_release_entries(wildcards):
    """Result files rule pack_release copies into the release archive as they
    are: their paths inside the archive, which are their paths under the results
    folder. The statistics, the report and the files of get_last_release_entries
    are added by rule build_release."""
    entries = ["validation/summary.tsv", "scores/systems.tsv", "scores/items.tsv"]
    # each submission's item scores: the report's section "Submissions"
    entries += [f"scores/items/{s}tsv" for s in SUBMISSION_WILDCARDS]
    for study in STUDIES:
        entries += [
            f"studies/{study}/design.tsv",
            f"studies/{study}/balance.tsv",
            f"judgments/quality/{study}.tsv",
            f"judgments/measures/{study}.tsv",
            f"judgments/summary/{study}.json",
        ]
        if STUDIES[study].get("power"):
            entries += [f"power/{study}.tsv", f"power/{study}.json"]
    return entries


def get_last_release_entries(wildcards):
    """Result files rule build_release adds with the statistics and the report
    (under stecflow.release.archive.LAST_ENTRIES): made after the judgments, they
    would hold back the packing of the rest."""
    entries = ["scores/significance.tsv", "scores/clusters.tsv"]
    for study in STUDIES:
        entries += [
            f"judgments/agreement/{study}.tsv",
            f"judgments/agreement/{study}.json",
        ]
    return entries


def get_release_files(wildcards):
    """The files of get_release_entries, in the same order."""
    return [f"{RESULTS}/{entry}" for entry in get_release_entries(wildcards)]


def get_last_release_files(wildcards):
    """The files of get_last_release_entries, in the same order."""
    return [f"{RESULTS}/{entry}" for entry in get_last_release_entries(wildcards)]


def get_discovery_problems(wildcards):
    """Entries of the submissions folder that are not submissions, with reasons."""
    return [list(problem) for problem in DISCOVERY.problems]
