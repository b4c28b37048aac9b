// Playlists: the list (paged by cursor) and one search box over everything (memory_search).
import { callTool } from "./api.js";
import { clearError, h, replace, showError, when } from "./dom.js";
import { keyWords, kindWords } from "./words.js";

const PAGE = 50;

export async function renderPlaylists(view) {
  const status = await callTool("memory_status", { user_id: view.userId });
  if (!view.current()) return;
  if (!status.enabled) {
    replace(view.main, h("h1", {}, "Playlists"),
      h("section", { class: "card" }, h("p", { "data-testid": "memory-off" },
        "Memory is off for this user: nothing is shown. Turn it on from the ",
        h("a", { href: "#/overview" }, "Overview"), ".")));
    return;
  }
  const first = await callTool("memory_get_playlists", { user_id: view.userId, limit: PAGE });
  if (!view.current()) return;
  const body = h("tbody", {});
  const table = h("table", { "data-testid": "playlists" },
    h("thead", {}, h("tr", {}, h("th", {}, "Name"), h("th", { class: "num" }, "Tracks"), h("th", {}, "Updated"))),
    body);
  const more = h("button", { type: "button", "data-testid": "more-playlists", hidden: true }, "Show more");
  const empty = h("p", { class: "muted", "data-testid": "playlists-empty", hidden: true }, "No playlists stored.");
  let cursor = null;
  const add = (page) => {
    body.append(...page.items.map(row));
    cursor = page.next_cursor;
    more.hidden = !cursor;
    empty.hidden = body.children.length > 0;
    table.hidden = body.children.length === 0;
  };
  more.addEventListener("click", async () => {
    clearError();
    more.disabled = true;
    try {
      const page = await callTool("memory_get_playlists", { user_id: view.userId, limit: PAGE, cursor });
      if (view.current()) add(page);
    } catch (error) {
      showError(error);
    } finally {
      more.disabled = false;
    }
  });
  add(first);
  replace(view.main,
    h("h1", {}, "Playlists"),
    searchCard(view),
    h("section", { class: "card" }, h("h2", {}, "Stored playlists"), table, empty, more));
}

function row(item) {
  const count = item.track_count === undefined ? "—" : String(item.track_count);
  return h("tr", { "data-testid": "playlist-row", "data-playlist-id": item.playlist_id },
    h("td", {}, h("a", { class: "name", "data-testid": "playlist-name",
      href: `#/playlists/${encodeURIComponent(item.playlist_id)}` }, item.name),
      item.intent_tags.length ? h("span", { class: "muted" }, ` · ${item.intent_tags.join(", ")}`) : null),
    h("td", { class: "num", "data-testid": "playlist-track-count" }, count),
    h("td", {}, h("time", { datetime: item.updated_at, title: item.updated_at }, when(item.updated_at))));
}

function searchCard(view) {
  const input = h("input", { type: "search", "data-testid": "search-input", "aria-label": "Search",
    placeholder: "Search playlists, likes, profile, memories…", maxlength: 500 });
  const results = h("div", { "data-testid": "search-results", "aria-live": "polite" });
  input.addEventListener("keydown", async (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    const query = input.value.trim();
    if (!query) return;
    clearError();
    results.setAttribute("aria-busy", "true");
    try {
      const found = await callTool("memory_search", { user_id: view.userId, query });
      if (!view.current() || input.value.trim() !== query) return;
      replace(results, found.results.length
        ? h("ul", { class: "results" }, found.results.map(hit))
        : h("p", { class: "muted", "data-testid": "search-empty" }, `Nothing stored matches “${query}”.`));
    } catch (error) {
      replace(results);
      showError(error);
    } finally {
      results.setAttribute("aria-busy", "false");
    }
  });
  return h("section", { class: "card search" }, h("h2", {}, "Search everything"), input, results);
}

function hit(result) {
  const meta = result.metadata || {};
  const label = meta.name || (meta.key ? keyWords(meta.key) : null) || meta.type || null;
  return h("li", { "data-testid": "search-result", "data-kind": result.kind, "data-id": result.id },
    h("span", { class: "kind" }, kindWords(result.kind)),
    label && label !== result.snippet ? h("strong", {}, label, " — ") : null,
    h("span", { class: "snippet" }, result.snippet));
}
