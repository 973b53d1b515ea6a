"""Adapter for rule `build_release` (workflow/rules/release.smk)."""

from pathlib import Path

from stecflow.core.logs import job_log
from stecflow.release.archive import finish_release


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        finish_release(
            smk.input.packed,
            smk.input.manifest,
            {
                **dict(zip(smk.params.entries, smk.input.files, strict=True)),
                "report/index.html": smk.input.report,
                **{f"stats/{Path(p).name}": p for p in smk.input.stats},
            },
            out_zip=smk.output.archive,
            out_manifest=smk.output.manifest,
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)
