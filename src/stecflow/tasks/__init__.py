"""Task types: what an item's input is, what an output holds, and how each is shown.

Every stage that needs to know what a task is asks the registry
(:mod:`~stecflow.tasks.registry`: :func:`~stecflow.tasks.registry.get`,
:func:`~stecflow.tasks.registry.task_types`) for a
:class:`~stecflow.tasks.base.TaskType` (:mod:`~stecflow.tasks.base` also defines the
:class:`~stecflow.tasks.base.Problem` and :class:`~stecflow.tasks.base.Limits` a
reader of submission files speaks). One module per task type declares it:
:mod:`~stecflow.tasks.attribute_selection`, :mod:`~stecflow.tasks.realisation` and
:mod:`~stecflow.tasks.end_to_end`, the REG tasks, built from what they share in
:mod:`stecflow.tasks.reg` (the ``outputs.xml`` reader, the template realiser, the
entity pictures and the scene a study shows), and
:mod:`~stecflow.tasks.situated_dialogue` (seed 000: a demonstrative-pronoun
decision per referring expression of a dialogue session) and
:mod:`~stecflow.tasks.text_generation` (one text per input, JSON Lines test sets,
outputs as JSON Lines, plain text or GEM-style JSON). Adding a task type is one
new module (docs/architecture.md).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`.
"""
