"""The data model and the hardened readers of user files.

Owns :mod:`~stecflow.data.model` (domains, entities, items, references, outputs),
:mod:`~stecflow.data.corpus` (test sets in the shared-task XML and the TUNA 1.0
distribution), :mod:`~stecflow.data.b5ref` (the b5-ref corpus),
:mod:`~stecflow.data.xmlsafe` (the one XML parser: no entities, DTDs or network)
and :mod:`~stecflow.data.yamlsafe` (the one YAML reader: no anchors, size limits).

May import: :mod:`stecflow.core`.
"""
