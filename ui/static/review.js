// Review: where what the person said and what they played disagree (memory_list_conflicts), each
// settled with one press (memory_resolve_conflict), which records the answer as a preference.
import { callAllPages, callTool } from "./api.js";
import { clearError, h, replace, showError, when } from "./dom.js";
import { memoryOff } from "./profile.js";

export async function renderReview(view) {
  const status = await callTool("memory_status", { user_id: view.userId });
  if (!view.current()) return;
  if (!status.enabled) {
    memoryOff(view, "Review");
    return;
  }
  const found = await callAllPages("memory_list_conflicts", { user_id: view.userId }, "conflicts");
  if (!view.current()) return;
  const list = h("ul", { "data-testid": "conflicts" }, found.conflicts.map((c) => row(view, c)));
  const empty = h("p", { class: "muted", "data-testid": "conflicts-empty", hidden: found.conflicts.length > 0 },
    "Nothing to review: what you said and what you played agree.");
  replace(view.main,
    h("h1", {}, "Review"),
    h("section", { class: "card" },
      h("p", { class: "muted" }, "Where what you told the assistant and what you actually play drift apart. ",
        "Your answer is remembered, and the question only comes back if your listening changes again."),
      list, empty));
}

function name(conflict) {
  const [[kind, value]] = Object.entries(conflict.subject);
  return kind === "genre" ? `${value} music` : value;
}

function sentence(conflict) {
  const times = conflict.played.count === 1 ? "once" : `${conflict.played.count} times`;
  return conflict.kind === "played_despite_dislike"
    ? `You said you dislike ${name(conflict)}, but played it ${times} in the last ${conflict.played.days} days.`
    : `You said you like ${name(conflict)}, but haven't played it in ${conflict.played.days} days.`;
}

// Button words per kind: keep what was said, go with the listening, or leave it be.
const CHOICES = {
  played_despite_dislike: [["keep", "keep_statement", "I still dislike it"],
    ["update", "update_preference", "I like it now"], ["dismiss", "dismiss", "Not now"]],
  liked_but_unplayed: [["keep", "keep_statement", "I still like it"],
    ["update", "update_preference", "I'm over it"], ["dismiss", "dismiss", "Not now"]],
};

function row(view, conflict) {
  const li = h("li", { class: "card", "data-testid": "conflict-row", "data-conflict-id": conflict.conflict_id });
  const examples = conflict.played.examples.map((p) => `${p.track ? `${p.track} – ` : ""}${p.artist} (${when(p.played_at)})`);
  const buttons = CHOICES[conflict.kind].map(([id, resolution, label]) => {
    const button = h("button", { type: "button", class: id === "update" ? "primary small" : "small",
      "data-testid": `resolve-${id}` }, label);
    button.addEventListener("click", () => settle(view, li, conflict, resolution));
    return button;
  });
  li.append(
    h("p", { "data-testid": "conflict-sentence" }, sentence(conflict)),
    h("p", { class: "muted small" }, `What you said (${when(conflict.stated.at)}): “${conflict.stated.text}”`),
    examples.length ? h("p", { class: "muted small" }, `Recently: ${examples.join("; ")}`) : null,
    h("div", { class: "row" }, buttons));
  return li;
}

async function settle(view, li, conflict, resolution) {
  clearError();
  for (const button of li.querySelectorAll("button")) button.disabled = true;
  try {
    await callTool("memory_resolve_conflict", { user_id: view.userId, conflict_id: conflict.conflict_id, resolution });
    li.remove();
    const list = view.main.querySelector('[data-testid="conflicts"]');
    if (list && !list.children.length) view.main.querySelector('[data-testid="conflicts-empty"]').hidden = false;
  } catch (error) {
    showError(error);
    for (const button of li.querySelectorAll("button")) button.disabled = false;
  }
}
