// The consent view (#/consent/<id>): an app asks to reach this person's memory. The page shows
// who asks (its name and where it sends the answer) and what it may do, then approves or denies
// and hands the browser back to the app. Only a user token's session may approve, for its users.
import { answerConsent, consentRequest } from "./api.js";
import { clearError, h, replace, showError } from "./dom.js";
import { scopeWords } from "./words.js";

export async function renderConsent(view) {
  let asked;
  try {
    asked = await consentRequest(view.param);
  } catch (error) {
    if (error.status !== 404) throw error;
    if (view.current()) replace(view.main, goneCard());
    return;
  }
  if (!view.current()) return;
  const users = asked.users ?? [];
  const canApprove = view.role === "user" && users.length > 0;
  let chosen = users.find((u) => u.user_id === view.userId) ?? users[0] ?? null;
  const scopeList = h("ul", { class: "scopes", "data-testid": "consent-scopes" });
  const heldNote = h("p", { class: "muted", "data-testid": "consent-held" });
  const drawScopes = () => {
    const held = new Set(chosen ? chosen.held_scopes : []);
    replace(scopeList, asked.scopes.map((scope) => h("li",
      { "data-testid": "consent-scope", "data-scope": scope, "data-new": held.size && !held.has(scope) ? "true" : null },
      scopeWords(scope), held.size && !held.has(scope) ? h("span", { class: "kind new" }, "new") : null)));
    const more = asked.scopes.filter((s) => !held.has(s));
    heldNote.hidden = held.size === 0;
    heldNote.textContent = held.size === 0 ? ""
      : more.length ? `${asked.client_name} is connected already; approving adds what is marked new.`
        : `${asked.client_name} is connected already with all of these: approving renews its access.`;
  };
  drawScopes();

  const approve = h("button", { type: "button", class: "primary", "data-testid": "consent-approve", disabled: !canApprove },
    "Approve");
  const deny = h("button", { type: "button", "data-testid": "consent-deny" }, "Deny");
  const answer = async (verdict) => {
    clearError();
    approve.disabled = deny.disabled = true;
    try {
      const body = verdict === "approve" && chosen ? { user_id: chosen.user_id } : {};
      const { redirect } = await answerConsent(view.param, verdict, body);
      location.assign(redirect); // back to the app, with its code or access_denied
    } catch (error) {
      if (error.status === 404) replace(view.main, goneCard());
      else showError(error);
      approve.disabled = !canApprove;
      deny.disabled = false;
    }
  };
  approve.addEventListener("click", () => answer("approve"));
  deny.addEventListener("click", () => answer("deny"));

  replace(view.main, h("section", { class: "card consent", "data-testid": "consent" },
    h("h1", {}, "Connect ", h("span", { "data-testid": "consent-client" }, asked.client_name), " to your memory?"),
    h("p", {}, "It will send your answer to ", h("strong", { class: "mono", "data-testid": "consent-origin" },
      asked.redirect_origin), ". Approve only if you started this connection there."),
    users.length > 1 ? userChoice(users, chosen, (picked) => { chosen = picked; drawScopes(); }) : null,
    h("h2", {}, "It asks to"),
    scopeList,
    heldNote,
    canApprove ? null : h("p", { class: "error-text", "data-testid": "consent-not-user" },
      "Only a person signed in with their own user token can connect an app. Sign out and sign in with yours."),
    h("div", { class: "row" }, approve, deny)));
}

function userChoice(users, chosen, onPick) {
  const select = h("select", { "data-testid": "consent-user", "aria-label": "Connect for user" },
    users.map((u) => h("option", { value: u.user_id, selected: u === chosen }, `User ${u.user_id}`)));
  select.addEventListener("change", () => onPick(users.find((u) => u.user_id === Number(select.value))));
  return h("p", {}, h("label", {}, "Whose memory: ", select));
}

function goneCard() {
  return h("section", { class: "card", "data-testid": "consent-gone" },
    h("h1", {}, "This connection request is no longer open"),
    h("p", {}, "It expired (requests last ten minutes), was answered already, or never existed. "
      + "Go back to the app and connect again."));
}
