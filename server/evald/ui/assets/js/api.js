// Every data call of the UI goes through api(): it sends the API key (kept in sessionStorage,
// so it is forgotten with the tab) as x-goog-api-key, and when the server answers 401 it asks
// for a key and tries again.

import { h } from "./dom.js";

const KEY_ITEM = "evald.apiKey";
const listeners = new Set();

/** The key in use, or null. */
export function apiKey() {
  return sessionStorage.getItem(KEY_ITEM);
}

/** Use `key` from now on (null: none). */
export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY_ITEM, key);
  else sessionStorage.removeItem(KEY_ITEM);
  for (const listener of listeners) listener(apiKey());
}

/** Forget the key. */
export function signOut() {
  setApiKey(null);
}

/** Call `listener(key)` whenever the key changes. */
export function onKeyChange(listener) {
  listeners.add(listener);
}

/** A failed call: HTTP `status`, the server's message, and the parsed body. */
export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

function messageOf(status, body) {
  if (body && typeof body === "object") {
    if (body.error && body.error.message) return body.error.message;
    if (typeof body.detail === "string") return body.detail;
    if (Array.isArray(body.detail) && body.detail.length) return JSON.stringify(body.detail);
  }
  return `HTTP ${status}`;
}

/**
 * Call the server's HTTP API. `path` starts with "/" (e.g. "/v1/evald/runs"); options:
 * `method` (default GET, or POST with a body), `query` (object: added as ?k=v, null values
 * skipped), `json` (sent as application/json), `form` (a FormData, sent as multipart).
 * Returns the parsed JSON (null for an empty answer); throws ApiError.
 */
export async function api(path, options = {}) {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(options.query || {})) {
    if (value !== null && value !== undefined && value !== "") url.searchParams.set(name, String(value));
  }
  for (let attempt = 0; ; attempt++) {
    const headers = { "x-evald-ui": "1", accept: "application/json" };
    const key = apiKey();
    if (key) headers["x-goog-api-key"] = key;
    let body;
    if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      body = options.form; // the browser sets multipart/form-data with its boundary
    }
    const method = options.method || (body === undefined ? "GET" : "POST");
    let response;
    try {
      response = await fetch(url, { method, headers, body, cache: "no-store", credentials: "omit" });
    } catch (error) {
      throw new ApiError(0, `the server cannot be reached (${error.message})`, null);
    }
    const text = await response.text();
    let parsed = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch (_) {
      parsed = null;
    }
    if (response.status === 401 && attempt < 3) {
      await askForKey(messageOf(401, parsed));
      continue;
    }
    if (!response.ok) throw new ApiError(response.status, messageOf(response.status, parsed), parsed);
    return parsed;
  }
}

let pending = null;

/**
 * Show the key prompt (one at a time, shared by concurrent calls); resolves once a key is
 * entered, rejects (ApiError 401) if the user cancels.
 */
export function askForKey(reason) {
  if (pending) return pending;
  pending = new Promise((resolve, reject) => {
    const input = h("input", {
      type: "password", id: "api-key", name: "api-key", autocomplete: "off", required: true,
      "aria-describedby": "api-key-reason",
    });
    const close = () => {
      overlay.remove();
      pending = null;
    };
    const form = h(
      "form",
      {
        class: "dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "key-title",
        "data-testid": "key-prompt",
        on: {
          submit: (event) => {
            event.preventDefault();
            const key = input.value.trim();
            if (!key) return;
            setApiKey(key);
            close();
            resolve(key);
          },
          keydown: (event) => {
            if (event.key === "Escape") {
              close();
              reject(new ApiError(401, "no API key given", null));
            }
          },
        },
      },
      h("h2", { id: "key-title" }, "API key needed"),
      h("p", { id: "api-key-reason", class: "muted" }, reason || "The server asks for an API key."),
      h("label", { for: "api-key" }, "API key"),
      input,
      h("p", { class: "muted small" }, "Kept in this tab only (session storage), sent as x-goog-api-key."),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "submit", class: "primary" }, "Use key"),
        h("button", {
          type: "button",
          on: {
            click: () => {
              close();
              reject(new ApiError(401, "no API key given", null));
            },
          },
        }, "Cancel"),
      ),
    );
    const overlay = h("div", { class: "overlay" }, form);
    document.body.appendChild(overlay);
    input.focus();
  });
  return pending;
}
