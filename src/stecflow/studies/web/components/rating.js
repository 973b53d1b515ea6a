  // rating.js: the rating trial: the item's pictures, the target highlighted, one
  // description and the Adequacy and Fluency sliders (after _grid.js).

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

  trialKind("rating", { run: ratingTrial });
