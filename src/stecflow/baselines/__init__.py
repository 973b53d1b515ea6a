"""The organisers' baseline systems.

Owns :mod:`~stecflow.baselines.systems`: Full Brevity and Greedy (Dale 1989) and the
Incremental Algorithm (Dale & Reiter 1995) with a preference order learnt from
training data; their word strings come from the task's template realiser.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.metrics`.
"""
