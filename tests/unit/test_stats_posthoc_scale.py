"""stecflow.stats.posthoc at campaign scale: the fast paths give the same results.

The compact letter display enumerates maximal cliques instead of running Piepho's
insert-absorb pair by pair; homogeneous subsets and Tukey pairs are built from
arrays. These tests pin that the results are those of the direct algorithms (the
R comparisons are in test_stats_anova_r.py; timings are in benchmarks/README.md,
never asserted here).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from stecflow.stats import posthoc
from stecflow.stats.posthoc import (
    compact_letter_display,
    homogeneous_subsets,
    pairwise_tukey,
    subset_letters,
)


def _insert_absorb_letters(groups: list[str], p: dict[tuple[str, str], float]):
    """Piepho's insert-absorb, pair by pair (the reference algorithm)."""
    significant = {frozenset(pair) for pair, value in p.items() if value < 0.05}
    cols = posthoc._piepho(groups, significant, sweep=False)
    position = {g: i for i, g in enumerate(groups)}
    cols.sort(key=lambda col: sorted(position[g] for g in col))
    return posthoc._letters_frame(groups, cols, {}, {}, "lower")["letters"].tolist()


@pytest.mark.parametrize("seed", range(4))
def test_cld_equals_insert_absorb_on_random_decisions(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(60):
        groups = sorted(f"g{i}" for i in range(int(rng.integers(2, 15))))
        pairs = list(itertools.combinations(groups, 2))
        p = dict(zip(pairs, rng.uniform(0, 0.12, len(pairs)), strict=True))
        pw = pd.DataFrame(
            {
                "group_a": [b for _, b in pairs],  # R's orientation: later first
                "group_b": [a for a, _ in pairs],
                "p_adj": list(p.values()),
            }
        )
        ours = compact_letter_display(pw)["letters"].tolist()
        assert ours == _insert_absorb_letters(groups, p)


def test_maximal_cliques_of_a_small_graph() -> None:
    # path 0-1-2 plus triangle 2-3-4: cliques {0,1}, {1,2}, {2,3,4}
    together = np.zeros((5, 5), dtype=bool)
    for a, b in [(0, 1), (1, 2), (2, 3), (2, 4), (3, 4)]:
        together[a, b] = together[b, a] = True
    cliques = sorted(
        sorted(posthoc._bits(c)) for c in posthoc._maximal_cliques(together)
    )
    assert cliques == [[0, 1], [1, 2], [2, 3, 4]]


def test_bits_of_small_and_large_masks() -> None:
    for positions in ([], [0], [3, 63], [0, 64, 65, 700, 1999]):
        mask = sum(1 << i for i in positions)
        assert posthoc._bits(mask) == positions


def _campaign(k: int, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 6, size=(k, 2))
    rows = []
    effects = rng.normal(0, 0.8, k)
    for i in range(k):
        for d, dom in enumerate(("a", "b")):
            for _ in range(sizes[i, d]):
                rows.append((f"s{i:03d}", dom, effects[i] + 0.3 * d + rng.normal()))
    return pd.DataFrame(rows, columns=["system", "domain", "y"])


def test_pairs_and_subsets_of_120_systems_match_direct_computation() -> None:
    df = _campaign(120)
    pw = pairwise_tukey(df, "y", "system", model=["system", "domain"])
    assert len(pw) == 120 * 119 // 2
    stats = df.groupby("system")["y"].agg(["mean", "size"])
    # a few pairs by hand, in R's orientation
    for row in pw.sample(25, random_state=1).itertuples():
        assert row.group_a > row.group_b
        ma, mb = stats.at[row.group_a, "mean"], stats.at[row.group_b, "mean"]
        na, nb = stats.at[row.group_a, "size"], stats.at[row.group_b, "size"]
        assert row.delta == pytest.approx(ma - mb, rel=1e-12, abs=1e-14)
        se = np.sqrt(row.ms_error / 2 * (1 / na + 1 / nb))
        assert row.q == pytest.approx(abs(ma - mb) / se, rel=1e-12)
        expected = posthoc.ptukey_sf(row.q, 120, row.df_error)[()]
        assert row.p_adj == pytest.approx(expected, rel=1e-12, abs=1e-15)
    sub = homogeneous_subsets(df, "y", "system", model=["system", "domain"])
    hsd = sub.at[0, "hsd"]
    means = np.sort(stats["mean"].to_numpy())
    for _, members in sub.groupby("subset"):
        lo, hi = members["mean"].min(), members["mean"].max()
        assert hi - lo <= hsd + 1e-12
        inside = means[(means >= lo - 1e-12) & (means <= hi + 1e-12)]
        assert len(inside) == len(members)  # a run of sorted means
    letters = subset_letters(sub)
    assert len(letters) == 120 and letters["computable"].all()
    assert letters["letters"].str.len().min() >= 1
