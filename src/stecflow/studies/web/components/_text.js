  // _text.js: what the text trials (text rating and text preference) share: the
  // item's input and an output, shown from the list's inputs.

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
