"""The built-in analysis tests, one module per family, each declaring its tests
(:class:`~stecflow.analysis.registry.AnalysisTest`) in a ``TESTS`` tuple.

* :mod:`~stecflow.analysis.families.univariate`: ``anova``, ``tukey``,
  ``kruskal`` (one measure across systems and factors; seed 001);
* :mod:`~stecflow.analysis.families.correlation`: ``correlations`` (of
  per-system means);
* :mod:`~stecflow.analysis.families.ttests`: ``ttest`` (paired t-tests; seed 000);
* :mod:`~stecflow.analysis.families.multivariate`: ``manova`` (with
  Bonferroni-corrected follow-ups; seed 003 Table 4);
* :mod:`~stecflow.analysis.families.mixed`: ``mixed`` (crossed random
  intercepts for subjects and items);
* :mod:`~stecflow.analysis.families.descriptive`: ``property_means`` (seed 003
  Table 3);
* :mod:`~stecflow.analysis.families.situated`: ``confusion`` (seed 000's
  situated task; the situated study's ``situated_ttests`` is its kind's);
* :mod:`~stecflow.analysis.families.preference`: ``preference`` (a
  ``text_preference`` study's Bradley-Terry strengths and win rates).

:data:`stecflow.analysis.registry.FAMILIES` lists them; the registry imports
them on first use.
"""
