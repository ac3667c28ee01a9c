// One run: summary table with confidence intervals, histograms, category breakdown, error
// groups, and the rows (filter, sort, search, pages).

import { api } from "../api.js";
import { histogram } from "../chart.js";
import { badge, errorBox, fmt, h, replace, when } from "../dom.js";
import { link, page } from "../router.js";

const POLL_MS = 2000;
const LIMIT = 25;

export function runPath(id) {
  return `/runs/${encodeURIComponent(id)}`;
}

export function runHeader(run) {
  const { done, total, failed } = run.progress;
  return h(
    "div", {},
    h("h1", {}, run.name, " ", badge(run.status)),
    h("dl", { class: "kv" },
      h("dt", {}, "Run"), h("dd", { class: "mono" }, run.id),
      h("dt", {}, "Source"), h("dd", {}, run.source, run.job ? h("span", { class: "muted small mono" }, ` (${run.job})`) : null),
      h("dt", {}, "Rows"), h("dd", { "data-testid": "run-progress" }, `${done}${total ? ` of ${total}` : ""}${failed ? `, ${failed} with errors` : ""}`),
      h("dt", {}, "Created"), h("dd", {}, when(run.created)),
      run.error ? [h("dt", {}, "Error"), h("dd", { class: "neg" }, run.error)] : null,
    ),
  );
}

function ci(interval) {
  if (!interval) return "—";
  return `[${fmt(interval[0])}, ${fmt(interval[1])}]`;
}

function summaryTable(data) {
  return h("div", { class: "table-wrap" }, h("table", { "data-testid": "summary-table" },
    h("thead", {}, h("tr", {},
      ["Metric", "n", "Errors", "Mean", "SD", "95% CI", "Min", "Max"].map((t, i) => h("th", { scope: "col", class: i ? "num" : null }, t)))),
    h("tbody", {}, data.summary.map((m) => h("tr", {},
      h("th", { scope: "row" }, m.metric),
      h("td", { class: "num" }, m.n),
      h("td", { class: m.errors ? "num neg" : "num" }, m.errors),
      h("td", { class: "num" }, fmt(m.mean)),
      h("td", { class: "num" }, fmt(m.sd)),
      h("td", { class: "num" }, ci(m.ci95)),
      h("td", { class: "num" }, fmt(m.min)),
      h("td", { class: "num" }, fmt(m.max)),
    ))),
  ), h("p", { class: "muted small" }, `95% confidence interval of the mean: ${data.ci_method}. Errored and NaN scores are left out of every statistic.`));
}

function histograms(data) {
  return h("div", { class: "cards" }, data.summary.map((m) => h("div", { class: "card" },
    h("h3", {}, m.metric), histogram(data.histograms[m.metric] || {}, m.metric))));
}

function categoryTable(data) {
  if (!data.categories.length) return null;
  const metrics = data.summary.map((m) => m.metric);
  return [
    h("h2", {}, "By category"),
    h("div", { class: "table-wrap" }, h("table", { "data-testid": "category-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Category"), h("th", { scope: "col", class: "num" }, "Rows"),
        metrics.map((m) => h("th", { scope: "col", class: "num" }, m)))),
      h("tbody", {}, data.categories.map((c) => h("tr", {},
        h("th", { scope: "row" }, c.category),
        h("td", { class: "num" }, c.rows),
        c.metrics.map((m) => h("td", { class: "num", title: `n=${m.n}, errors=${m.errors}, CI ${ci(m.ci95)}` }, fmt(m.mean))),
      ))),
    )),
  ];
}

function errorGroups(run, data) {
  if (!data.error_groups.length) return null;
  return [
    h("h2", {}, `Errors (${data.rows_with_errors} ${data.rows_with_errors === 1 ? "row" : "rows"})`),
    h("div", { class: "table-wrap" }, h("table", { "data-testid": "error-groups" },
      h("thead", {}, h("tr", {}, ["Metric", "Code", "Message", "Rows", "Examples"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, data.error_groups.map((g) => h("tr", {},
        h("td", {}, g.metric), h("td", { class: "mono small" }, g.code), h("td", {}, g.message),
        h("td", { class: "num" }, g.count),
        h("td", {}, g.rows.map((i) => [link(`${runPath(run.id)}/rows/${i}`, {}, `#${i}`), " "])),
      ))),
    )),
  ];
}

function field(label, control) {
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control);
}

function rowsSection(ctx, run, metrics) {
  const q = ctx.query;
  const search = h("input", { id: "rows-q", type: "search", placeholder: "prompt, response, reference", props: { value: q.get("q") || "" } });
  const errors = h("select", { id: "rows-errors" },
    h("option", { value: "" }, "all rows"), h("option", { value: "true" }, "with errors"), h("option", { value: "false" }, "without errors"));
  errors.value = q.get("has_error") || "";
  const metric = h("select", { id: "rows-metric" }, h("option", { value: "" }, "—"), metrics.map((m) => h("option", { value: m }, m)));
  metric.value = q.get("metric") || "";
  const min = h("input", { id: "rows-min", type: "number", step: "any", size: 6, props: { value: q.get("min") || "" } });
  const max = h("input", { id: "rows-max", type: "number", step: "any", size: 6, props: { value: q.get("max") || "" } });
  const sort = h("select", { id: "rows-sort" },
    h("option", { value: "row" }, "row number"), h("option", { value: "-row" }, "row number, last first"),
    h("option", { value: "-error" }, "most errors first"), h("option", { value: "metric" }, "metric score, lowest first"),
    h("option", { value: "-metric" }, "metric score, highest first"));
  sort.value = q.get("sort") || "row";
  let offset = Number(q.get("offset") || 0);
  const status = h("p", { class: "muted small", "aria-live": "polite" });
  const holder = h("div", {});
  const pager = h("div", { class: "pager" });

  const state = () => ({
    q: search.value.trim(), has_error: errors.value, metric: metric.value, min: min.value, max: max.value,
    sort: sort.value === "row" ? "" : sort.value, offset: offset || "",
  });
  const load = async () => {
    const values = state();
    ctx.setQuery(values);
    let data;
    try {
      data = await api(`/v1/evald/runs/${encodeURIComponent(run.id)}/rows`, { query: { ...values, limit: LIMIT } });
    } catch (error) {
      replace(holder, errorBox(error));
      replace(status);
      replace(pager);
      return;
    }
    if (!ctx.alive()) return;
    replace(status, `${data.total} rows match`);
    replace(holder, rowsTable(run, data.rows, metrics));
    replace(pager,
      h("button", { type: "button", disabled: offset <= 0, on: { click: () => { offset = Math.max(0, offset - LIMIT); load(); } } }, "← Previous"),
      h("span", { class: "muted small" }, data.total ? `${offset + 1}–${offset + data.rows.length} of ${data.total}` : "none"),
      h("button", { type: "button", disabled: offset + LIMIT >= data.total, on: { click: () => { offset += LIMIT; load(); } } }, "Next →"),
    );
  };
  const apply = (event) => {
    event.preventDefault();
    offset = 0;
    load();
  };
  for (const control of [errors, metric, sort]) control.addEventListener("change", apply);
  const form = h("form", { class: "toolbar", role: "search", "aria-label": "Filter rows", on: { submit: apply } },
    field("Search", search), field("Rows", errors), field("Metric", metric), field("Score ≥", min), field("Score ≤", max),
    field("Sort by", sort), h("button", { type: "submit", class: "primary" }, "Apply"));
  load();
  return [h("h2", { id: "rows" }, "Rows"), form, status, holder, pager];
}

function rowsTable(run, rows, metrics) {
  if (!rows.length) return h("p", { class: "muted" }, "No rows match.");
  return h("div", { class: "table-wrap" }, h("table", { "data-testid": "rows-table" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", class: "num" }, "#"), h("th", { scope: "col" }, "Prompt"), h("th", { scope: "col" }, "Response"),
      metrics.map((m) => h("th", { scope: "col", class: "num" }, m)), h("th", { scope: "col" }, "Errors"))),
    h("tbody", {}, rows.map((row) => h("tr", { "data-testid": `row-${row.index}` },
      h("td", { class: "num" }, link(`${runPath(run.id)}/rows/${row.index}`, { "aria-label": `Row ${row.index}` }, String(row.index))),
      h("td", { class: "cell-text", title: row.prompt || "" }, row.prompt || "—"),
      h("td", { class: "cell-text", title: row.response || "" }, row.response || "—"),
      metrics.map((m) => h("td", { class: "num" }, m in row.errors ? h("span", { class: "neg", title: row.errors[m] }, "error") : fmt(row.scores[m]))),
      h("td", { class: "small neg" }, Object.keys(row.errors).join(", ")),
    ))),
  ));
}

page("/runs/:id", async (ctx) => {
  const id = ctx.params.id;
  const data = await api(`/v1/evald/runs/${encodeURIComponent(id)}`);
  document.title = `${data.run.name} · evald`;
  const header = h("div", {}, runHeader(data.run));
  const stats = h("div", {});
  const draw = (found) => {
    replace(header, runHeader(found.run));
    replace(stats,
      h("h2", {}, "Summary"), summaryTable(found),
      h("h2", {}, "Score distribution"), histograms(found),
      categoryTable(found), errorGroups(found.run, found));
  };
  draw(data);
  if (data.run.active) {
    let active = true;
    ctx.every(POLL_MS, async () => {
      if (!active) return;
      const found = await api(`/v1/evald/runs/${encodeURIComponent(id)}`);
      if (ctx.alive()) draw(found);
      active = found.run.active;
    });
  }
  const metrics = data.summary.map((m) => m.metric);
  return [
    h("p", {}, link("/runs", {}, "← Runs"), " · ", link(`/compare?a=${encodeURIComponent(id)}`, {}, "Compare with another run")),
    header, stats, rowsSection(ctx, data.run, metrics),
  ];
}, { title: "Run", navPath: "/runs" });
