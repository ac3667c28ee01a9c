// Compare two runs over the same dataset: per-metric deltas of the means with paired
// confidence intervals, wins/ties/losses, and the rows that changed most, side by side.

import { api } from "../api.js";
import { errorBox, fmt, h, replace } from "../dom.js";
import { link, navigate, page } from "../router.js";
import { runPath } from "./run.js";

function signed(value) {
  if (value === null || value === undefined) return "—";
  return (value > 0 ? "+" : "") + fmt(value);
}

function deltaCell(m) {
  const low = m.ci95 ? m.ci95[0] : null;
  const high = m.ci95 ? m.ci95[1] : null;
  // Significant when the interval leaves out zero.
  const cls = low !== null && low > 0 ? "num pos" : high !== null && high < 0 ? "num neg" : "num";
  return h("td", { class: cls }, signed(m.delta));
}

function metricsTable(data) {
  return h("div", { class: "table-wrap" }, h("table", { "data-testid": "compare-table" },
    h("thead", {}, h("tr", {}, ["Metric", "Mean A", "Mean B", "Δ (B − A)", "95% CI of Δ", "Paired rows", "B wins", "Ties", "B loses"]
      .map((t, i) => h("th", { scope: "col", class: i ? "num" : null }, t)))),
    h("tbody", {}, data.metrics.map((m) => h("tr", { "data-metric": m.metric },
      h("th", { scope: "row" }, m.metric),
      h("td", { class: "num" }, fmt(m.mean_a)), h("td", { class: "num" }, fmt(m.mean_b)),
      deltaCell(m),
      h("td", { class: "num" }, m.ci95 ? `[${signed(m.ci95[0])}, ${signed(m.ci95[1])}]` : "—"),
      h("td", { class: "num" }, m.paired),
      h("td", { class: "num pos" }, m.wins), h("td", { class: "num" }, m.ties), h("td", { class: "num neg" }, m.losses),
    ))),
  ), h("p", { class: "muted small" }, `Δ's interval: ${data.ci_method} over the rows both runs scored. Higher scores count as better.`));
}

function side(label, run, item) {
  return h("div", { class: "card" },
    h("h3", {}, label, ": ", run.name),
    h("pre", {}, item.response === null ? "—" : item.response),
    h("dl", { class: "kv" }, Object.entries(item.scores).map(([m, v]) => [h("dt", {}, m), h("dd", { class: "mono" }, fmt(v))])));
}

function changedRows(data) {
  if (!data.changed.length) return h("p", { class: "muted" }, "No row's scores changed.");
  return data.changed.map((row) => h("section", { class: "card", "data-testid": `changed-${row.index}` },
    h("h3", {}, "Row ", link(`${runPath(data.a.id)}/rows/${row.index}`, {}, String(row.index)), h("span", { class: "muted small" }, ` change ${fmt(row.change)}`)),
    h("pre", {}, row.prompt === null ? "—" : row.prompt),
    h("div", { class: "side" }, side("A", data.a, row.a), side("B", data.b, row.b))));
}

page("/compare", async (ctx) => {
  const runs = (await api("/v1/evald/runs", { query: { limit: 500 } })).runs.filter((r) => !r.active);
  const chooser = (id, label, chosen) => {
    const select = h("select", { id, name: id, required: true },
      h("option", { value: "" }, "choose a run"),
      runs.map((r) => h("option", { value: r.id }, `${r.name} (${r.id}, ${r.progress.total} rows)`)));
    select.value = chosen || "";
    return h("div", { class: "field" }, h("label", { for: id }, label), select);
  };
  const a = ctx.query.get("a");
  const b = ctx.query.get("b");
  const result = h("div", {});
  const form = h("form", {
    class: "toolbar", "aria-label": "Choose runs",
    on: {
      submit: (event) => {
        event.preventDefault();
        const data = new FormData(form);
        navigate(`/compare?a=${encodeURIComponent(data.get("a"))}&b=${encodeURIComponent(data.get("b"))}`);
      },
    },
  }, chooser("a", "Run A (baseline)", a), chooser("b", "Run B (candidate)", b), h("button", { type: "submit", class: "primary" }, "Compare"));
  if (a && b) {
    try {
      const data = await api(`/v1/evald/runs/${encodeURIComponent(a)}/compare/${encodeURIComponent(b)}`);
      replace(result,
        h("p", {}, "A: ", link(runPath(data.a.id), {}, data.a.name), " · B: ", link(runPath(data.b.id), {}, data.b.name)),
        h("h2", {}, "Metrics"), metricsTable(data),
        h("h2", {}, "Rows that changed most"), changedRows(data));
    } catch (error) {
      replace(result, errorBox(error));
    }
  }
  return [h("h1", {}, "Compare runs"), form, result];
}, { title: "Compare", nav: "Compare", order: 20 });
