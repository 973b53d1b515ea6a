  // situated_identification.js: the situated identification trial: the replay
  // of a dialogue's board, the transcript, the utterance and the answer.

  // Seed 000 section 5.1 (stecflow.studies.situated): the participant plays a
  // replay of the shared work area drawn in SVG from the logged timeline (or an
  // organiser's video/audio file), then reads the next utterance with the
  // referring expression in red and clicks a numbered piece, its numbered button
  // or "I don't know". The clip can be replayed; the identification time runs
  // from the onset of the utterance to the click (reading and replays included,
  // seed 000 section 5.2). Strings come from SITUATED_UI_STRINGS (settings.py),
  // carried in texts.ui; say() reads them as t() reads the REG strings. With the
  // sessions' recordings (a clip's "audio"), the clip's sound plays with the replay.
  // The SVG namespace as the HTML parser gives it (no URL in the page's files).
  const SVGNS = (() => {
    const box = document.createElement("div");
    box.innerHTML = "<svg></svg>";
    return box.firstChild.namespaceURI;
  })();
  const SPEED = Number(STUDY.replay_speed) || 1;
  const PIECE_COLOURS = ["#e4572e", "#29335c", "#f3a712", "#a8c686", "#669bbc", "#8e6c8a", "#c9b79c"];

  function svgEl(tag, attrs) {
    const node = document.createElementNS(SVGNS, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    return node;
  }

  function lerpAngle(a, b, f) {
    const d = ((((b - a) % 360) + 540) % 360) - 180;
    return a + d * f;
  }

  // Every piece's state at clip time tm (ms from the start of the context): an
  // action that has ended is applied; one under way moves its piece linearly
  // from its state before the action (the flip happens half way).
  function piecesAt(context, tm) {
    const states = {};
    for (const p of context.pieces) states[p.id] = { x: p.x, y: p.y, rotation: p.rotation, flipped: p.flipped };
    for (const a of context.actions) {
      const from = states[a.piece];
      if (tm >= a.end_ms) {
        states[a.piece] = { x: a.x, y: a.y, rotation: a.rotation, flipped: a.flipped };
      } else if (tm > a.start_ms) {
        const f = (tm - a.start_ms) / Math.max(1, a.end_ms - a.start_ms);
        states[a.piece] = {
          x: from.x + (a.x - from.x) * f,
          y: from.y + (a.y - from.y) * f,
          rotation: lerpAngle(from.rotation, a.rotation, f),
          flipped: f >= 0.5 ? a.flipped : from.flipped,
        };
      }
    }
    return states;
  }

  // The cursor at clip time tm: the last sample at or before it (as the log has it).
  function cursorAt(context, tm) {
    let position = context.cursor_start;
    for (const [time, x, y] of context.cursor) {
      if (time > tm) break;
      position = [x, y];
    }
    return position;
  }

  function makeBoard(trial, clickable) {
    const context = SHOWN.contexts[trial.context];
    const svg = svgEl("svg", {
      id: "board", class: "board", viewBox: "0 0 " + context.area.width + " " + context.area.height,
      role: "img",
    });
    svg.append(svgEl("rect", { x: 0, y: 0, width: context.area.width, height: context.area.height, class: "area" }));
    const nodes = {};
    for (const piece of context.pieces) {
      const group = svgEl("g", { class: "piece", "data-piece": piece.id, "data-number": piece.number });
      if (clickable) {
        group.setAttribute("role", "button");
        group.setAttribute("aria-label", say("piece_label", { n: piece.number }));
      }
      const shape = svgEl("polygon", {
        points: piece.outline.map((p) => p.join(",")).join(" "),
        fill: PIECE_COLOURS[(piece.number - 1) % PIECE_COLOURS.length],
      });
      const label = svgEl("text", { class: "number", "text-anchor": "middle", "dominant-baseline": "central" });
      label.textContent = String(piece.number);
      group.append(shape, label);
      svg.append(group);
      nodes[piece.id] = { group: group, shape: shape, label: label };
    }
    const cursor = svgEl("g", { id: "cursor", class: "cursor" });
    cursor.append(svgEl("polygon", { points: "0,0 0,18 5,13 9,21 12,20 8,12 14,12" }));
    svg.append(cursor);
    if (clickable) hoverAfterMove(svg);
    function draw(tm) {
      const states = piecesAt(context, tm);
      for (const [id, node] of Object.entries(nodes)) {
        const s = states[id];
        node.shape.setAttribute("transform",
          "translate(" + r3(s.x) + " " + r3(s.y) + ") rotate(" + r3(s.rotation) + ")" + (s.flipped ? " scale(-1 1)" : ""));
        node.label.setAttribute("x", r3(s.x));
        node.label.setAttribute("y", r3(s.y));
        node.group.dataset.x = String(r3(s.x));
        node.group.dataset.y = String(r3(s.y));
        node.group.dataset.rotation = String(r3(s.rotation));
        node.group.dataset.flipped = String(s.flipped);
      }
      const c = cursorAt(context, tm);
      cursor.style.display = c ? "" : "none";
      if (c) {
        cursor.setAttribute("transform", "translate(" + c[0] + " " + c[1] + ")");
        cursor.dataset.x = String(c[0]);
        cursor.dataset.y = String(c[1]);
      }
      svg.dataset.t = String(Math.round(tm));
    }
    draw(0);
    return { node: svg, draw: draw };
  }

  // The preceding utterances, each shown from its onset in the clip and, in a
  // study built with speech, spoken from there (espeak-ng files in audio/).
  function makeTranscript(context) {
    const list = el("ol", { className: "transcript", id: "transcript" });
    let spoken = 0;
    const lines = context.transcript.map((u) => {
      const line = el("li", { className: "line " + u.speaker, "data-start": u.start_ms },
        el("span", { className: "speaker", text: say("speaker_" + u.speaker) + ": " }),
        el("span", { className: "said", text: u.text }));
      list.append(line);
      let voice = null;
      if (u.audio) {
        voice = new Audio();
        voice.preload = "auto";
        voice.src = u.audio;
        line.append(voice); // no controls: not shown
      }
      return { node: line, start: u.start_ms, voice: voice, said: false };
    });
    return {
      node: list,
      update(tm, speak) {
        for (const line of lines) {
          line.node.hidden = line.start > tm;
          if (speak && line.voice && !line.node.hidden && !line.said) {
            line.said = true;
            line.voice.currentTime = 0;
            line.voice.playbackRate = SPEED;
            const started = line.voice.play();
            if (started && started.catch) started.catch(() => setStatus(say("sound_failed")));
            spoken += 1;
            list.dataset.spoken = String(spoken);
          }
        }
        list.dataset.shown = String(lines.filter((l) => !l.node.hidden).length);
      },
      silence() {
        for (const line of lines) {
          line.said = false;
          if (line.voice) line.voice.pause();
        }
      },
    };
  }

  // The utterance with the expression in red; highlight is in code points
  // (Python's), so the text is split by code point, not by UTF-16 unit.
  function makeUtterance(trial) {
    const points = Array.from(trial.description);
    const [start, end] = trial.highlight;
    return el("p", { className: "description utterance", id: "utterance" },
      document.createTextNode(points.slice(0, start).join("")),
      el("mark", { className: "expression", id: "expression", text: points.slice(start, end).join("") }),
      document.createTextNode(points.slice(end).join("")));
  }

  async function situatedTrial(trial) {
    const context = SHOWN.contexts[trial.context];
    const video = trial.media_kind === "video";
    const board = video ? null : makeBoard(trial, true);
    const transcript = makeTranscript(context);
    let media = null;
    if (trial.media) {
      media = el(video ? "video" : "audio", { id: "media", src: trial.media, preload: "auto", playsinline: true });
      media.className = "media";
    }
    if (board && media) board.draw(context.duration_ms); // audio: the board as the utterance finds it
    // The clip's stretch of its session's recording (situated.recordings), played
    // with the drawn replay: both start together at every play.
    const clipAudio = !media && context.audio
      ? el("audio", { id: "clip-audio", src: context.audio, preload: "auto" })
      : null;
    transcript.update(-1);
    const play = el("button", { id: "play", type: "button", text: say("play") });
    const buttons = el("div", { className: "answers", id: "answers" });
    for (const piece of context.pieces) {
      buttons.append(el("button", {
        type: "button", className: "secondary piece-button", "data-piece": piece.id,
        "aria-label": say("piece_label", { n: piece.number }), text: String(piece.number),
      }));
    }
    const dontKnow = el("button", { id: "dont-know", type: "button", className: "secondary", text: say("dont_know") });
    buttons.append(dontKnow);
    const respond = el("div", { className: "respond", id: "respond" }, makeUtterance(trial), buttons);
    respond.hidden = true;
    const stage = el("div", { className: "stage" }, video ? media : board.node, transcript.node);
    if (clipAudio) stage.append(clipAudio); // no controls: not shown
    show("situated-context", stage, media && !video ? media : null, play, respond);
    document.body.dataset.order = String(trial.order);
    document.body.dataset.plays = "0";
    let plays = 0;
    let playing = false;
    let t0 = null;
    let token = 0;

    function runClip() {
      const mine = ++token;
      if (media) {
        return new Promise((resolve) => {
          const finish = () => {
            media.removeEventListener("ended", finish);
            media.removeEventListener("error", failed);
            resolve();
          };
          const failed = () => {
            setStatus(say("media_failed"));
            finish();
          };
          const tick = () => {
            if (mine !== token) return;
            transcript.update(media.currentTime * 1000);
            if (!media.ended && !media.paused) requestAnimationFrame(tick);
          };
          media.addEventListener("ended", finish);
          media.addEventListener("error", failed);
          media.currentTime = 0;
          const started = media.play();
          if (started && started.catch) started.catch(failed);
          requestAnimationFrame(tick);
        });
      }
      transcript.silence();
      return startClipAudio().then((sound) => new Promise((resolve) => {
        const begin = now();
        let last = 0;
        const frame = () => {
          if (mine !== token) return resolve();
          // the recording's clock while it plays (the replay follows the sound),
          // the page's otherwise; never backwards
          const heard = sound && !sound.paused && !sound.ended ? sound.currentTime * 1000 : 0;
          last = Math.max(last, heard || (now() - begin) * SPEED);
          const tm = Math.min(context.duration_ms, last);
          board.draw(tm);
          transcript.update(tm, true);
          if (tm >= context.duration_ms) {
            transcript.silence(); // the clip stops just before the utterance
            if (sound) sound.pause();
            resolve();
          } else {
            requestAnimationFrame(frame);
          }
        };
        frame();
      }));
    }

    // Restart the clip's recording from its start; resolves when it plays (the
    // replay starts then), with null when there is none or it cannot play.
    function startClipAudio() {
      if (!clipAudio) return Promise.resolve(null);
      clipAudio.pause();
      clipAudio.currentTime = 0;
      clipAudio.playbackRate = SPEED;
      const started = clipAudio.play();
      document.body.dataset.clipAudioStarts = String(Number(document.body.dataset.clipAudioStarts || 0) + 1);
      if (!started || !started.then) return Promise.resolve(clipAudio);
      return started.then(() => clipAudio, () => {
        setStatus(say("sound_failed"));
        return null;
      });
    }

    play.addEventListener("click", async () => {
      if (playing) return;
      playing = true;
      plays += 1;
      document.body.dataset.plays = String(plays);
      document.body.dataset.playing = "1";
      play.disabled = true;
      play.textContent = say("playing");
      await runClip();
      playing = false;
      document.body.dataset.playing = "0";
      play.disabled = false;
      play.textContent = say("replay");
      transcript.update(Infinity);
      if (t0 === null) {
        respond.hidden = false;
        document.body.dataset.screen = "situated-identify";
        t0 = await onset();
        document.body.dataset.onset = "1";
      }
    });

    const response = await new Promise((resolve) => {
      const answer = (value) => {
        if (t0 === null) return;
        resolve(Object.assign({ t: now() }, value));
      };
      if (board) {
        board.node.addEventListener("click", (event) => {
          const group = event.target.closest && event.target.closest("g.piece");
          if (group) answer({ piece: group.dataset.piece, via: "board" });
        });
      }
      buttons.addEventListener("click", (event) => {
        const button = event.target.closest("button");
        if (!button) return;
        if (button === dontKnow) answer({ cantTell: true, via: "dont_know" });
        else answer({ piece: button.dataset.piece, via: "button" });
      });
    });
    token += 1; // stops a replay under way
    transcript.silence();
    if (media) media.pause();
    if (clipAudio) clipAudio.pause();
    const time = r1(response.t - t0);
    return {
      chosen_entity: response.piece || null,
      cant_tell: Boolean(response.cantTell),
      timeout: false,
      reading_time_ms: null,
      identification_time_ms: time,
      rt_ms: time,
      audio_onset_ms: null,
      click_x: null,
      click_y: null,
      time_ms: time,
      plays: plays,
      replays: plays - 1,
      answer_via: response.via,
    };
  }

  trialKind("situated_identification", { run: situatedTrial });
