"""Attribute selection (ASGRE 2007, REG 2008): choose the attributes of a description.

A system sees a domain of entities, one the target, and outputs the set of
attributes its description of the target would mention (an ``ATTRIBUTE-SET`` per
item of ``outputs.xml``).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from stecflow.tasks.reg.task import reg_task

TASK = reg_task(
    "attribute_selection",
    summary="attribute selection (an ATTRIBUTE-SET per item)",
    input="a domain of entities with attributes, one of them the target",
    outputs=("attribute_set",),
)
