"""How the release is cited and may be reused: ``CITATION.cff``, Zenodo's
``.zenodo.json`` and ``LICENCE-NOTES.md``, from the config's ``release`` section."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["citation_cff", "licence_notes", "zenodo_metadata"]


def _quoted(text: Any) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(str(text), ensure_ascii=False)


def citation_cff(config: Mapping[str, Any]) -> str:
    """CITATION.cff (Citation File Format 1.2.0): title, version, authors, the
    release date (``release.date``, never the clock) and the DOI if any."""
    release = config.get("release") or {}
    campaign = config["campaign"]
    authors = release.get("authors") or [{"name": "The organisers"}]
    lines = [
        "cff-version: 1.2.0",
        "message: If you use these data, please cite them as below.",
        "type: dataset",
        f"title: {_quoted(campaign['title'] + ' (data release)')}",
        f"version: {_quoted(campaign.get('version', '1'))}",
    ]
    if release.get("date"):
        lines.append(f"date-released: {_quoted(release['date'])}")
    if release.get("doi"):
        lines.append(f"doi: {_quoted(release['doi'])}")
    lines.append("authors:")
    for author in authors:
        lines.append(f"  - name: {_quoted(author['name'])}")
        if author.get("affiliation"):
            lines.append(f"    affiliation: {_quoted(author['affiliation'])}")
        if author.get("orcid"):
            lines.append(
                f"    orcid: {_quoted('https://orcid.org/' + author['orcid'])}"
            )
    if release.get("licence"):
        lines.append(f"license: {_quoted(release['licence'])}")
    if release.get("keywords"):
        lines.append("keywords:")
        lines += [f"  - {_quoted(k)}" for k in release["keywords"]]
    return "\n".join(lines) + "\n"


def zenodo_metadata(config: Mapping[str, Any]) -> dict[str, Any]:
    """The deposit metadata of Zenodo's REST API (``.zenodo.json``) from the config.

    Fields as Zenodo documents them for a deposition's ``metadata``:
    ``upload_type`` dataset, ``title``, ``creators`` (``name``, optional
    ``affiliation`` and ``orcid``), ``description`` (HTML), ``access_right``
    open, ``license`` (Zenodo's lower-case licence IDs, e.g. ``cc-by-4.0``),
    ``version``, ``publication_date`` (``release.date``), ``keywords``,
    ``related_identifiers`` (``identifier``, ``relation``, optional
    ``resource_type``), ``doi`` when one was reserved (``release.doi``) and
    ``language`` (``release.language_code``, ISO 639-3). Keys without a value in
    the config are left out.
    """
    from html import escape

    release = config.get("release") or {}
    campaign = config["campaign"]
    creators = []
    for author in release.get("authors") or [{"name": "The organisers"}]:
        creator = {"name": author["name"]}
        for key in ("affiliation", "orcid"):
            if author.get(key):
                creator[key] = author[key]
        creators.append(creator)
    description = campaign.get("description", "").strip() or campaign["title"]
    metadata: dict[str, Any] = {
        "upload_type": "dataset",
        "title": f"{campaign['title']} (data release)",
        "creators": creators,
        "description": f"<p>{escape(' '.join(description.split()))}</p>",
        "access_right": "open",
        "version": str(campaign.get("version", "1")),
    }
    if release.get("licence"):
        metadata["license"] = str(release["licence"]).lower()
    if release.get("date"):
        metadata["publication_date"] = str(release["date"])
    if release.get("keywords"):
        metadata["keywords"] = list(release["keywords"])
    if release.get("related_identifiers"):
        metadata["related_identifiers"] = [
            dict(r) for r in release["related_identifiers"]
        ]
    if release.get("doi"):
        metadata["doi"] = str(release["doi"])
    if release.get("language_code"):
        metadata["language"] = str(release["language_code"])
    return metadata


def licence_notes(config: Mapping[str, Any]) -> str:
    """LICENCE-NOTES.md: the data's licence (``release.licence``), the teams'
    rights to their released outputs, and ``release.notes``."""
    release = config.get("release") or {}
    return (
        "\n".join(
            [
                "# Licence notes",
                "",
                "Data of this release: "
                + (release.get("licence") or "to be stated by the organisers")
                + ".",
                "",
                "System outputs are included only for teams that consented"
                " (`release_consent: true`); their authors keep their rights.",
                "",
                release.get("notes") or "",
            ]
        ).rstrip()
        + "\n"
    )
