// Profile: every field (leaf) with its provenance, from memory_inspect; forget one field.
import { callAllPages, callTool } from "./api.js";
import { confirmed } from "./confirm.js";
import { clearError, h, replace, showError, when } from "./dom.js";
import { pathWords, sensitiveMark } from "./words.js";

export function memoryOff(view, title) {
  replace(view.main, h("h1", {}, title),
    h("section", { class: "card" }, h("p", { "data-testid": "memory-off" },
      "Memory is off for this user: nothing is shown. Turn it on from the ",
      h("a", { href: "#/overview" }, "Overview"), ".")));
}

export async function renderProfile(view) {
  // Every field, with its whole listed provenance (5 of each): page by page.
  const inspected = await callAllPages("memory_inspect", { user_id: view.userId, detail: "full" }, "profile_fields");
  if (!view.current()) return;
  if (inspected.hidden === "memory_disabled" || !inspected.enabled) {
    memoryOff(view, "Profile");
    return;
  }
  const fields = inspected.profile_fields;
  const notes = [`Profile version ${inspected.counts.profile_version}, ${fields.length} field(s) listed.`];
  if (inspected.unlisted_fields) notes.push(`${inspected.unlisted_fields} more field(s) past the first 200 are not listed.`);
  if (!inspected.history_complete) {
    notes.push("The oldest profile changes are no longer kept, so a field may lack the change that first set it.");
  }
  replace(view.main,
    h("h1", {}, "Profile"),
    h("section", { class: "card" },
      h("p", { class: "muted", "data-testid": "profile-notes" }, notes.join(" ")),
      fields.length
        ? h("ul", { class: "fields", "data-testid": "profile-fields" }, fields.map((f) => fieldRow(view, f)))
        : h("p", { class: "muted", "data-testid": "profile-empty" }, "No profile stored.")));
}

function shown(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function fieldRow(view, field) {
  const forget = h("button", { type: "button", class: "danger small", "data-testid": "forget" }, "Forget");
  forget.addEventListener("click", () => confirmed(forget, "Forget this profile field?",
    `${pathWords(field.path)}: ${shown(field.value)} is removed from the profile, and its reasons from the history. `
    + "This cannot be undone.",
    "Forget", async () => {
      clearError();
      await callTool("memory_forget", { user_id: view.userId, kind: "profile_field", id: field.path, confirm: true });
      await view.rerender();
    }, showError));
  return h("li", { class: "field", "data-testid": "profile-field", "data-path": field.path },
    h("div", { class: "row" },
      h("span", { class: "path", "data-testid": "field-path", title: field.path }, pathWords(field.path)),
      h("span", { class: "value", "data-testid": "field-value" }, shown(field.value)),
      sensitiveMark(field),
      h("span", { class: "spacer" }), forget),
    setBy(field), evidence(view, field));
}

function stamp(iso) {
  return iso ? h("time", { datetime: iso, title: iso }, when(iso)) : h("span", { class: "muted" }, "time unknown");
}

function setBy(field) {
  if (!field.set_by.length) return h("p", { class: "muted small" }, "No stored change set it (older than the kept history).");
  const more = field.set_by_count - field.set_by.length;
  return h("div", { class: "prov" }, h("span", { class: "muted small" }, "Set by"),
    h("ul", { "data-testid": "set-by" }, field.set_by.map((p) => h("li", { "data-testid": "set-by-item" },
      stamp(p.applied_at), ` · version ${p.version}`, p.source ? ` · ${p.source}` : "",
      p.reason ? [" · ", h("q", { "data-testid": "set-by-reason" }, p.reason)] : h("span", { class: "muted" }, " · no reason given")))),
    more > 0 ? h("p", { class: "muted small" }, `and ${more} earlier change(s).`) : null);
}

function evidence(view, field) {
  if (!field.evidence_count) return null;
  const list = h("ul", { "data-testid": "evidence" }, field.evidence.map((e) =>
    h("li", { "data-testid": "evidence-item", "data-event-id": e.id }, stamp(e.timestamp), ` · ${e.type}`)));
  const more = field.evidence_count - field.evidence.length;
  const explain = h("button", { type: "button", class: "small", "data-testid": "explain" }, "Show what was said");
  explain.addEventListener("click", async () => {
    clearError();
    explain.disabled = true;
    try {
      const why = await callTool("memory_explain", { user_id: view.userId, path: field.path });
      const events = why.evidence.filter((e) => e.kind === "preference_event");
      replace(list, events.map((e) => h("li", { "data-testid": "evidence-item", "data-event-id": e.id },
        stamp(e.timestamp), ` · ${e.type}`, e.source ? ` · ${e.source}` : "", " · ",
        e.raw_text ? h("q", { "data-testid": "evidence-text" }, e.raw_text) : h("span", { class: "muted" }, "no text"))));
      explain.remove();
    } catch (error) {
      explain.disabled = false;
      showError(error);
    }
  });
  return h("div", { class: "prov" }, h("span", { class: "muted small" }, "Evidence"), list,
    more > 0 ? h("p", { class: "muted small" }, `and ${more} older event(s).`) : null, explain);
}
