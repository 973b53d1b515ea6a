"""The demo campaign's generator (``stecflow demo``).

Owns :mod:`~stecflow.demo.generate` (the entry point:
:func:`~stecflow.demo.generate.build_demo` and the command line) and its parts:
:mod:`~stecflow.demo.corpus` (a TUNA-shaped corpus with TUNA's split sizes, and its
pictures), :mod:`~stecflow.demo.domains` (TUNA's vocabularies, the domains),
:mod:`~stecflow.demo.references`, :mod:`~stecflow.demo.authors` and
:mod:`~stecflow.demo.wording` (human-like references),
:mod:`~stecflow.demo.submissions` (the baselines' and the other demo submissions)
and :mod:`~stecflow.demo.seeding` (the seeded random generators); and
:mod:`~stecflow.demo.dialogue`, the simulated situated-dialogue corpus of seed 000
(``resources/dialogue-demo/``, ``python -m stecflow.demo.dialogue``).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.submissions`, :mod:`stecflow.baselines`.
"""
