"""Team submissions: discovery, files, limits and validation.

Owns :mod:`~stecflow.submissions.files` (writing a submission's ``outputs.xml`` and
``system.yaml``), :mod:`~stecflow.submissions.safepath` (what may be opened under
``submissions/``: no link leads out of it) and
:mod:`~stecflow.submissions.validation` (metadata against
``schemas/submission.schema.yaml``, the outputs file, limits, the per-submission
record and the campaign's ``summary.tsv``). The ``validation.smk`` rules call it.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""
