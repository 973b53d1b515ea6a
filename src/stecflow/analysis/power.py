"""Power of a study and the duration of its sessions, for planning and pay.

The model is the participant simulator's rating model
(:class:`stecflow.judgments.participant.SimulationSettings`): a judgment is

    y = mean[system] + u[participant] + v[item] + e,

with ``u ~ N(0, rater_sd)``, ``v ~ N(0, item_sd)`` and ``e ~ N(0, noise_sd)``
(simulator defaults 8, 5 and 14 points on the 0-100 slider). Each participant
judges ``trials_per_system`` trials of every system (a Latin-square list), so a
study with ``n`` participants has ``n * trials_per_system`` judgments per system.

Every simulated data set goes through the functions the statistics stage uses:
:func:`stecflow.stats.anova.anova` (one-way ANOVA on SYSTEM),
:func:`stecflow.stats.nonparametric.kruskal` and
:func:`stecflow.stats.posthoc.pairwise_tukey` (named pairs). Power is the share of
runs whose p-value is below ``alpha``, with its Wilson 95 % interval.

The effect sizes come from the config (``studies.<id>.power.effects``: system ->
mean, optionally ``rater_sd``, ``item_sd``, ``noise_sd``) or are estimated from a
pilot's judgments (:func:`estimate_effects`). Session duration comes from a
pilot's session table (``duration_s``) or from the design
(:func:`design_duration`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from stecflow.core.errors import StecflowError

__all__ = [
    "Effects",
    "PowerError",
    "design_duration",
    "estimate_effects",
    "power_table",
    "session_duration",
    "wilson",
]


class PowerError(StecflowError):
    """Bad power settings, pilot table or session table."""


@dataclass(frozen=True)
class Effects:
    """System means and variance components of the rating model."""

    means: Mapping[str, float]
    rater_sd: float = 8.0
    item_sd: float = 5.0
    noise_sd: float = 14.0
    source: str = "config"
    model: str = (
        "y = mean[system] + u[participant] + v[item] + e, u, v, e normal"
        " (the participant simulator's rating model)"
    )

    def __post_init__(self) -> None:
        if len(self.means) < 2:
            raise PowerError(
                "power needs the means of at least 2 systems (effects)",
            )
        for name in ("rater_sd", "item_sd", "noise_sd"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and value >= 0):
                raise PowerError(f"{name} must be a number >= 0, not {value!r}")


@dataclass(frozen=True)
class PowerResult:
    """One row per participant number and test."""

    rows: list[dict[str, Any]] = field(default_factory=list)


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval of a proportion (95 % by default)."""
    if n <= 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def effects_from_config(power: Mapping[str, Any]) -> Effects:
    """Effects from ``studies.<id>.power.effects`` (``means``, ``rater_sd``...)."""
    eff = dict(power.get("effects") or {})
    means = eff.pop("means", None)
    if not isinstance(means, Mapping):
        raise PowerError(
            "power.effects.means must map each system to its expected mean score"
        )
    unknown = set(eff) - {"rater_sd", "item_sd", "noise_sd"}
    if unknown:
        raise PowerError(
            f"power.effects has unknown keys: {', '.join(sorted(unknown))}"
        )
    return Effects(
        means={str(k): float(v) for k, v in means.items()},
        **{k: float(v) for k, v in eff.items()},
    )


def estimate_effects(
    path: str | Path, measure: str, *, systems: Sequence[str] | None = None
) -> Effects:
    """Estimate system means and variance components from a pilot's judgments.

    Method of moments on ``y = mean[system] + u[participant] + e``: the residual
    variance is the pooled within-participant variance of the residuals from the
    system means; the between-participant variance is the variance of the
    participants' mean residuals minus residual variance / trials per participant
    (floored at 0). Item variance is folded into the residual (``item_sd = 0``).
    Practice, filler, control and excluded rows are left out.
    """
    import numpy as np
    import pandas as pd

    source = str(path)
    try:
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise PowerError(f"{source}: cannot read the pilot judgments ({exc})") from None
    for column in ("participant", "system", measure):
        if column not in frame.columns:
            raise PowerError(f"{source}: the pilot judgments have no column {column!r}")
    keep = frame["system"].astype(bool) & (frame["system"] != "CONTROL")
    for flag in ("practice", "filler", "excluded"):
        if flag in frame.columns:
            keep &= ~frame[flag].str.lower().isin(("1", "true"))
    if "control" in frame.columns:
        keep &= frame["control"] == ""
    frame = frame[keep]
    values = pd.to_numeric(frame[measure].replace("", None), errors="coerce")
    bad = frame[frame[measure].ne("") & values.isna()]
    if len(bad):
        line = int(bad.index[0]) + 2
        raise PowerError(
            f"{source}, line {line}, field {measure}:"
            f" {bad[measure].iloc[0]!r} is not a number"
        )
    data = pd.DataFrame(
        {"participant": frame["participant"], "system": frame["system"], "y": values}
    ).dropna()
    if systems:
        data = data[data["system"].isin(systems)]
    if data["system"].nunique() < 2:
        raise PowerError(f"{source}: fewer than 2 systems have {measure} judgments")
    means = data.groupby("system")["y"].mean()
    data["r"] = data["y"] - data["system"].map(means)
    by_p = data.groupby("participant")["r"]
    p_means = by_p.mean()
    within = data["r"] - data["participant"].map(p_means)
    n_obs, n_p = len(data), len(p_means)
    resid_var = float((within**2).sum() / max(n_obs - n_p, 1))
    per_p = float(by_p.size().mean())
    between = float(np.var(p_means.to_numpy(), ddof=1)) if n_p > 1 else 0.0
    rater_var = max(0.0, between - resid_var / per_p)
    return Effects(
        means={str(k): round(float(v), 6) for k, v in means.sort_index().items()},
        rater_sd=round(math.sqrt(rater_var), 6),
        item_sd=0.0,
        noise_sd=round(math.sqrt(resid_var), 6),
        source=f"pilot {source} ({n_p} participants, {n_obs} judgments of {measure})",
        model=(
            "y = mean[system] + u[participant] + e, method of moments"
            " (item variance folded into e)"
        ),
    )


def _simulate(
    effects: Effects, participants: int, trials_per_system: int, rng: Any
) -> Any:
    import numpy as np
    import pandas as pd

    systems = sorted(effects.means)
    k = len(systems)
    n_items = trials_per_system * k
    item_eff = rng.normal(0.0, effects.item_sd, n_items)
    rater = rng.normal(0.0, effects.rater_sd, participants)
    # Latin square: participant p sees item i with system (i + p) mod k.
    p_idx = np.repeat(np.arange(participants), n_items)
    i_idx = np.tile(np.arange(n_items), participants)
    s_idx = (i_idx + p_idx) % k
    mu = np.array([effects.means[s] for s in systems])[s_idx]
    y = mu + rater[p_idx] + item_eff[i_idx] + rng.normal(0.0, effects.noise_sd, len(mu))
    return pd.DataFrame({"system": np.array(systems)[s_idx], "value": y})


def _tests(
    data: Any, tests: Sequence[str], pairs: Sequence[tuple[str, str]], alpha: float
) -> dict[str, bool]:
    from stecflow.stats.anova import anova
    from stecflow.stats.nonparametric import kruskal
    from stecflow.stats.posthoc import pairwise_tukey

    out: dict[str, bool] = {}
    if "anova" in tests:
        table = anova(data, "value", "system")
        p = float(table.loc[table["source"] == "system", "p_val"].iloc[0])
        out["anova"] = p < alpha
    if "kruskal" in tests:
        table = kruskal(data, "value", "system")
        out["kruskal"] = float(table["p_val"].iloc[0]) < alpha
    if pairs:
        table = pairwise_tukey(data, "value", "system", alpha=alpha)
        lookup = {
            frozenset((str(r.group_a), str(r.group_b))): float(r.p_adj)
            for r in table.itertuples()
        }
        for a, b in pairs:
            out[f"tukey {a}-{b}"] = lookup[frozenset((a, b))] < alpha
    return out


def power_table(
    effects: Effects,
    participants: Sequence[int],
    *,
    runs: int,
    seed: int,
    trials_per_system: int,
    alpha: float = 0.05,
    tests: Sequence[str] = ("anova",),
    pairs: Sequence[tuple[str, str]] = (),
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Simulate *runs* studies per participant number; return the power per test.

    Rows: ``participants``, ``test``, ``runs``, ``significant``, ``power``,
    ``mc_se`` (Monte-Carlo standard error), ``ci_low``, ``ci_high`` (Wilson 95 %).
    Run ``r`` of size ``n`` uses the seed sequence ``(seed, n, r)``: results do not
    depend on the other sizes or on the order of runs.
    """
    import numpy as np

    if runs < 1:
        raise PowerError("runs must be at least 1")
    if trials_per_system < 1:
        raise PowerError("trials_per_system must be at least 1")
    for a, b in pairs:
        for s in (a, b):
            if s not in effects.means:
                raise PowerError(f"pair {a}-{b}: {s} is not a system of the effects")
    bad = [t for t in tests if t not in ("anova", "kruskal")]
    if bad:
        raise PowerError(f"unknown test {bad[0]!r} (anova or kruskal)")
    rows: list[dict[str, Any]] = []
    total, done = len(participants) * runs, 0
    for n in participants:
        if int(n) < 2:
            raise PowerError(f"participant numbers must be at least 2, not {n}")
        hits: dict[str, int] = {}
        for r in range(runs):
            rng = np.random.default_rng([int(seed), int(n), r])
            data = _simulate(effects, int(n), trials_per_system, rng)
            for name, sig in _tests(data, tests, pairs, alpha).items():
                hits[name] = hits.get(name, 0) + int(sig)
            done += 1
            if progress is not None:
                progress(done, total)
        for name, count in hits.items():
            p = count / runs
            low, high = wilson(count, runs)
            rows.append(
                {
                    "participants": int(n),
                    "test": name,
                    "runs": runs,
                    "significant": count,
                    "power": round(p, 6),
                    "mc_se": round(math.sqrt(p * (1 - p) / runs), 6),
                    "ci_low": round(low, 6),
                    "ci_high": round(high, 6),
                }
            )
    return rows


def _summary(minutes: Sequence[float], hourly_rate: float | None) -> dict[str, Any]:
    import numpy as np

    arr = np.asarray(minutes, dtype=float)
    median = float(np.median(arr))
    p90 = float(np.percentile(arr, 90))
    out: dict[str, Any] = {
        "sessions": len(arr),
        "median_min": round(median, 2),
        "p90_min": round(p90, 2),
    }
    if hourly_rate is not None:
        out["hourly_rate"] = hourly_rate
        out["pay_median"] = round(hourly_rate * median / 60, 2)
        out["pay_p90"] = round(hourly_rate * p90 / 60, 2)
    return out


def session_duration(
    path: str | Path, *, hourly_rate: float | None = None
) -> dict[str, Any]:
    """Median and 90th percentile minutes of completed sessions (C2 ``duration_s``).

    Pay is ``hourly_rate`` times the duration in hours (at the median and at the
    90th percentile: paying at the 90th percentile keeps 9 of 10 participants at
    or above the rate).
    """
    import csv

    source = str(path)
    minutes: list[float] = []
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh, delimiter="\t")
            if not reader.fieldnames or "duration_s" not in reader.fieldnames:
                raise PowerError(
                    f"{source}: the session table has no duration_s column"
                )
            for line, row in enumerate(reader, start=2):
                if row.get("status", "completed") != "completed":
                    continue
                text = (row.get("duration_s") or "").strip()
                if not text:
                    continue
                try:
                    value = float(text)
                except ValueError:
                    raise PowerError(
                        f"{source}, line {line}, field duration_s: {text!r} is not"
                        " a number of seconds"
                    ) from None
                minutes.append(value / 60)
    except OSError as exc:
        raise PowerError(f"{source}: cannot read the session table ({exc})") from None
    if not minutes:
        raise PowerError(f"{source}: no completed session with a duration_s")
    return {"source": f"pilot sessions {source}", **_summary(minutes, hourly_rate)}


def control_trials(controls: Mapping[str, Any] | None, trials: int) -> int:
    """Control trials a list adds to *trials* experimental ones (``controls`` key),
    as the design places them (its ``controls_per_list``).

    Examples
    --------
    >>> control_trials({"per_list": 2}, 40), control_trials({"share": 0.1}, 36)
    (2, 4)
    >>> control_trials(None, 40)
    0
    """
    if not controls:
        return 0
    from stecflow.studies.designs.controls import controls_per_list

    return controls_per_list(trials, controls.get("per_list"), controls.get("share"))


def design_duration(
    trials: int,
    *,
    per_trial_ms: float,
    instructions_s: float = 120.0,
    hourly_rate: float | None = None,
    sd_fraction: float = 0.25,
) -> dict[str, Any]:
    """Duration estimated without a pilot: instructions + trials x per-trial time.

    Participants' speed varies by a log-normal factor with log-SD ``sd_fraction``
    (median 1), so the median session takes ``instructions_s + trials x
    per_trial_ms`` and the 90th percentile multiplies the trial time by
    ``exp(1.2816 x sd_fraction)``.
    """
    from statistics import NormalDist

    trial_s = trials * per_trial_ms / 1000
    z90 = NormalDist().inv_cdf(0.9)
    median = (instructions_s + trial_s) / 60
    p90 = (instructions_s + trial_s * math.exp(z90 * sd_fraction)) / 60
    out: dict[str, Any] = {
        "source": (
            f"design: {trials} trials x {per_trial_ms:.0f} ms + {instructions_s:.0f} s"
            " instructions"
        ),
        "sessions": 0,
        "median_min": round(median, 2),
        "p90_min": round(p90, 2),
    }
    if hourly_rate is not None:
        out["hourly_rate"] = hourly_rate
        out["pay_median"] = round(hourly_rate * median / 60, 2)
        out["pay_p90"] = round(hourly_rate * p90 / 60, 2)
    return out


def settings_dict(effects: Effects, **extra: Any) -> dict[str, Any]:
    """The JSON settings record of a power run."""
    return {"effects": {**asdict(effects), "means": dict(effects.means)}, **extra}


#: Columns of ``results/power/<study>.tsv``.
POWER_COLUMNS = (
    "participants",
    "test",
    "runs",
    "significant",
    "power",
    "mc_se",
    "ci_low",
    "ci_high",
)


def study_power_settings(config: Mapping[str, Any], study_id: str) -> dict[str, Any]:
    """The study's config entry and its ``power`` mapping (may be empty)."""
    studies = config.get("studies") or []
    for study in studies:
        if isinstance(study, Mapping) and study.get("id") == study_id:
            return {"study": dict(study), "power": dict(study.get("power") or {})}
    known = ", ".join(str(s.get("id")) for s in studies if isinstance(s, Mapping))
    raise PowerError(
        f"no study {study_id!r} in the config (studies: {known or 'none'})"
    )


def write_power(
    rows: Sequence[Mapping[str, Any]],
    settings: Mapping[str, Any],
    out_dir: str | Path,
    study: str,
    *,
    figure: str | None = None,
) -> list[Path]:
    """Write ``<study>.tsv`` and ``<study>.json`` in *out_dir*, and ``<study>.svg``
    when *figure* (the plot, :func:`stecflow.report.power.power_svg`) is given."""
    import json

    from stecflow.core.io import write_tsv

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{study}.tsv", out / f"{study}.json"]
    write_tsv([dict(r) for r in rows], POWER_COLUMNS, paths[0])
    paths[1].write_text(
        json.dumps(settings, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    if figure is not None:
        paths.append(out / f"{study}.svg")
        paths[2].write_text(figure + "\n", encoding="utf-8")
    return paths


def run_power(
    config: Mapping[str, Any],
    study_id: str,
    *,
    pilot: str | Path | None = None,
    sessions: str | Path | None = None,
    runs: int | None = None,
    participants: Sequence[int] | None = None,
    seed: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Power table and settings (with the duration estimate) of one study.

    Config keys (``studies.<id>.power``): ``effects`` (``means``, ``rater_sd``,
    ``item_sd``, ``noise_sd``), ``measure`` (pilot column, default ``adequacy``),
    ``participants`` (default 1-4 x the number of lists = systems),
    ``runs`` (200), ``alpha`` (0.05), ``tests`` (``[anova]``), ``pairs``
    (``[[A, B], ...]``: Tukey pairs), ``trials_per_system`` (10), ``seed``
    (the study's seed), ``hourly_rate`` and ``currency``, ``per_trial_ms`` and
    ``instructions_s`` (duration without a pilot).
    """
    found = study_power_settings(config, study_id)
    study, power = found["study"], found["power"]
    measure = str(power.get("measure", "adequacy"))
    pilot = pilot if pilot is not None else power.get("pilot")
    sessions = sessions if sessions is not None else power.get("sessions")
    if pilot is not None:
        effects = estimate_effects(pilot, measure)
    elif power.get("effects"):
        effects = effects_from_config(power)
    else:
        raise PowerError(
            f"study {study_id}: give a pilot's judgments (--pilot) or"
            f" studies.{study_id}.power.effects in the config"
        )
    n_lists = len(study.get("systems") or effects.means)
    sizes = list(participants or power.get("participants") or [])
    if not sizes:
        sizes = [n_lists * k for k in (1, 2, 3, 4)]
    runs = int(runs if runs is not None else power.get("runs", 200))
    seed = int(seed if seed is not None else power.get("seed", study.get("seed", 0)))
    alpha = float(power.get("alpha", 0.05))
    tests = [str(t) for t in power.get("tests", ["anova"])]
    pairs = [(str(a), str(b)) for a, b in power.get("pairs", [])]
    per_system = int(power.get("trials_per_system", 10))
    rows = power_table(
        effects,
        sizes,
        runs=runs,
        seed=seed,
        trials_per_system=per_system,
        alpha=alpha,
        tests=tests,
        pairs=pairs,
        progress=progress,
    )
    rate = power.get("hourly_rate")
    rate = float(rate) if rate is not None else None
    if sessions is not None:
        duration = session_duration(sessions, hourly_rate=rate)
    else:
        trials = per_system * len(effects.means)
        trials += control_trials(study.get("controls"), trials)
        trials += int(study.get("practice", 0))
        from stecflow.studykinds.registry import get, names

        # the kind's time per trial (a study without a task is the first kind's)
        default_ms = get(study.get("task") or names()[0]).per_trial_ms
        duration = design_duration(
            trials,
            per_trial_ms=float(power.get("per_trial_ms", default_ms)),
            instructions_s=float(power.get("instructions_s", 120.0)),
            hourly_rate=rate,
        )
    if rate is not None:
        duration["currency"] = str(power.get("currency", ""))
    settings = settings_dict(
        effects,
        study=study_id,
        measure=measure,
        participants=sizes,
        runs=runs,
        seed=seed,
        alpha=alpha,
        tests=tests,
        pairs=[list(p) for p in pairs],
        trials_per_system=per_system,
        duration=duration,
    )
    return rows, settings


def describe_duration(duration: Mapping[str, Any]) -> str:
    """One line: median and 90th percentile minutes, and pay."""
    text = (
        f"session duration ({duration['source']}): median"
        f" {duration['median_min']:.1f} min,"
        f" 90th percentile {duration['p90_min']:.1f} min"
    )
    if "pay_median" in duration:
        cur = duration.get("currency", "")
        text += (
            f"; pay at {duration['hourly_rate']:g} {cur}/h:"
            f" {duration['pay_median']:.2f} {cur} (median),"
            f" {duration['pay_p90']:.2f} {cur} (90th percentile)"
        )
    return text
