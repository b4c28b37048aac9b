// Memories and plays: memory_query with filters, forget one memory; the plays count (no tool lists plays).
import { callTool } from "./api.js";
import { confirmed } from "./confirm.js";
import { clearError, h, replace, showError, when } from "./dom.js";
import { memoryOff } from "./profile.js";
import { sensitiveMark } from "./words.js";

const TYPES = ["recommendation", "insight", "event", "feedback", "discussion"];
const LIMIT = 50; // memory_query's most

export async function renderMemories(view) {
  const status = await callTool("memory_status", { user_id: view.userId });
  if (!view.current()) return;
  if (!status.enabled) {
    memoryOff(view, "Memories and plays");
    return;
  }
  const type = h("select", { "data-testid": "filter-type", "aria-label": "Type" },
    h("option", { value: "" }, "any type"), TYPES.map((t) => h("option", { value: t }, t)));
  const entity = h("input", { type: "text", "data-testid": "filter-entity", "aria-label": "Entity",
    placeholder: "artist, album, track…", maxlength: 200 });
  const importance = h("input", { type: "number", min: 1, max: 10, "data-testid": "filter-importance",
    "aria-label": "Importance at least", placeholder: "1–10", class: "narrow" });
  const since = h("input", { type: "number", min: 1, max: 36500, "data-testid": "filter-since",
    "aria-label": "Within the last days", placeholder: "days", class: "narrow" });
  const apply = h("button", { type: "submit", class: "primary", "data-testid": "filter-apply" }, "Show");
  const body = h("tbody", { "data-testid": "memory-rows" });
  const empty = h("p", { class: "muted", "data-testid": "memories-empty", hidden: true }, "No memory matches.");
  const table = h("table", { "data-testid": "memories" }, heading(), body);

  const load = async () => {
    const args = { user_id: view.userId, limit: LIMIT };
    if (type.value) args.type = type.value;
    if (entity.value.trim()) args.entity = entity.value.trim();
    if (importance.value) args.importance_min = Number(importance.value);
    if (since.value) args.since_days = Number(since.value);
    const found = await callTool("memory_query", args);
    if (!view.current()) return;
    replace(body, found.memories.map((m) => row(view, m)));
    empty.hidden = found.memories.length > 0;
    table.hidden = found.memories.length === 0;
  };
  const form = h("form", { class: "row filters", "data-testid": "memory-filters" },
    h("label", {}, "Type ", type), h("label", {}, "About ", entity),
    h("label", {}, "Importance ≥ ", importance), h("label", {}, "Last ", since, " days"), apply);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearError();
    apply.disabled = true;
    view.busy(true);
    try {
      await load();
    } catch (error) {
      showError(error);
    } finally {
      apply.disabled = false;
      if (view.current()) view.busy(false);
    }
  });
  await load();
  const hidden = await outOfSightNow(view);
  if (!view.current()) return;
  replace(view.main,
    h("h1", {}, "Memories and plays"),
    h("section", { class: "card" }, h("h2", {}, "Memories"), form, table, empty,
      h("p", { class: "muted small" }, `At most ${LIMIT} are shown, best matches first: narrow the filters to find others.`)),
    outOfSight(view, hidden),
    h("section", { class: "card" }, h("h2", {}, "Plays"),
      h("p", {}, h("strong", { "data-testid": "plays-count" }, String(status.counts.plays)), " plays and ",
        h("strong", { "data-testid": "skips-count" }, String(status.counts.skips)), " skips (streams under 30 s) stored, in ",
        String(status.counts.play_buckets), " monthly record(s)."),
      h("p", { class: "muted small" },
        "No tool lists single plays; they are in the export, and a play is forgotten by artist, track and time.")));
}

async function outOfSightNow(view) {
  return (await callTool("memory_inspect", { user_id: view.userId })).out_of_sight;
}

// What the person asked to keep out of sight: never in what the assistant is told, nor in a search,
// unless they name it; shown here so they always see what is stored.
function outOfSight(view, hidden) {
  if (!hidden || (!hidden.memory_count && !hidden.event_count)) return null;
  const more = (shown, count, what) => count > shown ? h("p", { class: "muted small" }, `and ${count - shown} more ${what}.`) : null;
  return h("section", { class: "card", "data-testid": "out-of-sight" }, h("h2", {}, "Kept out of sight"),
    h("p", { class: "muted small" },
      "The assistant is not told these, and searches do not find them, unless you name them."),
    hidden.memories.length ? h("table", { "data-testid": "hidden-memories" }, heading(),
      h("tbody", {}, hidden.memories.map((m) => row(view, m)))) : null,
    more(hidden.memories.length, hidden.memory_count, "memories"),
    hidden.events.length ? h("ul", { "data-testid": "hidden-events" }, hidden.events.map((e) =>
      h("li", { "data-testid": "hidden-event", "data-event-id": e.event_id },
        h("span", { class: "kind" }, e.type === "dislike" ? "dislike" : e.type === "like" ? "like" : "said"), " ",
        e.subjects.join(", "), e.said ? [" · ", h("q", {}, e.said)] : "",
        h("div", { class: "muted small" }, h("time", { datetime: e.timestamp, title: e.timestamp }, when(e.timestamp)))))) : null,
    more(hidden.events.length, hidden.event_count, "things said"));
}

/** After a hidden memory is forgotten: the card drawn again (its counts, the next one listed), or gone. */
async function redrawOutOfSight(view) {
  const fresh = outOfSight(view, await outOfSightNow(view));
  const card = view.main.querySelector('[data-testid="out-of-sight"]');
  if (!view.current() || !card) return;
  if (fresh) card.replaceWith(fresh);
  else card.remove();
}

function heading() {
  return h("thead", {}, h("tr", {}, h("th", {}, "Type"), h("th", {}, "About"), h("th", {}, "Summary"),
    h("th", { class: "num" }, "Importance"), h("th", { class: "num" }, "Days ago"), h("th", {})));
}

function row(view, memory) {
  const forget = h("button", { type: "button", class: "danger small", "data-testid": "forget" }, "Forget");
  const tr = h("tr", { "data-testid": "memory-row", "data-memory-id": memory.memory_id },
    h("td", {}, h("span", { class: "kind" }, memory.type), " ", sensitiveMark(memory)),
    h("td", { "data-testid": "memory-entities" }, memory.entities.join(", ")),
    h("td", { "data-testid": "memory-summary" }, memory.summary,
      h("div", { class: "muted small" }, h("time", { datetime: memory.timestamp, title: memory.timestamp }, when(memory.timestamp)),
        memory.seen_count > 1 ? ` · said ${memory.seen_count} times` : "")),
    h("td", { class: "num", "data-testid": "memory-importance" }, String(memory.importance)),
    h("td", { class: "num", "data-testid": "memory-days-ago" }, String(memory.days_ago)),
    h("td", {}, forget));
  forget.addEventListener("click", () => confirmed(forget, "Forget this memory?",
    `“${memory.summary}” is removed for good, with its aging record. This cannot be undone.`, "Forget", async () => {
      clearError();
      await callTool("memory_forget", { user_id: view.userId, kind: "memory", id: memory.memory_id, confirm: true });
      // Gone from the table and the card alike (a filter that names a hidden memory lists it in both).
      for (const shown of view.main.querySelectorAll('[data-testid="memory-row"]')) {
        if (shown.dataset.memoryId === memory.memory_id) shown.remove();
      }
      if (memory.sensitive) await redrawOutOfSight(view);
    }, showError));
  return tr;
}
