"""The campaign report: one self-contained, deterministic HTML file.

:func:`render_report` reads the results of every stage (validation, scores,
statistics, and later human judgments) and writes ``results/report/index.html``:

1. Overview: campaign, tasks, deadline, test-set sizes, participants with their
   validation status (links to each team's validation report).
2. Automatic evaluation: seed 001 Table 5 style tables overall, per subdomain and
   per condition, with bootstrap confidence intervals and each system's cluster
   of systems not significantly different, every metric per family, per-system
   interval plots, the metric signatures, and which systems differ (paired
   tests of every two systems per metric).
3. Human evaluation: Tables 6/8 style means and SDs once judgments exist (a
   marked placeholder until then).
4. Statistical analyses: ANOVA sentences and tables, Tukey homogeneous subsets as
   letters (Tables 7/9), Kruskal-Wallis, the correlation matrix (Table 10) with
   its heat map and scatter plots.
5. Data quality: rejected submissions with all their errors, unreadable folders,
   late submissions, metrics not computed, judgment issues.
   Then, given the item scores, one part per submission
   (:mod:`stecflow.report.teams`): its validation, its scores and ranks per
   metric and subset, and its items worst first with output and references.
   :func:`render_submissions` writes this section on its own, from the scores
   and the validation records alone, so that a workflow renders it while the
   statistics run; the page takes it as it is.
6. Methods, generated from the config; 7. provenance: versions, config hash,
   seeds, signatures, sha256 of every input.

The page needs no network: styles are inline, figures are inline SVG drawn by
:mod:`stecflow.report.svg`, tables download as CSV and LaTeX through ``data:``
URIs, and a Content Security Policy forbids every fetch and every script but
the inline one that sorts tables (``sort.js``, allowed by its sha256 hash). All
text from submissions is escaped (Jinja2 autoescaping). Same inputs give the
same bytes: no timestamps, host or user names, or absolute paths.

Importing this package is cheap (no pandas or scipy); the statistics formatting
helpers are imported when a report is built.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
and of the stages whose files it reads only their descriptions:
:mod:`stecflow.scoring.specs`, :mod:`stecflow.analysis.formatting`,
:mod:`stecflow.tasks.registry` (a test holds this).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import logging
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.report.build import build_report, submissions_blocks
from stecflow.report.inputs import PathLike

__all__ = [
    "SCRIPT",
    "STYLESHEET",
    "build_report",
    "render_html",
    "render_report",
    "render_submissions",
]

log = logging.getLogger(__name__)

#: File name of the stylesheet, next to the main template.
STYLESHEET = "report.css"
#: File name of the table-sorting script, next to the main template.
SCRIPT = "sort.js"
#: The template of the section "Submissions" (:func:`render_submissions`),
#: next to the main template.
SUBMISSIONS_TEMPLATE = "_submissions.html.j2"


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def render_html(document: Mapping[str, Any], template: PathLike) -> str:
    """Render a document model from :func:`build_report` with the Jinja2 template.

    Parameters
    ----------
    document
        The report's document model.
    template
        Path of the main template (``index.html.j2``); the stylesheet
        (:data:`STYLESHEET`) and included templates are read from its folder.

    Returns
    -------
    str
        The HTML page.
    """
    return "".join(_html_pieces(document, template))


def _html_pieces(document: Mapping[str, Any], template: PathLike) -> Iterator[str]:
    """The page of :func:`render_html` as the template makes it, piece by piece."""
    folder = Path(template).parent
    env = _environment(folder)
    css = (folder / STYLESHEET).read_text(encoding="utf-8")
    # the sorting script is allowed by its hash alone: nothing else may run
    script = (folder / SCRIPT).read_text(encoding="utf-8")
    policy = (
        "default-src 'none'; "
        f"style-src '{_csp_hash(css)}'; "
        f"script-src '{_csp_hash(script)}'; "
        "base-uri 'none'; form-action 'none'"
    )
    from markupsafe import Markup

    return env.get_template(Path(template).name).generate(
        doc=document,
        css=css,
        script=Markup(script),  # our own file, as the stylesheet
        csp=Markup(policy),  # our own constant text
    )


def _environment(folder: Path) -> Any:
    """The Jinja2 environment of the report's templates in *folder*."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _write_pieces(pieces: Iterator[str], out: Path) -> None:
    """Write the pieces a template makes, a batch at a time: a page of tens of
    megabytes never sits in memory beside the million pieces it is joined from."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="") as handle:
        while batch := list(itertools.islice(pieces, 4096)):
            handle.write("".join(batch))


def render_submissions(
    *,
    config: Mapping[str, Any],
    validation_summary: PathLike,
    validation_records: Sequence[PathLike],
    systems: PathLike,
    testset: PathLike,
    template: PathLike,
    item_scores: Sequence[PathLike],
    out_html: PathLike,
    testset_items: PathLike | None = None,
    outputs: Mapping[tuple[str, str], Sequence[Any]] | None = None,
) -> None:
    """Write the report's section "Submissions" as an HTML fragment.

    One part per submission (:mod:`stecflow.report.teams`), from the inputs of
    that name of :func:`render_report`; *template* is a template of the
    report's folder (the main one, or :data:`SUBMISSIONS_TEMPLATE` itself). No
    item scores: an empty file (the report then has no such section).
    :func:`render_report` puts the fragment in the page as it is
    (``submissions``), or makes it itself from *item_scores*: the page is the
    same either way.
    """
    _write_pieces(
        _submissions_pieces(
            template,
            config=config,
            validation_summary=validation_summary,
            validation_records=validation_records,
            systems=systems,
            testset=testset,
            testset_items=testset_items,
            item_scores=item_scores,
            outputs=outputs,
        ),
        Path(out_html),
    )


def _submissions_pieces(template: PathLike, **inputs: Any) -> Iterator[str]:
    """The fragment of :func:`render_submissions`, piece by piece."""
    if not inputs["item_scores"]:
        return iter(())
    env = _environment(Path(template).parent)
    blocks = submissions_blocks(**inputs)
    return env.get_template(SUBMISSIONS_TEMPLATE).generate(blocks=blocks)


def render_report(
    *,
    config: Mapping[str, Any],
    validation_summary: PathLike,
    validation_records: Sequence[PathLike],
    systems: PathLike,
    testset: PathLike,
    template: PathLike,
    out_html: PathLike,
    stats_records: Sequence[PathLike] = (),
    stats_tables: Sequence[PathLike] = (),
    source_testset: PathLike | None = None,
    testset_items: PathLike | None = None,
    judgment_measures: Sequence[PathLike] = (),
    judgment_summaries: Sequence[PathLike] = (),
    judgment_quality: Sequence[PathLike] = (),
    snakemake_version: str | None = None,
    previous_release: PathLike | None = None,
    significance: PathLike | None = None,
    clusters: PathLike | None = None,
    agreement: Sequence[PathLike] = (),
    power: Sequence[PathLike] = (),
    item_scores: Sequence[PathLike] = (),
    outputs: Mapping[tuple[str, str], Sequence[Any]] | None = None,
    submissions: PathLike | None = None,
) -> str:
    """Write the campaign report, one self-contained HTML file.

    Parameters
    ----------
    config
        The campaign config (as validated: defaults filled in).
    validation_summary
        ``results/validation/summary.tsv``.
    validation_records
        Every ``results/validation/<team>/<system>.json``, or
        ``results/validation/records.jsonl``, which holds them all.
    systems
        ``results/scores/systems.tsv``.
    testset
        ``results/data/testset.xml`` (the normalised test set).
    template
        ``workflow/templates/report/index.html.j2`` (siblings: stylesheet, macros).
    out_html
        Where to write the page (``results/report/index.html``).
    stats_records, stats_tables
        ``results/stats/<analysis>.json`` and ``.tsv``, in report order (paired
        by file stem).
    source_testset
        The configured test set (file or folder), for its checksum.
    testset_items
        Where the items are read from: the test set's compact form
        (``results/data/testset.compact.json``, the same items, read in a
        fraction of the time and memory); default: *testset*. The report's
        checksum is still that of *testset*.
    judgment_measures, judgment_summaries, judgment_quality
        The judgments stage's ``results/judgments/measures/<study>.tsv``,
        ``summary/<study>.json`` and ``quality/<study>.tsv`` (any may be empty:
        the human sections then say that judgments are awaited).
    snakemake_version
        Version of the Snakemake that ran the workflow (the rule passes it).
    previous_release
        The previous version's release archive (``report.previous_release``);
        the overview then lists what changed since it. None: the first version.
    significance, clusters
        ``results/scores/significance.tsv`` and ``clusters.tsv`` (rule
        ``compare_systems``): the score tables' cluster column and the "Which
        systems differ" tables. None: the report shows no clusters.
    agreement
        ``results/judgments/agreement/<study>.json`` (rule ``compute_agreement``):
        the human section's agreement subsection (:mod:`stecflow.report.agreement`).
    power
        ``results/power/<study>.tsv`` (with their ``.json``): the section "Power
        and duration" (:mod:`stecflow.report.power`); none: no such section.
    item_scores
        Every ``results/scores/items/<team>/<system>.tsv``: the section
        "Submissions", one part per submission (:mod:`stecflow.report.teams`);
        none: no such section.
    outputs
        ``(team, system)`` -> the submission's outputs
        (:class:`~stecflow.data.model.Output`), for the submissions whose outputs
        the report shows: those the release publishes
        (:func:`stecflow.release.archive.released_outputs`).
    submissions
        The section "Submissions" made beforehand by :func:`render_submissions`
        (``results/report-parts/submissions.html``), used instead of making it
        from *item_scores* and *outputs*.

    Returns
    -------
    str
        The HTML written.

    Raises
    ------
    ConfigError
        If the config names an unknown metric or option.
    StecflowError
        If *previous_release* is missing or not a readable release archive.
    """
    from markupsafe import Markup

    if submissions is not None:
        fragment = Path(submissions).read_text(encoding="utf-8")
    else:  # the same pieces as rule render_submissions writes
        fragment = "".join(
            _submissions_pieces(
                template,
                config=config,
                validation_summary=validation_summary,
                validation_records=validation_records,
                systems=systems,
                testset=testset,
                testset_items=testset_items,
                item_scores=item_scores,
                outputs=outputs,
            )
        )
    document = build_report(
        config=config,
        validation_summary=validation_summary,
        validation_records=validation_records,
        systems=systems,
        stats_records=stats_records,
        stats_tables=stats_tables,
        testset=testset,
        source_testset=source_testset,
        testset_items=testset_items,
        judgment_measures=judgment_measures,
        judgment_summaries=judgment_summaries,
        judgment_quality=judgment_quality,
        snakemake_version=snakemake_version,
        previous_release=previous_release,
        significance=significance,
        clusters=clusters,
        agreement=agreement,
        power=power,
        # made by the report's own templates, every value escaped
        submissions=Markup(fragment),
    )
    out = Path(out_html)
    _write_pieces(_html_pieces(document, template), out)
    log.info(
        "report: %d sections, %d tables, %d figures, %d bytes",
        len(document["sections"]),
        document["counts"]["tables"],
        document["counts"]["figures"],
        out.stat().st_size,
    )
    with open(out, encoding="utf-8", newline="") as handle:
        return handle.read()
