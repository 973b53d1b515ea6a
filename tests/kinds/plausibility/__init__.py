"""A study kind declared outside stecflow: a yes/no plausibility judgement.

Participants read an item's input and one system's text and answer one
question, "Could this text have been written for this input?", Yes or No. The
measure is the share of Yes per system. This package is what an organiser
would write to add a kind (docs/architecture.md, "Add a study kind", follows
it): the declaration :data:`KIND`, its page component (``plausibility.js``)
and its code by role (:mod:`.hooks`). It changes nothing in stecflow: an
installed distribution offers it as an entry point of the group
``stecflow.study_kinds`` (``plausibility = tests.kinds.plausibility:KIND``),
which the test of the seam writes (tests/workflow/test_outside_kind.py).
"""

from pathlib import Path
from types import MappingProxyType

from stecflow.studykinds.base import Measure, ResponseField, StudyKind

HERE = Path(__file__).resolve().parent

KIND = StudyKind(
    name="plausibility",
    summary=(
        "Participants read an item's input and one system's text and answer"
        " whether the text could have been written for that input, Yes or No."
    ),
    family="text",
    data_formats=frozenset({"text"}),
    needs="a text test set (data.format: text)",
    designs=("latin_square",),
    exclusion_rules=frozenset({"median_time_below_ms", "incomplete"}),
    reads="outputs",
    min_window=(520, 600),
    # the text family's shared part, then the kind's own (an absolute path)
    page=("_text.js", str(HERE / "plausibility.js")),
    responses=(ResponseField("plausible", "choice", choices=("yes", "no")),),
    measures=(Measure("plausible"),),
    hooks=MappingProxyType(
        {
            "stimuli": "tests.kinds.plausibility.hooks:stimuli",
            "simulate": "tests.kinds.plausibility.hooks:simulate",
            "merge": "tests.kinds.plausibility.hooks:merge",
            "rated": "tests.kinds.plausibility.hooks:rated",
            "report": "tests.kinds.plausibility.hooks:report",
        }
    ),
)
