"""TSV cells: escaped, neutralised by column, read back as written."""

from __future__ import annotations

from stecflow.core.io import (
    FREE_TEXT_COLUMNS,
    format_tsv,
    parse_tsv,
    read_tsv,
    write_tsv,
)

COLUMNS = ["participant", "description", "condition", "subset", "value", "score"]
CONTROL = "one\u2028two\u2029three\x07four\x1bfive\x85six\tseven\nnine\r\\ten"


def test_free_text_cells_are_neutralised_and_controlled_values_left_alone():
    text = format_tsv(
        [
            {
                "participant": "+cmd",
                "description": '=HYPERLINK("http://x","y")',
                "condition": "+LOC",
                "subset": "-LOC",
                "value": -0.37,
                "score": "-0.37",
            }
        ],
        COLUMNS,
    )
    assert text.split("\n")[1].split("\t") == [
        "'+cmd",
        '\'=HYPERLINK("http://x","y")',
        "+LOC",
        "-LOC",
        "-0.37",
        "-0.37",
    ]


def test_every_formula_trigger_of_owasp_is_neutralised():
    values = ["=1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "'=1", "a=1", ""]
    rows = [{"detail": v, "n": k} for k, v in enumerate(values)]
    text = format_tsv(rows, ["detail", "n"])
    cells = [line.split("\t")[0] for line in text.split("\n")[1:-1]]
    assert cells == [
        "'=1",
        "'+1",
        "'-1",
        "'@SUM(A1)",
        "'\\tx",
        "'\\rx",
        "''=1",
        "a=1",
        "",
    ]
    assert [r["detail"] for r in parse_tsv(text)] == values


def test_control_characters_and_separators_are_escaped_and_round_trip(tmp_path):
    rows = [
        {"participant": "p1", "description": CONTROL, "value": 1.5},
        {"participant": "'+cmd", "description": "a\\tb", "value": None},
    ]
    write_tsv(rows, COLUMNS, tmp_path / "t.tsv")
    data = (tmp_path / "t.tsv").read_bytes()
    text = data.decode("utf-8")
    # Two rows and the header, whatever splits the lines.
    assert len(text.splitlines()) == 3
    assert all(ord(c) >= 32 or c in "\t\n" for c in text)
    assert "\u2028" not in text and "\u2029" not in text and "\x85" not in text
    assert text.split("\n")[1].split("\t")[1] == (
        "one\\u2028two\\u2029three\\x07four\\x1bfive\\x85six\\tseven\\nnine\\r\\\\ten"
    )
    back = read_tsv(tmp_path / "t.tsv")
    assert back[0]["description"] == CONTROL and back[0]["value"] == "1.5"
    assert back[1]["participant"] == "'+cmd" and back[1]["description"] == "a\\tb"
    assert text.split("\n")[2].split("\t")[:2] == ["''+cmd", "a\\\\tb"]
    # Same inputs, same bytes; reading and writing again changes nothing.
    write_tsv(rows, COLUMNS, tmp_path / "again.tsv")
    assert (tmp_path / "again.tsv").read_bytes() == data
    assert format_tsv(back, COLUMNS).encode("utf-8") == data


def test_the_free_text_columns_are_not_the_project_s_own():
    produced = {"condition", "subset", "subset_kind", "value", "ci_low", "ci_high"}
    produced |= {"metric", "signature", "status", "delta", "check", "severity"}
    assert not produced & FREE_TEXT_COLUMNS
    assert {"description", "participant", "correction_reason"} <= FREE_TEXT_COLUMNS
