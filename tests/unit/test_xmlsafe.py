from __future__ import annotations

import pytest

from stecflow.core.errors import XMLError
from stecflow.data.xmlsafe import parse_xml, parse_xml_lenient


def write(tmp_path, data: bytes, name="f.xml"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_parses_latin1_declared_file(tmp_path):
    path = write(
        tmp_path,
        '<?xml version="1.0" encoding="ISO-8859-1"?><a s="é"/>'.encode("latin-1"),
    )
    assert parse_xml(path).get("s") == "é"


def test_entity_declarations_are_refused_with_line(tmp_path):
    data = b'<?xml version="1.0"?>\n<!DOCTYPE a [\n<!ENTITY x "boom">\n]>\n<a>&x;</a>'
    with pytest.raises(XMLError) as info:
        parse_xml(write(tmp_path, data))
    assert info.value.line == 3
    assert "entity declarations are not allowed" in str(info.value)
    assert str(tmp_path / "f.xml") in str(info.value)


def test_billion_laughs_is_not_expanded(tmp_path):
    lol = b"".join(
        b'<!ENTITY l%d "&l%d;&l%d;&l%d;&l%d;">' % (i, i - 1, i - 1, i - 1, i - 1)
        for i in range(1, 10)
    )
    data = b'<!DOCTYPE a [<!ENTITY l0 "lol">' + lol + b"]><a>&l9;</a>"
    root, problems = parse_xml_lenient(data, "bomb.xml")
    assert root is None and "entity declarations" in problems[0].message


def test_external_entities_and_dtd_are_not_loaded(tmp_path):
    secret = write(tmp_path, b"SECRET", "secret.txt")
    data = f'<!DOCTYPE a SYSTEM "{secret}"><a>x</a>'.encode()
    root = parse_xml(write(tmp_path, data))
    assert root.text == "x"  # the DTD was not fetched (it would fail to parse)


def test_syntax_error_names_file_and_line(tmp_path):
    with pytest.raises(XMLError) as info:
        parse_xml(write(tmp_path, b"<a>\n<b>\n</a>"))
    assert info.value.line == 3
    assert "not well-formed" in info.value.message


def test_size_and_depth_limits(tmp_path):
    path = write(tmp_path, b"<a>" + b"x" * 100 + b"</a>")
    with pytest.raises(XMLError, match="limit is 50 bytes"):
        parse_xml(path, max_bytes=50)
    deep = write(tmp_path, b"<a>" * 10 + b"</a>" * 10, "deep.xml")
    with pytest.raises(XMLError, match="more than 5 levels"):
        parse_xml(deep, max_depth=5)


def test_lenient_reports_every_bad_line_and_recovers():
    data = b'<?xml version="1.0" encoding="UTF-8"?>\n<a>\n<b>caf\xe9</b>\n<c>\xff</c>\n</a>'
    root, problems = parse_xml_lenient(data, "x.xml")
    assert [p.line for p in problems] == [3, 4]
    assert "bytes e9 at column 7 are not valid UTF-8" in problems[0].message
    assert root is not None and root.find("b").text == "caf\ufffd"


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(XMLError, match="cannot read the file"):
        parse_xml(tmp_path / "nope.xml")
