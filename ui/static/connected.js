// The Overview's "Connected apps" card: the apps this person let reach their memory (OAuth
// clients), what each may do and when it last called; disconnecting one ends its access at its
// next call, and it must ask again to come back.
import { connectedClients, revokeClient } from "./api.js";
import { confirmed } from "./confirm.js";
import { h, showError, when } from "./dom.js";
import { scopeShort, scopeWords } from "./words.js";

/** The card for the shown user, or null for a session that connects no apps (operator, open mode). */
export async function connectedCard(view) {
  if (view.role !== "user") return null;
  const rows = (await connectedClients()).filter((row) => row.user_id === view.userId);
  const card = h("section", { class: "card", "data-testid": "connected-apps" }, h("h2", {}, "Connected apps"));
  if (!rows.length) {
    card.append(h("p", { class: "muted", "data-testid": "connected-none" },
      "No app is connected. An app you connect (a remote MCP connector) asks you here first."));
    return card;
  }
  card.append(h("ul", { class: "results" }, rows.map((row) => clientRow(view, row))));
  return card;
}

function clientRow(view, row) {
  const name = row.client_name || row.client_id;
  const revoke = h("button", { type: "button", class: "small danger", "data-testid": "revoke-client" }, "Disconnect");
  revoke.addEventListener("click", () => confirmed(revoke, `Disconnect ${name}?`,
    `${name} loses access to your memory at its next call; to come back it must ask you again.`,
    "Disconnect", async () => {
      await revokeClient(row.client_id);
      await view.rerender();
    }, showError));
  return h("li", { "data-testid": "connected-client", "data-client-id": row.client_id },
    h("div", { class: "row" },
      h("strong", { "data-testid": "connected-name" }, name),
      row.scopes.map((scope) => h("span", { class: "kind", title: scopeWords(scope), "data-testid": "connected-scope" },
        scopeShort(scope))),
      h("span", { class: "spacer" }),
      revoke),
    h("p", { class: "muted small" },
      "Connected ", h("time", { datetime: row.connected_at, title: row.connected_at }, when(row.connected_at)), "; ",
      row.last_used_at
        ? ["last used ", h("time", { datetime: row.last_used_at, title: row.last_used_at, "data-testid": "connected-last-use" },
          when(row.last_used_at))]
        : h("span", { "data-testid": "connected-last-use" }, "not used yet"),
      "."));
}
