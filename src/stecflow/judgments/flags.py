"""The ``choice`` of an identification trial and the analysis flags.

``choice`` is what a participant answered, as the measures count it: the chosen
entity, or :data:`CANT_TELL`, :data:`TIMEOUT` or :data:`INCORRECT`
(:func:`trial_choice`). :func:`analysis_flags` decides which merged trials enter
the analyses (``in_analysis``) and the time analyses (``in_time_analysis``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from stecflow.judgments._common import JudgmentsError, clean_str, is_missing
from stecflow.studykinds.registry import identifies

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "CANT_TELL",
    "INCORRECT",
    "TIMEOUT",
    "analysis_flags",
    "clean_choice",
    "trial_choice",
]

#: ``choice`` of a "can't tell" answer.
CANT_TELL = "cant_tell"
#: ``choice`` of a time-out.
TIMEOUT = "timeout"
#: ``choice`` of a wrong answer whose entity is unknown (DMDX records the sign only).
INCORRECT = "incorrect"


def trial_choice(out: Mapping[str, Any]) -> str | None:
    """The ``choice`` of a merged trial (the measures count choices).

    From ``chosen_entity``, ``cant_tell``, ``timeout``, ``correct`` and
    ``target_entity``; None when the trial has no answer.

    >>> trial_choice({"chosen_entity": None, "cant_tell": False, "timeout": True,
    ...               "correct": None, "target_entity": "e1"})
    'timeout'
    """
    if out["chosen_entity"] is not None:
        return str(out["chosen_entity"])
    if out["cant_tell"]:
        return CANT_TELL
    if out["timeout"]:
        return TIMEOUT
    if out["correct"] is True:
        return str(out["target_entity"]) if out["target_entity"] else "target"
    if out["correct"] is False:
        return INCORRECT
    return None


def analysis_flags(
    trials: pd.DataFrame,
    *,
    task: str,
    exclude_partial_sessions: bool = False,
    timeouts: str = "error",
    cant_tell: str = "error",
    times_include_errors: bool = True,
    corrected_in_times: bool = False,
) -> pd.DataFrame:
    """Set ``in_analysis`` and ``in_time_analysis`` (a copy is returned).

    ``in_analysis``: not excluded, not practice, not filler, not in a partial
    session when ``exclude_partial_sessions``, and, with ``timeouts="exclude"``
    (``cant_tell="exclude"``), not a time-out ("can't tell"). By default
    (``"error"``) they stay in and count as not identified.

    ``in_time_analysis`` (identification): in the analysis, a response was given
    in time (no time-out or "can't tell"), not corrected (seed 000 left manually
    corrected trials out of the time analysis) unless ``corrected_in_times``,
    and correct unless ``times_include_errors`` (seed 001 analysed all 896
    identification times, so errors are included by default). Rating: in the
    analysis and not corrected.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"excluded": [False, False, True], "practice": [False,
    ...     True, False], "filler": [False] * 3, "partial_session": [False] * 3,
    ...     "timeout": [False] * 3, "cant_tell": [False] * 3, "corrected":
    ...     [False] * 3, "correct": [True, True, False]})
    >>> analysis_flags(t, task="identification")["in_analysis"].tolist()
    [True, False, False]
    """
    for name, value in (("timeouts", timeouts), ("cant_tell", cant_tell)):
        if value not in ("error", "exclude"):
            raise JudgmentsError(f"must be error or exclude, got {value!r}", field=name)
    out = trials.copy()

    def flag(column: str) -> Any:
        return out[column].map(lambda v: bool(v) if not is_missing(v) else False)

    keep = ~flag("excluded") & ~flag("practice") & ~flag("filler")
    if exclude_partial_sessions:
        keep &= ~flag("partial_session")
    if identifies(task):
        if timeouts == "exclude":
            keep &= ~flag("timeout")
        if cant_tell == "exclude":
            keep &= ~flag("cant_tell")
        timed = keep & ~flag("timeout") & ~flag("cant_tell")
        if not times_include_errors:
            timed &= flag("correct")
    else:
        timed = keep.copy()
    if not corrected_in_times:
        timed &= ~flag("corrected")
    out["in_analysis"] = keep.astype(bool)
    out["in_time_analysis"] = timed.astype(bool)
    return out


def clean_choice(value: Any) -> str | None:
    """Normalise a choice cell for the measures (missing -> None)."""
    return None if is_missing(value) else clean_str(str(value))
