"""The configured analyses of a campaign (the ``statistics.smk`` rules).

Owns :mod:`~stecflow.analysis.analyses`: which measure of which table goes into which
test, with which exclusions, and the tidy records the report reads. The tests
themselves are in :mod:`stecflow.stats`.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.scoring`, :mod:`stecflow.stats`.
"""
