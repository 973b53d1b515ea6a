"""A scripted participant: follows the page's screens (``body[data-screen]``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

INTERACTIVE = (
    "welcome",
    "resume",
    "practice-over",
    "break",
    "rating",
    "ready",
    "reading",
    "identify",
    "done",
    "error",
)


def load_document(study_dir: Path) -> dict[str, Any]:
    """The whole study document of a built study: its key, beside ``web/``."""
    return json.loads((study_dir / "stimuli-key.json").read_text())


def label_of(trial: dict[str, Any], entity: str) -> str:
    """The label the page shows an entity of *trial* by (the key's labels)."""
    return next(k for k, v in trial["labels"].items() if v == entity)


def trial_of(doc: dict[str, Any], list_id: str, order: int) -> dict[str, Any]:
    """One trial of a list."""
    lst = next(x for x in doc["lists"] if x["list"] == list_id)
    return next(t for t in lst["trials"] if t["order"] == order)


@dataclass
class Participant:
    """Drives the experiment; records what it answered, by list order.

    ``choose(trial) -> "target" | "wrong" | "timeout" | "cant_tell"`` decides each
    identification trial; ``rate(trial) -> (adequacy_fraction, fluency_fraction)``
    each rating trial. ``stop(screen, order)`` returning True stops the run there
    (before acting on that screen).
    """

    page: Any
    doc: dict[str, Any]
    choose: Callable[[dict[str, Any]], str] = lambda trial: "target"
    rate: Callable[[dict[str, Any]], tuple[float, float]] = lambda t: (0.8, 0.3)
    list_choice: str | None = None
    answers: dict[int, dict[str, Any]] = field(default_factory=dict)
    screens: list[tuple[str, str]] = field(default_factory=list)
    last: str = ""

    def next_screen(self, timeout_ms: float = 20_000) -> tuple[str, str]:
        self.page.wait_for_function(
            """([names, last]) => {
                const b = document.body;
                const key = (b.dataset.screen || '') + '/' + (b.dataset.order || '');
                return names.includes(b.dataset.screen) && key !== last;
            }""",
            arg=[list(INTERACTIVE), self.last],
            timeout=timeout_ms,
        )
        screen, order = self.page.evaluate(
            "() => [document.body.dataset.screen, document.body.dataset.order || '']"
        )
        self.last = f"{screen}/{order}"
        self.screens.append((screen, order))
        return screen, order

    @property
    def list_id(self) -> str:
        return self.page.evaluate("() => document.body.dataset.list || ''")

    def run(
        self, stop: Callable[[str, str], bool] = lambda screen, order: False
    ) -> str:
        """Act on screens until the experiment is done (or *stop* says so)."""
        while True:
            screen, order = self.next_screen()
            if stop(screen, order):
                self.last = ""  # act on this screen again when resumed
                return screen
            if screen in ("done", "error"):
                return screen
            if screen == "welcome":
                if self.list_choice is not None:
                    self.page.select_option("#list-select", self.list_choice)
                self.page.click("#start")
            elif screen in ("resume", "practice-over", "break"):
                self.page.click("#continue")
            elif screen == "rating":
                self._rate(int(order))
            elif screen == "ready":
                if int(order) % 2:
                    self.page.keyboard.press("Space")
                else:
                    self.page.click("#start-trial")
            elif screen == "reading":
                self.page.click("#show-pictures")
            elif screen == "identify":
                self._identify(int(order))

    def _rate(self, order: int) -> None:
        trial = trial_of(self.doc, self.list_id, order)
        adequacy, fluency = self.rate(trial)
        values = {}
        for name, fraction in (("adequacy", adequacy), ("fluency", fluency)):
            slider = self.page.locator(f"#{name}")
            box = slider.bounding_box()
            slider.click(
                position={"x": box["width"] * fraction, "y": box["height"] / 2}
            )
            raw = int(slider.input_value())
            values[name] = max(1, min(100, -(-raw // 10)))
        self.page.click("#next")
        self.answers[order] = values

    def _identify(self, order: int) -> None:
        trial = trial_of(self.doc, self.list_id, order)
        action = self.choose(trial)
        entities = [e["id"] for e in trial["entities"]]
        if action == "timeout":
            self.answers[order] = {"timeout": True}
            return  # the trial times out by itself
        if action == "cant_tell":
            self.page.click("#cant-tell")
            self.answers[order] = {"cant_tell": True}
            return
        chosen = trial["target"]
        if action == "wrong":
            chosen = next(e for e in entities if e != trial["target"])
        self.page.click(f'#grid [data-entity="{label_of(trial, chosen)}"]')
        self.answers[order] = {"chosen": chosen, "correct": chosen == trial["target"]}
