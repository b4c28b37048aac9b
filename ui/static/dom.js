// DOM helpers. User text only ever reaches the page as text nodes or attribute values:
// nothing here parses HTML.

/** h("tag", {attr: value, onclick: fn}, child, ...): strings become text nodes, null/false are skipped. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "hidden" || name === "disabled") el[name] = Boolean(value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

const errorBox = () => document.getElementById("error");

export function showError(error) {
  const box = errorBox();
  box.textContent = describe(error);
  box.hidden = false;
}

export function clearError() {
  const box = errorBox();
  box.textContent = "";
  box.hidden = true;
}

/** A readable sentence for an ApiError, a network failure or anything thrown. */
export function describe(error) {
  if (error && error.code) return `${error.message} (${error.code})`;
  if (error instanceof TypeError) return "The server could not be reached. Check that it is running, then try again.";
  return String((error && error.message) || error);
}

/** "2025-01-31T18:00:00Z" → a short local reading, with the UTC value kept in the title. */
export function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
