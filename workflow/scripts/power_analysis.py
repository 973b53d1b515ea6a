"""Adapter for rule `power` (workflow/rules/power.smk)."""

from pathlib import Path

from stecflow.core.logs import job_log


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        from stecflow.analysis.power import run_power, write_power
        from stecflow.report.power import power_svg

        study = smk.wildcards.study
        rows, settings = run_power({"studies": smk.params.studies}, study)
        figure = power_svg(rows, study=study, alpha=float(settings["alpha"]))
        write_power(rows, settings, Path(smk.output.table).parent, study, figure=figure)


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)
