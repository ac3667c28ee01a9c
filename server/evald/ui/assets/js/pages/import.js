// Import an `evald evaluate --output DIR` directory: pick its results.jsonl and
// aggregation.json (or the whole directory), upload as multipart.

import { api } from "../api.js";
import { errorBox, h, replace } from "../dom.js";
import { link, page } from "../router.js";
import { runPath } from "./run.js";

const WANTED = ["results.jsonl", "aggregation.json"];

page("/import", async () => {
  const files = h("input", { id: "import-files", name: "files", type: "file", multiple: true, accept: ".jsonl,.json,.html" });
  const folder = h("input", { id: "import-folder", type: "file" });
  folder.webkitdirectory = true; // a DOM property: choose a whole directory
  const name = h("input", { id: "import-name", name: "name", type: "text", maxlength: 200, placeholder: "e.g. gpt-x on qa-set, 2026-11" });
  const outcome = h("div", { "aria-live": "polite" });
  const submit = h("button", { type: "submit", class: "primary" }, "Import");
  const form = h("form", {
    class: "card", "data-testid": "import-form",
    on: {
      submit: async (event) => {
        event.preventDefault();
        const chosen = [...files.files, ...folder.files].filter((f) => WANTED.includes(f.name));
        const results = chosen.find((f) => f.name === "results.jsonl");
        if (!results) {
          replace(outcome, errorBox("choose the directory's results.jsonl (and aggregation.json)"));
          return;
        }
        const body = new FormData();
        body.append("name", name.value.trim() || (results.webkitRelativePath || "").split("/")[0] || "");
        for (const file of chosen) body.append(file.name === "results.jsonl" ? "results" : "aggregation", file, file.name);
        submit.disabled = true;
        replace(outcome, h("p", { class: "muted" }, "Uploading…"));
        try {
          const run = await api("/v1/evald/runs", { method: "POST", form: body });
          replace(outcome, h("div", { class: "ok", role: "status" }, "Imported ", link(runPath(run.id), {}, run.name), ` (${run.progress.total} rows).`));
        } catch (error) {
          replace(outcome, errorBox(error));
        } finally {
          submit.disabled = false;
        }
      },
    },
  },
  h("div", { class: "toolbar" },
    h("div", { class: "field" }, h("label", { for: "import-files" }, "Files (results.jsonl, aggregation.json)"), files),
    h("div", { class: "field" }, h("label", { for: "import-folder" }, "…or the whole directory"), folder)),
  h("div", { class: "toolbar" }, h("div", { class: "field" }, h("label", { for: "import-name" }, "Name"), name)),
  submit);
  return [
    h("h1", {}, "Import a run"),
    h("p", {}, "Upload the output directory of ", h("code", {}, "evald evaluate --output DIR"),
      ". From a shell: ", h("code", {}, "evald import DIR"), "."),
    form, outcome,
  ];
}, { title: "Import", nav: "Import", order: 30 });
