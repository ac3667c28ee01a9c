// Human evaluation: the rating page. One row at a time, the task's instructions above it;
// every choice is saved at once (so a rater can stop anywhere and resume), and the page opens
// at the first row not yet rated. Keyboard: 1–9 Likert points; a / b (t: tie) choice buttons;
// j or ↑ thumbs up, k or ↓ thumbs down; rank by pressing the models' numbers, best first;
// n / → next row, p / ← previous row.

import { errorBox, h, replace } from "../dom.js";
import { link, page } from "../router.js";
import { COMPARATIVE, MECHANISMS, needsRater, rateApi } from "./human-common.js";

const LETTERS = "ab";

function likertLabels(scale, comparative) {
  if (!comparative) return { low: "1: poor", high: `${scale}: excellent` };
  return { low: "1: A much better", high: `${scale}: B much better` };
}

/** Rating controls of one row: a Node, and a key handler for the page. */
function controls(task, row, save) {
  const models = task.models.map((m) => m.name);
  const mechanism = task.mechanism;
  const rated = row.ratings;
  // Individual mechanisms rate one model after the other: the cursor is the model keys go to.
  let cursor = Math.max(0, models.findIndex((m) => !(m in rated)));
  const pressed = (on) => (on ? "primary" : null);
  const state = (on) => (on ? "true" : "false"); // aria-pressed: the chosen value, for screen readers
  const holder = h("div", { "data-testid": "controls" });
  let rankOrder = [];

  const draw = () => {
    if (mechanism === "likert_comparison" || mechanism === "likert_individual") {
      const comparative = mechanism === "likert_comparison";
      const labels = likertLabels(task.scale, comparative);
      const targets = comparative ? [null] : models;
      replace(holder, targets.map((model, i) => h("div", { class: "toolbar", "data-testid": `likert-${model || "pair"}` },
        h("span", { class: "small" }, model ? `${!comparative && models.length > 1 && i === cursor ? "▶ " : ""}${model}:` : labels.low),
        Array.from({ length: task.scale }, (_, k) => k + 1).map((v) => h("button", {
          type: "button", class: pressed(rated[model || "pair"] === v), "aria-pressed": state(rated[model || "pair"] === v), "data-testid": `likert-${model || "pair"}-${v}`,
          on: { click: () => save(model, v) },
        }, String(v))),
        h("span", { class: "small" }, model ? "" : labels.high))));
    } else if (mechanism === "choice_buttons") {
      const options = [...models.map((m, i) => [m, `${LETTERS[i].toUpperCase()}: ${m}`]), ...(task.allow_tie ? [["tie", "T: tie"]] : [])];
      replace(holder, h("div", { class: "toolbar" }, options.map(([value, label]) => h("button", {
        type: "button", class: pressed(rated.pair === value), "aria-pressed": state(rated.pair === value), "data-testid": `choice-${value}`,
        on: { click: () => save(null, value) },
      }, label))));
    } else if (mechanism === "ordinal_rank") {
      const current = rated.pair || {};
      replace(holder, h("div", {},
        h("p", { class: "small muted" }, "Press the numbers of the responses from best to worst (rank 1 is the best)."),
        h("table", { "data-testid": "rank-table" }, h("tbody", {}, models.map((m) => h("tr", {},
          h("td", {}, m),
          models.map((_, k) => h("td", {}, h("button", {
            type: "button", class: pressed(current[m] === k + 1), "aria-pressed": state(current[m] === k + 1), "data-testid": `rank-${m}-${k + 1}`,
            on: { click: () => rankClick(m, k + 1) },
          }, String(k + 1))))))))));
    } else {
      replace(holder, models.map((m, i) => h("div", { class: "toolbar", "data-testid": `thumbs-${m}` },
        h("span", {}, `${models.length > 1 && i === cursor ? "▶ " : ""}${m}:`),
        h("button", { type: "button", class: pressed(rated[m] === "up"), "aria-pressed": state(rated[m] === "up"), "data-testid": `thumbs-${m}-up`, on: { click: () => save(m, "up") } }, "👍 up"),
        h("button", { type: "button", class: pressed(rated[m] === "down"), "aria-pressed": state(rated[m] === "down"), "data-testid": `thumbs-${m}-down`, on: { click: () => save(m, "down") } }, "👎 down"))));
    }
  };

  // Ranks by clicking: the model gets that rank; with two models the other one gets the other.
  const rankClick = (model, rank) => {
    if (models.length === 2) {
      const other = models.find((m) => m !== model);
      save(null, { [model]: rank, [other]: 3 - rank });
    }
  };

  const onKey = (key) => {
    if (mechanism === "likert_comparison" && /^[1-9]$/.test(key) && Number(key) <= task.scale) return save(null, Number(key));
    if (mechanism === "likert_individual" && /^[1-9]$/.test(key) && Number(key) <= task.scale) return save(models[cursor], Number(key));
    if (mechanism === "choice_buttons") {
      const index = LETTERS.indexOf(key);
      if (index >= 0) return save(null, models[index]);
      if (key === "t" && task.allow_tie) return save(null, "tie");
    }
    if (mechanism === "thumbs_up_down") {
      if (key === "j" || key === "ArrowUp") return save(models[cursor], "up");
      if (key === "k" || key === "ArrowDown") return save(models[cursor], "down");
    }
    if (mechanism === "ordinal_rank" && /^[1-9]$/.test(key) && Number(key) <= models.length) {
      const model = models[Number(key) - 1];
      if (!rankOrder.includes(model)) rankOrder.push(model);
      if (rankOrder.length === models.length - 1) {
        const rest = models.filter((m) => !rankOrder.includes(m));
        const order = [...rankOrder, ...rest];
        rankOrder = [];
        return save(null, Object.fromEntries(order.map((m, i) => [m, i + 1])));
      }
      return undefined;
    }
    return undefined;
  };

  const advanceCursor = (model) => {
    const at = models.indexOf(model);
    if (at >= 0 && at === cursor && cursor < models.length - 1) cursor += 1;
  };
  draw();
  return { node: holder, onKey, redraw: draw, advanceCursor };
}

page("/human/tasks/:id/rate", async (ctx) => {
  const id = ctx.params.id;
  let task;
  let queue;
  try {
    [task, queue] = await Promise.all([rateApi(`/tasks/${encodeURIComponent(id)}`), rateApi(`/tasks/${encodeURIComponent(id)}/queue`)]);
  } catch (error) {
    if (needsRater(error)) return [h("h1", {}, "Rate"), h("p", {}, "Say who you are on the ", link("/human", {}, "task list"), " first.")];
    throw error;
  }
  const comparative = COMPARATIVE.has(task.mechanism);
  const items = comparative ? 1 : task.models.length;
  if (!queue.rows.length) return [h("h1", {}, task.name), h("p", { class: "muted" }, "No row of this task is assigned to you.")];
  const wanted = ctx.query.has("row") ? Number(ctx.query.get("row")) : queue.next;
  let position = Math.max(0, queue.rows.indexOf(wanted === null ? queue.rows[0] : wanted));
  const done = new Map(queue.rows.map((r, i) => [r, queue.done[i]]));

  const status = h("p", { class: "small muted", "aria-live": "polite", "data-testid": "save-status" }, "");
  const progressText = h("span", { "data-testid": "progress" });
  const progressBar = h("progress", { max: queue.rows.length, value: 0, "aria-label": "rows rated" });
  const rowHolder = h("div", { "data-testid": "row" });
  let current = null;
  let saves = 0;

  const drawProgress = () => {
    const count = [...done.values()].filter(Boolean).length;
    progressBar.value = count;
    progressText.textContent = `${count} / ${queue.rows.length} rows rated · row ${position + 1} of ${queue.rows.length}`;
    // (positions among this rater's rows; headings give the dataset's row number from 1)
  };

  const show = async (at) => {
    position = Math.min(Math.max(at, 0), queue.rows.length - 1);
    const index = queue.rows[position];
    ctx.setQuery({ row: index });
    const row = await rateApi(`/tasks/${encodeURIComponent(id)}/rows/${index}`);
    if (!ctx.alive()) return;
    const save = async (model, value) => {
      const wasDone = done.get(index);
      replace(status, "Saving…");
      try {
        const json = model === null ? { value } : { value, model };
        await rateApi(`/tasks/${encodeURIComponent(id)}/rows/${index}/rating`, { method: "PUT", json });
      } catch (error) {
        replace(status, errorBox(error));
        return;
      }
      row.ratings[model === null ? "pair" : model] = value;
      const complete = Object.keys(row.ratings).length >= items;
      done.set(index, complete);
      replace(status, `Saved (row ${index}).`);
      drawProgress();
      current.advanceCursor(model);
      current.redraw();
      // A row just completed: on to the next row not yet rated (none left: stay).
      if (complete && !wasDone) {
        const next = queue.rows.findIndex((r, i) => i > position && !done.get(r));
        const first = next >= 0 ? next : queue.rows.findIndex((r) => !done.get(r));
        if (first >= 0) await show(first);
        else replace(status, "Saved. Every row assigned to you is rated — thank you.");
      }
      saves += 1;
      status.dataset.saves = String(saves); // for tests: this many saves are done and drawn
    };
    current = controls(task, row, save);
    const responses = task.models.map((m, i) => h("div", { class: "card", "data-testid": `response-${m.name}` },
      h("h3", {}, comparative ? `${LETTERS[i].toUpperCase()}: ${m.name}` : m.name),
      h("pre", {}, row.responses[m.name])));
    replace(rowHolder,
      h("h2", {}, `Dataset row ${index + 1} of ${task.rows}`, done.get(index) ? h("span", { class: "badge badge-succeeded", "data-state": "rated" }, " rated") : null),
      h("h3", {}, "Prompt"), h("pre", { "data-testid": "prompt" }, row.prompt),
      row.reference ? [h("h3", {}, "Reference"), h("pre", {}, row.reference)] : null,
      h("div", { class: responses.length > 1 ? "side" : "" }, responses),
      h("h3", {}, "Your rating"), current.node);
    drawProgress();
  };

  const onKey = (event) => {
    if (!ctx.alive() || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
    const key = event.key;
    if (key === "n" || key === "ArrowRight") { event.preventDefault(); show(position + 1); return; }
    if (key === "p" || key === "ArrowLeft") { event.preventDefault(); show(position - 1); return; }
    if (current && current.onKey(key) !== undefined) event.preventDefault();
  };
  document.addEventListener("keydown", onKey);
  ctx.onLeave(() => document.removeEventListener("keydown", onKey));
  const nav = h("div", { class: "pager" },
    h("button", { type: "button", "data-testid": "previous", on: { click: () => show(position - 1) } }, "← Previous (p)"),
    progressBar, progressText,
    h("button", { type: "button", "data-testid": "next", on: { click: () => show(position + 1) } }, "Next (n) →"));
  await show(position);
  return [
    h("h1", {}, task.name),
    h("p", { class: "muted small" }, `${MECHANISMS[task.mechanism]} · `, link("/human", {}, "all my tasks")),
    h("div", { class: "card", "data-testid": "instructions" }, h("h3", {}, "Instructions"), h("pre", {}, task.instructions || "(none)")),
    h("p", { class: "small muted" }, keysHelp(task.mechanism)),
    nav, status, rowHolder,
  ];
}, { title: "Rate", navPath: "/human" });

function keysHelp(mechanism) {
  const own = {
    likert_comparison: "1–9: the point on the scale",
    likert_individual: "1–9: the point on the scale (models in turn)",
    choice_buttons: "a / b: the better response, t: a tie",
    ordinal_rank: "numbers of the responses, best first",
    thumbs_up_down: "j or ↑: thumbs up, k or ↓: thumbs down (models in turn)",
  }[mechanism];
  return `Keys — ${own}; n / →: next row; p / ←: previous row. Every rating is saved at once.`;
}
