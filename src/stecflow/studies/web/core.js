/*
 * stecflow experiment runner: the core of every study kind's page.
 *
 * Plain JavaScript with no library and no network access other than same-origin
 * "api/..." calls in online mode. The study document is window.STECFLOW_STUDY,
 * set by stimuli.js (see stecflow.stimuli for its fields). The page never knows a
 * trial's item, system or answer (stecflow.studies.blinding): it shows a list of
 * blinded trials, each with an opaque id, and sends back the id and the answer.
 *
 * The core holds what every kind shares: strings and languages, utilities, sound,
 * the screen checks, consent, questionnaire and debrief, instructions, progress,
 * breaks, resume, saving online and offline, completion. A trial is shown by the
 * study kind's component (components/<kind>.js, with the parts it shares with
 * kinds of its family, such as components/_grid.js), which registers itself:
 *
 *     trialKind("<kind>", { run: kindTrial });
 *
 * run(trial) shows one trial and resolves its result, an object holding the
 * response columns the kind fills (the study's columns); the core records it
 * as it is (online: api/trial; offline: the saved TSV), and runs
 * TRIALS[STUDY.task].run(trial) for each trial: it tests no kind's name.
 *
 * Assembly: a study's web folder has one experiment.js, written by
 * stecflow.studies.stimuli.page_script(task): this file up to and including the
 * marker line "trial components of the study's kind" below, then the kind's page
 * parts (StudyKind.page, in order), each after a one-line banner comment naming
 * its file, then the rest of this file. The components are thus code inside this
 * IIFE, using its helpers (el, show, t, say, waitFor, onset, now, r1, S, TX, ...)
 * directly; there is no build tool and no module loading (a file:// page cannot
 * import modules), and the assembled file is byte-deterministic. This file alone
 * (no parts) is a valid script whose pages know no kind.
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

  // The situated and text trials' strings (SITUATED_UI_STRINGS and
  // TEXT_UI_STRINGS of settings.py, carried in texts.ui) are read by say() as
  // t() reads the REG strings.
  const say = (key, values) => t(key, values);

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

  // ------------------------------------------------------------------ trial components

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

  // Study kind -> its trial component ({ run(trial) -> Promise of the result }).
  const TRIALS = {};

  function trialKind(name, component) {
    TRIALS[name] = component;
  }

  // ---- trial components of the study's kind (page_script inserts them after this line)

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
      const result = await TRIALS[TASK].run(trial);
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
    if (!Object.prototype.hasOwnProperty.call(TRIALS, TASK)) {
      throw new Error("this page has no trial component for the study kind " + TASK);
    }
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
