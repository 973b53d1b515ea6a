"""IDs: what is accepted, and the per-submission wildcard value."""

from __future__ import annotations

import pytest

from stecflow.core import ids

#: IDs the project accepts, including those Snakemake's periodic-wildcard check
#: used to refuse (a suffix repeated 20 times or more).
ACCEPTED = [
    "a",
    "7",
    "a" * 20,
    "a" * 64,
    "0" * 64,
    "0123456789",
    "x" + "-" * 40,
    "x" + "_" * 63,
    "x" + "-_" * 20,
    "ab" * 32,
    "team-07",
    "HUMAN-1",
]

#: IDs the project refuses: too long, dots, spaces, non-ASCII, leading - or _,
#: slashes, a trailing newline, empty.
REFUSED = [
    "a" * 65,
    "v1.2",
    ".hidden",
    "bad team",
    "équipe",
    "ｆｕｌｌ",
    "-lead",
    "_lead",
    "a/b",
    "team\n",
    "",
]


@pytest.mark.parametrize("value", ACCEPTED)
def test_accepted_ids(value):
    assert ids.is_valid_id(value)


@pytest.mark.parametrize("value", REFUSED)
def test_refused_ids(value):
    assert not ids.is_valid_id(value)


def test_max_length_is_64():
    assert ids.MAX_ID_LENGTH == 64
    assert ids.ID_PATTERN == "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"


@pytest.mark.parametrize(
    ("team", "system"), [("a" * 64, "a" * 64), ("a", "a-b"), ("same", "same")]
)
def test_submission_wildcard_round_trip(team, system):
    value = ids.submission_wildcard(team, system)
    assert value == f"{team}/{system}."
    assert ids.split_submission_wildcard(value) == (team, system)


@pytest.mark.parametrize("value", ["a/b", "a/b.json", "a.b/c.", "a/" + "b" * 65 + "."])
def test_bad_submission_wildcard(value):
    with pytest.raises(ValueError):
        ids.split_submission_wildcard(value)


def test_no_wildcard_value_looks_periodic_to_snakemake():
    """Snakemake's detector finds nothing in any submission wildcard value.

    Its rule: a value whose suffix is one piece repeated 20 times or more is refused
    (snakemake.io.PeriodicityDetector, called by DAG.check_periodic_wildcards on
    every candidate job). The bare IDs are periodic; the wildcard values are not.
    """
    from snakemake.io import PeriodicityDetector

    detector = PeriodicityDetector()
    periodic = [v for v in ACCEPTED if detector.is_periodic(v) is not None]
    assert periodic == [
        "a" * 20,
        "a" * 64,
        "0" * 64,
        "x" + "-" * 40,
        "x" + "_" * 63,
        "x" + "-_" * 20,
        "ab" * 32,
    ]
    assert detector.is_periodic("a" * 19) is None  # 20 repeats are needed
    for team in ACCEPTED:
        for system in ACCEPTED:
            value = ids.submission_wildcard(team, system)
            assert detector.is_periodic(value) is None, value
