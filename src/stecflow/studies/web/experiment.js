/*
 * stecflow experiment runner (rating, identification, situated identification, and
 * text rating and preference studies).
 *
 * Plain JavaScript with no library and no network access other than same-origin
 * "api/..." calls in online mode. The study document is window.STECFLOW_STUDY,
 * set by stimuli.js (see stecflow.stimuli for its fields). The page never knows a
 * trial's item, system or answer (stecflow.studies.blinding): it shows a list of
 * blinded trials, each with an opaque id, and sends back the id and the answer.
 *
 * Modes
 *   online:  the page is served by stecflow.server (api/ping answers). The server
 *            assigns a list and sends it with the session; every answered trial is
 *            queued in localStorage and POSTed to api/trial (retried until
 *            acknowledged), so a reload or a server restart loses nothing; on load
 *            the page asks api/session which trials are stored and resumes at the
 *            first one missing.
 *   offline: the page is one list's offline copy (offline/<list>/), opened from
 *            disk (file://) or with ?offline=1; its stimuli.js holds that list
 *            only. Trials are kept in localStorage and saved at the end as a TSV
 *            file with the columns of the server's export (item, system and
 *            correctness left for the judgments stage to fill in).
 *
 * Every screen sets document.body.dataset.screen (and dataset.order in trials),
 * which the browser tests use to follow the experiment.
 */
(function () {
  "use strict";

  const app = document.getElementById("app");
  const statusBar = document.getElementById("status");
  const STUDY = window.STECFLOW_STUDY;
  // The participant's own list (stecflow.studies.blinding): its trials, and the
  // inputs and clips they show. Online it comes with the session; offline it is
  // the one list of this copy's stimuli.js.
  let SHOWN = { inputs: {}, contexts: {} };

  function fatal(message) {
    document.body.dataset.screen = "error";
    app.replaceChildren();
    const p = document.createElement("p");
    p.className = "error";
    p.id = "error";
    p.textContent = message;
    app.append(p);
  }


  // Every string this script shows, in English: UI_STRINGS["en"] of
  // stecflow/studies/settings.py (a unit test checks that the two agree). A study
  // in another language, or with experiment.strings, carries its whole table in
  // texts.ui; "{name}" fields are filled in by t().
  const UI_EN = {
    continue: "Continue",
    space_hint: "(or press the space bar)",
    start: "Start",
    next: "Next",
    move_sliders: "Move both sliders to go on.",
    ready: "Click Start or press the space bar when you are ready.",
    show_pictures: "Show pictures",
    cant_tell: "Can't tell",
    picture_label: "picture {n}",
    sound_failed: "The sound could not be played.",
    feedback_correct: "Correct.",
    feedback_timeout: "Too slow: please answer a little faster.",
    feedback_cant_tell: "This description was meant to be clear enough.",
    feedback_wrong: "That was not the picture meant.",
    offline_list: "Offline mode: the results are saved as a file at the end. List: ",
    practice_over: "The practice is over. The experiment itself starts now; it works in the same way.",
    break: "Time for a short break. You have done {done} of {total} trials.",
    break_continue: "Continue when you are ready.",
    progress_practice: "Practice {n} of {total}",
    progress_trial: "Trial {n} of {total}",
    resume: "Welcome back. You have answered {done} of {total} trials; you will continue where you stopped.",
    storage_unavailable: "Your browser does not let this page store data; please do not reload it.",
    waiting_server: "Waiting for the server\u2026 (your answers are kept)",
    saving_retry: "Saving\u2026 the server does not answer yet; your answers are kept and will be sent.",
    finished: "Thank you! The experiment is finished.",
    completion_code: "Your completion code:",
    preparing: "Preparing the experiment\u2026",
    cannot_start: "The experiment cannot start now (error {status}).",
    unknown_list: "The server assigned an unknown list ({list}); please tell the experimenter.",
    saving: "Saving your answers\u2026",
    not_saved: "The answers could not be saved (error {status}).",
    download: "Download the results",
    new_session: "Start a new session",
    discard_confirm: "The results have not been downloaded. Discard them?",
    experimenter_download: "Experimenter: download the results file before starting a new session.",
    unknown_list_offline: "Unknown list {list}; reload the page.",
    offline_copy_needed: "This copy of the study is the one its server serves. To run the study without a server, open index.html in the offline folder of one list (offline/<list>/index.html).",
    connecting: "Connecting to the server\u2026",
    out_of_date: "This page is out of date: the experiment was rebuilt. Please reload the page.",
    consent_agree: "I agree to take part",
    consent_decline: "I do not agree",
    declined: "You have chosen not to take part. No data have been recorded. You can close this page.",
    questionnaire_submit: "Continue",
    questionnaire_required: "Please answer every question marked *.",
    questionnaire_number: "Please enter a number.",
    answer_yes: "Yes",
    answer_no: "No",
    choose_placeholder: "(choose)",
    debrief_continue: "Finish",
    redirecting: "Returning you to the recruitment site\u2026 If nothing happens, follow this link:",
    screen_too_small: "This experiment needs a window of at least {width} \u00d7 {height} pixels; yours is {w} \u00d7 {h}. Please enlarge the window or use a larger screen.",
    screen_retry: "Check again",
    fullscreen_ask: "The experiment works best in full screen.",
    fullscreen_enter: "Go full screen",
    fullscreen_skip: "Continue without full screen",
    sound_check: "Sound check: press Play and type the word you hear.",
    sound_play: "Play",
    sound_wrong: "That was not the word. Check your sound and try again.",
    sound_answer: "The word you heard",
    answers_failed: "Your answers could not be saved (error {status}).",
    session_download: "Download the session table",
    failed: "Something went wrong: {error}",
    damaged: "The study files are missing or damaged (stimuli.js). Please tell the experimenter.",
    study_full: "This study is full and takes no more participants. Thank you for your interest.",
    place_returned: "This place was returned to the study, so no more answers can be recorded for it. Thank you for your time.",
    consent_needed: "This study records answers only from participants who agreed to take part on its consent page. Please open the study again from the link you were given and read the consent page.",
    participant_needed: "This study needs your participant ID: please open it with the link you were given.",
    already_completed: "You have already completed this study: each person takes part once. Thank you for your help.",
    already_started: "You have already started this study. Please continue in the browser and on the device where you began; if you cannot, contact the researcher named on the consent page.",
    too_many_sessions: "Too many sessions were started from your network; please try again in {seconds} seconds.",
  };
  const UI = Object.assign({}, UI_EN);

  function t(key, values) {
    return UI[key].replace(/\{(\w+)\}/g, (all, name) =>
      values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : all);
  }

  // A refusal the server gives a reason for is shown from the catalogue (in the
  // study's language); any other shows the server's own words, or the fallback.
  function refusal(res, fallback) {
    const data = res.data || {};
    switch (data.reason) {
      case "study_full": return t("study_full");
      case "place_returned": return t("place_returned");
      case "consent_needed": return t("consent_needed");
      case "participant_needed": return t("participant_needed");
      case "already_completed": return t("already_completed");
      case "already_started": return t("already_started");
      case "too_many_sessions": return t("too_many_sessions", { seconds: data.retry_after_s });
      default: return data.error || fallback;
    }
  }

  if (!STUDY || STUDY.format !== "stecflow-study") {
    // No study document, so no catalogue: index.html carries this string in the
    // study's language (English when it carries none).
    if (document.body.dataset.damaged) UI.damaged = document.body.dataset.damaged;
    fatal(t("damaged"));
    return;
  }

  const S = STUDY.settings;
  const TX = STUDY.texts;
  Object.assign(UI, TX.ui || {});

  const COLUMNS = STUDY.columns;
  const TASK = STUDY.task;
  const VARIANT = STUDY.variant;
  const KEY = "stecflow:" + STUDY.study + ":" + String(STUDY.sha256).slice(0, 16) + ":";
  const params = new URLSearchParams(window.location.search);
  document.body.style.setProperty("--cell", S.cell_px + "px");
  document.title = S.title;

  // ------------------------------------------------------------------ utilities

  function el(tag, props) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "className") node.className = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (let i = 2; i < arguments.length; i++) {
      if (arguments[i]) node.append(arguments[i]);
    }
    return node;
  }

  function show(name, ...children) {
    document.body.dataset.screen = name;
    delete document.body.dataset.order;
    const screen = el("div", { className: "screen", id: "screen-" + name });
    for (const child of children) if (child) screen.append(child);
    app.replaceChildren(screen);
    return screen;
  }

  function paragraphs(texts) {
    const box = el("div", { className: "text" });
    for (const text of texts) box.append(el("p", { text: text }));
    return box;
  }

  function setStatus(message) {
    statusBar.textContent = message || "";
  }

  function setProgress(label, fraction) {
    document.getElementById("progress-box").hidden = false;
    document.getElementById("progress-text").textContent = label;
    document.getElementById("progress").value = Math.max(0, Math.min(1, fraction));
  }

  const now = () => performance.now();
  const r1 = (x) => Math.round(x * 10) / 10;
  const r3 = (x) => Math.round(x * 1000) / 1000;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  // Time of the frame in which newly added content is first painted.
  const onset = () => new Promise((resolve) => requestAnimationFrame(() => resolve(now())));

  function randomHex(bytes) {
    const data = new Uint8Array(bytes);
    window.crypto.getRandomValues(data);
    return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  // The IDs from the link (URL_PARAMS of settings.py, the study's own names
  // first): participant (?participant=, Prolific's ?PROLIFIC_PID=, ?pid=, MTurk's
  // ?workerId=), study_id (Prolific's ?STUDY_ID=) and external_session
  // (Prolific's ?SESSION_ID=); sent when the session is created.
  const URL_PARAMS = S.url_params || {
    participant: ["participant", "PROLIFIC_PID", "pid", "workerId"],
    study_id: ["study_id", "STUDY_ID", "hitId"],
    external_session: ["session_id", "SESSION_ID", "assignmentId"],
  };
  function linkId(kind) {
    for (const name of URL_PARAMS[kind] || []) {
      const raw = params.get(name);
      if (!raw) continue;
      const clean = raw.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 64);
      if (clean) return clean;
    }
    return null;
  }
  function participantId() {
    return linkId("participant");
  }

  const store = {
    get(name) {
      try {
        const text = window.localStorage.getItem(KEY + name);
        return text === null ? null : JSON.parse(text);
      } catch (e) {
        return null;
      }
    },
    set(name, value) {
      try {
        window.localStorage.setItem(KEY + name, JSON.stringify(value));
      } catch (e) {
        setStatus(t("storage_unavailable"));
      }
    },
    del(name) {
      try {
        window.localStorage.removeItem(KEY + name);
      } catch (e) {
        /* nothing to remove */
      }
    },
  };

  // Resolve when `button` is clicked or one of `keys` is pressed (not repeated).
  function waitFor(button, keys) {
    return new Promise((resolve) => {
      function finish(event) {
        button.removeEventListener("click", finish);
        document.removeEventListener("keydown", onKey);
        resolve(event);
      }
      function onKey(event) {
        if (event.repeat || button.disabled || !keys || !keys.includes(event.key)) return;
        event.preventDefault();
        finish(event);
      }
      button.addEventListener("click", finish);
      document.addEventListener("keydown", onKey);
    });
  }

  async function message(name, texts, label) {
    const button = el("button", { id: "continue", type: "button", text: label || t("continue") });
    show(name, paragraphs(texts), button, el("p", { className: "hint", text: t("space_hint") }));
    await waitFor(button, [" ", "Enter"]);
  }

  // ------------------------------------------------------------------ sound

  let audioContext = null;

  function beep() {
    if (!S.warning_beep) return;
    try {
      const Context = window.AudioContext || window.webkitAudioContext;
      if (!Context) return;
      audioContext = audioContext || new Context();
      if (audioContext.state === "suspended") audioContext.resume().catch(() => {});
      const start = audioContext.currentTime + 0.01;
      const end = start + S.beep_ms / 1000;
      const oscillator = audioContext.createOscillator();
      const gain = audioContext.createGain();
      oscillator.frequency.value = S.beep_hz;
      gain.gain.setValueAtTime(0.0001, start);
      gain.gain.exponentialRampToValueAtTime(0.25, start + 0.005);
      gain.gain.exponentialRampToValueAtTime(0.0001, end);
      oscillator.connect(gain);
      gain.connect(audioContext.destination);
      oscillator.start(start);
      oscillator.stop(end + 0.01);
    } catch (e) {
      /* no audio device: the trial goes on without the beep */
    }
  }

  function loadAudio(src) {
    return new Promise((resolve) => {
      const audio = new Audio();
      let settled = false;
      const done = () => {
        if (!settled) {
          settled = true;
          resolve(audio);
        }
      };
      audio.preload = "auto";
      audio.addEventListener("canplaythrough", done, { once: true });
      audio.addEventListener("error", done, { once: true });
      setTimeout(done, 3000);
      audio.src = src;
      audio.load();
    });
  }

  // ------------------------------------------------------------------ displays

  async function makeGrid(trial, clickable, highlight) {
    const [columns, rows] = trial.grid;
    const grid = el("div", { className: "grid", id: "grid" });
    grid.style.setProperty("--cols", String(columns));
    grid.style.setProperty("--rows", String(rows));
    const loads = [];
    trial.entities.forEach((entity, index) => {
      const label = t("picture_label", { n: index + 1 });
      const img = el("img", { src: entity.image, alt: label, draggable: "false" });
      const cell = clickable
        ? el("button", { type: "button", className: "cell", "data-entity": entity.id, "aria-label": label }, img)
        : el("div", { className: "cell", "data-entity": entity.id }, img);
      cell.style.gridColumn = String(entity.x);
      cell.style.gridRow = String(entity.y);
      if (highlight && entity.marked) cell.classList.add("target");
      grid.append(cell);
      loads.push(img.decode().catch(() => null));
    });
    hoverAfterMove(grid);
    await Promise.all(loads);
    return grid;
  }

  // The hover frame only once the pointer really moves over *node*, not on
  // whichever picture or piece appears under a still pointer: the class
  // pointer-moved enables :hover in experiment.css.
  function hoverAfterMove(node) {
    node.addEventListener("pointermove", function moved(event) {
      if (!event.movementX && !event.movementY) return;
      node.classList.add("pointer-moved");
      node.removeEventListener("pointermove", moved);
    });
  }

  function makeSlider(name, question, labels) {
    const input = el("input", {
      type: "range", id: name, name: name, min: "0", max: "1000", step: "1", value: "500",
      "aria-label": question,
    });
    const box = el("div", { className: "slider", id: name + "-box" },
      el("p", { className: "question", text: question }),
      input,
      el("div", { className: "ends" }, el("span", { text: labels[0] }), el("span", { text: labels[1] })));
    const slider = { box: box, input: input, touched: false };
    for (const type of ["input", "change", "pointerdown"]) {
      input.addEventListener(type, () => {
        slider.touched = true;
        box.dispatchEvent(new Event("touched"));
      });
    }
    // Hidden scale: 1001 pointer positions mapped to the integers 1-100.
    slider.value = () => Math.max(1, Math.min(100, Math.ceil(Number(input.value) / 10)));
    return slider;
  }

  async function ratingTrial(trial) {
    const grid = await makeGrid(trial, false, true);
    const adequacy = makeSlider("adequacy", TX.adequacy_question, TX.adequacy_labels);
    const fluency = makeSlider("fluency", TX.fluency_question, TX.fluency_labels);
    const next = el("button", { id: "next", type: "button", text: t("next"), disabled: S.require_slider_touch });
    const hint = el("p", { className: "hint", text: S.require_slider_touch ? t("move_sliders") : "" });
    const update = () => {
      if (adequacy.touched && fluency.touched) {
        next.disabled = false;
        hint.textContent = "";
      }
    };
    adequacy.box.addEventListener("touched", update);
    fluency.box.addEventListener("touched", update);
    show("rating",
      el("p", { className: "description", id: "description", text: trial.description }),
      grid, adequacy.box, fluency.box, next, hint);
    document.body.dataset.order = String(trial.order);
    const t0 = await onset();
    await waitFor(next, null);
    const t1 = now();
    return { adequacy: adequacy.value(), fluency: fluency.value(), rt_ms: r1(t1 - t0) };
  }

  async function identificationTrial(trial) {
    const start = el("button", { id: "start-trial", type: "button", text: t("start") });
    show("ready",
      el("p", { className: "text", text: t("ready") }),
      start);
    document.body.dataset.order = String(trial.order);
    const gridPromise = makeGrid(trial, true, false);
    const audioPromise = VARIANT === "spoken" && trial.audio ? loadAudio(trial.audio) : Promise.resolve(null);
    await waitFor(start, [" "]);
    beep();
    show("fixation", el("div", { className: "fixation", id: "fixation", text: "+" }));
    document.body.dataset.order = String(trial.order);
    await sleep(S.fixation_ms);
    if (VARIANT !== "spoken" && S.delay_ms > 0) {
      show("blank", el("div", { className: "blank" }));
      document.body.dataset.order = String(trial.order);
      await sleep(S.delay_ms);
    }
    const grid = await gridPromise;
    const audio = await audioPromise;
    const description = el("p", { className: "description", id: "description", text: trial.description });
    let readingTime = null;
    if (VARIANT === "read_first") {
      const call = el("button", { id: "show-pictures", type: "button", text: t("show_pictures") });
      show("reading", description, call, el("p", { className: "hint", text: t("space_hint") }));
      document.body.dataset.order = String(trial.order);
      const r0 = await onset();
      const waits = [waitFor(call, [" "])];
      if (S.reading_timeout_ms) waits.push(sleep(S.reading_timeout_ms));
      await Promise.race(waits);
      readingTime = r1(now() - r0);
    }
    const parts = [];
    if (VARIANT === "together" || (VARIANT === "read_first" && !S.hide_description)) {
      parts.push(description);
    }
    parts.push(grid);
    const cantTell = S.cant_tell
      ? el("button", { id: "cant-tell", type: "button", className: "secondary", text: t("cant_tell") })
      : null;
    if (cantTell) parts.push(cantTell);
    show("identify", ...parts);
    document.body.dataset.order = String(trial.order);
    const t0 = await onset();
    let audioOnset = null;
    let voiceTimer = null;
    if (audio) {
      audio.addEventListener("playing", () => {
        if (audioOnset === null) audioOnset = r1(now() - t0);
      }, { once: true });
      voiceTimer = setTimeout(() => {
        const played = audio.play();
        if (played && played.catch) played.catch(() => setStatus(t("sound_failed")));
      }, S.delay_ms);
    }
    const response = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ timeout: true }), Math.max(0, S.timeout_ms - (now() - t0)));
      grid.addEventListener("click", (event) => {
        const cell = event.target.closest(".cell");
        if (!cell) return;
        const t = now();
        clearTimeout(timer);
        const rect = cell.getBoundingClientRect();
        const byMouse = event.detail > 0 && rect.width > 0 && rect.height > 0;
        resolve({
          entity: cell.dataset.entity,
          t: t,
          x: byMouse ? r3(Math.max(0, Math.min(1, (event.clientX - rect.left) / rect.width))) : null,
          y: byMouse ? r3(Math.max(0, Math.min(1, (event.clientY - rect.top) / rect.height))) : null,
        });
      });
      if (cantTell) {
        cantTell.addEventListener("click", () => {
          clearTimeout(timer);
          resolve({ cantTell: true, t: now() });
        });
      }
    });
    if (voiceTimer !== null) clearTimeout(voiceTimer);
    if (audio) audio.pause();
    const timedOut = Boolean(response.timeout);
    const identification = timedOut ? null : r1(response.t - t0);
    const result = {
      chosen_entity: response.entity || null,
      cant_tell: Boolean(response.cantTell),
      timeout: timedOut,
      reading_time_ms: readingTime,
      identification_time_ms: identification,
      rt_ms: identification === null ? null : r1(identification + (readingTime || 0)),
      audio_onset_ms: audioOnset,
      click_x: response.x === undefined ? null : response.x,
      click_y: response.y === undefined ? null : response.y,
    };
    if (trial.practice && S.feedback_ms > 0) {
      let text = t("feedback_correct");
      let good = true;
      if (timedOut) {
        text = t("feedback_timeout");
        good = false;
      } else if (result.chosen_entity !== trial.target) {
        text = result.cant_tell ? t("feedback_cant_tell") : t("feedback_wrong");
        good = false;
      }
      show("feedback", el("p", { className: "feedback " + (good ? "good" : "bad"), id: "feedback", text: text }));
      document.body.dataset.order = String(trial.order);
      await sleep(S.feedback_ms);
    }
    return result;
  }

  // ------------------------------------------------------------------ situated trials

  // Seed 000 section 5.1 (stecflow.studies.situated): the participant plays a
  // replay of the shared work area drawn in SVG from the logged timeline (or an
  // organiser's video/audio file), then reads the next utterance with the
  // referring expression in red and clicks a numbered piece, its numbered button
  // or "I don't know". The clip can be replayed; the identification time runs
  // from the onset of the utterance to the click (reading and replays included,
  // seed 000 section 5.2). Strings come from SITUATED_UI_STRINGS (settings.py),
  // carried in texts.ui; say() reads them as t() reads the REG strings.
  // The SVG namespace as the HTML parser gives it (no URL in the page's files).
  const SVGNS = (() => {
    const box = document.createElement("div");
    box.innerHTML = "<svg></svg>";
    return box.firstChild.namespaceURI;
  })();
  const SPEED = Number(STUDY.replay_speed) || 1;
  const say = (key, values) => t(key, values);
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
      return new Promise((resolve) => {
        const begin = now();
        const frame = () => {
          if (mine !== token) return resolve();
          const tm = Math.min(context.duration_ms, (now() - begin) * SPEED);
          board.draw(tm);
          transcript.update(tm, true);
          if (tm >= context.duration_ms) {
            transcript.silence(); // the clip stops just before the utterance
            resolve();
          } else {
            requestAnimationFrame(frame);
          }
        };
        frame();
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

  // ------------------------------------------------------------------ text trials

  // Text rating and preference (stecflow.studies.text). The stimulus shows the
  // item's input (the list's inputs, stored once per item) above the output(s): plain
  // text, a table of triples, a table of a JSON object's fields, or the
  // organiser's HTML snippet, sanitised by the builder and built here element by
  // element from the same allow-list (never through innerHTML). Strings come
  // from TEXT_UI_STRINGS (settings.py), carried in texts.ui and read by say().
  const CRITERIA = STUDY.criteria || [];
  const HTML_TAGS = new Set([
    "p", "br", "hr", "div", "span", "b", "strong", "i", "em", "u", "s", "sub", "sup", "small",
    "mark", "code", "pre", "blockquote", "q", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol",
    "li", "dl", "dt", "dd", "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td",
  ]);
  const HTML_ATTRIBUTES = {
    colspan: /^[1-9][0-9]?$/,
    rowspan: /^[1-9][0-9]?$/,
    lang: /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/,
    dir: /^(ltr|rtl|auto)$/,
  };

  function appendNodes(parent, nodes) {
    for (const node of nodes || []) {
      if (typeof node === "string") {
        parent.append(document.createTextNode(node));
        continue;
      }
      if (!Array.isArray(node)) continue;
      const [tag, attrs, children] = node;
      if (!HTML_TAGS.has(tag)) {
        appendNodes(parent, children); // not allowed: its text only
        continue;
      }
      const element = document.createElement(tag);
      for (const [name, value] of Object.entries(attrs || {})) {
        const pattern = HTML_ATTRIBUTES[name];
        if (pattern && pattern.test(String(value))) element.setAttribute(name, String(value));
      }
      appendNodes(element, children);
      parent.append(element);
    }
  }

  function makeTable(className, headings, rows) {
    const head = el("tr");
    for (const heading of headings) head.append(el("th", { scope: "col", text: heading }));
    const body = el("tbody");
    for (const row of rows) {
      const tr = el("tr");
      for (const cell of row) tr.append(el("td", { text: cell }));
      body.append(tr);
    }
    return el("table", { className: "input-table " + className }, el("thead", null, head), body);
  }

  function makeInput(trial) {
    const input = SHOWN.inputs[trial.input];
    if (!input || input.kind === "none") return null;
    const box = el("section", { className: "input", id: "input", "data-kind": input.kind },
      el("h2", { className: "heading", text: say("input_heading") }));
    if (input.kind === "text") {
      box.append(el("p", { className: "input-text", text: input.text }));
    } else if (input.kind === "triples") {
      box.append(makeTable("triples",
        [say("triple_subject"), say("triple_predicate"), say("triple_object")], input.triples));
    } else if (input.kind === "json") {
      box.append(makeTable("fields", [say("field_name"), say("field_value")], input.fields));
    } else if (input.kind === "html") {
      const snippet = el("div", { className: "snippet", id: "snippet" });
      appendNodes(snippet, input.nodes);
      box.append(snippet);
    }
    return box;
  }

  function makeOutput(text, heading, id) {
    return el("section", { className: "output", id: id },
      el("h2", { className: "heading", text: heading }),
      el("p", { className: "output-text", id: id + "-text", text: text }));
  }

  // A Likert scale: radio buttons 1..points, answered when one is checked.
  function makeLikert(criterion) {
    const name = "rating_" + criterion.id;
    const perPoint = criterion.anchors.length === criterion.points;
    const points = el("div", { className: "points" });
    points.style.setProperty("--points", String(criterion.points));
    for (let n = 1; n <= criterion.points; n++) {
      const input = el("input", {
        type: "radio", name: name, value: String(n), id: name + "-" + n,
        "aria-label": say("likert_point", { n: n, points: criterion.points })
          + (perPoint ? ": " + criterion.anchors[n - 1] : ""),
      });
      points.append(el("label", { className: "point", for: name + "-" + n },
        input,
        el("span", { className: "number", text: String(n) }),
        perPoint ? el("span", { className: "anchor", text: criterion.anchors[n - 1] }) : null));
    }
    const box = el("fieldset", { className: "criterion likert", id: "criterion-" + criterion.id },
      el("legend", { className: "question", text: criterion.question }), points);
    if (criterion.anchors.length === 2 && !perPoint) {
      box.append(el("div", { className: "ends" },
        el("span", { text: criterion.anchors[0] }), el("span", { text: criterion.anchors[1] })));
    }
    hoverAfterMove(points);
    const checked = () => box.querySelector("input:checked");
    box.addEventListener("change", () => box.dispatchEvent(new Event("touched")));
    return { id: criterion.id, box: box, answered: () => Boolean(checked()), value: () => Number(checked().value) };
  }

  // A direct-assessment slider 0-100: the pointer starts in the middle, the two
  // anchors are shown at its ends, and it counts as answered once moved.
  function makeDA(criterion) {
    const name = "rating_" + criterion.id;
    const input = el("input", {
      type: "range", id: name, name: name, min: "0", max: "100", step: "1", value: "50",
      "aria-label": criterion.question,
    });
    const box = el("fieldset", { className: "criterion slider", id: "criterion-" + criterion.id },
      el("legend", { className: "question", text: criterion.question }),
      input,
      el("div", { className: "ends" },
        el("span", { text: criterion.anchors[0] }), el("span", { text: criterion.anchors[1] })));
    const slider = { id: criterion.id, box: box, touched: false };
    for (const type of ["input", "change", "pointerdown"]) {
      input.addEventListener(type, () => {
        slider.touched = true;
        box.classList.add("touched");
        box.dispatchEvent(new Event("touched"));
      });
    }
    slider.answered = () => slider.touched || !S.require_slider_touch;
    slider.value = () => Math.max(0, Math.min(100, Math.round(Number(input.value))));
    return slider;
  }

  async function textRatingTrial(trial) {
    const answers = CRITERIA.map((c) => (c.scale === "slider" ? makeDA(c) : makeLikert(c)));
    const next = el("button", { id: "next", type: "button", text: t("next"), disabled: true });
    const hint = el("p", { className: "hint", id: "hint", text: say("answer_all") });
    const update = () => {
      const ready = answers.every((a) => a.answered());
      next.disabled = !ready;
      hint.textContent = ready ? "" : say("answer_all");
    };
    for (const answer of answers) answer.box.addEventListener("touched", update);
    update();
    show("text-rating",
      makeInput(trial),
      makeOutput(trial.output, say("output_heading"), "output"),
      el("div", { className: "criteria" }, ...answers.map((a) => a.box)),
      next, hint);
    document.body.dataset.order = String(trial.order);
    const t0 = await onset();
    await waitFor(next, null);
    const result = { rt_ms: r1(now() - t0) };
    for (const answer of answers) result["rating_" + answer.id] = answer.value();
    return result;
  }

  async function textPreferenceTrial(trial) {
    const criterion = CRITERIA[0];
    let choice = null;
    const next = el("button", { id: "next", type: "button", text: t("next"), disabled: true });
    const hint = el("p", { className: "hint", id: "hint", text: say("choose_one") });
    const buttons = [];
    function choose(value) {
      choice = value;
      for (const button of buttons) {
        const on = button.dataset.choice === value;
        button.setAttribute("aria-pressed", on ? "true" : "false");
        button.classList.toggle("chosen", on);
      }
      document.body.dataset.choice = value;
      next.disabled = false;
      hint.textContent = "";
    }
    function chooser(value, label) {
      const button = el("button", {
        type: "button", className: "secondary choose", id: "choose-" + value,
        "data-choice": value, "aria-pressed": "false", text: label,
      });
      button.addEventListener("click", () => choose(value));
      buttons.push(button);
      return button;
    }
    const left = makeOutput(trial.output_left, say("text_left"), "output-left");
    left.append(chooser("left", say("choose_left")));
    const right = makeOutput(trial.output_right, say("text_right"), "output-right");
    right.append(chooser("right", say("choose_right")));
    delete document.body.dataset.choice;
    show("text-preference",
      makeInput(trial),
      el("p", { className: "question", id: "question", text: criterion.question }),
      el("div", { className: "pair", id: "pair" }, left, right),
      criterion.allow_tie ? chooser("tie", say("choose_tie")) : null,
      next, hint);
    document.body.dataset.order = String(trial.order);
    const t0 = await onset();
    await waitFor(next, null);
    return {
      rt_ms: r1(now() - t0),
      preferred: choice,
    };
  }

  // ------------------------------------------------------------------ participant screens
  // Consent, questionnaire and debrief (stecflow.studies.screens): texts written by
  // the organiser, carried as blocks and shown with textContent (never as HTML).

  const SCREENS = STUDY.screens || {};

  function blocks(list) {
    const box = el("div", { className: "text organiser-text" });
    let ul = null;
    for (const block of list || []) {
      if (block.kind === "li") {
        if (!ul) box.append((ul = el("ul")));
        ul.append(el("li", { text: block.text }));
        continue;
      }
      ul = null;
      box.append(el(block.kind === "h" ? "h2" : "p", { text: block.text }));
    }
    return box;
  }

  function goTo(url, code) {
    const target = url.replace("{code}", encodeURIComponent(code || ""));
    const link = el("a", { id: "redirect-link", href: target, text: target });
    show("redirect", el("p", { text: t("redirecting") }), el("p", {}, link));
    window.location.assign(target);
  }

  // Resolves true (agreed) or false (declined: goodbye screen, nothing sent).
  function consentScreen() {
    if (!SCREENS.consent) return Promise.resolve(true);
    const agree = el("button", { id: "consent-agree", type: "button", text: t("consent_agree") });
    const decline = el("button", { id: "consent-decline", type: "button", className: "secondary", text: t("consent_decline") });
    show("consent", blocks(SCREENS.consent), el("div", { className: "buttons" }, agree, decline));
    return new Promise((resolve) => {
      agree.addEventListener("click", () => resolve(true));
      decline.addEventListener("click", () => {
        if (S.decline_url) goTo(S.decline_url, "");
        else show("declined", paragraphs([t("declined")]));
        resolve(false);
      });
    });
  }

  function questionInput(field) {
    const name = "q-" + field.id;
    if (field.type === "choice" && field.options.length > 4) {
      const select = el("select", { id: name, name: name, "aria-label": field.question });
      select.append(el("option", { value: "", text: t("choose_placeholder") }));
      for (const option of field.options) select.append(el("option", { value: option.value, text: option.label }));
      return { node: select, value: () => select.value || null };
    }
    if (field.type === "choice" || field.type === "yes-no") {
      const options = field.type === "yes-no"
        ? [{ value: "yes", label: t("answer_yes") }, { value: "no", label: t("answer_no") }]
        : field.options;
      const box = el("div", { className: "options", id: name, role: "radiogroup" });
      for (const option of options) {
        const input = el("input", { type: "radio", name: name, value: option.value });
        box.append(el("label", {}, input, document.createTextNode(" " + option.label)));
      }
      return {
        node: box,
        value: () => {
          const checked = box.querySelector("input:checked");
          if (!checked) return null;
          return field.type === "yes-no" ? checked.value === "yes" : checked.value;
        },
      };
    }
    const input = field.type === "number"
      ? el("input", { id: name, name: name, type: "number", step: "any", min: field.min, max: field.max })
      : el("input", { id: name, name: name, type: "text", maxlength: 2000 });
    return {
      node: input,
      value: () => {
        const text = input.value.trim();
        if (!text) return null;
        if (field.type !== "number") return text;
        const number = Number(text);
        return Number.isFinite(number) && input.checkValidity() ? number : undefined;
      },
    };
  }

  // Resolves the answers {field: value} of the questionnaire.
  function questionnaireScreen() {
    const q = SCREENS.questionnaire;
    const form = el("form", { id: "questionnaire", novalidate: true });
    const inputs = [];
    for (const field of q.fields) {
      const input = questionInput(field);
      const label = el("p", { className: "question", text: field.question + (field.required ? " *" : "") });
      form.append(el("div", { className: "field", "data-field": field.id }, label, input.node));
      inputs.push([field, input]);
    }
    const hint = el("p", { className: "hint", id: "questionnaire-hint" });
    const submit = el("button", { id: "questionnaire-submit", type: "submit", text: t("questionnaire_submit") });
    form.append(hint, submit);
    show("questionnaire", blocks(q.intro), form);
    return new Promise((resolve) => {
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const answers = {};
        for (const [field, input] of inputs) {
          const value = input.value();
          if (value === undefined) {
            hint.textContent = t("questionnaire_number");
            return;
          }
          if (value === null && field.required) {
            hint.textContent = t("questionnaire_required");
            return;
          }
          answers[field.id] = value;
        }
        resolve(answers);
      });
    });
  }

  function debriefScreen() {
    if (!SCREENS.debrief) return Promise.resolve();
    const button = el("button", { id: "debrief-continue", type: "button", text: t("debrief_continue") });
    show("debrief", blocks(SCREENS.debrief), button);
    return waitFor(button, null).then(() => undefined);
  }

  // The screens before the trials; resolves the answers given ({} if none), or
  // null when the participant declined consent.
  async function beforeStart() {
    await screenChecks();
    if (!(await consentScreen())) return null;
    const q = SCREENS.questionnaire;
    if (q && q.at !== "end") return { [q.screen]: await questionnaireScreen() };
    return {};
  }

  async function atEnd() {
    const q = SCREENS.questionnaire;
    if (q && q.at === "end") return { [q.screen]: await questionnaireScreen() };
    return {};
  }

  // Answers wait in localStorage until the server has them, so a reload between
  // the questionnaire and the acknowledgement loses nothing.
  async function sendAnswers(answers) {
    const waiting = Object.assign(store.get("answers") || {}, answers || {});
    store.set("answers", waiting);
    for (const [screen, values] of Object.entries(waiting)) {
      const res = await persistent("POST", "answers", { screen: screen, answers: values });
      if (res.status !== 200) {
        fatal(refusal(res, t("answers_failed", { status: res.status })));
        return false;
      }
      delete waiting[screen];
      store.set("answers", waiting);
    }
    store.del("answers");
    return true;
  }

  // The end: the debrief, then the completion code, or the redirect URL.
  async function theEnd(code, extra) {
    await debriefScreen();
    if (S.completion_url && !extra) {
      goTo(S.completion_url, code);
      return;
    }
    finishScreen(code, extra);
  }

  // Full screen, minimum window and sound checks, each optional. Full screen is
  // offered first: it may be what makes the window large enough; the too-small
  // screen offers it again while the browser can go full screen.
  function canFullscreen() {
    return Boolean(document.documentElement.requestFullscreen
      && document.fullscreenEnabled !== false && !document.fullscreenElement);
  }
  function goFullscreen() {
    return document.documentElement.requestFullscreen().catch(() => undefined);
  }

  async function screenChecks() {
    if (S.fullscreen && canFullscreen()) {
      const enter = el("button", { id: "fullscreen-enter", type: "button", text: t("fullscreen_enter") });
      const skip = el("button", { id: "fullscreen-skip", type: "button", className: "secondary", text: t("fullscreen_skip") });
      show("fullscreen", paragraphs([t("fullscreen_ask")]), el("div", { className: "buttons" }, enter, skip));
      await new Promise((resolve) => {
        enter.addEventListener("click", () => { goFullscreen().finally(resolve); });
        skip.addEventListener("click", resolve);
      });
    }
    const width = S.min_width || 0;
    const height = S.min_height || 0;
    while ((width && window.innerWidth < width) || (height && window.innerHeight < height)) {
      const retry = el("button", { id: "screen-retry", type: "button", text: t("screen_retry") });
      const buttons = el("div", { className: "buttons" }, retry);
      if (canFullscreen()) {
        const enter = el("button", { id: "too-small-fullscreen", type: "button", className: "secondary", text: t("fullscreen_enter") });
        enter.addEventListener("click", () => { goFullscreen(); });
        buttons.prepend(enter);
      }
      show("too-small", paragraphs([t("screen_too_small", {
        width: width, height: height, w: window.innerWidth, h: window.innerHeight,
      })]), buttons);
      await Promise.race([
        waitFor(retry, null),
        new Promise((resolve) => window.addEventListener("resize", resolve, { once: true })),
        new Promise((resolve) => document.addEventListener("fullscreenchange", resolve, { once: true })),
      ]);
    }
    if (S.sound_check) {
      const play = el("button", { id: "sound-play", type: "button", text: t("sound_play") });
      const answer = el("input", { id: "sound-answer", type: "text", "aria-label": t("sound_answer") });
      const next = el("button", { id: "sound-continue", type: "button", text: t("continue") });
      const hint = el("p", { className: "hint", id: "sound-hint" });
      show("sound-check", paragraphs([t("sound_check")]), play, answer, next, hint);
      play.addEventListener("click", () => {
        const audio = new Audio("audio/sound-check.wav");
        const started = audio.play();
        if (started && started.catch) started.catch(() => setStatus(t("sound_failed")));
      });
      const wanted = String(S.sound_check).toLowerCase();
      await new Promise((resolve) => {
        next.addEventListener("click", () => {
          if (answer.value.trim().toLowerCase() === wanted) resolve();
          else hint.textContent = t("sound_wrong");
        });
      });
    }
  }

  // ------------------------------------------------------------------ the session

  function welcomeScreen(offline) {
    const start = el("button", { id: "start", type: "button", text: t("start") });
    let select = null;
    const parts = [paragraphs(TX.instructions)];
    if (offline) {
      const wanted = params.get("list");
      select = el("select", { id: "list-select", "aria-label": t("offline_list") });
      for (const list of STUDY.lists) {
        select.append(el("option", { value: list.list, text: list.list, selected: list.list === wanted }));
      }
      parts.push(el("p", { className: "hint" },
        t("offline_list"), select));
    }
    parts.push(start);
    show("welcome", ...parts);
    return waitFor(start, null).then(() => (select ? select.value : null));
  }

  async function runTrials(list, done, record) {
    document.body.dataset.list = list.list;
    const trials = list.trials;
    const nPractice = trials.filter((t) => t.practice).length;
    const nTest = trials.length - nPractice;
    let practiceDone = trials.filter((t) => t.practice && done.has(t.order)).length;
    let testDone = trials.filter((t) => !t.practice && done.has(t.order)).length;
    let ranOne = false;
    for (const trial of trials) {
      if (done.has(trial.order)) continue;
      if (!trial.practice && nPractice > 0 && testDone === 0) {
        await message("practice-over", [
          t("practice_over"),
        ]);
      } else if (!trial.practice && ranOne && S.break_every > 0 && testDone > 0 && testDone % S.break_every === 0) {
        await message("break", [
          t("break", { done: testDone, total: nTest }),
          t("break_continue"),
        ]);
      }
      const label = trial.practice
        ? t("progress_practice", { n: practiceDone + 1, total: nPractice })
        : t("progress_trial", { n: testDone + 1, total: nTest });
      setProgress(label, (practiceDone + testDone) / trials.length);
      let result;
      if (TASK === "rating") result = await ratingTrial(trial);
      else if (TASK === "situated_identification") result = await situatedTrial(trial);
      else if (TASK === "text_rating") result = await textRatingTrial(trial);
      else if (TASK === "text_preference") result = await textPreferenceTrial(trial);
      else result = await identificationTrial(trial);
      await record(trial, result);
      done.add(trial.order);
      if (trial.practice) practiceDone += 1;
      else testDone += 1;
      ranOne = true;
      setProgress(label, (practiceDone + testDone) / trials.length);
    }
  }

  // Counted as the progress bar counts: the test trials, not the practice.
  function resumeTexts(list, done) {
    const test = list.trials.filter((trial) => !trial.practice);
    const answered = test.filter((trial) => done.has(trial.order)).length;
    return [t("resume", { done: answered, total: test.length })];
  }

  // ------------------------------------------------------------------ online

  let token = null;
  let pending = [];
  let rejected = [];
  let flushing = null;

  async function request(method, path, body) {
    const headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = "Bearer " + token;
    const response = await fetch("api/" + path, {
      method: method,
      headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      credentials: "same-origin",
    });
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = null;
    }
    return { status: response.status, data: data };
  }

  // Retry until the server answers (any status below 500).
  async function persistent(method, path, body) {
    let delay = 300;
    for (;;) {
      try {
        const res = await request(method, path, body);
        if (res.status < 500) {
          setStatus("");
          return res;
        }
      } catch (e) {
        /* network error: retry */
      }
      setStatus(t("waiting_server"));
      await sleep(delay);
      delay = Math.min(delay * 2, 3000);
    }
  }

  async function drain() {
    let delay = 300;
    while (pending.length) {
      const payload = pending[0];
      let res = null;
      try {
        res = await request("POST", "trial", payload);
      } catch (e) {
        res = null;
      }
      if (res && (res.status === 200 || res.status === 201)) {
        pending.shift();
        store.set("pending", pending);
        delay = 300;
        setStatus("");
        continue;
      }
      if (res && res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
        rejected.push({ payload: payload, status: res.status, error: res.data && res.data.error });
        store.set("rejected", rejected);
        pending.shift();
        store.set("pending", pending);
        console.warn("stecflow: the server refused trial", payload.order, res.status, res.data);
        continue;
      }
      setStatus(t("saving_retry"));
      await sleep(delay);
      delay = Math.min(delay * 2, 3000);
    }
  }

  function flush() {
    if (!flushing) {
      flushing = drain().finally(() => {
        flushing = null;
      });
    }
    return flushing;
  }

  async function flushed() {
    while (pending.length) await flush();
  }

  function finishScreen(code, extra) {
    const parts = [paragraphs([t("finished")])];
    if (code) {
      parts.push(el("p", { text: t("completion_code") }));
      parts.push(el("p", { className: "code", id: "completion-code", text: code }));
    }
    for (const part of extra || []) parts.push(part);
    show("done", ...parts);
  }

  async function runOnline() {
    token = store.get("token");
    pending = store.get("pending") || [];
    rejected = store.get("rejected") || [];
    let state = null;
    let returning = false;
    if (token) {
      const res = await persistent("GET", "session");
      if (res.status === 200) {
        state = res.data;
        returning = true;
      } else {
        token = null;
        pending = [];
        store.del("token");
        store.del("pending");
      }
    }
    if (state && state.completed) {
      finishScreen(state.completion_code);
      return;
    }
    if (state && store.get("answers") && !(await sendAnswers({}))) return;
    if (!state) {
      store.del("answers");
      const answers = await beforeStart();
      if (answers === null) return;
      await welcomeScreen(false);
      show("connecting", el("p", { text: t("preparing") }));
      const body = { participant: participantId() };
      for (const kind of ["study_id", "external_session"]) {
        const value = linkId(kind);
        if (value) body[kind] = value;
      }
      if (SCREENS.consent) body.consent = true;
      // The attempt key, kept across reloads, makes this request idempotent: when
      // its answer is lost, the retry gets the session it opened (200), not 409.
      let attempt = store.get("attempt");
      if (typeof attempt !== "string" || !/^[A-Za-z0-9_-]{22,64}$/.test(attempt)) {
        attempt = randomHex(16);
        store.set("attempt", attempt);
      }
      body.attempt = attempt;
      const res = await persistent("POST", "session", body);
      if (res.status !== 201 && res.status !== 200) {
        fatal(refusal(res, t("cannot_start", { status: res.status })));
        return;
      }
      token = res.data.token;
      store.set("token", token);
      state = res.data;
      if (!(await sendAnswers(answers))) return;
    }
    const list = state.stimuli;
    if (!list || list.list !== state.list) {
      fatal(t("unknown_list", { list: state.list }));
      return;
    }
    SHOWN = list;
    const done = new Set(state.answered);
    for (const payload of pending) done.add(payload.order);
    flush();
    if (done.size > 0 && done.size < list.trials.length) {
      await message("resume", resumeTexts(list, done));
    } else if (done.size === 0 && returning) {
      await welcomeScreen(false);
    }
    for (;;) {
      await runTrials(list, done, (trial, result) => {
        const payload = Object.assign({ order: trial.order, trial: trial.id }, result);
        pending.push(payload);
        store.set("pending", pending);
        flush();
      });
      const late = await atEnd();
      show("saving", el("p", { text: t("saving") }));
      await flushed();
      if (!(await sendAnswers(late))) return;
      const res = await persistent("POST", "complete", {});
      if (res.status === 200) {
        await theEnd(res.data.completion_code);
        return;
      }
      if (res.status === 409 && res.data && Array.isArray(res.data.missing)) {
        for (const order of res.data.missing) done.delete(order);
        continue;
      }
      fatal(refusal(res, t("not_saved", { status: res.status })));
      return;
    }
  }

  // ------------------------------------------------------------------ offline

  function tsvCell(value) {
    if (value === null || value === undefined) return "";
    if (value === true) return "true";
    if (value === false) return "false";
    return String(value).replace(/[\t\r\n]/g, " ");
  }

  // The page knows no item, system or answer: the judgments stage fills them in
  // from the study's design and key by list and order (and maps the labels of
  // chosen pictures back to the corpus's entities).
  function offlineRow(state, trial, result) {
    const row = {
      study: STUDY.study,
      task: TASK,
      variant: VARIANT,
      session: state.session,
      participant: state.participant,
      session_status: "offline",
      list: state.list,
      order: trial.order,
      practice: trial.practice,
    };
    for (const column of COLUMNS) {
      if (!(column in row)) row[column] = column in result ? result[column] : null;
    }
    return row;
  }

  function download(state) {
    const lines = [COLUMNS.join("\t")];
    const rows = state.rows.slice().sort((a, b) => a.order - b.order);
    for (const row of rows) lines.push(COLUMNS.map((c) => tsvCell(row[c])).join("\t"));
    const blob = new Blob([lines.join("\n") + "\n"], { type: "text/tab-separated-values" });
    const url = URL.createObjectURL(blob);
    const link = el("a", { href: url, download: STUDY.study + "-" + state.list + "-" + state.session + ".tsv" });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
    state.downloaded = true;
    store.set("offline", state);
  }

  // The session table of contract C2 (stecflow.judgments.sessions), one row.
  const SESSION_COLUMNS = [
    "study", "session", "participant", "study_id", "external_session", "list", "status",
    "started_utc", "ended_utc", "duration_s", "n_trials_answered", "consent",
  ];
  const isoUtc = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

  function downloadSessions(state) {
    const row = {
      study: STUDY.study,
      session: state.session,
      participant: state.participant,
      study_id: state.study_id,
      external_session: state.external_session,
      list: state.list,
      status: "completed",
      started_utc: isoUtc(state.started),
      ended_utc: isoUtc(state.ended),
      duration_s: Math.round((state.ended - state.started) / 1000),
      n_trials_answered: state.rows.length,
      consent: SCREENS.consent ? "1" : "",
    };
    const answerColumns = [];
    for (const [screen, values] of Object.entries(state.answers || {})) {
      for (const [field, value] of Object.entries(values)) {
        answerColumns.push(screen + "." + field);
        row[screen + "." + field] = value;
      }
    }
    answerColumns.sort();
    const columns = SESSION_COLUMNS.concat(answerColumns);
    const text = columns.join("\t") + "\n" + columns.map((c) => tsvCell(row[c])).join("\t") + "\n";
    const blob = new Blob([text], { type: "text/tab-separated-values" });
    const url = URL.createObjectURL(blob);
    const link = el("a", {
      href: url,
      download: STUDY.study + "-" + state.list + "-" + state.session + ".sessions.tsv",
    });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  function offlineFinish(state) {
    const sessions = el("button", { id: "download-sessions", type: "button", className: "secondary", text: t("session_download") });
    sessions.addEventListener("click", () => downloadSessions(state));
    const save = el("button", { id: "download", type: "button", text: t("download") });
    const again = el("button", { id: "new-session", type: "button", className: "secondary", text: t("new_session") });
    save.addEventListener("click", () => download(state));
    again.addEventListener("click", () => {
      if (!state.downloaded && !window.confirm(t("discard_confirm"))) return;
      store.del("offline");
      window.location.reload();
    });
    finishScreen(S.completion_code, [
      paragraphs([t("experimenter_download")]),
      save,
      sessions,
      again,
    ]);
  }

  async function runOffline() {
    if (!STUDY.lists || !STUDY.lists.length) {
      fatal(t("offline_copy_needed"));
      return;
    }
    let state = store.get("offline");
    if (state && state.completed) {
      offlineFinish(state);
      return;
    }
    if (!state) {
      const answers = await beforeStart();
      if (answers === null) return;
      const listId = await welcomeScreen(true);
      state = {
        session: "offline-" + randomHex(8),
        list: listId,
        participant: participantId(),
        study_id: linkId("study_id"),
        external_session: linkId("external_session"),
        answers: answers,
        started: Date.now(),
        rows: [],
        completed: false,
        downloaded: false,
      };
      store.set("offline", state);
    }
    const list = (STUDY.lists || []).find((l) => l.list === state.list);
    if (!list) {
      store.del("offline");
      fatal(t("unknown_list_offline", { list: state.list }));
      return;
    }
    SHOWN = list;
    const done = new Set(state.rows.map((row) => row.order));
    if (done.size > 0) await message("resume", resumeTexts(list, done));
    await runTrials(list, done, (trial, result) => {
      state.rows.push(offlineRow(state, trial, result));
      store.set("offline", state);
    });
    Object.assign(state.answers, await atEnd());
    state.ended = Date.now();
    state.completed = true;
    store.set("offline", state);
    await debriefScreen();
    offlineFinish(state);
  }

  // ------------------------------------------------------------------ start

  async function detectMode() {
    if (window.location.protocol === "file:" || params.get("offline") === "1") return "offline";
    let delay = 300;
    for (;;) {
      try {
        const res = await request("GET", "ping");
        if (res.status === 200 && res.data && res.data.study === STUDY.study) {
          if (res.data.sha256 !== STUDY.sha256) return "stale";
          return res.data.require_participant && !participantId() ? "no-participant" : "online";
        }
        if (res.status === 404) return "offline";
      } catch (e) {
        /* the server is not reachable yet */
      }
      setStatus(t("connecting"));
      await sleep(delay);
      delay = Math.min(delay * 2, 3000);
    }
  }

  async function main() {
    const mode = await detectMode();
    setStatus("");
    document.body.dataset.mode = mode;
    if (mode === "stale") {
      fatal(t("out_of_date"));
    } else if (mode === "no-participant" && !store.get("token")) {
      // a link without the participant ID the server requires: said at once,
      // before consent and questionnaire (a session already open goes on)
      fatal(t("participant_needed"));
    } else if (mode === "online" || mode === "no-participant") {
      await runOnline();
    } else {
      await runOffline();
    }
  }

  main().catch((error) => {
    fatal(t("failed", { error: error && error.message ? error.message : String(error) }));
  });
})();
