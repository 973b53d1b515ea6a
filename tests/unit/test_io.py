"""TSV cells: escaped, neutralised by column, read back as written."""

from __future__ import annotations

import pytest

from stecflow.core.io import (
    FREE_TEXT_COLUMNS,
    escape_cell,
    format_float,
    format_tsv,
    neutralise_formula,
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


@pytest.mark.parametrize("chunk", [1024, 3])
def test_rows_are_written_cell_by_cell_as_documented_whatever_their_types(
    chunk, monkeypatch
):
    """The writer's fast paths (dict rows, plain floats, printable lines) give the
    bytes of the documented cell-by-cell rule: format, neutralise free text,
    escape every cell."""
    import math
    import random
    from collections import OrderedDict, defaultdict

    monkeypatch.setattr("stecflow.core.io._CHUNK_ROWS", chunk)
    rng = random.Random(5)
    pieces = ["a", "=", "+", "-", "@", "'", "\t", "\r", "\n", "\\", "\x07", "\x85"]
    pieces += ["\u2028", "\u2029", "é", "\u00a0", "\u200b", " ", "x1", "\x7f"]
    floats = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1e300, 2 / 3, -1e-9]

    def value():
        k = rng.randrange(8)
        if k == 0:
            return None
        if k == 1:
            return rng.choice(floats)
        if k == 2:
            return rng.choice([7, True, False, [1.5, "a", None]])
        return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 5)))

    def expected(rows, columns):
        def cell(v, column):
            if v is None or (isinstance(v, float) and not math.isfinite(v)):
                text = ""
            elif isinstance(v, bool):
                text = "true" if v else "false"
            elif isinstance(v, float):
                text = format_float(v)
            elif isinstance(v, list):
                text = ",".join(cell(x, "") for x in v)
            else:
                text = str(v)
            if column in FREE_TEXT_COLUMNS:
                text = neutralise_formula(text)
            return text

        lines = ["\t".join(escape_cell(c) for c in columns)]
        for row in rows:
            cells = [cell(row.get(c), c) for c in columns]
            lines.append("\t".join(escape_cell(t) for t in cells))
        return "".join(line + "\n" for line in lines)

    columns = ["item", "value", "participant", "x", "reason", "stats"]
    for _ in range(500):
        rows = []
        for n in range(rng.randint(0, 8)):
            row = {c: value() for c in columns if rng.random() < 0.9}
            if n % 3 == 1:
                row = OrderedDict(row)
            elif n % 3 == 2:
                row = defaultdict(int, row)  # [] would add 0; get gives None
            rows.append(row)
        use = rng.sample(columns, rng.randint(1, len(columns)))
        assert format_tsv(rows, use) == expected(rows, use)
    assert format_tsv([{"value": -0.0, "item": "=1"}], ["item", "value"]) == (
        "item\tvalue\n'=1\t0\n"
    )


def test_iter_tsv_columns_gives_the_cells_iter_tsv_gives(tmp_path):
    """Escaped cells, neutralised formulas in free-text columns, short lines."""
    from stecflow.core.io import iter_tsv, iter_tsv_columns

    rows = [
        {"team": "=cmd|x", "item": "t\t1", "value": 0.5, "note": "a\nb\rc"},
        {"team": "'quoted", "item": "t2", "value": None, "note": "+1"},
        {"team": "plain", "item": "back\\slash", "value": -0.0, "note": "-x"},
    ]
    path = tmp_path / "t.tsv"
    write_tsv(rows, ["team", "item", "value", "note"], path)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("short\n\n")  # a short line and a blank one
    columns = ["note", "team", "missing", "item"]
    expected = [tuple(r.get(c) for c in columns) for r in iter_tsv(path)]
    assert list(iter_tsv_columns(path, columns)) == expected
    assert expected[0] == ("a\nb\rc", "=cmd|x", None, "t\t1")
    assert expected[3] == (None, "short", None, None)
    # where=: the rows whose cell is the value as written; short lines have none
    assert list(iter_tsv_columns(path, ["item"], where=("team", "plain"))) == [
        ("back\\slash",)
    ]
    assert list(iter_tsv_columns(path, ["team"], where=("value", ""))) == [("'quoted",)]
    assert list(iter_tsv_columns(path, ["team"], where=("absent", "x"))) == []


def test_iter_tsv_columns_where_and_among_keep_exactly_the_rows_they_name(tmp_path):
    """The rows kept by where= and among= are those a plain split of every line
    keeps, whichever way the lines are found: tables of random cells (the value
    in other columns too, short and long lines, blank ones), with \\n, \\r\\n and
    \\r line ends, the among column before, after or away from the where one."""
    import io
    import random

    from stecflow.core.io import decode_cell, iter_tsv_columns

    rng = random.Random(20)
    names = ["item", "metric", "reference", "value", "stats"]
    cells = ["*", "dice", "masi", "se", "", "x", "di", "ce", "**", "H1", "a\\tb", "'q"]

    def expected(text, columns, where, among):
        at = [names.index(c) if c in names else None for c in columns]
        keep_at = names.index(where[0])
        out = []
        for line in io.StringIO(text, newline=""):
            row = line.rstrip("\r\n").split("\t")
            if row == [""] or len(row) <= keep_at or row[keep_at] != where[1]:
                continue
            if among is not None:
                among_at = names.index(among[0])
                if len(row) <= among_at or row[among_at] not in among[1]:
                    continue
            out.append(
                tuple(row[i] if i is not None and i < len(row) else None for i in at)
            )
        return out

    path = tmp_path / "t.tsv"
    for n in range(300):
        lines = ["\t".join(names)]
        for _ in range(rng.randint(0, 30)):
            width = rng.choice([1, 2, 3, 4, 5, 5, 5, 5, 6])
            lines.append("\t".join(rng.choice(cells) for _ in range(width)))
        end = "\n" if n % 5 else rng.choice(["\r\n", "\r"])
        text = end.join(lines) + (end if rng.random() < 0.8 else "")
        path.write_text(text, encoding="utf-8", newline="")
        where = (rng.choice(names[1:]), rng.choice(["*", "", "dice"]))
        among = None
        if rng.random() < 0.7:
            among = (
                rng.choice(names),
                set(rng.sample(["dice", "masi", "se", "*", "di"], 2)),
            )
        columns = rng.sample([*names, "absent"], rng.randint(1, 4))
        got = list(iter_tsv_columns(path, columns, where, among=among, raw=True))
        want = expected(text, columns, where, among)
        assert got == want, (text, where, among)
        # not raw: the same rows, each cell decoded as iter_tsv decodes it
        got = list(iter_tsv_columns(path, columns, where, among=among))
        decoded = [
            tuple(
                c if c is None else decode_cell(c, n)
                for c, n in zip(r, columns, strict=True)
            )
            for r in want
        ]
        assert got == decoded, (text, where, among)
    # the item table's shape: the metric just before the reference
    path.write_text(
        "item\tmetric\treference\tvalue\n"
        "t1\tdice\t*\t0.5\nt1\tdice\tH1\t1\nt1\tse\t*\t2\n"
        "t2\tdice\t*\t\\t\nt3\tdice\t*\n",
        encoding="utf-8",
    )
    got = iter_tsv_columns(
        path, ["item", "value"], ("reference", "*"), among=("metric", {"dice"})
    )
    assert list(got) == [("t1", "0.5"), ("t2", "\t"), ("t3", None)]


def test_iter_tsv_blocks_keep_every_line_with_one_of_the_cells(tmp_path):
    """The blocks hold whole lines, the header first; with cells, every line
    in which one of them is a cell after the first, in order, and no other:
    random tables read in blocks smaller and larger than their lines."""
    import io
    import random

    from stecflow.core.io import iter_tsv_blocks

    rng = random.Random(21)
    cells = ["se", "dice", "s", "e", "sed", "", "*", "se se"]
    path = tmp_path / "t.tsv"
    for n in range(200):
        lines = ["a\tb\tc"]
        for _ in range(rng.randint(0, 40)):
            width = rng.choice([1, 2, 3, 3, 3])
            lines.append("\t".join(rng.choice(cells) for _ in range(width)))
        end = "\n" if n % 4 else "\r\n"
        text = end.join(lines) + end
        path.write_text(text, encoding="utf-8", newline="")
        wanted = set(rng.sample(["se", "dice", "*"], rng.randint(1, 2)))
        size = rng.choice([1, 5, 16, 100, 1 << 20])
        header, *blocks = iter_tsv_blocks(path, wanted, size=size)
        assert header == lines[0] + end
        assert all(block.endswith("\n") for block in blocks)
        expected = [
            line
            for line in io.StringIO(text, newline="")
            if wanted & set(line.rstrip("\r\n").split("\t")[1:])
        ]
        assert "".join(blocks) == "".join(expected), (text, wanted, size)
        # without cells: the whole table, cut at line ends
        header, *blocks = iter_tsv_blocks(path, size=size)
        assert header + "".join(blocks) == text


def _dictreader_rows(text: str) -> list[dict]:
    """What read_tsv gave before: csv.DictReader (tab, no quoting), then decoded."""
    import csv
    import io

    from stecflow.core.io import FREE_TEXT_COLUMNS, decode_cell

    rows = []
    for row in csv.DictReader(
        io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE
    ):
        for key, value in row.items():
            if not isinstance(key, str) or not isinstance(value, str):
                continue
            if "\\" in value or (value[:1] == "'" and key in FREE_TEXT_COLUMNS):
                row[key] = decode_cell(value, key)
        rows.append(row)
    return rows


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a\tb\n",
        "a\tb\n1\t2\n",
        "a\tb\r\n1\t2\r\n\r\n3\t4",
        "a\tb\tc\n1\n\n1\t2\t3\t4\t5\n",
        "\na\tb\n1\t2\n",
        "a\ta\n1\t2\n",
        "team\tdetail\tvalue\nx\t'=1\\u2028y\t\\t2\nx\t\t\n",
        "a\tb\n \t \n'q\t\\\\\n",
        "a\tb\r1\t2\r",
    ],
)
def test_read_tsv_gives_what_csv_dictreader_gave(text, tmp_path):
    """read_tsv splits lines itself, twice as fast as csv.DictReader, and gives
    the same rows: short lines padded with None, long lines' extra cells under
    None, blank lines skipped, escaped cells decoded."""
    path = tmp_path / "t.tsv"
    path.write_bytes(text.encode())
    assert read_tsv(path) == _dictreader_rows(text)
    assert parse_tsv(text) == _dictreader_rows(text)
