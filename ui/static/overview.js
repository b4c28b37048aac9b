// Overview: the kill switch, pause until, counts per kind, the last context block served, connected apps.
import { callTool } from "./api.js";
import { connectedCard } from "./connected.js";
import { clearError, h, replace, showError, when } from "./dom.js";
import { fromPicker, momentPicker } from "./moments.js";
import { leftOutWords, sectionWords } from "./words.js";

const COUNTS = [
  ["playlists", "playlists", "Playlists"],
  ["memories", "memories", "Memories"],
  ["preference_events", "preference_events", "Preference events"],
  ["plays", "plays", "Plays"],
  ["skips", "skips", "Skips (under 30 s)"],
];

export async function renderOverview(view) {
  const status = await callTool("memory_status", { user_id: view.userId });
  // detail "full": the last block's diagnostics as fully as they fit (the first page has them).
  const inspected = status.enabled ? await callTool("memory_inspect", { user_id: view.userId, detail: "full" }) : null;
  const connected = await connectedCard(view);
  if (!view.current()) return;
  replace(view.main,
    h("h1", {}, `Overview of user ${view.userId}`),
    switchCard(view, status),
    pauseCard(view, status),
    status.enabled ? countsCard(inspected.counts) : null,
    status.enabled ? contextCard(inspected.last_context) : null,
    connected);
}

/** Run a state-changing tool from a control, then draw the page again from the service's answer. */
async function act(view, control, tool, args) {
  clearError();
  control.disabled = true;
  try {
    await callTool(tool, args);
  } catch (error) {
    control.disabled = false;
    showError(error);
    return;
  }
  await view.rerender();
}

function switchCard(view, status) {
  const state = status.enabled ? "on" : "off";
  const toggle = h("button", { type: "button", "data-testid": "toggle-enabled", class: status.enabled ? "" : "primary" },
    status.enabled ? "Turn memory off" : "Turn memory on");
  toggle.addEventListener("click", () =>
    act(view, toggle, "memory_set_enabled", { user_id: view.userId, enabled: !status.enabled }));
  return h("section", { class: "card" },
    h("h2", {}, "Memory"),
    h("div", { class: "row" },
      h("span", {}, "Memory is "),
      h("span", { class: `state ${state}`, "data-testid": "status-enabled" }, state),
      toggle),
    h("p", { class: "muted" }, status.enabled
      ? "Turned off, the service stores nothing for you and answers every read as if it knew nothing."
      : "Nothing is stored and nothing is shown while memory is off. What was stored is kept until you turn it on again."));
}

function pauseCard(view, status) {
  const input = momentPicker(h, { "data-testid": "pause-input", "aria-label": "Pause until" });
  const apply = h("button", { type: "button", "data-testid": "pause-apply" }, "Pause");
  const clear = h("button", { type: "button", "data-testid": "pause-clear", disabled: !status.paused_until }, "Resume now");
  const submit = () => {
    const until = fromPicker(input);
    if (!until) {
      showError({ code: "INVALID_ARGUMENT", message: "Pick the day and time memory may store again." });
      return;
    }
    act(view, apply, "memory_pause", { user_id: view.userId, until });
  };
  apply.addEventListener("click", submit);
  input.addEventListener("keydown", (event) => { if (event.key === "Enter") submit(); });
  clear.addEventListener("click", () => act(view, clear, "memory_pause", { user_id: view.userId, until: null }));
  return h("section", { class: "card" },
    h("h2", {}, "Pause"),
    h("p", { "data-testid": "paused-until" }, status.paused_until
      ? ["Paused until ", h("time", { datetime: status.paused_until, title: status.paused_until }, when(status.paused_until)),
        ": nothing new is stored until then."]
      : "Not paused."),
    h("div", { class: "row" }, h("label", {}, "Store nothing until ", input), apply, clear));
}

function countsCard(counts) {
  return h("section", { class: "card" },
    h("h2", {}, "What is stored"),
    h("dl", { class: "counts" }, COUNTS.map(([id, key, label]) =>
      h("div", {}, h("dt", {}, label), h("dd", { "data-testid": `count-${id}` }, String(counts[key] ?? 0))))),
    h("p", { class: "muted" }, `Profile version ${counts.profile_version}, ${counts.tracks} catalog tracks.`));
}

function contextCard(last) {
  const card = h("section", { class: "card", "data-testid": "last-context" }, h("h2", {}, "Last context block served"));
  if (!last) {
    card.append(h("p", { class: "muted" }, "None served in this process."));
    return card;
  }
  const d = last.diagnostics;
  card.append(
    h("p", {}, "Served ", h("time", { datetime: last.served_at, title: last.served_at }, when(last.served_at)),
      ": ", h("span", { "data-testid": "context-size", title: d.estimator },
        `about ${last.tokens} tokens of the ${last.budget_tokens} allowed`),
      last.focus ? [", focused on ", h("q", {}, last.focus), ` (${d.focus_matches} matching)`] : "", "."),
    h("pre", { class: "block", "data-testid": "context-block" }, last.block),
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, "Section"), h("th", { class: "num" }, "Kept"),
        h("th", { class: "num" }, "Dropped"), h("th", { class: "num" }, "Tokens"))),
      h("tbody", {}, d.sections.map((s) => h("tr", {}, h("td", {}, sectionWords(s.section)), h("td", { class: "num" }, s.kept),
        h("td", { class: "num" }, s.dropped), h("td", { class: "num" }, s.tokens))))),
    h("p", { class: "muted" }, dropSummary(d)));
  return card;
}

function dropSummary(d) {
  const reasons = {};
  for (const item of d.dropped) reasons[item.reason] = (reasons[item.reason] || 0) + 1;
  const parts = Object.entries(reasons).map(([reason, n]) => `${n} ${leftOutWords(reason)}`);
  const more = d.unlisted.kept + d.unlisted.dropped;
  return (parts.length ? `Left out: ${parts.join(", ")}.` : "Nothing left out.") + (more ? ` ${more} more not listed.` : "");
}
