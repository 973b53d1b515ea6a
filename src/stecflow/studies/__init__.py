"""Human studies: designs, stimuli, the web experiment and the collection server.

Owns :mod:`~stecflow.studies.setup` (the configured studies: which items and systems,
the design and stimuli jobs of ``studies.smk``), :mod:`~stecflow.studies.designs`
(Latin squares and list designs), :mod:`~stecflow.studies.settings` (tasks,
questions, response columns and presentation settings),
:mod:`~stecflow.studies.bundle` (the self-contained web experiment every kind is
written as, from ``web/``), :mod:`~stecflow.studies.stimuli` (the REG grid kinds'
study document), :mod:`~stecflow.studies.speech` (espeak-ng and the warning beep),
:mod:`~stecflow.studies.dmdx` (the DMDX item files) and
:mod:`~stecflow.studies.server` (``stecflow serve``: collecting responses online). A
kind with a design and
stimuli of its own keeps them in its package (seed 000's situated study:
:mod:`stecflow.studykinds.situated_identification`).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.submissions`.
"""
