"""The organisers' baseline systems.

Owns :mod:`~stecflow.baselines.systems`: Full Brevity and Greedy (Dale 1989) and the
Incremental Algorithm (Dale & Reiter 1995) with a preference order learnt from
training data; their word strings come from the task's template realiser. And
:mod:`~stecflow.baselines.situated`, the situated-dialogue task's (seed 000): the
recency baseline (a demonstrative pronoun iff feature D1) and a logistic regression
over the Table 3 features, cross-validated by session, each written as a
submission folder; :mod:`~stecflow.baselines.situated_ablations`, that regression
without each feature group (the rows of seed 000's Table 4).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.metrics`.
"""
