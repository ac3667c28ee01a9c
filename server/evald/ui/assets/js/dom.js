// Building the DOM, escaping by construction: text only ever becomes a Text node
// (createTextNode), attributes only pass an allow-list (setAttribute), links only take
// relative paths or http(s) URLs, and event handlers are functions of this code, never strings.

const SVG_NS = "http://www.w3.org/2000/svg";
const SVG_TAGS = new Set(["svg", "g", "rect", "line", "path", "text", "title", "polyline", "circle"]);

const ATTRIBUTES = new Set([
  "id", "class", "type", "name", "value", "placeholder", "title", "role", "for", "tabindex",
  "colspan", "rowspan", "scope", "min", "max", "step", "accept", "autocomplete", "inputmode",
  "maxlength", "size", "rel", "target", "lang", "datetime", "open", "checked", "disabled",
  "required", "selected", "multiple", "autofocus", "readonly", "hidden", "download",
  "aria-label", "aria-live", "aria-sort", "aria-current", "aria-expanded", "aria-hidden", "aria-pressed",
  "aria-describedby", "aria-labelledby", "aria-modal", "aria-busy", "aria-invalid",
  "data-testid", "data-state", "data-kind", "data-metric",
  // SVG geometry and paint
  "viewBox", "width", "height", "x", "y", "x1", "x2", "y1", "y2", "d", "fill", "stroke",
  "stroke-width", "text-anchor", "dominant-baseline", "transform", "points", "rx", "r", "cx",
  "cy", "font-size", "preserveAspectRatio", "opacity",
]);
const URL_ATTRIBUTES = new Set(["href"]);

/** A URL safe to put in href: a same-origin path ("/ui/..."), a fragment, or http(s). */
export function safeUrl(value) {
  const text = String(value);
  // A path of this site; "//host" and "/\\host" would leave it (browsers read both as host).
  if (text.startsWith("/") && text[1] !== "/" && text[1] !== "\\") return text;
  if (text.startsWith("#") || text.startsWith("?")) return text;
  try {
    const url = new URL(text, window.location.href);
    if (url.protocol === "http:" || url.protocol === "https:") return url.href;
  } catch (_) {
    /* not a URL */
  }
  return null;
}

function append(parent, child) {
  if (child === null || child === undefined || child === false || child === true) return;
  if (Array.isArray(child)) {
    for (const each of child) append(parent, each);
  } else if (child instanceof Node) {
    parent.appendChild(child);
  } else {
    parent.appendChild(document.createTextNode(String(child)));
  }
}

/**
 * h(tag, attrs, ...children): an element. attrs: allow-listed attributes (true: present,
 * false/null: absent), `href` (checked by safeUrl), `on: {click: fn}` listeners, `props:
 * {value: ...}` DOM properties set directly. children: strings/numbers (as text), nodes,
 * arrays of them; null/false skipped.
 */
export function h(tag, attrs, ...children) {
  const svg = SVG_TAGS.has(tag);
  const node = svg ? document.createElementNS(SVG_NS, tag) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "on") {
      for (const [event, listener] of Object.entries(value)) {
        if (typeof listener !== "function") throw new TypeError(`listener for ${event}`);
        node.addEventListener(event, listener);
      }
    } else if (key === "props") {
      for (const [name, prop] of Object.entries(value)) {
        if (name === "innerHTML" || name === "outerHTML") throw new TypeError("no HTML sinks");
        node[name] = prop;
      }
    } else if (URL_ATTRIBUTES.has(key)) {
      const url = safeUrl(value);
      if (url !== null) node.setAttribute(key, url);
    } else if (ATTRIBUTES.has(key)) {
      node.setAttribute(key, value === true ? "" : String(value));
    } else {
      throw new TypeError(`attribute ${key} is not on h()'s allow-list`);
    }
  }
  append(node, children);
  return node;
}

/** Replace every child of `node` with `children`. */
export function replace(node, ...children) {
  while (node.firstChild) node.removeChild(node.firstChild);
  append(node, children);
  return node;
}

/** A number for people: `digits` decimals, "—" for null. */
export function fmt(value, digits = 3) {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  if (typeof value !== "number") return String(value);
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  return value.toFixed(digits);
}

/** A time (seconds since the epoch) as the browser's local date and time. */
export function when(seconds) {
  if (!seconds) return "—";
  return new Date(seconds * 1000).toLocaleString();
}

/** A status badge. */
export function badge(state) {
  const kind = String(state || "").toLowerCase();
  return h("span", { class: `badge badge-${kind.replace(/[^a-z]/g, "")}`, "data-state": kind }, state);
}

/** A box telling what failed. */
export function errorBox(error) {
  return h("div", { class: "error", role: "alert" }, h("strong", {}, "Error: "), String(error && error.message || error));
}
