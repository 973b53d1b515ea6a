  // _grid.js: the picture grid of the REG trials (rating and identification),
  // a part of their pages (the kind's page in stecflow.studykinds), inside the
  // IIFE of core.js, whose helpers (el, t, hoverAfterMove, ...) it uses.

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
