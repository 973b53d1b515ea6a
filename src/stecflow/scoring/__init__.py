"""Automatic evaluation of the valid submissions (the ``scoring.smk`` rules).

Owns :mod:`~stecflow.scoring.score`: which metrics a campaign computes and their
signatures, per-item scores of one submission against the references, bootstrap
intervals, the system table aggregated from the per-submission summaries, and
which systems differ (:mod:`~stecflow.scoring.significance`: paired tests and
clusters).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.stats`, :mod:`stecflow.tasks`, :mod:`stecflow.submissions`.
"""
