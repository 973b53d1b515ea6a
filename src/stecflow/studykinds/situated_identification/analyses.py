"""The situated study's own analysis test, ``situated_ttests`` (seed 000 §5.3).

Owns :func:`situated_ttests`: paired t-tests over evaluators on the per-evaluator
means of :func:`.measures.evaluator_table`, for the seed's comparisons:

* TP vs FN on the identification rate ("a significant difference at 0.01 %
  level (t(33) = 16.24)", §5.3.2),
* TP vs FN on the identification time ("t(33) = 7.79", §5.3.3),
* FP-system vs FP-Orig on the identification time ("no significant
  difference", §5.3.3) and on the identification rate (compared in Table 7).

Each evaluator contributes one pair: their IR (correct / responses) or their
mean IT (ms, corrected trials excluded) in each class, so ``df`` is the number
of evaluators minus one (33 with the seed's 34). Evaluators whose session failed
are discarded first, as for Tables 7-9 (:func:`.measures.discard_failed_sessions`).
The test is :func:`stecflow.stats.ttests.paired_ttest`; the texts are
:func:`stecflow.analysis.formatting.format_result`'s ("t(33) = 16.24, p < .001").
``t`` is signed, ``mean_a - mean_b`` over its standard error: TP faster than FN
gives a negative t on IT, where the seed writes its magnitude.

The statistics stage runs it as the test :data:`SITUATED_TTESTS` (the kind's
``tests`` hook gives :data:`TESTS` to :mod:`stecflow.analysis.registry`) on a
study's ``results/judgments/<study>.tsv``, read by :func:`read_situated_trials`.

May import what the analyses may (:mod:`stecflow.core`, :mod:`stecflow.stats`,
:mod:`stecflow.judgments`, :mod:`stecflow.analysis`), pandas inside functions.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.analysis.kind_defaults import checked_entry, kinds_taking, taking
from stecflow.analysis.record import judgment_settings
from stecflow.analysis.registry import AnalysisJob, AnalysisTest, SpecContext
from stecflow.core.errors import ConfigError
from stecflow.core.io import write_json, write_tsv
from stecflow.studykinds.situated_identification.analyses_length import (
    SITUATED_LENGTH,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "MEASURES",
    "SEED_COMPARISONS",
    "SITUATED_TEST_COLUMNS",
    "SITUATED_TTESTS",
    "TESTS",
    "TRIALS_NEEDED",
    "read_situated_trials",
    "run_situated_ttests",
    "situated_ttests",
]

log = logging.getLogger(__name__)

#: Keys a ``situated_ttests`` analysis may have (the others do not apply).
KEYS = ("id", "test", "source", "comparisons", "alternative")

#: Measures of the evaluator table that can be compared, and their labels.
MEASURES = {
    "ir": "identification rate",
    "it_mean_ms": "identification time (ms)",
    "replays_mean": "replays",
}

#: The seed's comparisons: (class a, class b, measure).
SEED_COMPARISONS: tuple[tuple[str, str, str], ...] = (
    ("TP", "FN", "ir"),
    ("TP", "FN", "it_mean_ms"),
    ("FP-system", "FP-Orig", "ir"),
    ("FP-system", "FP-Orig", "it_mean_ms"),
)

#: Columns of :func:`situated_ttests`: the comparison, then
#: :data:`stecflow.stats.ttests.PAIRED_COLUMNS`, then the text.
SITUATED_TEST_COLUMNS = (
    "measure",
    "label",
    "level_a",
    "level_b",
    "mean_a",
    "mean_b",
    "delta",
    "t",
    "df",
    "p_val",
    "ci_low",
    "ci_high",
    "dz",
    "alternative",
    "n",
    "n_missing",
    "computable",
    "reason",
    "text",
)


def situated_ttests(
    trials: pd.DataFrame,
    *,
    comparisons: Sequence[tuple[str, str, str]] = SEED_COMPARISONS,
    complete: Sequence[str] = ("completed",),
    expected_trials: int | None = None,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    digits: int = 2,
) -> tuple[pd.DataFrame, list[dict[str, str]]]:
    """Paired t-tests over evaluators between instance classes (seed 000, §5.3).

    Parameters
    ----------
    trials : pandas.DataFrame
        The trials table of :mod:`stecflow.studykinds.situated_identification.measures`
        (:data:`~stecflow.studykinds.situated_identification.measures.TRIAL_COLUMNS`).
    comparisons : sequence of (str, str, str)
        (class a, class b, measure) per test, measure one of :data:`MEASURES`;
        default :data:`SEED_COMPARISONS`.
    complete, expected_trials
        As
        :func:`~stecflow.studykinds.situated_identification.measures.
        discard_failed_sessions`.
    alternative, confidence
        As :func:`stecflow.stats.ttests.paired_ttest` (about ``mean_a - mean_b``).
    digits
        Decimals of t in the texts.

    Returns
    -------
    (pandas.DataFrame, list of dict)
        The tests, :data:`SITUATED_TEST_COLUMNS`, one row per comparison in the
        order given (``label`` names the measure; ``text`` as the seed writes
        it); and the texts, ``{"about": "TP vs FN: identification rate",
        "text": "t(33) = 16.24, p < .001"}`` per computable test.

    Raises
    ------
    JudgmentsError
        A column or class problem in *trials*, or an unknown measure.

    Examples
    --------
    >>> import pandas as pd
    >>> trials = pd.DataFrame({
    ...     "subject": [s for s in "abcd" for _ in range(4)],
    ...     "instance": ["t1", "t2", "f1", "f2"] * 4,
    ...     "class": ["TP", "TP", "FN", "FN"] * 4, "target": "1",
    ...     "chosen": ["1", "1", "1", "2",   "1", "1", "2", "2",
    ...                "1", "2", "1", "2",   "1", "1", "1", "1"],
    ...     "cant_tell": False, "time_ms": 1000.0, "session_status": "completed"})
    >>> rows, texts = situated_ttests(trials, comparisons=[("TP", "FN", "ir")])
    >>> rows[["mean_a", "mean_b", "t", "df"]].round(4).values.tolist()
    [[0.875, 0.5, 1.5667, 3]]
    >>> texts
    [{'about': 'TP vs FN: identification rate', 'text': 't(3) = 1.57, p = .215'}]
    """
    import pandas as pd

    from stecflow.analysis.formatting import format_result
    from stecflow.judgments._common import JudgmentsError
    from stecflow.stats.ttests import paired_ttest
    from stecflow.studykinds.situated_identification.measures import (
        discard_failed_sessions,
        evaluator_table,
    )

    for _, _, measure in comparisons:
        if measure not in MEASURES:
            raise JudgmentsError(
                f"{measure!r} is not one of {', '.join(MEASURES)}",
                field="comparisons",
            )
    kept, _ = discard_failed_sessions(
        trials, complete=complete, expected_trials=expected_trials
    )
    evaluators = evaluator_table(kept)
    rows: list[dict[str, Any]] = []
    texts: list[dict[str, str]] = []
    for a, b, measure in comparisons:
        result = paired_ttest(
            evaluators,
            measure,
            "class",
            "subject",
            a=a,
            b=b,
            alternative=alternative,  # type: ignore[arg-type]
            confidence=confidence,
        ).iloc[0]
        text = format_result(result, digits=digits)
        row = {"measure": measure, "label": MEASURES[measure], **result.to_dict()}
        row["text"] = text
        rows.append(row)
        if bool(result["computable"]):
            texts.append({"about": f"{a} vs {b}: {MEASURES[measure]}", "text": text})
    frame = pd.DataFrame(rows, columns=list(SITUATED_TEST_COLUMNS))
    frame["df"] = frame["df"].astype("Int64")
    return frame, texts


#: Columns of the trials table :func:`read_situated_trials` needs
#: (``results/judgments/<study>.tsv`` has more; see the module docstring).
TRIALS_NEEDED = (
    "subject",
    "instance",
    "class",
    "target",
    "cant_tell",
    "session_status",
)

#: Boolean columns of ``results/judgments/<study>.tsv`` (``true``/``false``; an
#: empty ``correct`` is derived from ``chosen`` and ``target``).
_BOOLEAN_COLUMNS = ("correct", "cant_tell", "corrected", "simulated")
_NUMERIC_COLUMNS = ("time_ms", "replays")


def read_situated_trials(path: str | Path) -> pd.DataFrame:
    """The trials of a situated study as the merge stage wrote them, typed.

    Parameters
    ----------
    path : str or Path
        ``results/judgments/<study>.tsv`` (one row per trial kept, columns
        ``subject, list, order, instance, class, shown, expression, target,
        chosen, correct, cant_tell, time_ms, replays, corrected, session_status,
        simulated``).

    Returns
    -------
    pandas.DataFrame
        The same rows: ``correct``, ``cant_tell``, ``corrected`` and
        ``simulated`` as booleans (``correct`` None where empty: derived later),
        ``time_ms`` and ``replays`` as floats (NaN where empty), ``chosen`` None
        where empty ("I don't know"), the other columns as strings.

    Raises
    ------
    JudgmentsError
        A required column is missing, or a cell is not ``true``/``false`` or a
        number where one is expected (file, line and column named).

    Examples
    --------
    >>> import tempfile
    >>> from stecflow.core.io import write_tsv
    >>> path = Path(tempfile.mkdtemp()) / "situated.tsv"
    >>> write_tsv([{"subject": "e1", "instance": "i1", "class": "TP",
    ...             "target": "p1", "chosen": "", "cant_tell": True,
    ...             "time_ms": 1200.5, "corrected": False,
    ...             "session_status": "completed"}],
    ...           ["subject", "instance", "class", "target", "chosen",
    ...            "cant_tell", "time_ms", "corrected", "session_status"], path)
    >>> row = read_situated_trials(path).iloc[0]
    >>> row["chosen"], bool(row["cant_tell"]), float(row["time_ms"])
    (None, True, 1200.5)
    """
    import math

    import pandas as pd

    from stecflow.core.io import read_tsv
    from stecflow.judgments._common import JudgmentsError

    path = Path(path)
    rows = read_tsv(path)
    with open(path, encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
    missing = [c for c in TRIALS_NEEDED if c not in header]
    if missing:
        raise JudgmentsError(
            f"the trials table lacks the column(s) {', '.join(missing)}; expected"
            f" at least {', '.join(TRIALS_NEEDED)}",
            file=str(path),
            line=1,
            field=missing[0],
        )
    out: list[dict[str, Any]] = []
    for number, row in enumerate(rows, start=2):
        typed: dict[str, Any] = dict(row)
        for column in _BOOLEAN_COLUMNS:
            if column not in row:
                continue
            text = row[column]
            if text in ("true", "false"):
                typed[column] = text == "true"
            elif text == "":
                typed[column] = None
            else:
                raise JudgmentsError(
                    f"{text!r} is not a boolean; expected true, false or empty",
                    file=str(path),
                    line=number,
                    field=column,
                )
        for column in _NUMERIC_COLUMNS:
            if column not in row:
                continue
            text = row[column]
            try:
                typed[column] = float(text) if text != "" else math.nan
            except ValueError:
                raise JudgmentsError(
                    f"{text!r} is not a number; expected one (or empty)",
                    file=str(path),
                    line=number,
                    field=column,
                ) from None
        if "chosen" in row and row["chosen"] == "":
            typed["chosen"] = None
        out.append(typed)
    return pd.DataFrame(out, columns=header)


def run_situated_ttests(
    spec: Mapping[str, Any],
    judgments_path: str | Path,
    *,
    alpha: float = 0.05,
    digits: int = 2,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The ``situated_ttests`` analysis of one situated study.

    Parameters
    ----------
    spec : mapping
        The analysis (:func:`stecflow.analysis.specs.analysis_specs`):
        ``source`` the study; optional ``comparisons`` (``[[class_a, class_b,
        measure], ...]``, default :data:`SEED_COMPARISONS`) and ``alternative``.
    judgments_path : str or Path
        ``results/judgments/<study>.tsv`` (:func:`read_situated_trials`). The
        trials are those the merge stage kept: evaluators whose session failed
        were discarded there (``judgments/quality``), so every row enters.
    alpha : float
        ``statistics.alpha``; intervals are at 1 - alpha.
    digits : int
        ``statistics.digits``: decimals of t in the texts.

    Returns
    -------
    (pandas.DataFrame, dict)
        The tests (:data:`SITUATED_TEST_COLUMNS`; no row when the study has no
        trial yet) and the record entries: ``text`` (``about``/``text``),
        ``rows`` (the table as records), ``simulated`` (any trial simulated),
        ``comparisons``, ``n_trials``, ``n_evaluators``.
    """
    import pandas as pd

    from stecflow.judgments._common import plain

    comparisons = [tuple(c) for c in spec.get("comparisons") or SEED_COMPARISONS]
    trials = read_situated_trials(judgments_path)
    simulated = bool(
        "simulated" in trials and trials["simulated"].fillna(False).astype(bool).any()
    )
    if trials.empty:  # built, not yet run: awaiting responses
        frame = pd.DataFrame(columns=list(SITUATED_TEST_COLUMNS))
        texts: list[dict[str, str]] = []
    else:
        statuses = sorted({str(s) for s in trials["session_status"]})
        frame, texts = situated_ttests(
            trials,
            comparisons=comparisons,  # type: ignore[arg-type]
            complete=statuses or ("completed",),
            alternative=spec.get("alternative", "two-sided"),
            confidence=1 - alpha,
            digits=digits,
        )
    extra = {
        "text": texts,
        "rows": [
            {k: plain(v) for k, v in row.items()}
            for row in frame.to_dict(orient="records")
        ],
        "simulated": simulated,
        "comparisons": [list(c) for c in comparisons],
        "n_trials": len(trials),
        "n_evaluators": int(trials["subject"].nunique()) if len(trials) else 0,
    }
    return frame, extra


# ---------------------------------------------------------------------------
# the analysis test


def _check(
    entry: Mapping[str, Any], where: str, context: SpecContext
) -> dict[str, Any]:
    """A ``situated_ttests`` entry: a situated study as its source, and
    comparisons of its classes on its measures."""
    from stecflow.studykinds.situated_identification.measures import CLASSES

    spec = checked_entry(entry, where, KEYS, context.seen)
    studies = context.studies
    source = spec.get("source")
    situated = taking("situated_ttests", studies)
    if source not in situated:
        what = "no source" if source is None else f"{source!r} is not"
        raise ConfigError(
            f"situated_ttests analyses a {kinds_taking('situated_ttests')} study:"
            f" {what} one"
            f" ({', '.join(situated) or 'none is configured'})",
            field=f"{where}.source",
        )
    for k, comparison in enumerate(spec.get("comparisons") or []):
        at = f"{where}.comparisons[{k}]"
        if not isinstance(comparison, Sequence) or isinstance(comparison, str):
            comparison = [comparison]
        if len(comparison) != 3:
            raise ConfigError(
                "a comparison is [class_a, class_b, measure], e.g. [TP, FN, ir]",
                field=at,
            )
        a, b, measure = comparison
        for n, cls in enumerate((a, b)):
            if cls not in CLASSES:
                raise ConfigError(
                    f"unknown class {cls!r}; classes: {', '.join(CLASSES)}",
                    field=f"{at}[{n}]",
                )
        if a == b:
            raise ConfigError(f"{a} is compared with itself", field=at)
        if measure not in MEASURES:
            raise ConfigError(
                f"unknown measure {measure!r}; measures: {', '.join(MEASURES)}",
                field=f"{at}[2]",
            )
    return spec


def _judgments_path(
    spec: Mapping[str, Any], job: AnalysisJob, record: dict[str, Any]
) -> Any:
    """The study's ``judgments/<study>.tsv``."""
    return job.judgments[spec["source"]]


def _run(
    spec: Mapping[str, Any], path: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    result, extra = run_situated_ttests(spec, path, alpha=job.alpha, digits=job.digits)
    record["settings"] = {
        "digits": job.digits,
        "confidence": 1 - job.alpha,
        "alternative": spec.get("alternative", "two-sided"),
        "sessions": "the trials merge_judgments kept (failed sessions are"
        " discarded there, judgments/quality)",
    }
    record.update(extra)
    info = judgment_settings(path)
    if info["awaiting_responses"] is None:  # no summary: the table says
        info["awaiting_responses"] = extra["n_trials"] == 0
    record["judgments"] = {spec["source"]: info}
    record["awaiting_responses"] = (
        [spec["source"]] if info["awaiting_responses"] else []
    )
    return result


def _write(
    spec: Mapping[str, Any],
    result: Any,
    path: Any,
    job: AnalysisJob,
    record: dict[str, Any],
) -> dict[str, Any]:
    write_tsv(
        result.to_dict(orient="records"), list(SITUATED_TEST_COLUMNS), job.out_tsv
    )
    write_json(record, job.out_json)
    log.info("%s: %d result rows", spec["id"], len(result))
    return record


SITUATED_TTESTS = AnalysisTest(
    name="situated_ttests",
    check=_check,
    load=_judgments_path,
    run=_run,
    write=_write,
    checks_scores=False,
)

#: The kind's own tests (its ``tests`` hook): the t-tests and the expression
#: lengths (:mod:`.analyses_length`).
TESTS = (SITUATED_TTESTS, SITUATED_LENGTH)
