// One playlist (#/playlists/<id>): header, the timeline picture (memory_get_playlist_timeline), the
// contents at a moment (memory_reconstruct_playlist with include_tracks), a diff between two moments
// (memory_diff_playlist), undo with confirmation (memory_undo_last_mutation) and portability.
import { callAllPages, callTool } from "./api.js";
import { confirmDialog } from "./confirm.js";
import { clearError, h, replace, showError, when } from "./dom.js";
import { fromPicker, momentPicker, toPicker } from "./moments.js";
import { portabilityCard } from "./portability.js";
import { changeWords } from "./words.js";

export const MAX_POINTS = 500;
const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 800;
const HEIGHT = 180;
const PAD = { left: 44, right: 10, top: 10, bottom: 22 };
// The legend's order; each bin is marked by its most frequent type (ties: this order).
const TYPES = ["CREATE", "FORK", "ADD_TRACKS", "REMOVE_TRACKS", "REORDER", "UPDATE_META", "RESYNC", "UNDO"];

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs || {})) el.setAttribute(name, String(value));
  for (const child of children) if (child) el.append(child);
  return el;
}

function dominant(types) {
  let best = null;
  for (const type of TYPES.concat(Object.keys(types).filter((t) => !TYPES.includes(t)))) {
    if ((types[type] || 0) > (best === null ? 0 : types[best])) best = type;
  }
  return best || "OTHER";
}

const typeClass = (type) => `type-${type.toLowerCase().replace(/[^a-z_]/g, "")}`;

/** The picture: the count band (min..max) and line (end) over time, one mark per bin. */
function picture(timeline, onPick) {
  const points = timeline.points;
  const t0 = Date.parse(points[0].from);
  const t1 = Math.max(Date.parse(points[points.length - 1].to), t0 + 1);
  const top = Math.max(1, ...points.map((p) => p.track_count_max));
  const x = (iso) => PAD.left + ((Date.parse(iso) - t0) / (t1 - t0)) * (WIDTH - PAD.left - PAD.right);
  const y = (n) => HEIGHT - PAD.bottom - (n / top) * (HEIGHT - PAD.top - PAD.bottom);
  const X = (iso) => x(iso).toFixed(1);
  const Y = (n) => y(n).toFixed(1);
  // Steps: the count holds until a bin's last event, then jumps to the bin's count after it.
  const line = [`M${X(points[0].to)},${Y(points[0].track_count_end)}`]
    .concat(points.slice(1).map((p) => `H${X(p.to)} V${Y(p.track_count_end)}`));
  // Within a bin the count ranged over min..max: one rectangle per bin.
  const band = points.map((p) => `M${X(p.from)},${Y(p.track_count_max)} H${X(p.to)} V${Y(p.track_count_min)} H${X(p.from)} Z`);
  const marks = svg("g", { class: "marks" });
  for (const p of points) {
    const type = dominant(p.types);
    const mark = svg("circle", { cx: x(p.to).toFixed(1), cy: y(p.track_count_end).toFixed(1), r: 3,
      class: `mark ${typeClass(type)}`, "data-testid": "timeline-mark", "data-at": p.to });
    mark.append(svg("title", {}, document.createTextNode(
      `${when(p.to)}: ${p.track_count_end} tracks · ${Object.entries(p.types)
        .map(([t, n]) => (n > 1 ? `${changeWords(t)} (${n} times)` : changeWords(t))).join(", ")}`)));
    marks.append(mark);
  }
  const cursor = svg("line", { class: "moment", x1: -10, x2: -10, y1: PAD.top, y2: HEIGHT - PAD.bottom });
  const root = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "timeline", "data-testid": "timeline",
    role: "img", "aria-label": `Track count over time: ${timeline.events_total} events` },
  svg("line", { class: "axis", x1: PAD.left, x2: WIDTH - PAD.right, y1: HEIGHT - PAD.bottom, y2: HEIGHT - PAD.bottom }),
  svg("text", { class: "tick", x: PAD.left - 4, y: y(top) + 4, "text-anchor": "end" }, document.createTextNode(String(top))),
  svg("text", { class: "tick", x: PAD.left - 4, y: y(0), "text-anchor": "end" }, document.createTextNode("0")),
  svg("text", { class: "tick", x: PAD.left, y: HEIGHT - 6 }, document.createTextNode(when(points[0].from))),
  svg("text", { class: "tick", x: WIDTH - PAD.right, y: HEIGHT - 6, "text-anchor": "end" },
    document.createTextNode(when(points[points.length - 1].to))),
  svg("path", { class: "band", d: band.join(" ") }),
  svg("path", { class: "count", d: line.join(" ") }),
  marks, cursor);
  root.addEventListener("click", (event) => {
    const box = root.getBoundingClientRect();
    const px = ((event.clientX - box.left) / box.width) * WIDTH;
    const share = Math.min(1, Math.max(0, (px - PAD.left) / (WIDTH - PAD.left - PAD.right)));
    onPick(new Date(t0 + share * (t1 - t0)).toISOString());
  });
  const show = (iso) => {
    const at = Math.min(WIDTH - PAD.right, Math.max(PAD.left, x(iso)));
    cursor.setAttribute("x1", at.toFixed(1));
    cursor.setAttribute("x2", at.toFixed(1));
  };
  const used = new Set(points.map((p) => dominant(p.types)));
  const legend = h("ul", { class: "legend", "data-testid": "timeline-legend" },
    TYPES.filter((t) => used.has(t)).map((t) => h("li", { "data-type": t },
      h("span", { class: `swatch ${typeClass(t)}` }), changeWords(t))));
  return { root, legend, show };
}

function trackRows(found) {
  const tracks = found.tracks || [];
  return found.track_ids.map((id, i) => {
    const known = tracks[i] && tracks[i].name;
    return h("tr", { "data-testid": "track-row", "data-track-id": id },
      h("td", { class: "num" }, String(i + 1)),
      h("td", {}, known ? tracks[i].name : h("span", { class: "muted" }, "unknown track")),
      h("td", {}, known && tracks[i].artists ? tracks[i].artists.join(", ") : ""),
      h("td", { class: "mono" }, id));
  });
}

export async function renderPlaylist(view) {
  const playlistId = view.param;
  const args = { user_id: view.userId, playlist_id: playlistId };
  const [info, timeline] = await Promise.all([
    callTool("memory_get_playlist", { ...args, include_events_limit: 0 }),
    callAllPages("memory_get_playlist_timeline", { ...args, max_points: MAX_POINTS }, "points"),
  ]);
  if (!view.current()) return;
  const name = info.playlist && info.playlist.name ? info.playlist.name : playlistId;
  const count = h("span", { "data-testid": "playlist-count" }, String(timeline.track_count));

  const momentInput = momentPicker(h, { "data-testid": "moment-input", "aria-label": "Moment", class: "moment-input" });
  const momentShow = h("button", { type: "button", "data-testid": "moment-show" }, "Show");
  const momentTitle = h("h2", {}, "Contents now");
  const tracksBody = h("tbody", { "data-testid": "tracks" });
  const tracksNote = h("p", { class: "muted", "data-testid": "tracks-note" });
  let shown = 0;
  const pic = picture(timeline, (iso) => { momentInput.value = toPicker(iso); showAt(iso); });

  async function showAt(iso) {
    clearError();
    const mine = ++shown;
    tracksBody.setAttribute("aria-busy", "true");
    try {
      const found = await callTool("memory_reconstruct_playlist",
        { ...args, include_tracks: true, ...(iso ? { at_time: iso } : {}) });
      if (!view.current() || mine !== shown) return;
      replace(momentTitle, iso ? ["Contents at ", h("time", { datetime: iso, title: iso }, when(iso))] : "Contents now");
      replace(tracksBody, trackRows(found));
      tracksNote.textContent = `${found.track_ids.length} tracks${found.tracks_truncated ? " (names cut to keep the answer small)" : ""}.`;
      if (iso) pic.show(iso);
    } catch (error) {
      if (mine !== shown) return;
      replace(tracksBody);
      tracksNote.textContent = "";
      showError(error);
    } finally {
      if (mine === shown) tracksBody.setAttribute("aria-busy", "false");
    }
  }

  const pick = () => {
    const iso = fromPicker(momentInput);
    if (!iso) {
      showError({ code: "INVALID_ARGUMENT", message: "Pick a day and a time first." });
      return;
    }
    showAt(iso);
  };
  momentShow.addEventListener("click", pick);
  momentInput.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    pick();
  });

  replace(view.main,
    h("p", {}, h("a", { href: "#/playlists" }, "← Playlists")),
    h("h1", { "data-testid": "playlist-title" }, name, " ", h("span", { class: "muted" }, "· ", count, " tracks")),
    h("section", { class: "card" }, h("h2", {}, "Timeline"),
      h("p", { class: "muted" }, `How many tracks it held over ${timeline.events_total} changes (shaded: the lowest `
        + "and highest count where changes lie close together). Click the picture or pick a moment to see the contents then."),
      pic.root, pic.legend,
      h("div", { class: "row" }, h("label", {}, "Moment ", momentInput), momentShow)),
    h("section", { class: "card" }, momentTitle, tracksNote,
      h("table", { "data-testid": "track-table" },
        h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", {}, "Track"), h("th", {}, "Artists"),
          h("th", {}, "ID"))), tracksBody)),
    diffCard(args, view),
    portabilityCard(args, view),
    undoCard(args, view));
  await showAt(null);
}

function diffCard(args, view) {
  const from = momentPicker(h, { "data-testid": "diff-from", "aria-label": "From" });
  const to = momentPicker(h, { "data-testid": "diff-to", "aria-label": "To (empty: now)" });
  const go = h("button", { type: "button", "data-testid": "diff-run" }, "Compare");
  const out = h("div", { "data-testid": "diff" });
  go.addEventListener("click", async () => {
    clearError();
    const fromIso = fromPicker(from);
    const toIso = to.value.trim() ? fromPicker(to) : null;
    if (!fromIso || (to.value.trim() && !toIso)) {
      showError({ code: "INVALID_ARGUMENT", message: "Pick the first moment (the second may stay empty: now)." });
      return;
    }
    go.disabled = true;
    try {
      const diff = await callTool("memory_diff_playlist", { ...args, from_time: fromIso, ...(toIso ? { to_time: toIso } : {}) });
      if (!view.current()) return;
      const list = (title, testid, items, key) => h("div", {}, h("h3", {}, `${title} (${diff.counts[key]})`),
        items.length ? h("ul", { "data-testid": testid }, items.map((item) =>
          h("li", { "data-track-id": item.track_id }, h("span", { class: "mono" }, item.track_id), ` at position ${item.index + 1}`)))
          : h("p", { class: "muted" }, "none"));
      replace(out, h("div", { class: "diff-lists" },
        list("Added", "diff-added", diff.added, "added"), list("Removed", "diff-removed", diff.removed, "removed")),
      diff.truncated ? h("p", { class: "muted" }, "Lists cut to keep the answer small; counts are exact.") : null);
    } catch (error) {
      showError(error);
    } finally {
      go.disabled = false;
    }
  });
  return h("section", { class: "card" }, h("h2", {}, "Compare two moments"),
    h("div", { class: "row" }, h("label", {}, "From ", from), h("label", {}, "to ", to),
      h("span", { class: "muted small" }, "(empty: now)"), go), out);
}

function undoCard(args, view) {
  const button = h("button", { type: "button", "data-testid": "undo" }, "Undo last change");
  button.addEventListener("click", async () => {
    clearError();
    const yes = await confirmDialog("Undo the last change?",
      "The latest change still in force is reversed; the history keeps both the change and its undoing. "
      + "Make the same change on the music service.", "Undo");
    if (!yes) return;
    button.disabled = true;
    try {
      await callTool("memory_undo_last_mutation", args);
      if (view.current()) await view.rerender();
    } catch (error) {
      showError(error);
    } finally {
      button.disabled = false;
    }
  });
  return h("section", { class: "card" }, h("h2", {}, "Undo"), button);
}
