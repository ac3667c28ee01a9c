// Human evaluation: the task list (my tasks to rate; every task for admins) and task creation.

import { ApiError, api } from "../api.js";
import { errorBox, h, replace, when } from "../dom.js";
import { link, navigate, page } from "../router.js";
import { COMPARATIVE, HUMAN, MECHANISMS, finishedRuns, needsRater, rateApi, raterName, setRaterName, taskPath } from "./human-common.js";

function progress(done, total) {
  return h("span", {},
    h("progress", { max: total || 1, value: done, "aria-label": `${done} of ${total} ratings` }),
    " ", h("span", { class: "small" }, `${done} / ${total}`));
}

function raterForm(ctx) {
  const input = h("input", { id: "rater-name", type: "text", maxlength: 64, required: true, value: raterName() || "" });
  return h("form", {
    class: "card", "data-testid": "rater-form",
    on: { submit: (event) => { event.preventDefault(); setRaterName(input.value.trim()); ctx.redraw(); } },
  },
  h("p", {}, "This server runs without API keys: say who you are (unauthenticated, trusted networks only)."),
  h("div", { class: "toolbar" }, h("div", { class: "field" }, h("label", { for: "rater-name" }, "Rater name"), input),
    h("button", { type: "submit", class: "primary" }, "Rate as this name")));
}

async function myTasks(ctx) {
  let data;
  try {
    data = await rateApi("/my/tasks");
  } catch (error) {
    if (needsRater(error)) return raterForm(ctx);
    throw error;
  }
  if (!data.tasks.length) return h("p", { class: "muted", "data-testid": "no-tasks" }, "No task is assigned to you.");
  return h("div", { class: "table-wrap" }, h("table", { "data-testid": "my-tasks" },
    h("thead", {}, h("tr", {}, ["Task", "Mechanism", "Your progress", ""].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, data.tasks.map((t) => h("tr", { "data-testid": `my-task-${t.id}` },
      h("td", {}, t.name),
      h("td", {}, MECHANISMS[t.mechanism]),
      h("td", {}, progress(t.ratings, t.ratings_expected)),
      h("td", {}, link(taskPath(t.id, "/rate"), { class: "button", "data-testid": `rate-${t.id}` },
        t.ratings >= t.ratings_expected ? "Review" : t.ratings ? "Resume" : "Start")))))));
}

async function allTasks() {
  let data;
  try {
    data = await api(`${HUMAN}/tasks`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return null; // an annotator key
    throw error;
  }
  return [
    h("h2", {}, "All tasks"),
    h("p", {}, link("/human/new", { "data-testid": "new-task" }, "New task…")),
    data.tasks.length ? h("div", { class: "table-wrap" }, h("table", { "data-testid": "all-tasks" },
      h("thead", {}, h("tr", {}, ["Task", "Mechanism", "Models", "Raters", "Ratings", "Created"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, data.tasks.map((t) => h("tr", { "data-testid": `task-${t.id}` },
        h("td", {}, link(taskPath(t.id), {}, t.name), h("div", { class: "muted small mono" }, t.id)),
        h("td", {}, MECHANISMS[t.mechanism]),
        h("td", {}, t.models.map((m) => m.name).join(" vs ")),
        h("td", { class: "small" }, `${t.raters.join(", ")} (${t.raters_per_row} per row)`),
        h("td", {}, progress(t.ratings, t.ratings_expected)),
        h("td", { class: "small" }, when(t.create_time))))))) : h("p", { class: "muted" }, "No task yet."),
  ];
}

page("/human", async (ctx) => {
  const [mine, all] = await Promise.all([myTasks(ctx), allTasks()]);
  return [h("h1", {}, "Human evaluation"), h("h2", {}, "Assigned to me"), mine, all];
}, { title: "Human evaluation", nav: "Human eval", order: 40 });

function field(id, label, control, hint) {
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint ? h("span", { class: "muted small" }, hint) : null);
}

page("/human/new", async () => {
  const mechanism = h("select", { id: "task-mechanism", name: "mechanism" },
    Object.entries(MECHANISMS).map(([value, label]) => h("option", { value }, label)));
  const name = h("input", { id: "task-name", type: "text", maxlength: 200, placeholder: "e.g. helpfulness, model x vs y" });
  const modelA = h("input", { id: "task-model-a", type: "text", required: true, placeholder: "model A name" });
  const columnA = h("input", { id: "task-column-a", type: "text", value: "response" });
  const modelB = h("input", { id: "task-model-b", type: "text", placeholder: "model B name (comparisons)" });
  const columnB = h("input", { id: "task-column-b", type: "text", value: "baseline_response" });
  const instructions = h("textarea", { id: "task-instructions", name: "instructions", maxlength: 20000 });
  const raters = h("input", { id: "task-raters", type: "text", required: true, placeholder: "ann, bob (API key names)" });
  const perRow = h("input", { id: "task-per-row", type: "number", min: 1, value: 1 });
  const scale = h("input", { id: "task-scale", type: "number", min: 3, max: 10, value: 5 });
  const tie = h("input", { id: "task-tie", type: "checkbox" });
  const source = h("select", { id: "task-source" },
    h("option", { value: "jsonl" }, "JSONL rows (pasted)"), h("option", { value: "path" }, "Server file (under the dataset root)"),
    h("option", { value: "run" }, "A finished run (dataset job or import)"));
  const jsonl = h("textarea", { id: "task-jsonl", placeholder: '{"prompt": "…", "response": "…", "baseline_response": "…"}' });
  const path = h("input", { id: "task-path", type: "text", placeholder: "rows.jsonl" });
  const runs = await finishedRuns();
  const run = h("select", { id: "task-run" },
    runs.length ? null : h("option", { value: "" }, "(no finished run)"),
    runs.map((r) => h("option", { value: r.id }, `${r.name} — ${r.progress.total} rows (${r.id})`)));
  const sourceFields = { jsonl: field("task-jsonl", "Rows (JSONL)", jsonl), path: field("task-path", "File", path), run: field("task-run", "Run", run) };
  const sourceHolder = h("div", { class: "toolbar" });
  const showSource = () => replace(sourceHolder, sourceFields[source.value]);
  source.addEventListener("change", showSource);
  showSource();
  const outcome = h("div", { "aria-live": "polite" });
  const submit = h("button", { type: "submit", class: "primary", "data-testid": "create-task" }, "Create task");
  const body = () => {
    const models = [{ name: modelA.value.trim(), column: columnA.value.trim() || "response" }];
    if (modelB.value.trim()) models.push({ name: modelB.value.trim(), column: columnB.value.trim() || "baseline_response" });
    const dataset = source.value === "jsonl" ? { jsonl: jsonl.value } : source.value === "path" ? { path: path.value.trim() } : { run: run.value };
    const spec = {
      name: name.value.trim(), mechanism: mechanism.value, models, instructions: instructions.value,
      raters: raters.value.split(",").map((r) => r.trim()).filter(Boolean),
      raters_per_row: Number(perRow.value), scale: Number(scale.value), dataset,
    };
    if (mechanism.value === "choice_buttons") spec.allow_tie = tie.checked;
    return spec;
  };
  const form = h("form", {
    class: "card", "data-testid": "task-form",
    on: {
      submit: async (event) => {
        event.preventDefault();
        submit.disabled = true;
        try {
          const task = await api(`${HUMAN}/tasks`, { method: "POST", json: body() });
          navigate(taskPath(task.id));
        } catch (error) {
          replace(outcome, errorBox(error));
        } finally {
          submit.disabled = false;
        }
      },
    },
  },
  h("div", { class: "toolbar" }, field("task-name", "Name", name), field("task-mechanism", "Rating mechanism", mechanism)),
  h("p", { class: "muted small" }, `Comparisons (${[...COMPARATIVE].map((m) => MECHANISMS[m]).join(", ")}) need two models; the others rate one or two models' responses each on their own.`),
  h("div", { class: "toolbar" }, field("task-model-a", "Model A", modelA), field("task-column-a", "its response column", columnA)),
  h("div", { class: "toolbar" }, field("task-model-b", "Model B", modelB), field("task-column-b", "its response column", columnB)),
  h("div", { class: "toolbar" }, field("task-instructions", "Instructions for raters", instructions)),
  h("div", { class: "toolbar" }, field("task-raters", "Raters", raters, "comma-separated"), field("task-per-row", "Raters per row", perRow),
    field("task-scale", "Likert points", scale), field("task-tie", "Choice: allow a tie", tie)),
  h("div", { class: "toolbar" }, field("task-source", "Rows from", source)),
  sourceHolder,
  submit);
  return [h("h1", {}, "New human-evaluation task"), form, outcome];
}, { title: "New task", navPath: "/human" });
