"""The release archive of a campaign (the ``release.smk`` rule).

Owns :mod:`~stecflow.release.archive`: which result files go into the zip, the
manifest, the datasheet, and byte-identical rebuilds; and
:mod:`~stecflow.release.source`: the stecflow that builds the release, as a wheel
the archive holds and the git commit it names. It packs files; it imports no
stage that made them.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.submissions`, :mod:`stecflow.studies` (what a study rates and
its settings, for the datasheet).
"""
