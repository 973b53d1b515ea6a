  // plausibility.js: a yes/no plausibility trial: the input, one text and the
  // question "Could this text have been written for this input?" (after _text.js).

  async function plausibilityTrial(trial) {
    let answer = null;
    const next = el("button", { id: "next", type: "button", text: t("next"), disabled: true });
    const buttons = ["yes", "no"].map((value) => {
      const button = el("button", {
        type: "button", className: "secondary choose", id: "answer-" + value,
        "data-answer": value, "aria-pressed": "false",
        text: value === "yes" ? "Yes" : "No",
      });
      button.addEventListener("click", () => {
        answer = value;
        for (const other of buttons) {  // the chosen answer shows as chosen
          other.setAttribute("aria-pressed", other === button ? "true" : "false");
          other.classList.toggle("chosen", other === button);
        }
        next.disabled = false;
      });
      return button;
    });
    show("plausibility",
      makeInput(trial),
      makeOutput(trial.output, say("output_heading"), "output"),
      el("p", { className: "question", id: "question", text: CRITERIA[0].question }),
      el("div", { className: "answers" }, ...buttons),
      next);
    document.body.dataset.order = String(trial.order);
    const t0 = await onset();
    await waitFor(next, null);
    return { rt_ms: r1(now() - t0), plausible: answer };
  }

  trialKind("plausibility", { run: plausibilityTrial });
