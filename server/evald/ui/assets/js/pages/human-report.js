// Human evaluation: a task's page for admins — its details, the report (FMEval's figures as
// SVG histograms and percentages, inter-rater agreement, agreement with a judge metric), and
// the JSONL export.

import { api, apiKey } from "../api.js";
import { histogram } from "../chart.js";
import { errorBox, fmt, h, replace, when } from "../dom.js";
import { link, navigate, page } from "../router.js";
import { HUMAN, MECHANISMS, finishedRuns, percent, taskPath } from "./human-common.js";

/** Integer bins 1..n as the chart wants them (edges at the half points). */
function bins(histo) {
  const keys = Object.keys(histo).map(Number).sort((a, b) => a - b);
  return { edges: [...keys.map((k) => k - 0.5), keys[keys.length - 1] + 0.5], counts: keys.map((k) => histo[String(k)]) };
}

function histogramCard(title, testid, histo, extra) {
  return h("div", { class: "card", "data-testid": testid },
    h("h3", {}, title),
    histogram(bins(histo), title),
    h("table", {}, h("tbody", {},
      h("tr", {}, Object.keys(histo).map((k) => h("th", { class: "num" }, k))),
      h("tr", {}, Object.entries(histo).map(([k, v]) => h("td", { class: "num", "data-testid": `${testid}-${k}` }, String(v)))))),
    extra || null);
}

function sharesTable(preferred, labels) {
  return h("table", { "data-testid": "preferred" },
    h("thead", {}, h("tr", {}, h("th", {}, "Preferred"), h("th", { class: "num" }, "Ratings"), h("th", { class: "num" }, "Share"))),
    h("tbody", {}, Object.keys(preferred.counts).map((k) => h("tr", {},
      h("td", {}, labels[k] || k),
      h("td", { class: "num", "data-testid": `preferred-count-${k}` }, String(preferred.counts[k])),
      h("td", { class: "num", "data-testid": `preferred-pct-${k}` }, percent(preferred.percent[k]))))));
}

function figures(report) {
  const parts = [];
  if (report.likert) {
    parts.push(h("div", { class: "cards" }, Object.entries(report.likert).map(([m, f]) =>
      histogramCard(`Likert ratings: ${m}`, `likert-${m}`, f.histogram,
        h("p", { class: "small" }, "Mean ", h("span", { "data-testid": `likert-${m}-mean` }, fmt(f.mean, 2)), ` over ${f.count} ratings`)))));
  }
  if (report.preference_strength) {
    parts.push(h("div", { class: "cards" }, histogramCard("Preference strength (1: A much better … B much better)", "strength",
      report.preference_strength.histogram)));
  }
  if (report.preferred) {
    parts.push(h("h3", {}, "Preferred model"), sharesTable(report.preferred, { tie: "tie", no_preference: "no preference" }));
  }
  if (report.rank) {
    parts.push(h("div", { class: "cards" }, Object.entries(report.rank).map(([m, f]) =>
      histogramCard(`Ranks given to ${m}`, `rank-${m}`, f.histogram,
        h("p", { class: "small" }, "Mean rank ", h("span", { "data-testid": `rank-${m}-mean` }, fmt(f.mean_rank, 2)))))));
  }
  if (report.thumbs) {
    parts.push(h("table", { "data-testid": "thumbs" },
      h("thead", {}, h("tr", {}, ["Model", "Up", "Down", "Thumbs up"].map((t, i) => h("th", { class: i ? "num" : null }, t)))),
      h("tbody", {}, Object.entries(report.thumbs).map(([m, f]) => h("tr", {},
        h("td", {}, m),
        h("td", { class: "num", "data-testid": `thumbs-${m}-up` }, String(f.up)),
        h("td", { class: "num", "data-testid": `thumbs-${m}-down` }, String(f.down)),
        h("td", { class: "num", "data-testid": `thumbs-${m}-pct` }, percent(f.up_percent)))))));
  }
  return parts;
}

const STAT_NAMES = {
  krippendorff_alpha: "Krippendorff's alpha",
  cohen_kappa: "Cohen's kappa",
  fleiss_kappa: "Fleiss' kappa",
};

function statRow(label, testid, stat) {
  return h("tr", {},
    h("td", {}, label),
    h("td", { class: "num", "data-testid": testid }, stat.value === null ? "—" : fmt(stat.value, 3)),
    h("td", { class: "num" }, String(stat.n)),
    h("td", { class: "small muted" }, stat.reason || ""));
}

function agreement(report) {
  return h("table", { "data-testid": "agreement" },
    h("thead", {}, h("tr", {}, ["Statistic", "Value", "n", "Note"].map((t, i) => h("th", { class: i === 1 || i === 2 ? "num" : null }, t)))),
    h("tbody", {}, Object.entries(report.agreement).map(([name, stat]) =>
      statRow(`${STAT_NAMES[name]}${stat.level ? ` (${stat.level})` : ""}`, `agreement-${name}`, stat))));
}

function judge(report) {
  if (!report.judge) return null;
  return h("table", { "data-testid": "judge" },
    h("thead", {}, h("tr", {}, ["Human score vs metric", "Spearman", "Rows", "Note"].map((t) => h("th", {}, t)))),
    h("tbody", {}, Object.entries(report.judge.spearman).map(([series, stat]) =>
      statRow(series === "pair" ? "preference for A" : series, `spearman-${series}`, stat))));
}

async function download(task) {
  const headers = { "x-evald-ui": "1" };
  const key = apiKey();
  if (key) headers["x-goog-api-key"] = key;
  const response = await fetch(`${HUMAN}/tasks/${encodeURIComponent(task.id)}/export`, { headers, credentials: "omit" });
  if (!response.ok) throw new Error(`export failed: HTTP ${response.status}`);
  const blob = await response.blob();
  const anchor = h("a", { download: `${task.id}-ratings.jsonl` });
  anchor.href = URL.createObjectURL(blob); // our own blob: not a URL from the data
  document.body.appendChild(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(anchor.href), 1000);
}

/** Delete in two clicks (no confirm(): the page stays free of dialogs). */
function deleteButton(id, outcome) {
  let armed = false;
  const button = h("button", {
    type: "button", "data-testid": "delete-task",
    on: {
      click: async () => {
        if (!armed) {
          armed = true;
          button.textContent = "Click again to delete the task and its ratings";
          return;
        }
        try {
          await api(`${HUMAN}/tasks/${encodeURIComponent(id)}`, { method: "DELETE" });
          navigate("/human");
        } catch (error) {
          replace(outcome, errorBox(error));
        }
      },
    },
  }, "Delete task");
  return button;
}

page("/human/tasks/:id", async (ctx) => {
  const id = ctx.params.id;
  const task = await api(`${HUMAN}/tasks/${encodeURIComponent(id)}`);
  const runs = await finishedRuns();
  const wantedRun = ctx.query.get("run") || "";
  const runInput = h("select", { id: "judge-run" }, h("option", { value: "" }, "(choose a run)"),
    runs.map((r) => h("option", { value: r.id, selected: r.id === wantedRun }, `${r.name} (${r.id})`)));
  const metricInput = h("select", { id: "judge-metric" });
  const drawMetrics = (wanted) => {
    const chosen = runs.find((r) => r.id === runInput.value);
    replace(metricInput, (chosen ? chosen.metrics : []).map((m) => h("option", { value: m, selected: m === wanted }, m)));
  };
  runInput.addEventListener("change", () => drawMetrics(""));
  drawMetrics(ctx.query.get("metric") || "");
  const holder = h("div", { "data-testid": "report" });
  const judgeHolder = h("div", {});
  const load = async () => {
    const run = runInput.value;
    const metric = metricInput.value;
    ctx.setQuery({ run, metric });
    try {
      const report = await api(`${HUMAN}/tasks/${encodeURIComponent(id)}/report`, { query: run && metric ? { run, metric } : {} });
      if (!ctx.alive()) return;
      const c = report.counts;
      replace(judgeHolder, report.judge ? judge(report) : null);
      replace(holder,
        h("h2", {}, "Counts"),
        h("dl", { class: "kv", "data-testid": "counts" },
          h("dt", {}, "Rows"), h("dd", { "data-testid": "count-rows" }, String(c.rows)),
          h("dt", {}, "Ratings"), h("dd", { "data-testid": "count-ratings" }, String(c.ratings)),
          h("dt", {}, "Rows rated"), h("dd", { "data-testid": "count-rows-rated" }, String(c.rows_rated)),
          h("dt", {}, "Rows fully rated"), h("dd", { "data-testid": "count-rows-complete" }, String(c.rows_complete)),
          h("dt", {}, "Ratings by rater"), h("dd", { "data-testid": "count-by-rater" },
            Object.entries(c.ratings_by_rater).map(([r, n]) => `${r}: ${n}`).join(", "))),
        h("h2", {}, "Results"), figures(report),
        h("h2", {}, "Agreement between raters"), agreement(report));
    } catch (error) {
      if (ctx.alive()) replace(run && metric ? judgeHolder : holder, errorBox(error));
    }
  };
  const exportOutcome = h("span", { "aria-live": "polite" });
  await load();
  return [
    h("h1", {}, task.name),
    h("dl", { class: "kv", "data-testid": "task-details" },
      h("dt", {}, "Mechanism"), h("dd", {}, MECHANISMS[task.mechanism]),
      h("dt", {}, "Models"), h("dd", {}, task.models.map((m) => `${m.name} (${m.column})`).join(" vs ")),
      h("dt", {}, "Raters"), h("dd", {}, `${task.raters.join(", ")} — ${task.raters_per_row} per row`),
      h("dt", {}, "Rows"), h("dd", {}, String(task.rows)),
      h("dt", {}, "Created"), h("dd", {}, `${when(task.create_time)} by ${task.creator}`),
      h("dt", {}, "Instructions"), h("dd", {}, h("pre", {}, task.instructions || "(none)"))),
    h("div", { class: "actions" },
      link(taskPath(id, "/rate"), { "data-testid": "rate-link" }, "Rate this task"),
      h("button", { type: "button", "data-testid": "export", on: { click: () => download(task).catch((e) => replace(exportOutcome, errorBox(e))) } }, "Export ratings (JSONL)"),
      deleteButton(id, exportOutcome),
      exportOutcome),
    holder,
    h("h2", {}, "Agreement with a judge metric"),
    h("p", { class: "muted small" }, "Spearman's correlation between each row's mean human score and a metric's score of the same row in a finished run (rows matched by index)."),
    h("form", { class: "toolbar", "data-testid": "judge-form", on: { submit: (event) => { event.preventDefault(); load(); } } },
      h("div", { class: "field" }, h("label", { for: "judge-run" }, "Run"), runInput),
      h("div", { class: "field" }, h("label", { for: "judge-metric" }, "Metric"), metricInput),
      h("button", { type: "submit" }, "Compare")),
    judgeHolder,
  ];
}, { title: "Human-evaluation task", navPath: "/human" });
