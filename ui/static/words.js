// The service's internal names in the person's words: profile paths (JSON Pointers), ledger change
// types, context sections and reasons. Anything not listed falls back to its name with spaces.
import { h } from "./dom.js";

const CHANGES = {
  CREATE: "Created", FORK: "Copied from another playlist", ADD_TRACKS: "Added tracks",
  REMOVE_TRACKS: "Removed tracks", REORDER: "Reordered", UPDATE_META: "Changed name or details",
  RESYNC: "Brought in line with the music service", UNDO: "Undid a change",
};
const SECTIONS = {
  prefer: "Prefer", avoid: "Avoid", rules: "Rules", playlists: "Recent playlists", followups: "Open follow-ups",
};
const LEFT_OUT = {
  budget: "that did not fit the size limit", superseded: "replaced by something said later",
  unclassified: "profile fields no section shows",
};
const KINDS = { preference_event: "something said", profile: "profile", track: "track", playlist: "playlist", memory: "memory" };

/** "core_genres" → "core genres": a machine name with its underscores as spaces. */
export function spaced(name) {
  return String(name).replace(/_+/g, " ").trim();
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** "/core_genres/0" → "Core genres, item 1"; "/playlist_rules/arc" → "Playlist rules › arc". */
export function pathWords(pointer) {
  if (!pointer || pointer === "/") return "The whole profile";
  const parts = String(pointer).replace(/^\//, "").split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  let text = "";
  for (const part of parts) {
    if (/^\d+$/.test(part) && text) text += `, item ${Number(part) + 1}`;
    else text += (text ? " › " : "") + spaced(part);
  }
  return capital(text);
}

/** A top-level profile key ("core_genres") → "Core genres". */
export function keyWords(key) {
  return capital(spaced(key));
}

/** "ADD_TRACKS" → "Added tracks". */
export function changeWords(type) {
  return CHANGES[type] || capital(spaced(String(type).toLowerCase()));
}

/** A context block section ("followups") → its heading in the block ("Open follow-ups"). */
export function sectionWords(section) {
  return SECTIONS[section] || capital(spaced(section));
}

/** Why the context block left an item out ("budget") → a phrase. */
export function leftOutWords(reason) {
  return LEFT_OUT[reason] || `for ${spaced(reason)}`;
}

/** A search hit's kind ("preference_event") → a label. */
export function kindWords(kind) {
  return KINDS[kind] || spaced(kind);
}

/** A mark on what the person asked to keep out of sight (a memory, a profile field); null otherwise. */
export function sensitiveMark(item) {
  return item.sensitive
    ? h("span", { class: "kind sensitive", "data-testid": "sensitive-mark",
      title: "Kept out of sight: the assistant sees it only when you name it" }, "kept out of sight")
    : null;
}

// What a connected app may do, in words (the OAuth scopes a client asks for).
const SCOPES = {
  "memory:read": "Read your memory: taste profile, playlists, memories and plays",
  "memory:write": "Add to your memory: change the profile, log playlists, memories and plays",
  "memory:control": "Control your memory: turn it off or pause it, forget, delete everything, import",
};

/** "memory:write" → a sentence saying what a client holding it may do. */
export function scopeWords(scope) {
  return SCOPES[scope] ?? `${scope} (unknown permission)`;
}

/** "memory:write" → "write": the short name a list of scopes shows. */
export function scopeShort(scope) {
  return String(scope).replace(/^memory:/, "");
}
