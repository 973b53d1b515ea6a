"""Experimental designs for the human studies: repeated Latin squares and friends.

A human study shows each subject a *list* of trials; a trial is one item (a domain
with its target) described by one system. This package decides which subject sees
which item described by which system, and in which order. It does no I/O: every
design is returned as a :class:`Design` whose ``trials`` table can be written as TSV
by the caller.

Four designs are supported:

* :func:`latin_square_design`, the repeated Latin squares of REFERENCE.md section 22
  used by ASGRE 2007 and the TUNA challenges: items in blocks of *n* (one block per
  square), rows of each square are subject slots, columns are items, cells are the
  *n* systems. Every subject sees every system equally often and every
  (item, system) pair is judged exactly once per replication.
* the same with carry-over balance (``carryover_balanced=True``): the squares are
  Williams squares (:func:`williams_square`, REFERENCE.md section 23) and each
  subject sees a square's items in column order, so every system immediately
  precedes every other system equally often.
* :func:`two_group_design`, the counterbalanced design of seed 000 (section 5.1):
  the same contexts are shown with the original expression to one group and with a
  system's replacement to the other (FP1-Orig + FP2-DP vs FP1-DP + FP2-Orig), plus
  shared items that both groups see.
* seed 000's whole extrinsic study, from an instance table, is its kind's own
  (:func:`stecflow.studykinds.situated_identification.design.situated_design`),
  built on the two-group design above.

:func:`balance_table` counts what a design shows and :func:`balance_problems` (or
:func:`check_balance`, which raises) proves that a design is balanced.

Randomisation is reproducible: every random choice draws from
``numpy.random.default_rng`` seeded with a SHA-256 digest of the study seed and the
purpose of the draw (for example ``order`` and the subject slot), so designs are
identical on every machine and do not depend on the order in which IDs are given.

Modules
-------
:mod:`~stecflow.studies.designs.model`
    :class:`Design` and its trials table (:data:`TRIAL_COLUMNS`).
:mod:`~stecflow.studies.designs.checks`
    :class:`DesignError` and the argument checks of every builder.
:mod:`~stecflow.studies.designs.seeding`
    The seeded random generators (one per purpose of a draw).
:mod:`~stecflow.studies.designs.practice`
    Practice items: drawn once, shown first to every subject.
:mod:`~stecflow.studies.designs.williams`
    :func:`williams_square`.
:mod:`~stecflow.studies.designs.latin`
    :func:`latin_square_design` (fillers included) and :func:`valid_subject_counts`.
:mod:`~stecflow.studies.designs.two_group`
    :func:`two_group_design`, with shared items.
:mod:`~stecflow.studies.designs.balance`
    :func:`balance_table`, :func:`balance_problems`, :func:`check_balance`
    (:data:`BALANCE_COLUMNS`).
"""

from __future__ import annotations

from stecflow.studies.designs.balance import (
    BALANCE_COLUMNS,
    balance_problems,
    balance_table,
    check_balance,
)
from stecflow.studies.designs.checks import DesignError
from stecflow.studies.designs.latin import latin_square_design, valid_subject_counts
from stecflow.studies.designs.model import TRIAL_COLUMNS, Design
from stecflow.studies.designs.two_group import two_group_design
from stecflow.studies.designs.williams import williams_square

__all__ = [
    "BALANCE_COLUMNS",
    "TRIAL_COLUMNS",
    "Design",
    "DesignError",
    "balance_problems",
    "balance_table",
    "check_balance",
    "latin_square_design",
    "two_group_design",
    "valid_subject_counts",
    "williams_square",
]
