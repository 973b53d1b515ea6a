# stecflow: one shared-task evaluation campaign as one Snakemake DAG.
#
# Run the demo campaign:      snakemake --cores 2
# Run another campaign:       snakemake --cores 2 --configfile config/b5-ref.yaml
#
# The config: a file given with --configfile is the whole campaign; the demo's
# config/config.yaml is read only when no --configfile is given, so nothing of the
# demo (studies, analyses, submissions) leaks into another campaign. Every key a
# campaign leaves out takes its default from workflow/schemas/config.schema.yaml.
# --config KEY=VALUE overrides single keys of whichever config is read (the demo's,
# or the --configfile's); on its own it does not replace the demo config. Several
# --configfile files are merged in order, the later over the earlier.
#
# Outputs: everything under the config's `results` folder (default results/; the
# paths below use the default). The folder records the campaign that owns it in
# results/.campaign, written when a run starts; another campaign pointed at the
# same folder stops before any job runs and is told to set `results:`.
#   results/data/testset.xml                      the test set, in stecflow's XML
#                                                 (testset.json: a dialogue corpus;
#                                                 testset.jsonl: a text test set;
#                                                 stecflow.tasks.formats names them)
#   results/data/testset.compact.json             the same items, compact, for the
#                                                 per-submission jobs (XML only)
#   (one job per submission, check_submission, validates then scores it and
#   writes its four files below)
#   results/validation/<team>/<system>.json       validation record (status, errors)
#   results/validation/<team>/<system>.md         the same, readable, for the team
#   results/validation/summary.tsv                one row per submission
#   results/validation/records.jsonl              every record, one a line
#   results/scores/items/<team>/<system>.tsv      item x reference x metric scores
#   results/scores/systems/<team>/<system>.json   one system's scores per subset
#   results/scores/systems.tsv                    system x metric x subset, with CIs
#   results/scores/items.tsv                      item scores of the systems analysed
#   results/scores/analysed.tsv                   their system-level scores
#   results/scores/significance.tsv               paired tests between every two of
#                                                 them, per metric and method
#   results/scores/clusters.tsv                   per metric (and task): rank and cluster
#                                                 of systems not significantly different
#   results/studies/<study>/design.tsv            one row per trial of a human study
#   results/studies/<study>/balance.tsv           proof that the design is balanced
#   results/studies/<study>/web/                  the experiment as served by
#                                                 `stecflow serve <study>` (no trials:
#                                                 each session gets its own list)
#   results/studies/<study>/offline/<list>/       one list's copy to open from disk
#   results/studies/<study>/stimuli-key.json      the organiser's key: every trial's
#                                                 item, system and answer (never served)
#   results/studies/<study>/dmdx/                 DMDX item files for lab replications
#   results/judgments/<study>.tsv                 one row per trial, merged with the design
#   results/judgments/quality/<study>.tsv         data-quality problems found
#   results/judgments/measures/<study>.tsv        derived measures per system and subdomain
#   results/judgments/summary/<study>.json        counts, outliers, settings
#   results/judgments/agreement/<study>.tsv       inter-rater agreement (alpha, ICC)
#                                                 with bootstrap CIs (.json: settings)
#   results/stats/<analysis>.tsv / .json          one statistical analysis each
#   results/report/index.html                     the campaign report (self-contained)
#   results/release/<campaign>-<version>.zip      the public-release archive
#   results/release/MANIFEST.tsv                  size and sha256 of every entry
#   results/logs/<rule>/...                       one log per job
#   results/benchmarks/<rule>/...                 time and peak memory of every job
#   results/.campaign                             the ID of the campaign that owns it


from snakemake.utils import min_version

min_version("9.0")


if not workflow.overwrite_configfiles:  # the files given with --configfile

    configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/validation.smk"
include: "workflow/rules/scoring.smk"
include: "workflow/rules/studies.smk"
include: "workflow/rules/judgments.smk"
include: "workflow/rules/statistics.smk"
include: "workflow/rules/power.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/release.smk"


# A run (not a dry run) claims the results folder for this campaign, and removes
# the results of submissions taken out of the submissions folder since the last.
onstart:
    campaign.claim_results(RESULTS, config["campaign"]["id"])
    for gone in campaign.prune_removed_submissions(RESULTS, SUBMISSIONS):
        logger.info(f"removed the results of {gone} (no longer in the submissions)")


rule all:
    """Run the whole campaign."""
    input:
        TESTSET,
        f"{RESULTS}/validation/summary.tsv",
        f"{RESULTS}/scores/systems.tsv",
        f"{RESULTS}/scores/significance.tsv",
        f"{RESULTS}/scores/clusters.tsv",
        expand(f"{RESULTS}/stats/{{analysis}}.tsv", analysis=ANALYSES),
        expand(f"{RESULTS}/studies/{{study}}/web", study=STUDIES),
        expand(f"{RESULTS}/studies/{{study}}/offline", study=STUDIES),
        expand(f"{RESULTS}/judgments/{{study}}.tsv", study=STUDIES),
        expand(f"{RESULTS}/judgments/agreement/{{study}}.tsv", study=STUDIES),
        f"{RESULTS}/report/index.html",
        RELEASE_ARCHIVE,
        expand(f"{RESULTS}/power/{{study}}.tsv", study=POWER_STUDIES),
    localrule: True
