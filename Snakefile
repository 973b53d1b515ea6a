# stecflow: one shared-task evaluation campaign as one Snakemake DAG.
#
# Run the demo campaign:      snakemake --cores 2
# Run another campaign:       snakemake --cores 2 --configfile config/b5-ref.yaml
#
# Outputs (everything under results/):
#   results/data/testset.xml                      the test set, in stecflow's XML
#   results/validation/<team>/<system>.json       validation record (status, errors)
#   results/validation/<team>/<system>.md         the same, readable, for the team
#   results/validation/summary.tsv                one row per submission
#   results/scores/items/<team>/<system>.tsv      item x reference x metric scores
#   results/scores/systems/<team>/<system>.json   one system's scores per subset
#   results/scores/systems.tsv                    system x metric x subset, with CIs
#   results/scores/items.tsv                      item scores of the systems analysed
#   results/scores/analysed.tsv                   their system-level scores
#   results/studies/<study>/design.tsv            one row per trial of a human study
#   results/studies/<study>/balance.tsv           proof that the design is balanced
#   results/studies/<study>/web/                  the experiment: open index.html, or
#                                                 run `stecflow serve <study>`
#   results/studies/<study>/dmdx/                 DMDX item files for lab replications
#   results/judgments/<study>.tsv                 one row per trial, merged with the design
#   results/judgments/quality/<study>.tsv         data-quality problems found
#   results/judgments/measures/<study>.tsv        derived measures per system and subdomain
#   results/judgments/summary/<study>.json        counts, outliers, settings
#   results/stats/<analysis>.tsv / .json          one statistical analysis each
#   results/report/index.html                     the campaign report (self-contained)
#   results/release/<campaign>-<version>.zip      the public-release archive
#   results/release/MANIFEST.tsv                  size and sha256 of every entry
#   results/logs/<rule>/...                       one log per job


from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/validation.smk"
include: "workflow/rules/scoring.smk"
include: "workflow/rules/studies.smk"
include: "workflow/rules/judgments.smk"
include: "workflow/rules/statistics.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/release.smk"


rule all:
    """Run the whole campaign."""
    input:
        "results/data/testset.xml",
        "results/validation/summary.tsv",
        "results/scores/systems.tsv",
        expand("results/stats/{analysis}.tsv", analysis=ANALYSES),
        expand("results/studies/{study}/web", study=STUDIES),
        expand("results/judgments/{study}.tsv", study=STUDIES),
        "results/report/index.html",
        RELEASE_ARCHIVE,
    localrule: True
