"""Realisation (REG 2008, TUNA-REG 2009): put a given attribute set into words.

A system sees a domain and the attribute set of a description of its target, and
outputs the description (a ``WORD-STRING`` per item of ``outputs.xml``).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from stecflow.tasks.reg.task import reg_task

TASK = reg_task(
    "realisation",
    summary="realisation (a WORD-STRING from a given attribute set)",
    input="a domain of entities and the attribute set to realise for the target",
    outputs=("word_string",),
)
