// Shared by the human-evaluation pages: API paths, the rater name used when the server runs
// without API keys, and how each mechanism is named.

import { ApiError, api } from "../api.js";

export const HUMAN = "/v1/evald/human";
const RATER_ITEM = "evald.rater";

export const MECHANISMS = {
  likert_comparison: "Likert scale – comparison",
  choice_buttons: "Choice buttons",
  ordinal_rank: "Ordinal rank",
  thumbs_up_down: "Thumbs up/down",
  likert_individual: "Likert scale – individual",
};
export const COMPARATIVE = new Set(["likert_comparison", "choice_buttons", "ordinal_rank"]);

/** The rater name this tab rates as when the server has no API keys (else null). */
export function raterName() {
  return sessionStorage.getItem(RATER_ITEM);
}

export function setRaterName(name) {
  if (name) sessionStorage.setItem(RATER_ITEM, name);
  else sessionStorage.removeItem(RATER_ITEM);
}

/** api() for a rating call: adds the rater name (only used by a server without keys). */
export function rateApi(path, options = {}) {
  const rater = raterName();
  const query = { ...(options.query || {}) };
  if (rater) query.rater = rater;
  const json = options.json && rater ? { ...options.json, rater } : options.json;
  return api(`${HUMAN}${path}`, { ...options, query, json });
}

/** Whether an error says the server wants a rater name (it runs without API keys). */
export function needsRater(error) {
  return error instanceof ApiError && error.status === 400 && /\brater\b/.test(error.message);
}

export function taskPath(id, rest = "") {
  return `/human/tasks/${encodeURIComponent(id)}${rest}`;
}

export function percent(value) {
  return value === null || value === undefined ? "—" : `${value.toFixed(1)}%`;
}

/** Finished runs a task can come from or be compared with: SUCCEEDED Vertex dataset jobs and
 * imported runs (the runs API's IDs, which the human-evaluation API accepts). */
export async function finishedRuns() {
  const data = await api("/v1/evald/runs", { query: { limit: 200 } });
  return data.runs.filter((r) => (r.source === "vertex" || r.source === "import") && r.status === "SUCCEEDED");
}
