"""Whether a team's outputs cover the data set they are scored on (``stecflow score``).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stecflow.data.model import Item, Output

__all__ = ["check_coverage"]


def _first(ids: Sequence[str], shown: int = 3) -> str:
    return ", ".join(ids[:shown]) + (", …" if len(ids) > shown else "")


def check_coverage(
    items: Sequence[Item],
    outputs: Sequence[Output],
    problems: Sequence[Any],
    *,
    data_label: str,
    outputs_label: str,
) -> tuple[list[Any], list[str]]:
    """Take the item-ID problems of an outputs file scored on other data.

    ``stecflow score`` scores outputs on whatever data a team has (a development
    split, part of it): outputs for only some of the items are scored on those
    items, with a warning; outputs for items the data do not have are left out,
    with a warning. Outputs that share no item with the data are an error.

    Parameters
    ----------
    items
        The data's items.
    outputs, problems
        What :func:`stecflow.submissions.outputs.read_outputs` returned for the file.
    data_label, outputs_label
        How to name the data and the outputs file in messages.

    Returns
    -------
    (problems, warnings)
        The other problems, and one warning line per kind of ID mismatch.

    Raises
    ------
    StecflowError
        In one line, when no output is for an item of the data: how many outputs
        and items there are, and the first IDs of each.

    Examples
    --------
    >>> from stecflow.tasks.base import Problem
    >>> from types import SimpleNamespace as Item
    >>> items = [Item(id=f"t{n}") for n in range(1, 5)]
    >>> unknown = [Problem("unknown_item", "", "o.xml", 3, f"TRIAL d{n}")
    ...            for n in range(1, 5)]
    >>> missing = [Problem("missing_item", "", "o.xml", None, f"TRIAL {i.id}")
    ...            for i in items]
    >>> check_coverage(items, [], unknown + missing, data_label="dev.xml",
    ...                outputs_label="o.xml")
    Traceback (most recent call last):
    ...
    stecflow.core.errors.StecflowError: none of the 4 outputs in o.xml (IDs d1, d2, d3, …) is an item of dev.xml (4 items, IDs t1, t2, t3, …); score outputs against the data they were made for
    >>> check_coverage(items, [object()], missing[1:], data_label="dev.xml",
    ...                outputs_label="o.xml")[1]
    ['3 of the 4 items of dev.xml have no output in o.xml (t2, t3, t4); the scores are on the other 1 item']
    """  # noqa: E501
    from stecflow.core.errors import StecflowError

    ids: dict[str, list[str]] = {"unknown_item": [], "missing_item": []}
    rest = []
    for problem in problems:
        field = problem.field or ""
        prefix = next((p for p in ("TRIAL ", "item ") if field.startswith(p)), None)
        if problem.code in ids and prefix is not None:  # REG: TRIAL, text: item
            ids[problem.code].append(field[len(prefix) :])
        else:
            rest.append(problem)
    unknown, missing = ids["unknown_item"], ids["missing_item"]
    if not outputs and (unknown or missing):
        if unknown:
            found = f"none of the {len(unknown)} outputs in {outputs_label}"
            found += f" (IDs {_first(unknown)}) is an item of {data_label}"
        else:
            found = f"{outputs_label} has no outputs (TRIAL elements) for {data_label}"
        raise StecflowError(
            f"{found} ({len(items)} items, IDs {_first([i.id for i in items])});"
            " score outputs against the data they were made for"
        )
    warnings = []
    if missing:
        scored = len(items) - len(missing)
        warnings.append(
            f"{len(missing)} of the {len(items)} items of {data_label}"
            f" {'has' if len(missing) == 1 else 'have'} no output in {outputs_label}"
            f" ({_first(missing)}); the scores are on the other {scored}"
            f" item{'' if scored == 1 else 's'}"
        )
    if unknown:
        warnings.append(
            f"{len(unknown)} output{'' if len(unknown) == 1 else 's'} in"
            f" {outputs_label} {'is' if len(unknown) == 1 else 'are'} for items that"
            f" {data_label} does not have ({_first(unknown)}); not scored"
        )
    return rest, warnings
