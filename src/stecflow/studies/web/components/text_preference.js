  // text_preference.js: the text preference trial: the input, two outputs side by
  // side and the choice of one (or a tie) (after _text.js).

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

  trialKind("text_preference", { run: textPreferenceTrial });
