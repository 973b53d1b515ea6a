"""A submission taken out of submissions/ leaves nothing behind in results/."""

from __future__ import annotations

from stecflow.campaign import SUBMISSION_OUTPUTS, prune_removed_submissions


def test_results_of_removed_submissions_are_removed(tmp_path):
    results = tmp_path / "results"
    for team, system in (("alpha", "sys1"), ("alpha", "old"), ("gone", "primary")):
        for folder, suffix in SUBMISSION_OUTPUTS:
            path = results / folder / team / f"{system}{suffix}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x")
    other = results / "validation" / "summary.tsv"  # not a submission's
    other.write_text("x")
    kept_link = results / "validation" / "alpha" / "link.json"
    kept_link.symlink_to(other)
    removed = prune_removed_submissions(results, [("alpha", "sys1")])
    assert removed == ["alpha/old", "gone/primary"]
    for folder, suffix in SUBMISSION_OUTPUTS:
        assert (results / folder / "alpha" / f"sys1{suffix}").is_file()
        assert not (results / folder / "alpha" / f"old{suffix}").exists()
        assert not (results / folder / "gone").exists()  # the empty team folder
    assert other.is_file() and kept_link.is_symlink()  # only what the rule writes
    assert prune_removed_submissions(results, [("alpha", "sys1")]) == []
    assert prune_removed_submissions(tmp_path / "nothing", []) == []
