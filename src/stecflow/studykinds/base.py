"""What a study kind is: the declaration every entry of the registry fulfils.

A :class:`StudyKind` is plain data: what the config of a study of the kind may
and must hold, which test sets it can show, its designs and variants, its
control trials, the smallest window its trial page fits, the measures its
judgments yield and what two raters of it share. Code of the kind's own (its
design builder, merge, simulated participant, report section) is named by
dotted path in :attr:`StudyKind.hooks`, so declaring a kind imports none of it.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`
(and :mod:`stecflow.metrics.measure_types`, what type a measure is).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from stecflow.metrics.measure_types import MeasureType

__all__ = [
    "EXCLUSION_RULES",
    "FAMILIES",
    "MergeJob",
    "Measure",
    "ResponseField",
    "SimulationJob",
    "StudyKind",
]

#: The exclusion rules a study's ``exclusions`` entries can name (the key that
#: selects each, :mod:`stecflow.judgments.exclusions`).
EXCLUSION_RULES = ("controls_below", "median_time_below_ms", "incomplete", "answer")

#: The families of kinds that share their stimuli, merge and simulation code:
#: ``grid`` (pictures of REG items), ``situated`` (a dialogue's board) and
#: ``text`` (an item's input beside the texts).
FAMILIES = ("grid", "situated", "text")


@dataclass(frozen=True)
class Measure:
    """One measure a kind's judgments yield: what its analyses name, and the
    column and flag of the judgments table it is read from."""

    name: str
    #: ``interval``: z-normalisable, Krippendorff's alpha interval; ``nominal``.
    level: str = "interval"
    higher_is_better: bool = True
    #: The judgments table's column it is read from (empty: its name).
    column: str = ""
    #: The judgments table's flag of the trials it is computed on.
    flag: str = "in_analysis"
    #: What kind of evaluation it is (seed 001 Table 3, seed 002 Table 2's
    #: boxes); None: its kind's default (:meth:`StudyKind.type_of`).
    measure_type: MeasureType | None = None


@dataclass(frozen=True)
class ResponseField:
    """One answer a trial's page sends, as the collection server checks it.

    >>> ResponseField("plausible", "choice", choices=("yes", "no")).check("no")
    'no'
    >>> ResponseField("fluency", low=1, high=5).check(6)
    Traceback (most recent call last):
    ...
    ValueError: fluency must be an integer from 1 to 5, got 6
    """

    name: str
    #: ``integer`` (a whole number from *low* to *high*), ``number`` (any
    #: number from *low* to *high*) or ``choice`` (one of *choices*).
    type: str = "integer"
    low: float = 0
    high: float = 100
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.type not in ("integer", "number", "choice"):
            raise ValueError(
                f"{self.name}: type {self.type!r} is not integer, number or choice"
            )
        if (self.type == "choice") != bool(self.choices):
            raise ValueError(f"{self.name}: a choice, and only a choice, has choices")

    def check(self, value: object) -> object:
        """*value* as stored, if the field takes it.

        Raises
        ------
        ValueError
            Saying what the field takes and what it got.
        """
        if self.type == "choice":
            if value not in self.choices:
                raise ValueError(
                    f"{self.name} must be one of {', '.join(self.choices)},"
                    f" got {value!r}"
                )
            return value
        number = not isinstance(value, bool) and isinstance(value, int | float)
        if self.type == "integer":
            number = number and isinstance(value, int)
        # compared before any conversion: NaN fails, a huge int never meets float()
        if not number or not self.low <= value <= self.high:  # type: ignore[operator]
            what = "an integer" if self.type == "integer" else "a number"
            raise ValueError(
                f"{self.name} must be {what} from {self.low:g} to {self.high:g},"
                f" got {value!r}"
            )
        return value


@dataclass(frozen=True)
class StudyKind:
    """One study kind: the value of a study's ``kind`` (config ``task``)."""

    #: The name a study's config entry gives (``studies[].task``).
    name: str
    #: One sentence: what a trial shows and asks (the report, the datasheet).
    summary: str
    #: The family whose shared code it uses (:data:`FAMILIES`).
    family: str
    #: The test-set formats (``data.format``) whose items it can show.
    data_formats: frozenset[str]
    #: What a campaign needs to run it, when its test set is of another
    #: format: the end of "a <kind> study needs ...".
    needs: str
    #: The designs it allows, its default first; empty: its own design
    #: (the kind's ``design`` hook), and no ``design`` key.
    designs: tuple[str, ...] = ("latin_square", "two_group")
    #: How many systems a study compares: (fewest, most or None).
    n_systems: tuple[int, int | None] = (2, None)
    #: Its variants, the default first; empty: it has none.
    variants: tuple[str, ...] = ()
    #: Config keys only studies of this kind take (``criteria``, ``situated``).
    config_keys: frozenset[str] = frozenset()
    #: The kind of its control trials (``degraded``, ``gold``), None: none.
    control: str | None = None
    #: A control trial answered as expected, in words ("{cut}": the rule's
    #: cut, as "below 3" or "below the participant's own median adequacy").
    control_expected: str | None = None
    #: The exclusion rules it supports (:data:`EXCLUSION_RULES`).
    exclusion_rules: frozenset[str] = frozenset(EXCLUSION_RULES)
    #: What its studies read of their systems: ``outputs.xml`` (the stecflow
    #: XML of REG submissions, for the stimuli), ``outputs`` (each
    #: submission's own outputs file, as its task types name it, for the
    #: stimuli) or ``decisions`` (the system's ``outputs.tsv``, for the design).
    reads: str = "outputs"
    #: The smallest window (width, height in CSS px) its trial page fits, used
    #: by ``experiment.check_window``. Each kind's is measured in chromium
    #: (Debian's, headless, through Playwright) on every trial of every list of
    #: the browser tests' studies (``tests/browser/studykit.py``: the demo
    #: rating and identification studies with their 5 x 3 grids of 120 px
    #: cells, together, read first and spoken, the situated demo, the
    #: text-rating and text-preference kits of ``tests/browser/test_layout.py``):
    #: at widths of 360, 400, 500, 640, 800, 900, 1024, 1280 and 1366 px (and
    #: 820 to 880 for rating), by bisection the smallest height at which the
    #: trial's screens (the start screen, the reading screen, the answer screen)
    #: need no scrolling (the document's scrollWidth and scrollHeight within the
    #: window, every button, slider and picture inside it) and the pictures the
    #: layout shrinks to fit keep at least half their size: a grid cell at least
    #: 60 px, the situated board at least 240 px high (its full size is 640 x
    #: 480). The heights needed (px), and the width below which the layout needs
    #: more:
    #:
    #: - rating: 624 from 840 px wide (819 at 820, 863 at 640);
    #: - identification: 416 from 640 px wide (528 at 500; the start screen 204,
    #:   the reading screen 224);
    #: - situated_identification: 526 from 641 px wide (below 40rem the transcript
    #:   goes under the board: about 750);
    #: - text_rating: 600 from 500 px wide (664 at 400);
    #: - text_preference: 563 from 500 px wide (584 at 400).
    #:
    #: Each minimum adds a margin: 20 px or more to the width, 20 px to the
    #: height, rounded up to 10 px. A 1366 x 768 laptop's browser window (about
    #: 1366 x 657) passes every kind's check. ``tests/browser/test_window_check.py``
    #: checks that each kind's trials fit at its minimum.
    min_window: tuple[int, int] = (1024, 700)
    #: Its trial page's parts, in order: file names under
    #: ``stecflow/studies/web/components/`` (``_grid.js`` and ``_text.js`` are
    #: shared within a family), or absolute paths for a kind declared outside
    #: the library. The study's ``experiment.js`` is ``web/core.js`` with these
    #: inserted at its marker line
    #: (:func:`stecflow.studies.bundle.page_script`); one of them registers the
    #: kind's trial with ``trialKind("<name>", { run: ... })``.
    page: tuple[str, ...] = ()
    #: The answers a trial's page sends: what the collection server accepts and
    #: refuses, stored and exported under their names (a text kind's after
    #: :data:`~stecflow.studies.settings.RESPONSE_COLUMNS`). A kind whose
    #: answers depend on its config (one per criterion) gives them through its
    #: ``responses`` hook instead
    #: (:func:`stecflow.studykinds.registry.response_fields`).
    responses: tuple[ResponseField, ...] = ()
    #: Tests of its own that alone analyse its studies, each with the suffix
    #: of its default analysis's ID (``<study>-<suffix>``); empty: the
    #: general tests (ANOVA, Tukey, Kruskal-Wallis, correlations...).
    tests: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: Whether a trial asks the participant to find the referent among the
    #: pictures or pieces (task performance, measured by accuracy and time:
    #: the extrinsic evaluation of seeds 001 and 000) rather than to judge the
    #: output shown.
    identifies: bool = False
    #: The time a trial takes, for the power plan's duration when the study
    #: gives no ``power.per_trial_ms`` (:mod:`stecflow.analysis.power`).
    per_trial_ms: float = 4000.0
    #: The design's columns that name the systems a trial shows: one
    #: (``system``), or two side by side (``system_left``, ``system_right``:
    #: a pair, its sides counterbalanced by a pair design).
    sides: tuple[str, ...] = ("system",)
    #: What two raters of a trial must share to be compared (the unit of
    #: agreement): columns of its judgments table; a tuple of columns is an
    #: unordered pair (two systems side by side, whichever is left).
    unit: tuple[str | tuple[str, ...], ...] = ("item", "system")
    #: Whether a participant's scores can be z-normalised (``normalise: z``).
    normalisable: bool = False
    #: A report section of its own, ``(anchor, title)``, drawn by its
    #: ``section`` hook (``(ctx, study IDs) -> blocks``); its studies then
    #: leave the human-evaluation section
    #: (:mod:`stecflow.report.kind_sections`). Empty: none.
    section: tuple[str, ...] = ()
    #: The measures of its main table, in order; empty: every measure present.
    measures: tuple[Measure, ...] = ()
    #: The type of its measures that declare none (a text rating's criteria,
    #: the study itself for a kind that declares no measure); ``{measure}`` in
    #: its technique becomes the measure's name. None: :meth:`type_of`'s
    #: default.
    measure_type: MeasureType | None = None
    #: Code of its own by role, ``"module:name"``, imported on first use
    #: (:func:`stecflow.studykinds.registry.hook`): ``check`` (rules of its
    #: config entry the declaration cannot state), ``design`` (a design of its
    #: own), ``stimuli`` (given the arguments of
    #: :func:`stecflow.studies.setup.build_text_stimuli`; it returns the built
    #: study's :meth:`stecflow.studies.bundle.StudyFiles.summary`),
    #: ``simulate`` (given a :class:`SimulationJob`), ``merge`` (given a
    #: :class:`MergeJob`), ``rated`` (what
    #: its evaluators judge: :func:`stecflow.studies.criteria.rated_criteria`),
    #: ``agreement`` (its judgments as raters agree on them: a frame in, a
    #: frame out), ``report`` (its results in the report's human-evaluation
    #: section, ``(ctx, study, kind) -> blocks``; a kind with a section of its
    #: own, as the situated one, has none) and ``datasheet`` (a
    #: :class:`stecflow.release.heds.KindSheet`); and ``responses`` (its
    #: answers given the study's criteria, a tuple of :class:`ResponseField`)
    #: and ``keyed`` (``(trial, answers) -> dict``: what the collection server
    #: stores beside the answers from the study's key, as a preference's
    #: systems); ``analyses`` (its default analyses, ``study -> (specs,
    #: measures to correlate)``; without it, ANOVA and Tukey of each declared
    #: measure: :func:`stecflow.analysis.kind_defaults.measure_analyses`) and
    #: ``measures`` (``study -> names``: the measures of a study whose measures
    #: come from its config, a text rating's criteria); ``section`` (see
    #: :attr:`section`) and ``tests`` (the analysis tests of its own, a tuple
    #: of :class:`stecflow.analysis.registry.AnalysisTest`, as
    #: :attr:`tests` names them).
    hooks: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: The response files of its own that the judgments stage reads beside the
    #: collection server's and the generic table (the output of the lab
    #: software its studies can run on, as DMDX for identification): format
    #: name to ``"module:name"`` of a
    #: :class:`stecflow.judgments.importers.ResponseFormat`, tried in order
    #: when a file's format is detected.
    response_formats: Mapping[str, str] = field(
        default_factory=lambda: MappingProxyType({})
    )

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(
                f"{self.name}: family {self.family!r} is not in {FAMILIES}"
            )
        unknown = self.exclusion_rules - set(EXCLUSION_RULES)
        if unknown:
            raise ValueError(f"{self.name}: unknown exclusion rules {sorted(unknown)}")
        if (self.control is None) != (self.control_expected is None):
            raise ValueError(f"{self.name}: a control kind needs control_expected")

    def type_of(self, measure: str) -> MeasureType:
        """The :class:`MeasureType` of one of its measures: the one its
        :class:`Measure` declares, else (a measure the config names, as a text
        rating's criteria, or a ``<measure>_z``) its :attr:`measure_type`, or
        else human and, for a kind whose participants identify the referent,
        extrinsic task performance (seeds 001 and 000), or else intrinsic
        judgments.

        >>> StudyKind("k", "s", "text", frozenset(), "n").type_of("clarity").kind
        'Intrinsic/human'
        """
        declared = {m.name: m for m in self.measures}
        bare = measure[: -len("_z")] if measure.endswith("_z") else measure
        found = declared.get(measure) or declared.get(bare)
        z = " (z-scores per participant)" if measure != bare else ""
        if found is not None and found.measure_type is not None:
            if found.name == measure:
                return found.measure_type
            technique = found.measure_type.technique + z
            return found.measure_type.with_overrides({"technique": technique})
        if self.measure_type is not None:
            technique = self.measure_type.technique.replace("{measure}", bare) + z
            return self.measure_type.with_overrides({"technique": technique})
        if self.identifies:
            return MeasureType(
                "extrinsic",
                "human",
                "task performance in an identification experiment",
                "task_performance",
            )
        return MeasureType("intrinsic", "human", "judgment by participants", "judgment")

    @property
    def paired(self) -> bool:
        """Whether a trial shows two systems side by side (:attr:`sides`)."""
        return len(self.sides) == 2

    @property
    def default_variant(self) -> str | None:
        """The variant a study gets when its config names none."""
        return self.variants[0] if self.variants else None

    @property
    def default_design(self) -> str | None:
        """The design a study gets when its config names none."""
        return self.designs[0] if self.designs else None


@dataclass(frozen=True)
class MergeJob:
    """What a kind's ``merge`` hook is given: one study's files (rule
    ``merge_judgments``). The hook writes the judgments, quality, measures,
    summary, exclusions (and sessions) files."""

    #: The study entry (:func:`stecflow.studies.setup.study_specs`).
    spec: Mapping[str, object]
    #: The campaign's ``judgments`` settings.
    settings: Mapping[str, object]
    design: str | Path
    design_settings: str | Path
    #: The study's key (``stimuli-key.json``: answers, picture labels).
    key: str | Path
    #: The response tables, session tables already merged out of them.
    responses: Sequence[str | Path]
    corrections: Sequence[str | Path]
    withdrawals: Sequence[str | Path]
    testset: str | Path
    practice: Sequence[str | Path]
    dmdx_items_dir: str | Path
    pseudonym_key: str | None
    judgments: str | Path
    quality: str | Path
    measures: str | Path
    summary: str | Path
    exclusions: str | Path
    sessions: str | Path | None = None


@dataclass(frozen=True)
class SimulationJob:
    """What a kind's ``simulate`` hook is given (rule ``simulate_responses``):
    it writes *responses*, as a collection server would export them."""

    spec: Mapping[str, object]
    #: The campaign's ``judgments.simulation`` settings.
    settings: Mapping[str, object]
    seed: int
    design: str | Path
    key: str | Path
    testset: str | Path
    practice: Sequence[str | Path]
    #: ``team/system`` -> the submission folder, for every system of the study.
    submission_dirs: Mapping[str, str | Path]
    #: The campaign's task types.
    tasks: Sequence[str]
    responses: str | Path
