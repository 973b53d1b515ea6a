"""The demo campaign's generator (``stecflow demo``).

Owns :mod:`~stecflow.demo.generate`: a TUNA-shaped corpus with TUNA's vocabularies and
split sizes, human-like references, and the baselines' submissions.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.submissions`, :mod:`stecflow.baselines`.
"""
