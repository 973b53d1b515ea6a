"""The configured analyses of a campaign (the ``statistics.smk`` rules).

Owns :mod:`~stecflow.analysis.analyses`: which measure of which table goes into which
test, with which exclusions, and the tidy records the report reads. The tests
themselves are in :mod:`stecflow.stats`. :mod:`~stecflow.analysis.situated` holds
seed 000's paired t-tests over evaluators between instance classes (TP vs FN,
FP-system vs FP-Orig), from :mod:`stecflow.judgments.situated`'s evaluator table.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.scoring`, :mod:`stecflow.stats`, :mod:`stecflow.judgments`.
"""
