// The memory page: sign-in, user choice, hash routes (#/overview, #/playlists).
import { callTool, getSession, signIn, signOut } from "./api.js";
import { clearError, h, replace, showError } from "./dom.js";
import { renderOverview } from "./overview.js";
import { renderPlaylists } from "./playlists.js";
import { renderProfile } from "./profile.js";
import { renderMemories } from "./memories.js";
import { renderExport } from "./export.js";
import { renderPlaylist } from "./playlist.js";
import { renderReview } from "./review.js";
import { renderConsent } from "./consent.js";

const ROUTES = { "#/overview": renderOverview, "#/playlists": renderPlaylists };
Object.assign(ROUTES, { "#/profile": renderProfile, "#/memories": renderMemories, "#/export": renderExport });
ROUTES["#/review"] = renderReview;
// Routes with a parameter: "#/playlists/<id>" → one playlist's page (its nav entry: Playlists).
// "#/consent/<id>": an app's authorization request (where /authorize sends the browser); it needs
// a signed-in session but no chosen user, and belongs to no nav entry.
const PARAM_ROUTES = [
  { prefix: "#/playlists/", render: renderPlaylist, nav: "#/playlists" },
  { prefix: "#/consent/", render: renderConsent, nav: null, anyUser: true },
];
function paramRoute(hash) {
  const found = PARAM_ROUTES.find((r) => hash.startsWith(r.prefix) && hash.length > r.prefix.length);
  return found ? { ...found, param: decodeURIComponent(hash.slice(found.prefix.length)) } : null;
}
const DEFAULT_ROUTE = "#/overview";
const USER_KEY = "taste-memory.user_id";

const main = document.getElementById("main");
const header = document.getElementById("top");
const userSlot = document.getElementById("user-slot");

let session = null; // the GET/POST /ui/api/session body
let userId = null; // the user whose memory is shown
let renderCount = 0; // a later render makes an earlier one's late answers moot

function busy(flag) {
  main.setAttribute("aria-busy", flag ? "true" : "false");
}

// --- sign-in -------------------------------------------------------------------------------

function renderSignIn(openMode) {
  header.hidden = true;
  const input = h("input", {
    type: "password", id: "token", "data-testid": "token-input", autocomplete: "off",
    placeholder: openMode ? "not needed in open mode" : "tm_…", "aria-label": "Token",
  });
  const button = h("button", { type: "submit", class: "primary", "data-testid": "sign-in" }, "Sign in");
  const form = h("form", { class: "card signin-form", novalidate: true },
    h("label", { for: "token" }, "Token"), input, button);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearError();
    button.disabled = true;
    try {
      const body = await signIn(input.value.trim());
      input.value = "";
      await start(body);
    } catch (error) {
      showError(error.status === 401 ? { code: error.code, message: "That token was not accepted." } : error);
      button.disabled = false;
      input.focus();
    }
  });
  replace(main, h("section", { class: "card signin" },
    h("h1", {}, "Sign in to your memory"),
    h("p", { class: "muted" }, openMode
      ? "This server runs in open mode (no tokens, loopback only): sign in without a token."
      : "Paste a token the service's operator gave you. It is sent once; the page then keeps a session."),
    location.hash.startsWith("#/consent/")
      ? h("p", { "data-testid": "consent-sign-in" }, "An app asks to connect to your memory: sign in to see what it asks for.")
      : null,
    form));
  busy(false);
  input.focus();
}

// --- user choice ---------------------------------------------------------------------------

async function chooseUsers() {
  const ids = Array.isArray(session.user_ids) ? session.user_ids.slice()
    : (await callTool("ops_list_users", { limit: 200 })).users.map((u) => u.user_id);
  const stored = Number(sessionStorage.getItem(USER_KEY));
  const broad = !Array.isArray(session.user_ids); // operator/open: any user id may be typed
  userId = ids.includes(stored) || (broad && stored > 0) ? stored : (ids[0] ?? null);
  if (userId !== null) sessionStorage.setItem(USER_KEY, String(userId));
  renderUserSlot(ids, broad);
}

function renderUserSlot(ids, broad) {
  if (ids.length <= 1 && !broad) {
    replace(userSlot, "User ", h("strong", { "data-testid": "current-user" }, userId ?? "none"));
    return;
  }
  const options = ids.includes(userId) || userId === null ? ids : [...ids, userId];
  const select = h("select", { "data-testid": "user-picker", "aria-label": "User" },
    options.map((id) => h("option", { value: id, selected: id === userId }, `User ${id}`)));
  select.addEventListener("change", () => pickUser(Number(select.value)));
  const parts = ["User ", select];
  if (broad) {
    const other = h("input", { type: "number", min: 1, placeholder: "other id", "aria-label": "Other user id",
      "data-testid": "user-id-input", class: "user-id" });
    other.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && Number(other.value) > 0) pickUser(Number(other.value), ids, broad);
    });
    parts.push(other);
  }
  replace(userSlot, ...parts);
}

function pickUser(id, ids, broad) {
  userId = id;
  sessionStorage.setItem(USER_KEY, String(id));
  if (ids) renderUserSlot(ids, broad);
  route();
}

// --- routing -------------------------------------------------------------------------------

async function route() {
  if (!session) return;
  const withParam = paramRoute(location.hash);
  const hash = withParam || ROUTES[location.hash] ? location.hash : DEFAULT_ROUTE;
  const navHash = withParam ? withParam.nav : hash;
  if (hash !== location.hash) {
    history.replaceState(null, "", hash);
  }
  for (const link of header.querySelectorAll("nav a")) {
    link.classList.toggle("active", link.getAttribute("href") === navHash);
    if (link.getAttribute("href") === navHash) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const mine = ++renderCount;
  const view = {
    main,
    userId,
    current: () => mine === renderCount,
    busy,
    rerender: route,
    param: withParam ? withParam.param : null,
    role: session.role, // "user", "operator" or "open": only a user's session connects apps
    uploadLimit: session ? session.history_upload_bytes : null, // the largest history file the server takes
  };
  clearError();
  busy(true);
  try {
    if (userId === null && !(withParam && withParam.anyUser)) {
      replace(main, h("p", { class: "muted" }, "No user has stored memory yet: type a user id above."));
    } else {
      await (withParam ? withParam.render : ROUTES[hash])(view);
    }
  } catch (error) {
    if (view.current()) await failed(error);
  } finally {
    if (view.current()) busy(false);
  }
}

/** Errors of a whole view: an ended session goes back to sign-in, the rest is shown. */
export async function failed(error) {
  if (error && error.status === 401) {
    session = null;
    const state = await getSession().catch(() => ({ open_mode: false }));
    renderSignIn(Boolean(state.open_mode));
    showError({ code: error.code, message: "Your session has ended: sign in again." });
    return;
  }
  showError(error);
}

async function start(body) {
  session = body;
  busy(true);
  header.hidden = false;
  try {
    await chooseUsers();
  } catch (error) {
    await failed(error);
    return;
  }
  await route();
}

document.getElementById("sign-out").addEventListener("click", async () => {
  clearError();
  try {
    await signOut();
  } catch (error) {
    showError(error);
  }
  session = null;
  userId = null;
  sessionStorage.removeItem(USER_KEY);
  replace(userSlot);
  const state = await getSession().catch(() => ({ open_mode: false }));
  renderSignIn(Boolean(state.open_mode));
});

window.addEventListener("hashchange", route);

async function boot() {
  try {
    const body = await getSession();
    if (body.signed_in) await start(body);
    else renderSignIn(Boolean(body.open_mode));
  } catch (error) {
    renderSignIn(false);
    showError(error);
  }
}

boot();
