// The UI's entry point: the top bar (navigation, key / sign out) and the router.

import { apiKey, askForKey, onKeyChange, signOut } from "./api.js";
import { h, replace } from "./dom.js";
import { link, navPages, start } from "./router.js";
import "./pages/index.js";

function drawNav() {
  replace(
    document.getElementById("nav"),
    navPages().map((p) => link(p.navPath || p.pattern, {}, p.nav)),
  );
}

function drawSession() {
  const session = document.getElementById("session");
  if (apiKey()) {
    replace(
      session,
      h("span", { class: "muted small" }, "Key set"),
      h("button", { type: "button", class: "link", "data-testid": "sign-out", on: { click: () => signOut() } }, "Sign out"),
    );
  } else {
    replace(
      session,
      h("button", {
        type: "button", class: "link", "data-testid": "sign-in",
        on: { click: () => askForKey("Enter the API key to use for this tab.").catch(() => {}) },
      }, "Enter key"),
    );
  }
}

onKeyChange(drawSession);
drawNav();
drawSession();
start();
