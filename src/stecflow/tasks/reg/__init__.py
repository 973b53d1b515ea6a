"""What the REG tasks of ASGRE 2007, REG 2008 and TUNA-REG 2009 share.

Owns the shared parts of the three REG task types (:mod:`~stecflow.tasks.reg.task`),
the reader of a submission's ``outputs.xml`` (:mod:`~stecflow.tasks.reg.outputs`),
the deterministic template realiser (:mod:`~stecflow.tasks.reg.realiser`), which
turns an attribute set into words, the SVG pictures of furniture and people
(:mod:`~stecflow.tasks.reg.pictures`) that the demo corpus and the stimuli show, and
the scene of an item (:mod:`~stecflow.tasks.reg.scene`): its entities' pictures on
a grid, as a human study shows them.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`.
"""
