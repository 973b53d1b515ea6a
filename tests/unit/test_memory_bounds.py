"""Size limits bound memory, not only bytes (issue #38, point 4).

The bound: validating a submission whose outputs file is within the size limit
peaks below ``20 x the file's size + 100 MB`` of resident memory, interpreter and
libraries included. Measured in a fresh interpreter per case (its ``VmHWM``,
the high-water mark of its resident memory since it started: its
``ru_maxrss`` would start from pytest's, as Linux carries it over ``exec``),
for every outputs format, on the files that broke it: a 15 MiB
JSON string took 1.9 GB (a backtracking record per character in the nesting
scan), an XML file declared UTF-32 but written in UTF-8 took 615 MB (a tuple
per undecodable spot).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, TINY

MIB = 2**20
SIZE = 15 * MIB  # under the default limit of 16 MiB

#: The child: validate one submission folder, print its peak memory in MB.
CHILD = """
import json, resource, sys
from pathlib import Path
from stecflow.submissions.validation import validate_submission
from stecflow.tasks.registry import read_testset
folder, testset, tasks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
items = read_testset(testset)
record = validate_submission(Path(folder), items, team=Path(folder).parent.name,
    system=Path(folder).name, campaign_tasks=tasks)
json.dumps(record).encode("utf-8")  # writable
codes = sorted({e["code"] for e in record["errors"]})
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
status = Path("/proc/self/status")
if status.exists():  # the peak of this program, not of the process it forked from
    for line in status.read_text().splitlines():
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
print(json.dumps({"status": record["status"], "codes": codes, "peak_mb": peak}))
"""


def _jsonl(text: str) -> bytes:
    return (json.dumps({"id": "t1", "output": "x"}) + "\n").encode() + (
        '{"id": "t2", "output": "' + text + '"}\n'
    ).encode()


def _xml(declaration: bytes, word_string: bytes) -> bytes:
    return (
        declaration
        + b'<OUTPUTS><TRIAL ID="t1"><WORD-STRING>'
        + word_string
        + b"</WORD-STRING></TRIAL></OUTPUTS>\n"
    )


CASES = {
    # a 15 MiB JSON string: the nesting scan's regex took 1.9 GB
    "jsonl-long-string": ("outputs.jsonl", _jsonl("a" * SIZE)),
    # 7.5 million escapes: one backtracking record each, 1 GB
    "jsonl-escapes": ("outputs.jsonl", _jsonl("\\n" * (SIZE // 2))),
    "jsonl-unicode-escapes": ("outputs.jsonl", _jsonl("\\u00e9" * (SIZE // 6))),
    "json-gem": (
        "outputs.json",
        json.dumps(
            {"values": [{"gem_id": "t1", "generated": "\\" * (SIZE // 2)}]}
        ).encode(),
    ),
    "txt-one-line": ("outputs.txt", b"b" * SIZE + b"\n"),
    "xml-utf8": ("outputs.xml", _xml(b'<?xml version="1.0"?>\n', b"x" * SIZE)),
    # declared UTF-32, written in UTF-8: 615 MB, 7 s
    "xml-declared-utf32": (
        "outputs.xml",
        _xml(b'<?xml version="1.0" encoding="UTF-32"?>\n', b"x" * SIZE),
    ),
    # invalid UTF-8 everywhere: a spot per byte
    "xml-bad-bytes": ("outputs.xml", _xml(b'<?xml version="1.0"?>\n', b"\xff" * SIZE)),
    # a situated decision table (seed 000) with one 15 MiB cell, and many rows
    "tsv-situated-long-cell": (
        "outputs.tsv",
        b"instance\tpronoun\texpression\ns01-e001\t0\t" + b"z" * SIZE + b"\n",
    ),
    "tsv-situated-many-rows": (
        "outputs.tsv",
        b"instance\tpronoun\texpression\n" + b"s01-e001\t1\tit\n" * (SIZE // 15),
    ),
}
#: The task and the test set each format's submission is validated against.
_TASKS = {
    "outputs.xml": ("end_to_end", TINY / "testset.xml"),
    "outputs.tsv": ("situated_dialogue", None),  # the demo dialogues' corpus file
}
_TEXT = ("text_generation", REPO / "tests" / "fixtures" / "text" / "testset.jsonl")


@pytest.mark.parametrize("case", sorted(CASES))
def test_peak_memory_stays_under_20x_the_file_plus_100_mb(case, tmp_path):
    name, data = CASES[case]
    task, testset = _TASKS.get(name, _TEXT)
    folder = tmp_path / "team" / "sys"
    folder.mkdir(parents=True)
    tasks = [task]
    (folder / "system.yaml").write_text(
        "team: team\nsystem: sys\ndescription: d\ncontact: a@example.org\n"
        f"primary: true\nsubmitted: '2026-05-01T10:00:00Z'\ntasks: [{tasks[0]}]\n"
    )
    (folder / name).write_bytes(data)
    if testset is None:
        from stecflow.data.dialogue import read_corpus, write_corpus_file

        testset = tmp_path / "testset.json"
        write_corpus_file(read_corpus(REPO / "resources" / "dialogue-demo"), testset)
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    result = subprocess.run(
        [sys.executable, str(script), str(folder), str(testset), json.dumps(tasks)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    found = json.loads(result.stdout.splitlines()[-1])
    bound = 20 * len(data) / MIB + 100
    assert found["status"] == "rejected"  # every case breaks a limit or a rule
    assert found["peak_mb"] < bound, (case, found, bound)
    print(f"{case}: {len(data) / MIB:.1f} MiB, peak {found['peak_mb']:.0f} MB")


def test_the_bound_is_worth_stating(tmp_path):
    # the interpreter with stecflow's validation imported, for scale: the
    # bound's 100 MB cover it
    script = tmp_path / "child.py"
    script.write_text(
        "import stecflow.submissions.validation\n"
        "from pathlib import Path\n"
        "print([line.split()[1] for line in Path('/proc/self/status')"
        ".read_text().splitlines() if line.startswith('VmHWM:')][0])\n"
    )
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc")
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True
    )
    assert int(result.stdout) / 1024 < 100


def _session_with(
    text: str | None = None, samples: int = 0, increasing: bool = False
) -> bytes:
    session = json.loads((REPO / "resources/dialogue-demo/s01.json").read_text())
    if text is not None:
        session["utterances"][0]["text"] = text
    last = session["cursor"][-1]
    session["cursor"] += [
        {**last, "t_ms": last["t_ms"] + (n + 1 if increasing else 0)}
        for n in range(samples)
    ]
    return json.dumps(session).encode()


@pytest.mark.parametrize(
    "case",
    [
        # an utterance of 15 MiB, and one of 15 MiB of escapes
        (_session_with("w" * SIZE), "CorpusError"),
        (_session_with("\u00e9" * (SIZE // 2)), "CorpusError"),
        # 15 MiB of cursor samples: an error at the first repeated time, found
        # and located in bounds; and the same number of valid samples, read
        (_session_with(samples=SIZE // 40), "CorpusError"),
        (_session_with(samples=SIZE // 40, increasing=True), "read"),
    ],
    ids=[
        "long-utterance",
        "escaped-utterance",
        "repeated-cursor-samples",
        "many-cursor-samples",
    ],
)
def test_reading_a_dialogue_corpus_file_stays_under_the_bound(case, tmp_path):
    """The organiser's dialogue corpus (prepare_testset) is bounded the same way."""
    case, outcome = case
    path = tmp_path / "s99.json"
    path.write_bytes(case[: 16 * MIB])
    script = tmp_path / "child.py"
    script.write_text(
        "import json, sys\n"
        "from pathlib import Path\n"
        "from stecflow.core.errors import StecflowError\n"
        "from stecflow.data.dialogue import read_session\n"
        "try:\n"
        "    read_session(sys.argv[1]); outcome = 'read'\n"
        "except StecflowError as error:\n"
        "    outcome = type(error).__name__\n"
        "peak = [int(line.split()[1]) / 1024 for line in Path('/proc/self/status')"
        ".read_text().splitlines() if line.startswith('VmHWM:')][0]\n"
        "print(json.dumps({'outcome': outcome, 'peak_mb': peak}))\n"
    )
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc")
    result = subprocess.run(
        [sys.executable, str(script), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    found = json.loads(result.stdout.splitlines()[-1])
    bound = 20 * path.stat().st_size / MIB + 100
    assert found["peak_mb"] < bound, (found, bound)
    assert found["outcome"] == outcome
