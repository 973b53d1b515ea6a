"""Adapter for rule `pack_release` (workflow/rules/release.smk)."""

from stecflow.analysis.specs import analysis_specs
from stecflow.core.logs import job_log
from stecflow.release.archive import build_release


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        build_release(
            smk.params.config,
            validation_records=list(smk.input.records),
            submissions_root=smk.params.submissions_root,
            files={
                **dict(zip(smk.params.entries, smk.input.files, strict=True)),
                "scores/analysed.tsv": smk.input.analysed,
            },
            judgments=list(smk.input.judgments),
            study_settings=list(smk.input.study_settings),
            testset=smk.input.testset,
            out_zip=smk.output.packed,
            out_manifest=smk.output.manifest,
            study_dirs=list(smk.input.study_dirs),
            source_testset=smk.input.source_testset,
            report_templates=list(smk.input.templates),
            finish=False,  # rule build_release adds the statistics and the report
            analyses=analysis_specs(smk.params.config),  # for the datasheet
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)
