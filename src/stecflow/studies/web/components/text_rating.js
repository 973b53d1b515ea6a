  // text_rating.js: the text rating trial: the input, one output and a Likert
  // scale or slider per criterion (after _text.js).

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

  trialKind("text_rating", { run: textRatingTrial });
