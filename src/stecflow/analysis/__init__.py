"""The statistics stage: the configured analyses of scores and judgments (the
``statistics.smk`` rules).

The config's ``statistics.analyses`` lists analyses by ID; each becomes one job
writing ``results/stats/<id>.tsv`` (the tidy result of a :mod:`stecflow.stats`
function) and ``results/stats/<id>.json`` (the settings it ran with, the systems it
covered and the result written as the seed papers write it, e.g.
``F(7, 880) = 7.29, p < .001``).

An analysis reads either the automatic scores (``source: scores``; the measure is a
metric ID) or one human study (``source: <study ID>``; the measure is one of
:func:`~stecflow.analysis.kind_defaults.judgment_measures`, or a text study's
criterion). Correlations take measures of both kinds, human ones written
``<study>:<measure>``, on per-system means. Each ``test`` is an
:class:`~stecflow.analysis.registry.AnalysisTest` of the registry
(:func:`stecflow.analysis.registry.names`), declared with its family in
:mod:`stecflow.analysis.families`: ``anova``, ``tukey``, ``kruskal``,
``correlations``, ``ttest``, ``manova``, ``mixed``, ``property_means``,
``situated_ttests``, ``confusion`` and ``preference``.

Factors are columns of the data or system properties the campaign declares
(``submissions.properties``); a system's properties come from its validation
record, through ``scores/analysed.tsv``. Texts give statistics with
``statistics.digits`` decimals. Without an explicit list, the analyses
TUNA-REG'09 reported run (seed 001 §5;
:func:`~stecflow.analysis.kind_defaults.default_analyses`). An analysis that
cannot be computed writes a table and record saying why and never stops the
others (:func:`~stecflow.analysis.run.run_analysis_or_note`).

Which systems enter: accepted submissions, human reference sets included, late
ones only if ``statistics.include_late`` (the official ranking excludes them);
correlations leave the human reference sets out by default
(:mod:`stecflow.analysis.families.correlation`).

The modules, one concern each:

* :mod:`~stecflow.analysis.specs`: which analyses run, their defaults and
  checks, and the groups one job runs;
* :mod:`~stecflow.analysis.kind_defaults`: what the analyses know of each study
  kind (tasks, measures, default analyses, the checks of kind-bound tests);
* :mod:`~stecflow.analysis.collect`: the tables of rule ``collect_item_scores``;
* :mod:`~stecflow.analysis.frames`: the frames the analyses read, with the
  per-job cache of item scores;
* :mod:`~stecflow.analysis.registry`: the analysis tests by name;
* :mod:`~stecflow.analysis.families`: the built-in tests, one module per family;
* :mod:`~stecflow.analysis.record`: the default table and JSON record;
* :mod:`~stecflow.analysis.run`: running an analysis through its test, or
  noting why it cannot be computed;
* :mod:`~stecflow.analysis.kinds`: t-tests, MANOVA with follow-ups, mixed
  models and means by property on analysed rows;
* :mod:`~stecflow.analysis.situated`: seed 000's paired t-tests over evaluators
  between instance classes (TP vs FN, FP-system vs FP-Orig), from
  the evaluator table of
  :mod:`stecflow.studykinds.situated_identification.measures`, and
  the confusion of decision systems;
* :mod:`~stecflow.analysis.formatting`: results written as the papers write them;
* :mod:`~stecflow.analysis.power`: power analyses of study designs.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.scoring`, :mod:`stecflow.stats`, :mod:`stecflow.judgments`.
"""
