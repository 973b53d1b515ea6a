"""Foundations every stage shares: errors, identifiers, deterministic writers, logs.

Owns :mod:`~stecflow.core.errors` (the :class:`StecflowError` family users see),
:mod:`~stecflow.core.ids` (team, system, study and analysis identifiers and the
Snakemake wildcards built from them), :mod:`~stecflow.core.io` (byte-deterministic
TSV and JSON writers and their readers), :mod:`~stecflow.core.logs` (job logs) and
:mod:`~stecflow.core.resources` (cluster resources of the workflow's rules).

May import: the standard library only; nothing else of stecflow.
"""
