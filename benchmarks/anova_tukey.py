"""ANOVA and Tukey HSD at campaign scale, against floors measured in the same run.

Generates S systems x 2 domains with N observations per cell (unbalanced: one
cell in ten has N // 2), then times, each in a fresh Python process (so the peak
memory is that step's):

* ``anova(..., ["system", "domain"])`` (Type III and Type II; closed form from the
  cell table) against the floor: statsmodels' own OLS fit of the same model
  (``ols("y ~ C(system, Sum) * C(domain, Sum)").fit()``, a dense n x 2S design
  matrix), which the previous implementation ran before ``anova_lm``;
* ``pairwise_tukey`` (all S (S - 1) / 2 pairs, two-way error term) against the
  floor of one ``scipy.stats.studentized_range.sf`` call per pair, timed on 200
  pairs and extrapolated (marked "extrapolated");
* ``homogeneous_subsets`` followed by ``subset_letters`` (the SPSS display the
  campaign analyses use) and ``tukey_cld`` (Tukey-Kramer pairs and their compact
  letter display).

Peak memory is the process's maximum resident set size after the step, and, in
brackets, its growth over the same process just before the step (data built,
modules imported). No assertion: the figures go to ``benchmarks/README.md``.

Usage::

    python benchmarks/anova_tukey.py --systems 100 1000 --per-cell 12
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time

STEPS = ("anova3", "anova2", "ols_floor", "tukey", "scipy_floor", "subsets", "cld")

LABELS = {
    "anova3": "`anova` two-way, Type III",
    "anova2": "`anova` two-way, Type II",
    "ols_floor": "floor: statsmodels OLS fit of the same model",
    "tukey": "`pairwise_tukey`, all pairs",
    "scipy_floor": "floor: `studentized_range.sf`, one call per pair",
    "subsets": "`homogeneous_subsets` + `subset_letters`",
    "cld": "`tukey_cld` (pairs + compact letter display)",
}


def make_data(systems: int, per_cell: int, seed: int = 0):
    """S systems x 2 domains; every tenth cell has half the observations."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    effects = rng.normal(0.0, 0.6, systems)
    rows_sys, rows_dom, values = [], [], []
    for i in range(systems):
        for d, dom in enumerate(("furniture", "people")):
            n = per_cell // 2 if (2 * i + d) % 10 == 0 else per_cell
            rows_sys += [f"sys{i:04d}"] * n
            rows_dom += [dom] * n
            values.append(effects[i] + 0.3 * d + rng.normal(0.0, 1.0, n))
    return pd.DataFrame(
        {"system": rows_sys, "domain": rows_dom, "y": np.concatenate(values)}
    )


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_step(step: str, systems: int, per_cell: int) -> dict[str, float]:
    """Run one step in this process; return seconds and memory."""

    from stecflow.stats.anova import anova
    from stecflow.stats.posthoc import (
        homogeneous_subsets,
        pairwise_tukey,
        subset_letters,
        tukey_cld,
    )

    model = ["system", "domain"]
    # warm up: lazy imports (SciPy) are not part of a step's time
    tiny = make_data(4, 4, seed=1)
    anova(tiny, "y", model)
    tukey_cld(tiny, "y", "system", model=model)
    data = make_data(systems, per_cell)
    extra: dict[str, float] = {"n": len(data)}
    if step == "ols_floor":
        import statsmodels.formula.api as smf

        frame = data.rename(columns={"system": "s", "domain": "d"})
    if step == "scipy_floor":
        from scipy.stats import studentized_range

        pw = pairwise_tukey(data, "y", "system", model=model)
        sample = pw.sample(min(200, len(pw)), random_state=0)
    before = _rss_mb()
    start = time.perf_counter()
    if step == "anova3":
        anova(data, "y", model, ss_type=3)
    elif step == "anova2":
        anova(data, "y", model, ss_type=2)
    elif step == "ols_floor":
        smf.ols("y ~ C(s, Sum) * C(d, Sum)", data=frame).fit()
    elif step == "tukey":
        res = pairwise_tukey(data, "y", "system", model=model)
        extra["pairs"] = len(res)
        extra["df_error"] = float(res.at[0, "df_error"])
    elif step == "scipy_floor":
        k = systems
        for q, dfe in zip(sample["q"], sample["df_error"], strict=True):
            studentized_range.sf(q, k, dfe)
    elif step == "subsets":
        sub = homogeneous_subsets(data, "y", "system", model=model)
        subset_letters(sub, descending=True)
        extra["subsets"] = int(sub["subset"].nunique())
    elif step == "cld":
        cld = tukey_cld(data, "y", "system", model=model)
        tokens = cld["letters"].map(lambda s: s.split() if " " in s else list(s))
        extra["letters"] = len(set().union(*tokens))
    seconds = time.perf_counter() - start
    if step == "scipy_floor":
        pairs = systems * (systems - 1) // 2
        extra["per_pair_ms"] = 1000 * seconds / len(sample)
        seconds = seconds / len(sample) * pairs
        extra["extrapolated"] = float(len(sample) < pairs)
    peak = _rss_mb()
    return {"seconds": seconds, "peak_mb": peak, "growth_mb": peak - before, **extra}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--per-cell", type=int, default=12)
    parser.add_argument("--steps", nargs="+", default=list(STEPS), choices=STEPS)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--step", help=argparse.SUPPRESS)  # child process
    args = parser.parse_args()
    if args.step:
        result = run_step(args.step, args.systems[0], args.per_cell)
        print(json.dumps(result))
        return
    print(f"Command: `python benchmarks/anova_tukey.py {' '.join(sys.argv[1:])}`  ")
    print(f"Machine: {platform.machine()}, Python {platform.python_version()}\n")
    print("| systems | step | time | peak RSS (growth) | notes |")
    print("|---|---|---|---|---|")
    for systems in args.systems:
        for step in args.steps:
            cmd = [
                sys.executable,
                __file__,
                "--step",
                step,
                "--systems",
                str(systems),
                "--per-cell",
                str(args.per_cell),
            ]
            try:
                out = subprocess.run(
                    cmd, capture_output=True, text=True, timeout=args.timeout
                )
            except subprocess.TimeoutExpired:
                print(f"| {systems} | {LABELS[step]} | > {args.timeout:.0f} s | | |")
                continue
            if out.returncode != 0:
                why = (out.stderr.strip().splitlines() or ["?"])[-1]
                print(f"| {systems} | {LABELS[step]} | failed | | {why} |")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            notes = [f"n = {int(r['n']):,}"]
            for key in ("pairs", "df_error", "subsets", "letters"):
                if key in r:
                    notes.append(f"{key} = {r[key]:,.0f}")
            if "per_pair_ms" in r:
                notes.append(f"{r['per_pair_ms']:.1f} ms per pair")
                if r.get("extrapolated"):
                    notes.append("extrapolated from 200 pairs")
            print(
                f"| {systems} | {LABELS[step]} | {r['seconds']:.2f} s "
                f"| {r['peak_mb']:.0f} MB (+{r['growth_mb']:.0f}) "
                f"| {'; '.join(notes)} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
