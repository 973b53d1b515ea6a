"""The exceptions stecflow raises on bad user input.

Every error says where the problem is (file, line, field) and what was expected, so
that the person who must fix the input can do so without reading our code.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "CorpusError",
    "StecflowError",
    "StimuliError",
    "SubmissionError",
    "XMLError",
    "YAMLError",
]


class StecflowError(Exception):
    """Base class of every error caused by user input rather than by a bug."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        super().__init__(self.location_prefix() + message)

    def location_prefix(self) -> str:
        """Return ``"file, line N, field F: "`` with the parts that are known."""
        parts = []
        if self.file:
            parts.append(str(self.file))
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.field:
            parts.append(self.field)
        return ", ".join(parts) + ": " if parts else ""


class ConfigError(StecflowError):
    """A campaign configuration is invalid (the field is the key path)."""


class XMLError(StecflowError):
    """An XML file is malformed, unsafe or too large (the field is the element)."""


class YAMLError(StecflowError):
    """A YAML file from outside is malformed, unsafe or too large."""


class CorpusError(StecflowError):
    """A corpus or test-set file is well-formed XML but does not fit the data model."""


class StimuliError(StecflowError, ValueError):
    """A study's stimuli cannot be built from the inputs given (the field says why).

    Raised by the study builders (e.g. :mod:`stecflow.studies.stimuli`) and the
    bundle they share (:mod:`stecflow.studies.bundle`), and by the task types' scenes
    (e.g. :func:`stecflow.tasks.reg.scene.scene`), which may not import
    :mod:`stecflow.studies`; hence it is defined here.
    """


class SubmissionError(StecflowError):
    """A submission cannot be read at all (validation reports the details)."""
