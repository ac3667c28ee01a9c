// One row of a run: prompt, response, reference, and every metric's score, explanation,
// error and whatever else its result holds (rubric verdicts, raw judge outputs).

import { api } from "../api.js";
import { fmt, h } from "../dom.js";
import { link, page } from "../router.js";
import { runPath } from "./run.js";

function block(title, value, testid) {
  return [h("h3", {}, title), value === null || value === undefined ? h("p", { class: "muted" }, "—") : h("pre", { "data-testid": testid }, value)];
}

function json(value) {
  return JSON.stringify(value, null, 2);
}

function metricCard(m) {
  const details = Object.keys(m.details || {}).length ? m.details : null;
  return h("div", { class: "card", "data-testid": `metric-${m.metric}` },
    h("h3", {}, m.metric),
    h("dl", { class: "kv" },
      h("dt", {}, "Score"), h("dd", { class: "mono" }, m.error ? "—" : m.nan ? "NaN" : fmt(m.score, 4)),
      m.error ? [h("dt", {}, "Error"), h("dd", { class: "neg" }, `${m.error.code || ""} ${m.error.message || ""}`)] : null),
    m.explanation ? [h("h3", {}, "Explanation"), h("pre", {}, m.explanation)] : null,
    details ? [h("h3", {}, "Details"), h("pre", {}, json(details))] : null,
  );
}

page("/runs/:id/rows/:index", async (ctx) => {
  const { id, index } = ctx.params;
  const data = await api(`/v1/evald/runs/${encodeURIComponent(id)}/rows/${encodeURIComponent(index)}`);
  const number = Number(index);
  const total = data.run.progress.done;
  document.title = `Row ${index} of ${data.run.name} · evald`;
  return [
    h("p", {}, link("/runs", {}, "Runs"), " › ", link(runPath(id), {}, data.run.name), " › ", `row ${index}`),
    h("h1", {}, `Row ${index} `, data.category ? h("span", { class: "badge" }, data.category) : null),
    h("div", { class: "pager" },
      number > 0 ? link(`${runPath(id)}/rows/${number - 1}`, { rel: "prev" }, "← Previous row") : null,
      number + 1 < total ? link(`${runPath(id)}/rows/${number + 1}`, { rel: "next" }, "Next row →") : null),
    block("Prompt", data.prompt, "row-prompt"),
    block("Response", data.response, "row-response"),
    block("Reference", data.reference, "row-reference"),
    h("h2", {}, "Metrics"),
    h("div", { class: "cards" }, data.metrics.map(metricCard)),
    h("details", {}, h("summary", {}, "The row's input as stored"), h("pre", {}, json(data.input))),
    Object.keys(data.extra).length ? h("details", {}, h("summary", {}, "Other fields of the record"), h("pre", {}, json(data.extra))) : null,
  ];
}, { title: "Row", navPath: "/runs" });
