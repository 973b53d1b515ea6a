"""The campaign as the workflow and the command line see it: its config, its
results folder, its test set and its submissions.

One module per concern: :mod:`~stecflow.campaign.config` (reading the config
files, the JSON schema and the cross-key rules it cannot express),
:mod:`~stecflow.campaign.results` (the results folder, its owner, pruning the
results of submissions taken out), :mod:`~stecflow.campaign.testset` (reading and
preparing the test set, its file names) and :mod:`~stecflow.campaign.submissions`
(the one scan of the submissions folder; which are late, superseded, analysed).
The names below are the package's API, imported from those modules: the workflow
(``from stecflow import campaign`` in ``workflow/rules/common.smk`` and the
``Snakefile``) and the command line call them as ``campaign.<name>``.

May import: any :mod:`stecflow` package below it (:mod:`stecflow.core` up to
:mod:`stecflow.report`).
"""

from __future__ import annotations

from stecflow.campaign.config import (
    check_config,
    check_config_files,
    check_tasks,
    read_config_file,
    validate_config,
)
from stecflow.campaign.results import (
    OWNER_FILE,
    SUBMISSION_OUTPUTS,
    check_results_owner,
    claim_results,
    prune_removed_submissions,
    results_dir,
)
from stecflow.campaign.submissions import (
    Discovery,
    analysed_submissions,
    discover_submissions,
    late_submissions,
    superseded_submissions,
)
from stecflow.campaign.testset import (
    DATA_FORMATS,
    job_testset_name,
    load_testset,
    prepare_testset,
    prepared_testset_name,
)

__all__ = [
    "DATA_FORMATS",
    "OWNER_FILE",
    "SUBMISSION_OUTPUTS",
    "Discovery",
    "analysed_submissions",
    "check_config",
    "check_config_files",
    "check_results_owner",
    "check_tasks",
    "claim_results",
    "discover_submissions",
    "job_testset_name",
    "late_submissions",
    "load_testset",
    "prepare_testset",
    "prepared_testset_name",
    "prune_removed_submissions",
    "read_config_file",
    "results_dir",
    "superseded_submissions",
    "validate_config",
]
