"""End-to-end referring expression generation (TUNA-REG 2009).

A system sees a domain of entities, one the target, and outputs a description of
the target (a ``WORD-STRING`` per item of ``outputs.xml``; an ``ATTRIBUTE-SET`` may
come with it and is then scored too).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from stecflow.tasks.reg.task import reg_task

TASK = reg_task(
    "end_to_end",
    summary="end-to-end generation (a WORD-STRING per item)",
    input="a domain of entities with attributes, one of them the target",
    outputs=("word_string",),
)
