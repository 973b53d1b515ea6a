"""A spoken identification study with the organisers' recordings, in chromium: each
trial plays its recorded clip (not espeak-ng's voice) and goes on to the answer."""

from __future__ import annotations

import hashlib

from stecflow.studies.server import make_server, read_responses
from stecflow.studies.stimuli import build_study
from tests.browser.driver import Participant, load_document
from tests.browser.studykit import FAST, IMAGES, demo_design, demo_items, demo_outputs
from tests.unit.test_recordings import SYSTEMS, _played, _record

#: Every media element that starts playing, in order (the page's Audio elements are
#: not in the document: their events are watched on each element played).
_WATCH_PLAYING = """
window.__playing = [];
const play = HTMLMediaElement.prototype.play;
HTMLMediaElement.prototype.play = function () {
  this.addEventListener("playing", (event) => {
    window.__playing.push(event.target.currentSrc || event.target.src);
  }, { once: true });
  return play.apply(this, arguments);
};
"""


def test_recorded_clips_play_and_the_trials_go_on(tmp_path, watched, monkeypatch):
    from stecflow.studies import speech

    # recorded speech never needs espeak-ng
    monkeypatch.setattr(speech, "espeak_version", lambda: None)
    design = demo_design(
        systems=SYSTEMS, n_items=3, subjects=3, n_practice=1, study="recorded-study"
    )
    test, dev = demo_items()
    outputs = demo_outputs(tuple(sorted(SYSTEMS)))
    written = _record(tmp_path / "rec", _played(design, outputs), seconds=0.3)
    study = tmp_path / "recorded-study"
    build_study(
        design,
        test + dev,
        outputs,
        task="identification",
        variant="spoken",
        images_dir=IMAGES,
        out_dir=study / "web",
        settings={**FAST, "break_every": 0, "timeout_ms": 6000},
        speech_source={"source": "recorded", "audio": str(tmp_path / "rec")},
    )
    doc = load_document(study)
    clips = {
        f"audio/{hashlib.sha256(d).hexdigest()[:20]}.wav" for d in written.values()
    }
    page = watched.page
    page.add_init_script(_WATCH_PLAYING)
    heard: dict[int, str] = {}

    def choose(trial):
        # wait until this trial's clip plays, then answer
        n = len(heard)
        page.wait_for_function(f"() => window.__playing.length > {n}", timeout=10_000)
        heard[trial["order"]] = page.evaluate(f"() => window.__playing[{n}]")
        return "target"

    db = tmp_path / "responses.sqlite"
    with make_server(study, port=0, db_path=db).start() as server:
        page.goto(server.url)
        person = Participant(page, doc, choose=choose)
        assert person.run() == "done"
        rows = {r["order"]: r for r in read_responses(study, db_path=db)}
    trials = next(x for x in doc["lists"] if x["list"] == person.list_id)["trials"]
    assert sorted(rows) == sorted(heard) == [t["order"] for t in trials]
    for trial in trials:
        row = rows[trial["order"]]
        assert trial["audio"] in clips
        assert heard[trial["order"]].endswith("/" + trial["audio"])
        assert row["correct"] is True and row["timeout"] is False
        # played delay_ms after display onset, the time measured from that onset
        assert row["audio_onset_ms"] >= FAST["delay_ms"] - 20
        assert row["identification_time_ms"] > row["audio_onset_ms"]
    served = [u for u in watched.requests if "/audio/" in u]
    assert served and all(u.split("/audio/")[1].endswith(".wav") for u in served)
    watched.assert_clean()
