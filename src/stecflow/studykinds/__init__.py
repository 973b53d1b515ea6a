"""Study kinds: what a human study of a campaign asks its participants.

A study kind is to the human studies what a task type is to the submissions:
one declaration (:class:`~stecflow.studykinds.base.StudyKind`) that says what
the stages need of it, found through :mod:`stecflow.studykinds.registry`. The
stages ask the registry and never test a kind's name. The built-in kinds are
``rating`` and ``identification`` (TUNA-REG'09, ASGRE, REG 2008),
``situated_identification`` (seed 000), and ``text_rating`` and
``text_preference`` (any text-generation task).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""
