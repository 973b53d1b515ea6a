"""Statistical analyses of a campaign (pingouin-style, tidy in and tidy out).

Every function takes a long-format :class:`pandas.DataFrame` plus role arguments
(``data, dv, between, within, subject, item``) and returns a tidy DataFrame with
stable snake_case columns, the last two always ``computable`` and ``reason``
(see :mod:`stecflow.stats._common` for this convention). No function prints or
touches files.

Importing :mod:`stecflow.stats` is cheap: the functions below are re-exported
lazily, so pandas, SciPy and statsmodels load only when a function is first used.
The recommended import is from the family module, e.g.
``from stecflow.stats.anova import anova``. ``anova`` and ``manova`` name both a
module and its main function; at package level they are the *modules* (Python
binds a package attribute to a submodule once it is imported, so re-exporting the
functions under these names would change meaning at run time): call
``stats.anova.anova(...)`` and ``stats.manova.manova(...)``.

========================== ============================================
family                     functions
========================== ============================================
:mod:`.anova`              :func:`anova`, :func:`error_term`
:mod:`.posthoc`            :func:`pairwise_tukey`, :func:`homogeneous_subsets`,
                           :func:`ptukey_sf`, :func:`ptukey_isf`,
                           :func:`subset_letters`, :func:`maximal_subsets`,
                           :func:`compact_letter_display`, :func:`tukey_cld`
:mod:`.nonparametric`      :func:`kruskal`, :func:`pairwise_mannwhitney`
:mod:`.correlation`        :func:`pairwise_corr`, :func:`system_means`
:mod:`.ttests`             :func:`paired_ttest`, :func:`pairwise_paired_ttests`
:mod:`.manova`             :func:`manova`, :func:`manova_followups`
:mod:`.multitest`          :func:`bonferroni`, :func:`adjust_p`
:mod:`.resampling`         :func:`bootstrap_ci`, :func:`paired_bootstrap`
:mod:`.mixed`              :func:`mixed_model`
:mod:`.significance`       sacreBLEU's paired tests ``paired_bs`` and
                           ``paired_ar``, :func:`significance_clusters`
========================== ============================================

The results are written as the seed papers write them by
:mod:`stecflow.analysis.formatting`; this package knows nothing of files or
presentation, and imports nothing of stecflow but :mod:`stecflow.core.errors`.

Wrong arguments raise :class:`StatsInputError` (a
:class:`~stecflow.core.errors.StecflowError` and a :class:`ValueError`).

May import: :mod:`stecflow.core.errors` only.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "StatsInputError",
    "adjust_p",
    "anova",
    "bonferroni",
    "bootstrap_ci",
    "compact_letter_display",
    "error_term",
    "homogeneous_subsets",
    "kruskal",
    "manova",
    "manova_followups",
    "maximal_subsets",
    "mixed_model",
    "paired_bootstrap",
    "paired_ttest",
    "pairwise_corr",
    "pairwise_mannwhitney",
    "pairwise_paired_ttests",
    "pairwise_tukey",
    "ptukey_isf",
    "ptukey_sf",
    "significance_clusters",
    "significance_mark",
    "subset_letters",
    "system_means",
    "tukey_cld",
]

#: Family modules reachable as attributes (``stats.anova``, ``stats.manova``).
_MODULES = (
    "anova",
    "correlation",
    "manova",
    "mixed",
    "multitest",
    "nonparametric",
    "posthoc",
    "resampling",
    "significance",
    "ttests",
)

_SOURCES = {
    "StatsInputError": "_common",
    "adjust_p": "multitest",
    "bonferroni": "multitest",
    "bootstrap_ci": "resampling",
    "compact_letter_display": "posthoc",
    "error_term": "anova",
    "homogeneous_subsets": "posthoc",
    "kruskal": "nonparametric",
    "manova_followups": "manova",
    "maximal_subsets": "posthoc",
    "mixed_model": "mixed",
    "paired_bootstrap": "resampling",
    "paired_ttest": "ttests",
    "ptukey_isf": "posthoc",
    "ptukey_sf": "posthoc",
    "pairwise_corr": "correlation",
    "pairwise_mannwhitney": "nonparametric",
    "pairwise_paired_ttests": "ttests",
    "pairwise_tukey": "posthoc",
    "significance_clusters": "significance",
    "significance_mark": "correlation",
    "subset_letters": "posthoc",
    "system_means": "correlation",
    "tukey_cld": "posthoc",
}


def __getattr__(name: str) -> Any:
    """Import the module that defines *name* on first access (PEP 562)."""
    if name in _MODULES:
        return importlib.import_module(f"stecflow.stats.{name}")
    module = _SOURCES.get(name)
    if module is None:
        raise AttributeError(f"module 'stecflow.stats' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"stecflow.stats.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
