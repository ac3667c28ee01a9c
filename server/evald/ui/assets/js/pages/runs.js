// The runs list: every job and imported run, with live progress while any is running.

import { api } from "../api.js";
import { badge, h, replace, when } from "../dom.js";
import { link, page } from "../router.js";

const POLL_MS = 2000;
const LIMIT = 50;

function progress(run) {
  const { done, total } = run.progress;
  if (!run.active) return h("span", { class: "muted small" }, `${done}${total ? ` / ${total}` : ""} rows`);
  return h(
    "span", {},
    h("progress", { max: total || 1, value: done, "aria-label": `${done} of ${total} rows` }),
    " ", h("span", { class: "small" }, `${done} / ${total || "?"}`),
  );
}

function table(runs) {
  if (!runs.length) {
    return h("p", { class: "muted" }, "No runs yet. Start a dataset job, or ", link("/import", {}, "import"), " an evald evaluate output.");
  }
  return h(
    "div", { class: "table-wrap" },
    h(
      "table", { "data-testid": "runs-table" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "Run"), h("th", { scope: "col" }, "Source"), h("th", { scope: "col" }, "Status"),
        h("th", { scope: "col" }, "Progress"), h("th", { scope: "col" }, "Metrics"), h("th", { scope: "col" }, "Created"))),
      h("tbody", {}, runs.map((run) => h("tr", { "data-testid": `run-${run.id}` },
        h("td", {}, link(`/runs/${encodeURIComponent(run.id)}`, {}, run.name), h("div", { class: "muted small mono" }, run.id)),
        h("td", {}, run.source),
        h("td", {}, badge(run.status), run.error ? h("div", { class: "small neg" }, run.error) : null),
        h("td", {}, progress(run)),
        h("td", { class: "small" }, run.metrics.join(", ") || "—"),
        h("td", { class: "small" }, when(run.created)),
      ))),
    ),
  );
}

page("/runs", async (ctx) => {
  const offset = Number(ctx.query.get("offset") || 0);
  const holder = h("div", {});
  const pager = h("div", { class: "pager" });
  const load = async () => {
    const data = await api("/v1/evald/runs", { query: { offset, limit: LIMIT } });
    if (!ctx.alive()) return false;
    replace(holder, table(data.runs));
    replace(
      pager,
      offset > 0 ? link(`/runs?offset=${Math.max(0, offset - LIMIT)}`, {}, "← Newer") : null,
      h("span", { class: "muted small" }, `${data.total ? offset + 1 : 0}–${offset + data.runs.length} of ${data.total}`),
      offset + LIMIT < data.total ? link(`/runs?offset=${offset + LIMIT}`, {}, "Older →") : null,
    );
    return data.runs.some((run) => run.active);
  };
  let polling = await load();
  // While a run is running, refresh its progress; stop once none is.
  ctx.every(POLL_MS, async () => {
    if (!polling) return;
    try {
      polling = await load();
    } catch (_) {
      /* a failed refresh keeps the last table */
    }
  });
  return [
    h("h1", {}, "Runs"),
    h("div", { class: "toolbar" }, link("/compare", {}, "Compare two runs"), link("/import", {}, "Import a run")),
    holder,
    pager,
  ];
}, { title: "Runs", nav: "Runs", order: 10 });

page("/", null, { redirect: "/runs" });
