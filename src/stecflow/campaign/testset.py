"""The campaign's test set: reading and preparing it in the format the config
names, and the file names of its prepared and job forms (per format, from
:mod:`stecflow.tasks.formats`); ``load_testset`` is what every stage uses.
"""

from __future__ import annotations

from pathlib import Path

from stecflow.data.model import Item
from stecflow.tasks import formats as testset_formats

__all__ = [
    "DATA_FORMATS",
    "job_testset_name",
    "load_testset",
    "prepare_testset",
    "prepared_testset_name",
]

#: The built-in test-set formats: a TUNA-style XML file or folder, the b5-ref
#: corpus folder, a folder of ``stecflow-dialogue`` sessions (the situated task of
#: seed 000), or a JSON Lines file of the text-generation task
#: (:mod:`stecflow.data.jsonl`); each is declared in :mod:`stecflow.tasks.formats`.
DATA_FORMATS = testset_formats.names()


def load_testset(path: str | Path, data_format: str = "tuna") -> list[Item]:
    """Read the campaign's test set in the format the config names.

    Parameters
    ----------
    path
        A TUNA-style XML file or folder (``tuna``), the b5-ref folder
        (``b5-ref``), a folder of dialogue sessions (``dialogue``: one item per
        solver expression), or a JSON Lines file (``text``: one item per line,
        :func:`stecflow.tasks.text_generation.read_items`).
    data_format
        A format of the registry :mod:`stecflow.tasks.formats` (the built-in
        ones are :data:`DATA_FORMATS`).
    """
    return testset_formats.get(data_format).read(path)


def prepared_testset_name(data_format: str) -> str:
    """The file name of the prepared test set under ``<results>/data/``.

    >>> prepared_testset_name("tuna"), prepared_testset_name("dialogue")
    ('testset.xml', 'testset.json')
    >>> prepared_testset_name("text")
    'testset.jsonl'
    """
    return testset_formats.get(data_format).prepared_name


def job_testset_name(data_format: str) -> str:
    """The file name, under ``<results>/data/``, of the test set that the
    per-submission jobs read.

    The compact form (:mod:`stecflow.data.compact`) for the REG formats, whose
    prepared test set is XML; the prepared test set itself (JSON already) for
    the others.

    >>> job_testset_name("tuna"), job_testset_name("dialogue")
    ('testset.compact.json', 'testset.json')
    """
    return testset_formats.get(data_format).job_name


def prepare_testset(
    path: str | Path,
    data_format: str,
    out_path: str | Path,
    compact_path: str | Path | None = None,
) -> int:
    """Read the test set in its own format and write it in stecflow's own.

    Every later stage reads this canonical file (with
    :func:`stecflow.tasks.registry.read_testset`), whatever the source format:
    stecflow XML for the REG formats, a dialogue corpus file (every session in
    one JSON document, :func:`stecflow.data.dialogue.write_corpus_file`) for
    ``dialogue``, canonical JSON Lines
    (:func:`stecflow.tasks.text_generation.write_testset`) for ``text``. For the
    REG formats, *compact_path* (if given) receives the compact form of the
    items read back from that XML (:func:`stecflow.data.compact.write_compact`),
    which the per-submission jobs load instead of the XML. Returns the number
    of items. The writer is the format's own
    (:attr:`stecflow.tasks.formats.TestsetFormat.prepare`).
    """
    return testset_formats.get(data_format).prepare(path, out_path, compact_path)
