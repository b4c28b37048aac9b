// Export (download), import (upload) and delete everything, through the same tools agents call.
import { callTool } from "./api.js";
import { confirmed } from "./confirm.js";
import { clearError, h, replace, showError } from "./dom.js";
import { historyCard } from "./history.js";
import { parseExact } from "./json.js";

/** Every part of memory_export_user_data, following data.continuation.next_cursor. */
async function exportParts(userId) {
  const parts = [];
  let cursor = null;
  do {
    const args = cursor ? { user_id: userId, cursor } : { user_id: userId };
    const part = await callTool("memory_export_user_data", args, { exact: true });
    parts.push(part);
    cursor = part.data.continuation.next_cursor;
  } while (cursor);
  return parts;
}

/** The file `memory-service export` writes ({user_id, exported_at, data}); an export in several parts is the
 * list of those documents, part by part, as `memory-service import --file` and memory_import_user_data take it. */
export function exportDocument(parts) {
  const documents = parts.map((p) => ({ user_id: p.user_id, exported_at: p.exported_at, data: p.data }));
  return documents.length === 1 ? documents[0] : documents;
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** An uploaded file as import `data`: one export's data, or the list of its parts' data. */
function importData(loaded) {
  const documents = Array.isArray(loaded) ? loaded : [loaded];
  const parts = documents.map((d) => (d && typeof d === "object" && "data" in d ? d.data : d));
  return parts.length === 1 ? parts[0] : parts;
}

export async function renderExport(view) {
  const status = await callTool("memory_status", { user_id: view.userId });
  if (!view.current()) return;
  replace(view.main, h("h1", {}, "Export, import, delete"),
    exportCard(view), importCard(view, status), historyCard(view, status), deleteCard(view));
}

function exportCard(view) {
  const button = h("button", { type: "button", class: "primary", "data-testid": "export-download" }, "Download export");
  const note = h("p", { class: "muted small", "data-testid": "export-note", "aria-live": "polite" });
  button.addEventListener("click", async () => {
    clearError();
    button.disabled = true;
    try {
      const parts = await exportParts(view.userId);
      const stamp = parts[0].exported_at.replace(/[:.]/g, "-");
      download(`taste-memory-user-${view.userId}-${stamp}.json`, JSON.stringify(exportDocument(parts)));
      note.textContent = `Downloaded (${parts.length} part${parts.length === 1 ? "" : "s"}).`;
    } catch (error) {
      showError(error);
    } finally {
      button.disabled = false;
    }
  });
  return h("section", { class: "card" }, h("h2", {}, "Export"),
    h("p", {}, "Everything stored for this user as one JSON file, the same file the service's own export command writes."),
    h("div", { class: "row" }, button), note);
}

function importCard(view, status) {
  const file = h("input", { type: "file", accept: "application/json,.json", "data-testid": "import-file", "aria-label": "Export file" });
  const replaceBox = h("input", { type: "checkbox", "data-testid": "import-replace" });
  const button = h("button", { type: "button", "data-testid": "import-start", disabled: true }, "Import…");
  const note = h("p", { class: "muted small", "data-testid": "import-note", "aria-live": "polite" });
  file.addEventListener("change", () => { button.disabled = !file.files.length; });
  button.addEventListener("click", async () => {
    clearError();
    let data;
    try {
      data = importData(parseExact(await file.files[0].text()));
    } catch (error) {
      showError({ code: "INVALID_ARGUMENT", message: `That file is not JSON (${error.message}).` });
      return;
    }
    const replacing = replaceBox.checked;
    await confirmed(button, "Import this export?", replacing
      ? `Everything stored for user ${view.userId} is deleted and replaced by the file's contents.`
      : `The file's contents are stored for user ${view.userId}.`, "Import", async () => {
      const done = await callTool("memory_import_user_data", { user_id: view.userId, data, confirm: true, replace: replacing });
      note.textContent = "Imported: " + Object.entries(done.imported).map(([k, n]) => `${n} ${k}`).join(", ") + ".";
    }, showError);
  });
  return h("section", { class: "card" }, h("h2", {}, "Import"),
    h("p", {}, "Load an export file back (a user who already has data needs “replace”)."),
    status.enabled ? null : h("p", { class: "muted small" }, "Memory is off for this user: an import is refused and an export is empty until it is on."),
    h("div", { class: "row" }, file, h("label", {}, replaceBox, " replace what is stored"), button), note);
}

function deleteCard(view) {
  const typed = h("input", { type: "text", inputmode: "numeric", autocomplete: "off", "data-testid": "delete-confirm-input",
    "aria-label": "Type the user id to confirm", placeholder: String(view.userId), class: "narrow" });
  const button = h("button", { type: "button", class: "danger", "data-testid": "delete-everything", disabled: true },
    "Delete everything");
  typed.addEventListener("input", () => { button.disabled = typed.value.trim() !== String(view.userId); });
  button.addEventListener("click", async () => {
    if (typed.value.trim() !== String(view.userId)) return;
    clearError();
    button.disabled = true;
    try {
      await callTool("memory_delete_user_data", { user_id: view.userId, confirm: true });
    } catch (error) {
      button.disabled = false;
      showError(error);
      return;
    }
    location.hash = "#/overview";
  });
  return h("section", { class: "card danger-zone" }, h("h2", {}, "Delete everything"),
    h("p", {}, `Permanently deletes everything stored for user ${view.userId}: profile, events, playlists and their `,
      "history, memories and plays. Download an export first if you may want it back."),
    h("div", { class: "row" }, h("label", {}, `Type ${view.userId} to confirm `, typed), button));
}
