  // identification.js: the identification trial: start, fixation, (blank,
  // reading,) the description with the pictures or the spoken description,
  // the click on a picture, can't tell or the timeout, feedback in the
  // practice (after _grid.js).

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

  trialKind("identification", { run: identificationTrial });
