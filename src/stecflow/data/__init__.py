"""The data model and the hardened readers of user files.

Owns :mod:`~stecflow.data.model` (domains, entities, items, references, outputs),
:mod:`~stecflow.data.corpus` (test sets in the shared-task XML and the TUNA 1.0
distribution), :mod:`~stecflow.data.b5ref` (the b5-ref corpus),
:mod:`~stecflow.data.xmlsafe` (the one XML parser: no entities, DTDs or network),
:mod:`~stecflow.data.yamlsafe` (the one YAML reader: no anchors, size limits),
:mod:`~stecflow.data.dialogue` (situated-dialogue sessions of seed 000: the
``stecflow-dialogue`` JSON format and its schema, the hardened reader, the seed's
Table 3 features and the context a trial replays), and
:mod:`~stecflow.data.jsonl` (JSON Lines: the hardened line reader and the test
set of the text-generation task). The JSON guards both share are in the private
``_json`` module.

May import: :mod:`stecflow.core`.
"""
