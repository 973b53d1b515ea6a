"""Participant screens written by the organiser: consent, questionnaire, debrief.

A study's ``experiment.consent`` and ``experiment.debrief`` name Markdown or plain
text files; ``experiment.questionnaire`` names a YAML file of questions. They are
read and checked when the study is built (:func:`study_screens`) and carried in
the study document as plain data: text blocks (``{"kind": "h"|"p"|"li", "text":
...}``) that the page shows with ``textContent``, never as HTML, so a file cannot
inject markup or scripts.

Markdown understood: ``#`` headings, paragraphs separated by blank lines, ``-``,
``*`` or ``1.`` list items; inline marks (``**``, ``_``, backticks) are removed.
Anything else (including HTML tags) is shown as written.

A questionnaire file::

    screen: demographics        # id of the answers' screen (default questionnaire)
    intro: Please tell us about yourself.   # optional
    fields:
      - id: age                 # 1-64 letters, digits, '-' or '_'
        question: How old are you?
        type: number            # choice, text, number or yes-no
        min: 16                 # number only, optional
        max: 100
        required: true          # default true
      - id: gender
        question: What is your gender?
        type: choice
        options: [female, male, other, prefer not to say]
        # or [{value: f, label: female}, ...] to store short codes

Every error names the file, the line and the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stecflow.core.errors import ConfigError

__all__ = ["FIELD_TYPES", "read_questionnaire", "read_text", "study_screens"]

#: The kinds of questionnaire field.
FIELD_TYPES = ("choice", "text", "number", "yes-no")
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_MAX_FIELDS = 100
_MAX_TEXT = 2000


def _inline(text: str) -> str:
    text = re.sub(r"\*\*(.+?)\*\*|__(.+?)__", lambda m: m.group(1) or m.group(2), text)
    text = re.sub(r"(?<!\w)[*_](\S.*?)[*_](?!\w)", r"\1", text)
    return re.sub(r"`([^`]*)`", r"\1", text)


_WIDE = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")


def _join(parts: list[str]) -> str:
    """Lines of one paragraph joined: a space, except between CJK characters."""
    text = ""
    for part in parts:
        wide = text and _WIDE.match(text[-1]) and _WIDE.match(part[0])
        text += part if not text or wide else " " + part
    return text


def read_text(path: str | Path, *, field: str) -> list[dict[str, str]]:
    """Blocks of a Markdown or plain-text file (headings, paragraphs, list items).

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "c.md")
    >>> text = "# Consent\\n\\nYou **may** stop.\\n\\n- one\\n- <b>two</b>\\n"
    >>> _ = open(p, "w").write(text)
    >>> read_text(p, field="consent")  # doctest: +NORMALIZE_WHITESPACE
    [{'kind': 'h', 'text': 'Consent'}, {'kind': 'p', 'text': 'You may stop.'},
     {'kind': 'li', 'text': 'one'}, {'kind': 'li', 'text': '<b>two</b>'}]
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ConfigError(
            f"cannot read the file {path}: {error.strerror}", field=field
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ConfigError(
            "is not UTF-8 text", file=str(path), line=line, field=field
        ) from None
    blocks: list[dict[str, str]] = []
    paragraph: list[str] = []

    def close() -> None:
        if paragraph:
            blocks.append({"kind": "p", "text": _inline(_join(paragraph))})
            paragraph.clear()

    for line in text.replace("\r\n", "\n").split("\n"):
        stripped = line.strip()
        heading = re.match(r"#{1,6}\s+(.*)", stripped)
        item = re.match(r"(?:[-*+]|\d+[.)])\s+(.*)", stripped)
        if not stripped:
            close()
        elif heading:
            close()
            blocks.append({"kind": "h", "text": _inline(heading.group(1).strip())})
        elif item:
            close()
            blocks.append({"kind": "li", "text": _inline(item.group(1).strip())})
        elif (
            blocks and blocks[-1]["kind"] == "li" and not paragraph and line[:1] == " "
        ):
            blocks[-1]["text"] = _join([blocks[-1]["text"], _inline(stripped)])
        else:
            paragraph.append(stripped)
    close()
    if not blocks:
        raise ConfigError("the file is empty", file=str(path), field=field)
    return blocks


def _compose(path: Path, field: str) -> Any:
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(
            f"cannot read the file {path}: {error.strerror}", field=field
        ) from None
    except UnicodeDecodeError:
        raise ConfigError("is not UTF-8 text", file=str(path), field=field) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise ConfigError(
            f"not valid YAML: {getattr(error, 'problem', error)}",
            file=str(path),
            line=mark.line + 1 if mark else None,
            field=field,
        ) from None
    return node


def _value(node: Any) -> Any:
    import yaml

    return yaml.SafeLoader(" ").construct_object(node, deep=True)


def read_questionnaire(path: str | Path, *, field: str = "questionnaire") -> dict:
    """The questionnaire of a YAML file, checked (see the module's help).

    Returns
    -------
    dict
        ``screen``, ``intro`` (blocks, may be empty) and ``fields`` (each with
        ``id``, ``question``, ``type``, ``required`` and, for choices,
        ``options`` as ``{"value", "label"}``; for numbers ``min``/``max``).

    Raises
    ------
    ConfigError
        Naming the file, the line and the field, and what was expected.
    """
    import yaml

    path = Path(path)
    root = _compose(path, field)

    def fail(message: str, node: Any, name: str) -> ConfigError:
        line = node.start_mark.line + 1 if node is not None else None
        return ConfigError(message, file=str(path), line=line, field=name)

    if not isinstance(root, yaml.MappingNode):
        raise fail("must be a mapping with a 'fields' list", root, "(top)")
    top = {k.value: v for k, v in root.value}
    for key, node in top.items():
        if key not in ("screen", "intro", "fields"):
            raise fail("unknown key; known: screen, intro, fields", node, key)
    screen = _value(top["screen"]) if "screen" in top else "questionnaire"
    if not isinstance(screen, str) or not _ID.fullmatch(screen):
        raise fail("must be 1-64 letters, digits, '-' or '_'", top["screen"], "screen")
    intro: list[dict[str, str]] = []
    if "intro" in top:
        value = _value(top["intro"])
        if not isinstance(value, str):
            raise fail("must be a text", top["intro"], "intro")
        intro = [
            {"kind": "p", "text": p.strip()} for p in value.split("\n\n") if p.strip()
        ]
    fields_node = top.get("fields")
    if not isinstance(fields_node, yaml.SequenceNode) or not fields_node.value:
        raise fail(
            "must be a non-empty list of questions", fields_node or root, "fields"
        )
    if len(fields_node.value) > _MAX_FIELDS:
        raise fail(f"at most {_MAX_FIELDS} questions", fields_node, "fields")
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for n, node in enumerate(fields_node.value, 1):
        where = f"fields[{n}]"
        if not isinstance(node, yaml.MappingNode):
            raise fail("must be a mapping (id, question, type, ...)", node, where)
        nodes = {k.value: v for k, v in node.value}
        data = {k: _value(v) for k, v in nodes.items()}
        known = {"id", "question", "type", "options", "required", "min", "max"}
        for key in nodes:
            if key not in known:
                raise fail(
                    f"unknown key; known: {', '.join(sorted(known))}",
                    nodes[key],
                    f"{where}.{key}",
                )
        ident = data.get("id")
        if not isinstance(ident, str) or not _ID.fullmatch(ident):
            raise fail(
                "id must be 1-64 letters, digits, '-' or '_'",
                nodes.get("id", node),
                f"{where}.id",
            )
        where = f"fields[{n}] ({ident})"
        if ident in seen:
            raise fail("id used twice", nodes["id"], f"{where}.id")
        seen.add(ident)
        question = data.get("question")
        if not isinstance(question, str) or not question.strip():
            raise fail(
                "must be a non-empty text",
                nodes.get("question", node),
                f"{where}.question",
            )
        kind = data.get("type")
        if kind not in FIELD_TYPES:
            raise fail(
                f"must be one of {', '.join(FIELD_TYPES)}, got {kind!r}",
                nodes.get("type", node),
                f"{where}.type",
            )
        required = data.get("required", True)
        if not isinstance(required, bool):
            raise fail("must be true or false", nodes["required"], f"{where}.required")
        entry: dict[str, Any] = {
            "id": ident,
            "question": question.strip(),
            "type": kind,
            "required": required,
        }
        if kind == "choice":
            options = data.get("options")
            if not isinstance(options, list) or len(options) < 2:
                raise fail(
                    "a choice needs a list of at least two options",
                    nodes.get("options", node),
                    f"{where}.options",
                )
            entry["options"] = []
            for option in options:
                if isinstance(option, Mapping) and set(option) == {"value", "label"}:
                    value, label = option["value"], option["label"]
                else:
                    value = label = option
                if not isinstance(value, str | int) or isinstance(value, bool):
                    raise fail(
                        f"option {option!r}: must be a text or {{value, label}}",
                        nodes["options"],
                        f"{where}.options",
                    )
                value, label = str(value), str(label)
                if len(value) > _MAX_TEXT or not value.strip():
                    raise fail(
                        f"option {option!r}: empty or too long",
                        nodes["options"],
                        f"{where}.options",
                    )
                entry["options"].append({"value": value, "label": label})
            values = [o["value"] for o in entry["options"]]
            if len(set(values)) != len(values):
                raise fail(
                    "options repeat a value", nodes["options"], f"{where}.options"
                )
        elif "options" in nodes:
            raise fail(
                f"only a choice has options, not {kind}",
                nodes["options"],
                f"{where}.options",
            )
        for bound in ("min", "max"):
            if bound in nodes:
                if kind != "number":
                    raise fail(
                        f"only a number has {bound}", nodes[bound], f"{where}.{bound}"
                    )
                if isinstance(data[bound], bool) or not isinstance(
                    data[bound], int | float
                ):
                    raise fail("must be a number", nodes[bound], f"{where}.{bound}")
                entry[bound] = data[bound]
        out.append(entry)
    return {"screen": screen, "intro": intro, "fields": out}


def study_screens(settings: Mapping[str, Any], base: str | Path = ".") -> dict:
    """The screens of a study document's settings, read from their files.

    *settings* is the document's ``settings`` (file paths relative to *base*,
    the campaign folder). Returns ``{}`` when the study has none, else the keys
    among ``consent``, ``questionnaire`` (with ``at``) and ``debrief``.
    """
    base = Path(base)
    screens: dict[str, Any] = {}
    for name in ("consent", "debrief"):
        if settings.get(name):
            screens[name] = read_text(base / settings[name], field=f"experiment.{name}")
    if settings.get("questionnaire"):
        questionnaire = read_questionnaire(
            base / settings["questionnaire"], field="experiment.questionnaire"
        )
        questionnaire["at"] = settings.get("questionnaire_at", "start")
        screens["questionnaire"] = questionnaire
    return screens
