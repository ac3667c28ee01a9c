// The single-page app's router: pages register a path pattern and a render function; links
// and history navigation draw the matching page into <main> without reloading.

import { errorBox, h, replace } from "./dom.js";

export const BASE = "/ui";
const pages = [];
let current = null;

/**
 * Register a page. `pattern`: an app path ("/runs", "/runs/:id"; ":name" matches one path
 * segment, given decoded in ctx.params). `render(ctx)` returns (or resolves to) a Node or an
 * array of nodes. options: `title` (the tab's title), `nav` (a label: listed in the top
 * navigation), `order` (nav position, smaller first), `redirect` (an app path: this path
 * only sends there; `render` is then null).
 */
export function page(pattern, render, options = {}) {
  const names = [];
  const source = pattern
    .split("/")
    .map((part) => {
      if (part.startsWith(":")) {
        names.push(part.slice(1));
        return "([^/]+)";
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  pages.push({ pattern, regex: new RegExp(`^${source}/?$`), names, render, ...options });
}

/** The app path of a browser path ("/ui/runs/1" -> "/runs/1"). */
function appPath(pathname) {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  return rest === "" ? "/" : rest;
}

/** The browser URL of an app path ("/runs/1?x=2" -> "/ui/runs/1?x=2"). */
export function href(path) {
  return BASE + path;
}

/** Go to an app path (pushed on the history unless `replace`). */
export function navigate(path, { replace: replacing = false } = {}) {
  if (replacing) history.replaceState(null, "", href(path));
  else history.pushState(null, "", href(path));
  draw();
}

/** A link to an app path that navigates in place (a modified click opens a new tab as usual). */
export function link(path, attrs, ...children) {
  return h(
    "a",
    {
      ...(attrs || {}),
      href: href(path),
      on: {
        click: (event) => {
          if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
          event.preventDefault();
          navigate(path);
        },
      },
    },
    ...children,
  );
}

/** Pages that asked to be in the top navigation, in order. */
export function navPages() {
  return pages.filter((p) => p.nav).sort((a, b) => (a.order || 0) - (b.order || 0));
}

function match(path) {
  for (const entry of pages) {
    const found = entry.regex.exec(path);
    if (found) {
      const params = {};
      entry.names.forEach((name, i) => {
        params[name] = decodeURIComponent(found[i + 1]);
      });
      return { entry, params };
    }
  }
  return null;
}

/**
 * A page's context: `params` (path), `query` (URLSearchParams), `main` (the element drawn
 * into), `alive()` (false once the user left the page), `every(ms, fn)` (polling, stopped on
 * leaving), `onLeave(fn)`, `setQuery(object)` (rewrites the URL's query without redrawing),
 * `redraw()`.
 */
class Context {
  constructor(path, params, main) {
    this.path = path;
    this.params = params;
    this.query = new URLSearchParams(window.location.search);
    this.main = main;
    this.leaving = [];
    this.left = false;
  }
  alive() {
    return !this.left && current === this;
  }
  onLeave(fn) {
    this.leaving.push(fn);
  }
  every(ms, fn) {
    const timer = setInterval(() => {
      if (this.alive()) fn();
    }, ms);
    this.onLeave(() => clearInterval(timer));
    return timer;
  }
  setQuery(values) {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(values)) {
      if (value !== null && value !== undefined && value !== "") query.set(name, String(value));
    }
    this.query = query;
    const text = query.toString();
    history.replaceState(null, "", href(this.path) + (text ? `?${text}` : ""));
  }
  redraw() {
    draw();
  }
  leave() {
    this.left = true;
    for (const fn of this.leaving) fn();
  }
}

/** Draw the page of the current URL. */
export async function draw() {
  const main = document.getElementById("main");
  const path = appPath(window.location.pathname);
  if (current) current.leave();
  const found = match(path);
  const ctx = new Context(path, found ? found.params : {}, main);
  current = ctx;
  for (const a of document.querySelectorAll("#nav a")) {
    const active = found && a.getAttribute("href") === href(found.entry.navPath || found.entry.pattern);
    if (active) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (!found) {
    document.title = "Not found · evald";
    replace(main, h("h1", {}, "Not found"), h("p", {}, "No page at ", h("code", {}, path), "."), link("/", {}, "Home"));
    return;
  }
  if (found.entry.redirect) {
    navigate(found.entry.redirect, { replace: true });
    return;
  }
  document.title = `${found.entry.title || "evald"} · evald`;
  main.setAttribute("aria-busy", "true");
  try {
    const drawn = await found.entry.render(ctx);
    if (ctx.alive()) replace(main, drawn);
  } catch (error) {
    if (ctx.alive()) replace(main, h("h1", {}, found.entry.title || "evald"), errorBox(error));
  } finally {
    if (ctx.alive()) main.removeAttribute("aria-busy");
  }
}

/** Start: draw the current URL, and redraw on back/forward. */
export function start() {
  window.addEventListener("popstate", () => draw());
  return draw();
}
