// The playlist page's "Portability" card (memory_playlist_portability): which tracks the catalog can
// name on another service, in playlist order, and what is missing, in words.
import { callAllPages } from "./api.js";
import { clearError, h, replace, showError } from "./dom.js";

const TARGETS = { spotify: "Spotify", apple_music: "Apple Music", isrc: "ISRC" };
const REASONS = {
  external_id: "id known",
  track_id: "its own id is a Spotify id",
  other_ids_only: "other ids known, not this one",
  name_only: "only the title and artists known",
  no_external_id: "nothing known about it",
};

/** "3 of 12 tracks have no Apple Music id known" (or that every one has one). */
export function portabilitySummary(counts, target) {
  const total = counts.matched + counts.unmatched;
  const service = TARGETS[target] || target;
  const id = target === "isrc" ? "ISRC" : `${service} id`;
  if (!counts.unmatched) return `All ${total} track${total === 1 ? "" : "s"} have a known ${id}.`;
  const have = counts.unmatched === 1 ? "has" : "have";
  return `${counts.unmatched} of ${total} track${total === 1 ? "" : "s"} ${have} no ${id} known.`;
}

export function portabilityCard(args, view) {
  const target = h("select", { "data-testid": "portability-target", "aria-label": "Target" },
    Object.entries(TARGETS).map(([value, label]) => h("option", { value }, label)));
  const go = h("button", { type: "button", "data-testid": "portability-show" }, "Check");
  const out = h("div", { "data-testid": "portability" });
  go.addEventListener("click", async () => {
    clearError();
    go.disabled = true;
    try {
      const chosen = target.value;
      const report = await callAllPages("memory_playlist_portability", { ...args, target: chosen }, "tracks");
      if (!view.current()) return;
      replace(out,
        h("p", { "data-testid": "portability-summary", "data-matched": report.counts.matched,
          "data-unmatched": report.counts.unmatched }, portabilitySummary(report.counts, chosen)),
        h("table", {}, h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", {}, "Track"),
          h("th", {}, TARGETS[chosen]), h("th", {}, "Why"))),
        h("tbody", {}, report.tracks.map((row) => h("tr", { "data-testid": "portability-row", "data-status": row.status,
          "data-track-id": row.track_id },
        h("td", { class: "num" }, String(row.position + 1)),
        h("td", {}, row.name ? `${row.name}${row.artists ? ` · ${row.artists.join(", ")}` : ""}`
          : h("span", { class: "muted" }, "unknown track")),
        h("td", { class: "mono" }, row.target_id || h("span", { class: "muted" }, "none")),
        h("td", {}, REASONS[row.reason] || row.reason))))));
    } catch (error) {
      showError(error);
    } finally {
      go.disabled = false;
    }
  });
  return h("section", { class: "card" }, h("h2", {}, "Portability"),
    h("p", { class: "muted" }, "Which tracks could be found again on another service, by the ids memory knows."),
    h("div", { class: "row" }, h("label", {}, "Target ", target), go), out);
}
