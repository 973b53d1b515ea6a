"""The release archive of a campaign (the ``release.smk`` rule).

Owns, one concern a module:

- :mod:`~stecflow.release.archive`: the packing: which result files go into the
  zip, what of the participants is pseudonymised or withheld, the manifest, and
  byte-identical rebuilds;
- :mod:`~stecflow.release.paths`: paths as released, relative to the project;
- :mod:`~stecflow.release.privacy`: what the release holds about participants,
  by the policy ``release.personal_data``, and the check of the consent texts;
- :mod:`~stecflow.release.heds`: the Human Evaluation Datasheet, from the config
  and what :mod:`~stecflow.release.studyfacts` reads of each study (what was
  collected, its texts, its power analysis);
- :mod:`~stecflow.release.heds_kinds`: what the datasheet says of each built-in
  study kind (its criteria, its trials: the sheet its ``datasheet`` hook names);
- :mod:`~stecflow.release.readme`: README.md and its re-running steps;
- :mod:`~stecflow.release.citation`: CITATION.cff, .zenodo.json and the licence
  notes;
- :mod:`~stecflow.release.environment`: the lock of stecflow's dependency
  closure and the Python version and platform;
- :mod:`~stecflow.release.source`: the stecflow that builds the release, as a
  wheel the archive holds and the git commit it names.

It packs files; it imports no stage that made them.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.submissions`, :mod:`stecflow.studies` (what a study rates and
its settings, for the datasheet).
"""
