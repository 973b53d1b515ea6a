"""Which system supersedes which: the ``supersedes:`` keys of one campaign.

A system's ``system.yaml`` may say ``supersedes: <system>``, naming an earlier
system of its own team that it corrects; the earlier one leaves the ranking and
the statistics (see :func:`stecflow.campaign.superseded_submissions`). Read
together, the keys may go wrong in two ways, which :func:`supersession` finds:

* a **cycle** (``a`` supersedes ``b`` and ``b`` supersedes ``a``, or longer):
  an error naming every file of the cycle. None of its systems counts as
  superseded by another of the cycle, so that a team never vanishes from the
  statistics;
* a **fork** (two systems supersede the same one): a warning naming both; the
  earlier system is superseded by both.

Used at DAG build (from the ``system.yaml`` files) and by the validation
summary (from the validation records), so that both agree.

May import: :mod:`stecflow.core`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from stecflow.core.text import in_words

__all__ = ["Supersession", "supersession"]

_FILE = "system.yaml"


@dataclass(frozen=True)
class Supersession:
    """What the ``supersedes`` keys of a campaign amount to.

    ``superseded``: ``(team, earlier system)`` -> the systems that supersede it,
    sorted (cycles left out); ``cycles``: ``(team, systems)`` of each cycle, the
    systems in the order they supersede each other, starting from the first in
    sorted order; ``forks``: ``(team, earlier system)`` -> the two or more
    systems that supersede it.
    """

    superseded: dict[tuple[str, str], tuple[str, ...]]
    cycles: tuple[tuple[str, tuple[str, ...]], ...]
    forks: dict[tuple[str, str], tuple[str, ...]]

    def in_cycle(self, team: str, system: str) -> tuple[str, ...] | None:
        """The cycle *system* of *team* is part of, or None."""
        for cycle_team, systems in self.cycles:
            if cycle_team == team and system in systems:
                return systems
        return None

    def cycle_message(self, team: str, systems: Iterable[str]) -> str:
        """The error of a cycle, naming every file of it.

        >>> supersession({("t", "a"): "b", ("t", "b"): "a"}).cycle_message(
        ...     "t", ("a", "b"))  # doctest: +NORMALIZE_WHITESPACE
        't/a/system.yaml supersedes b and t/b/system.yaml supersedes a: a cycle,
        so neither counts as superseded; remove the key from the system.yaml of
        the system that is not the correction'
        """
        systems = tuple(systems)
        steps = [
            f"{team}/{system}/{_FILE} supersedes {systems[(n + 1) % len(systems)]}"
            for n, system in enumerate(systems)
        ]
        said = in_words(steps)
        neither = "neither" if len(systems) == 2 else "none of them"
        return (
            f"{said}: a cycle, so {neither} counts as superseded; remove the key"
            " from the system.yaml of the system that is not the correction"
        )

    def fork_message(self, team: str, earlier: str) -> str:
        """The warning of a fork, naming the files of the systems.

        >>> found = supersession({("t", "a"): None, ("t", "b"): "a", ("t", "c"): "a"})
        >>> found.fork_message("t", "a")  # doctest: +NORMALIZE_WHITESPACE
        't/b/system.yaml and t/c/system.yaml both supersede a: a is left out of
        the ranking and the statistics, and b and c both stand; if one of them
        corrects the other, let it supersede that one instead'
        """
        later = self.forks[(team, earlier)]
        files = " and ".join(f"{team}/{system}/{_FILE}" for system in later)
        stand = " and ".join(later)
        return (
            f"{files} both supersede {earlier}: {earlier} is left out of the ranking"
            f" and the statistics, and {stand} both stand; if one of them corrects"
            " the other, let it supersede that one instead"
        )


def supersession(claims: Mapping[tuple[str, str], str | None]) -> Supersession:
    """Read the ``supersedes`` keys of a campaign's systems together.

    Parameters
    ----------
    claims
        ``(team, system)`` -> the system its ``supersedes`` names (None or
        absent: none). Names that are not another system of the same team in
        *claims* are ignored (validation rejects them).

    Examples
    --------
    >>> found = supersession({("t", "a"): "b", ("t", "b"): "a", ("t", "c"): "a",
    ...                       ("u", "x"): None, ("u", "y"): "x", ("u", "z"): "x"})
    >>> found.superseded
    {('t', 'a'): ('c',), ('u', 'x'): ('y', 'z')}
    >>> found.cycles
    (('t', ('a', 'b')),)
    >>> found.forks
    {('u', 'x'): ('y', 'z')}
    """
    edges: dict[tuple[str, str], tuple[str, str]] = {}
    for (team, system), earlier in sorted(claims.items()):
        if isinstance(earlier, str) and earlier != system and (team, earlier) in claims:
            edges[(team, system)] = (team, earlier)
    in_cycles: set[tuple[str, str]] = set()
    cycles = []
    done: set[tuple[str, str]] = set()
    for start in sorted(edges):
        path: list[tuple[str, str]] = []
        node: tuple[str, str] | None = start
        while node is not None and node not in done and node not in path:
            path.append(node)
            node = edges.get(node)
        if node is not None and node in path:  # closed a new cycle
            members = path[path.index(node) :]
            first = members.index(min(members))
            members = members[first:] + members[:first]
            cycles.append((node[0], tuple(system for _, system in members)))
            in_cycles.update(members)
        done.update(path)
    by_earlier: dict[tuple[str, str], list[str]] = {}
    for (team, system), earlier in edges.items():
        if (team, system) in in_cycles and earlier in in_cycles:
            continue  # an edge of a cycle supersedes nothing
        by_earlier.setdefault(earlier, []).append(system)
    superseded = {key: tuple(sorted(v)) for key, v in sorted(by_earlier.items())}
    forks = {key: v for key, v in superseded.items() if len(v) > 1}
    return Supersession(superseded, tuple(sorted(cycles)), forks)
