"""Task types: what an item's input is, what an output holds, and how each is shown.

One module (or package) per task type. The referring-expression tasks of the REG
challenges live in :mod:`stecflow.tasks.reg`: its template realiser
(:mod:`~stecflow.tasks.reg.realiser`), the pictures of its entities
(:mod:`~stecflow.tasks.reg.pictures`) and how a study shows an item's input
(:func:`stecflow.tasks.reg.scene.scene`).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`.
"""
