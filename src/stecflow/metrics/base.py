"""The metric base class, the metric registry and small shared helpers.

The design follows ``sacrebleu/metrics/base.py``: a metric is an object whose
constructor arguments are its options; it turns one segment (a hypothesis, its
references and, for some metrics, the item's domain) into a tuple of *sufficient
statistics*, and it turns a list of such tuples into a system score. Bootstrap
resampling therefore only resamples statistics and re-aggregates them, without
re-reading any text. Every metric also builds its own signature string from its
attributes, so the signature cannot drift from the settings that produced a score.

Two kinds of metric exist (class attribute ``level``):

``"item"``
    The system score is the mean over items of the per-item score (the macro
    average of REFERENCE.md §1). The first statistic of every segment is the
    per-item score; ``nan`` marks an item on which the metric is undefined (it is
    skipped by :meth:`Metric.aggregate` and counted by :meth:`Metric.summary`).
``"corpus"``
    The statistics are summed over items before the score is computed (BLEU,
    NIST). Averaging sentence scores would give a different, wrong number.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, ClassVar, Literal, TypeVar

from stecflow.metrics.measure_types import MeasureType, default_metric_type

__all__ = [
    "CONTEXT_KEYS",
    "DEPRECATED_NAMES",
    "Metric",
    "Stats",
    "available_metrics",
    "check_bool",
    "check_choice",
    "get_metric",
    "library_version",
    "metric_class",
    "reduce_over_references",
    "register_metric",
]

#: One segment's sufficient statistics: a flat tuple of numbers.
Stats = tuple[float, ...]

#: The keyword arguments a metric's ``segment_stats`` accepts besides the
#: hypothesis and its references: the target's attribute set and the distractors'
#: attribute sets (only the domain-aware attribute-set metrics use them; the
#: others ignore them, so the scoring stage can pass the same context to all).
CONTEXT_KEYS = frozenset({"target", "distractors"})

_REGISTRY: dict[str, type[Metric]] = {}

#: Old metric names still accepted, with the name they now have. ``ssa`` was
#: stecflow's name for seed 002's SEB (Bangalore et al.'s length-normalised string
#: accuracy), which is now ``seb``; using it logs a deprecation warning.
DEPRECATED_NAMES: dict[str, str] = {"ssa": "seb"}

M = TypeVar("M", bound="type[Metric]")


def register_metric(cls: M) -> M:
    """Class decorator: make a metric class available to :func:`get_metric`.

    Parameters
    ----------
    cls : type[Metric]
        A concrete metric class with a unique ``name``.

    Returns
    -------
    type[Metric]
        The class itself, unchanged.

    Raises
    ------
    ValueError
        If another class is already registered under the same name.
    """
    existing = _REGISTRY.get(cls.name)
    if existing is not None and existing is not cls:
        raise ValueError(f"metric name {cls.name!r} is already registered")
    _REGISTRY[cls.name] = cls
    return cls


def available_metrics() -> tuple[str, ...]:
    """Return the registered metric names, sorted.

    Returns
    -------
    tuple of str
        Every name :func:`get_metric` accepts.

    Examples
    --------
    >>> "dice" in available_metrics() and "bleu3" in available_metrics()
    True
    """
    return tuple(sorted(_REGISTRY))


def metric_class(name: str) -> type[Metric]:
    """Return the metric class registered under *name*.

    Parameters
    ----------
    name : str
        A registered metric name, e.g. ``"dice"`` or ``"nist5"``.

    Returns
    -------
    type[Metric]
        The class (not an instance).

    Raises
    ------
    ValueError
        If *name* is not registered; the message lists the valid names.

    Examples
    --------
    >>> metric_class("masi").__name__
    'MASI'
    >>> metric_class("ssa").name  # deprecated alias
    'seb'
    """
    if name in DEPRECATED_NAMES:
        import logging

        logging.getLogger(__name__).warning(
            "metric name %r is deprecated: it is seed 002's SEB, now called %r;"
            " write %r in scoring.metrics",
            name,
            DEPRECATED_NAMES[name],
            DEPRECATED_NAMES[name],
        )
        name = DEPRECATED_NAMES[name]
    try:
        return _REGISTRY[name]
    except KeyError:
        valid = ", ".join(available_metrics())
        raise ValueError(
            f"unknown metric {name!r}; valid metric names are: {valid}"
        ) from None


def get_metric(name: str, **options: Any) -> Metric:
    """Create the metric registered under *name* with the given options.

    Parameters
    ----------
    name : str
        A registered metric name (see :func:`available_metrics`).
    **options
        Constructor arguments of the metric class; omitted ones take the defaults
        of REFERENCE.md §24.

    Returns
    -------
    Metric
        A configured metric object.

    Raises
    ------
    ValueError
        If the name is unknown, an option is not accepted by that metric, or an
        option has an invalid value. The message lists what is valid.

    Examples
    --------
    >>> get_metric("dice", multi_ref="max").signature()
    'Dice|refs:max|type:yes|version:1'
    """
    cls = metric_class(name)
    accepted = cls.option_names()
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        hint = f" ({cls.option_hint})" if cls.option_hint else ""
        raise ValueError(
            f"metric {name!r} does not accept option(s) {', '.join(unknown)}; "
            f"its options are: {', '.join(accepted) or '(none)'}{hint}"
        )
    return cls(**options)


def library_version(distribution: str) -> str:
    """Return the installed version of a Python distribution, without importing it.

    Parameters
    ----------
    distribution : str
        A distribution name as on PyPI, e.g. ``"sacrebleu"``.

    Returns
    -------
    str
        Its version, or ``"missing"`` if it is not installed.

    Examples
    --------
    >>> library_version("surely-not-an-installed-distribution")
    'missing'
    """
    from importlib import metadata  # not on a scoring job's path: 10 ms

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "missing"


def reduce_over_references(
    values: Sequence[float | Fraction],
    mode: Literal["mean", "max", "min", "any"],
) -> float:
    """Combine one hypothesis's scores against each of its references.

    Parameters
    ----------
    values : sequence of float or Fraction
        One score per reference, in reference order; ``nan`` entries (a pair on
        which the metric is undefined) are ignored.
    mode : {"mean", "max", "min", "any"}
        ``mean``: arithmetic mean; ``max``/``min``: best or worst; ``any``: 1.0 if
        any value is non-zero (for exact-match indicators), else 0.0.

    Returns
    -------
    float
        The combined score, ``nan`` if no value is defined.

    Raises
    ------
    ValueError
        If *mode* is not one of the four names.

    Examples
    --------
    >>> reduce_over_references([2, 3], "mean")
    2.5
    >>> reduce_over_references([0, 1], "any")
    1.0
    """
    defined = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
    if mode not in ("mean", "max", "min", "any"):
        raise ValueError(f"multi-reference mode must be mean, max, min or any: {mode}")
    if not defined:
        return math.nan
    if mode == "mean":
        if any(isinstance(v, Fraction) for v in defined):  # exact thirds (MASI)
            return float(sum(Fraction(v) for v in defined) / len(defined))
        return math.fsum(defined) / len(defined)
    if mode == "max":
        return float(max(defined))
    if mode == "min":
        return float(min(defined))
    return 1.0 if any(defined) else 0.0


def _format_value(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return ",".join(_format_value(v) for v in value)
    return str(value)


def check_choice(option: str, value: object, choices: Iterable[object]) -> None:
    """Raise ValueError unless *value* is one of *choices* (an option check).

    Parameters
    ----------
    option : str
        The option's name, quoted in the message.
    value : object
        The value given.
    choices : iterable
        The valid values, listed in the message.

    Raises
    ------
    ValueError
        If *value* is not among *choices*.

    Examples
    --------
    >>> check_choice("multi_ref", "median", ("mean", "max"))
    Traceback (most recent call last):
    ...
    ValueError: option multi_ref must be one of 'mean', 'max'; got 'median'
    """
    choices = tuple(choices)
    if value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"option {option} must be one of {listed}; got {value!r}")


def check_bool(option: str, value: object) -> None:
    """Raise ValueError unless *value* is a bool (an option check).

    Parameters
    ----------
    option : str
        The option's name, quoted in the message.
    value : object
        The value given.

    Raises
    ------
    ValueError
        If *value* is not ``True`` or ``False``.

    Examples
    --------
    >>> check_bool("lowercase", "yes")
    Traceback (most recent call last):
    ...
    ValueError: option lowercase must be true or false; got 'yes'
    """
    if not isinstance(value, bool):
        raise ValueError(f"option {option} must be true or false; got {value!r}")


class Metric(ABC):
    """Base class of every stecflow metric.

    Subclasses set the class attributes below, take their options as keyword-only
    constructor arguments stored under the same attribute names, list those names
    in ``signature_fields`` and implement :meth:`segment_stats` (and, for corpus
    metrics, :meth:`aggregate` and :meth:`score_from_stats`).

    Attributes
    ----------
    name : str
        Registry name (``"dice"``).
    display_name : str
        Name at the start of the signature and in reports (``"Dice"``).
    version : str
        Our version of the implementation; bump it whenever a number can change.
    level : {"item", "corpus"}
        How segment statistics become a system score (module docstring).
    input_type : {"attributes", "text"}
        What hypotheses and references are: attribute sets or word strings.
    higher_is_better : bool
        Direction of the score.
    signature_fields : tuple of (str, str)
        ``(attribute, key)`` pairs: every option and the key it has in the
        signature, in signature order.
    libraries : tuple of str
        Distributions whose code computes the number; their versions are appended
        to the signature.
    stat_names : tuple of str
        Names of the entries of one segment's statistics tuple.
    requires_corpus : bool
        True if a segment's statistics depend on the whole test set (NIST's
        information weights): get them from :meth:`corpus_stats`, never by
        calling :meth:`segment_stats` item by item.
    option_hint : str
        Added to the error for an option the metric does not accept (e.g. where
        the option went when a metric was renamed).
    measure_type : MeasureType or None
        What kind of evaluation it is (seed 001 Table 3: intrinsic, automatic,
        its technique; seed 002 Table 2's box); None: :meth:`type_of` derives
        one from ``input_type`` (every shipped metric declares its own).
    """

    name: ClassVar[str]
    display_name: ClassVar[str]
    version: ClassVar[str]
    level: ClassVar[Literal["item", "corpus"]] = "item"
    input_type: ClassVar[Literal["attributes", "text"]]
    higher_is_better: ClassVar[bool] = True
    signature_fields: ClassVar[tuple[tuple[str, str], ...]] = ()
    libraries: ClassVar[tuple[str, ...]] = ()
    stat_names: ClassVar[tuple[str, ...]] = ("score",)
    requires_corpus: ClassVar[bool] = False
    option_hint: ClassVar[str] = ""
    measure_type: ClassVar[MeasureType | None] = None

    # -- description -------------------------------------------------------------

    @classmethod
    def type_of(cls) -> MeasureType:
        """The metric's :class:`MeasureType`: its declared ``measure_type``, or
        intrinsic and automatic, grouped by its ``input_type``."""
        if cls.measure_type is not None:
            return cls.measure_type
        return default_metric_type(
            getattr(cls, "input_type", ""), getattr(cls, "display_name", cls.__name__)
        )

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """Return the names of the options (constructor arguments), in order."""
        return tuple(attr for attr, _ in cls.signature_fields)

    def options(self) -> dict[str, Any]:
        """Return the metric's options as plain data, for configs and reports.

        Returns
        -------
        dict
            Option name to value (str, bool, int, float or None).
        """
        return {attr: getattr(self, attr) for attr in self.option_names()}

    def signature(self, extra: Mapping[str, object] | None = None) -> str:
        """Return the reproducibility signature of this metric object.

        The signature is ``DisplayName|key:value|...|version:V`` followed by
        ``|library:version`` for every wrapped library. It is built from the
        object's own attributes, so it states every option that changes a number.

        Parameters
        ----------
        extra : mapping, optional
            Further ``key: value`` fields placed before ``version``, e.g.
            ``{"bs": 1000, "seed": 12345}`` for bootstrap resampling.

        Returns
        -------
        str
            The signature.
        """
        items = [*self.signature_items(), *(extra or {}).items()]
        fields = [f"{key}:{_format_value(value)}" for key, value in items]
        fields.append(f"version:{self.version}")
        fields.extend(f"{lib}:{library_version(lib)}" for lib in self.libraries)
        return "|".join([self.display_name, *fields])

    def signature_items(self) -> list[tuple[str, object]]:
        """Return the ``(key, value)`` fields of the signature, before ``version``.

        By default one field per entry of ``signature_fields``; subclasses
        override this to abbreviate values or add fixed settings.
        """
        return [
            (key, self._signature_value(attr)) for attr, key in self.signature_fields
        ]

    def _signature_value(self, attr: str) -> object:
        """Value of option *attr* as shown in the signature (override to abbreviate)."""
        return getattr(self, attr)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.options().items())
        return f"{type(self).__name__}({args})"

    # -- statistics --------------------------------------------------------------

    @abstractmethod
    def segment_stats(self, hyp: Any, refs: Sequence[Any], **context: Any) -> Stats:
        """Return one segment's sufficient statistics.

        Parameters
        ----------
        hyp : str or AttributeSet
            The system output for the item (``input_type`` says which).
        refs : sequence
            The item's references, same type as *hyp*; their number may vary from
            item to item.
        **context
            ``target`` and ``distractors`` (attribute sets) for the domain-aware
            metrics; other metrics ignore them.

        Returns
        -------
        tuple of float
            Named by ``stat_names``.
        """

    def corpus_stats(
        self,
        hyps: Sequence[Any],
        refs: Sequence[Sequence[Any]],
        contexts: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[Stats]:
        """Return the statistics of every segment of a test set.

        Parameters
        ----------
        hyps : sequence
            One hypothesis per item.
        refs : sequence of sequences
            Item-major: ``refs[i]`` holds the references of item ``i`` (not
            sacreBLEU's stream-major layout).
        contexts : sequence of mappings, optional
            ``contexts[i]`` holds item ``i``'s keyword context.

        Returns
        -------
        list of tuple
            One statistics tuple per item, in input order.

        Raises
        ------
        ValueError
            If the three sequences differ in length.
        """
        self._check_lengths(hyps, refs, contexts)
        if contexts is None:
            return [self.segment_stats(h, r) for h, r in zip(hyps, refs, strict=True)]
        return [
            self.segment_stats(h, r, **c)
            for h, r, c in zip(hyps, refs, contexts, strict=True)
        ]

    @staticmethod
    def _check_lengths(
        hyps: Sequence[Any],
        refs: Sequence[Sequence[Any]],
        contexts: Sequence[Mapping[str, Any]] | None,
    ) -> None:
        if len(hyps) != len(refs):
            raise ValueError(
                f"{len(hyps)} hypotheses but {len(refs)} reference lists; "
                "give one list of references per hypothesis"
            )
        if contexts is not None and len(contexts) != len(hyps):
            raise ValueError(
                f"{len(hyps)} hypotheses but {len(contexts)} contexts; "
                "give one context per hypothesis"
            )

    def score_from_stats(self, stats: Stats) -> float:
        """Return the score of one segment from its statistics.

        For item-level metrics this is the first statistic; corpus-level metrics
        override it to score the segment as a one-segment corpus.
        """
        return float(stats[0])

    def aggregate(self, stats: Sequence[Stats]) -> float:
        """Return the system score from the segments' statistics.

        For item-level metrics: the mean of the defined (non-``nan``) per-item
        scores, ``nan`` if none is defined. Corpus-level metrics override this to
        sum the statistics first.

        Parameters
        ----------
        stats : sequence of tuple
            Statistics as returned by :meth:`segment_stats`, possibly a bootstrap
            resample of them.

        Returns
        -------
        float
            The system score.

        Raises
        ------
        ValueError
            If *stats* is empty.
        """
        self._check_nonempty(stats)
        scores = [self.score_from_stats(s) for s in stats]
        defined = [s for s in scores if not math.isnan(s)]
        if not defined:
            return math.nan
        return math.fsum(defined) / len(defined)

    @staticmethod
    def _check_nonempty(stats: Sequence[Stats]) -> None:
        if len(stats) == 0:
            raise ValueError("cannot aggregate an empty list of segment statistics")

    def resample_scores(self, stats: Sequence[Stats], counts: Any) -> list[float]:
        """Return the system score of each bootstrap resample.

        Parameters
        ----------
        stats : sequence of tuple
            The segments' statistics.
        counts : numpy.ndarray of int, shape (resamples, len(stats))
            ``counts[b, i]`` is how often segment *i* is drawn in resample *b*.

        Returns
        -------
        list of float
            ``aggregate`` of each resample (``nan`` where undefined). Item-level
            metrics take a weighted mean of the defined item scores; corpus-level
            metrics override this with a vectorised version where they can.
        """
        import numpy as np

        if self.level != "item":
            return [
                self.aggregate(
                    [stats[i] for i in np.repeat(np.arange(len(stats)), row)]
                )
                for row in counts
            ]
        scores = np.array([self.score_from_stats(s) for s in stats], dtype=float)
        defined = ~np.isnan(scores)
        weights = counts[:, defined]
        n = weights.sum(axis=1)
        totals = weights @ scores[defined]
        with np.errstate(invalid="ignore", divide="ignore"):
            return [
                float(x) for x in np.where(n > 0, totals / np.maximum(n, 1), np.nan)
            ]

    def item_scores(self, stats: Sequence[Stats]) -> list[float]:
        """Return the per-item scores (``nan`` where undefined)."""
        return [self.score_from_stats(s) for s in stats]

    def summary(self, stats: Sequence[Stats]) -> dict[str, int]:
        """Return counts to report next to the score.

        Returns
        -------
        dict
            ``n_items``; for item-level metrics also ``n_scored`` and ``n_skipped``
            (items on which the metric is undefined, e.g. SEB with an empty
            reference). Subclasses add their own counts.
        """
        out = {"n_items": len(stats)}
        if self.level == "item":
            scored = sum(1 for s in self.item_scores(stats) if not math.isnan(s))
            out["n_scored"] = scored
            out["n_skipped"] = len(stats) - scored
        return out

    # -- conveniences ------------------------------------------------------------

    def score_segment(self, hyp: Any, refs: Sequence[Any], **context: Any) -> float:
        """Return one segment's score: ``score_from_stats(segment_stats(...))``."""
        return self.score_from_stats(self.segment_stats(hyp, refs, **context))

    def corpus_score(
        self,
        hyps: Sequence[Any],
        refs: Sequence[Sequence[Any]],
        contexts: Sequence[Mapping[str, Any]] | None = None,
    ) -> float:
        """Return the system score of a test set (``aggregate(corpus_stats(...))``)."""
        return self.aggregate(self.corpus_stats(hyps, refs, contexts))

    # -- helpers for subclasses ----------------------------------------------------

    @staticmethod
    def check_context(context: Mapping[str, Any]) -> None:
        """Raise TypeError if *context* has a key other than :data:`CONTEXT_KEYS`."""
        unknown = sorted(set(context) - CONTEXT_KEYS)
        if unknown:
            raise TypeError(
                f"unexpected context argument(s) {', '.join(unknown)}; "
                f"metrics accept only: {', '.join(sorted(CONTEXT_KEYS))}"
            )

    def check_refs(self, refs: Sequence[Any]) -> None:
        """Raise ValueError if an item has no reference at all."""
        if isinstance(refs, str | frozenset | set):
            raise TypeError(
                f"{self.display_name}: refs must be a sequence of references, "
                f"not a single {type(refs).__name__}"
            )
        if len(refs) == 0:
            raise ValueError(
                f"{self.display_name}: an item needs at least one reference"
            )
