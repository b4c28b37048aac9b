// Connect to Taste Memory the way a Node agent with no token would: the official TypeScript SDK's
// OAuth client (an OAuthClientProvider handed to the transport) from the first 401 to revocation.
//
//   node oauth_client.mjs <url> <sse|streamable-http> <user_id>
//
// Talks to tests/clients/test_typescript_oauth.py in JSON lines on stdout: {"authorize": url} when
// the person must consent (the test answers it on the memory page's API and sends the browser to
// the redirect URI, which this script listens on, loopback, like a native app), and one final
// {"summary": …}. Each step records its own failure instead of stopping the run.
import { randomUUID } from "node:crypto";
import http from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, transportName, userArg] = process.argv.slice(2);
const userId = Number(userArg ?? "1");
const transports = { sse: SSEClientTransport, "streamable-http": StreamableHTTPClientTransport };
if (!url || !transports[transportName]) {
  console.error("usage: node oauth_client.mjs <url> <sse|streamable-http> <user_id>");
  process.exit(2);
}
const say = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const summary = { transport: transportName, authorizations: [] };

async function step(name, run) {
  try {
    summary[name] = await run();
  } catch (error) {
    summary[name] = { error: String(error?.message ?? error), unauthorized: error instanceof UnauthorizedError };
  }
}

// The redirect URI: a loopback listener on a port of its own (RFC 8252 §7.3). Each browser visit
// resolves the callback the flow is waiting for.
let delivered;
const callbacks = [];
const listener = http.createServer((request, response) => {
  const query = Object.fromEntries(new URL(request.url, "http://127.0.0.1").searchParams);
  response.writeHead(200, { "content-type": "text/plain" }).end("You can close this window.");
  (delivered ?? ((value) => callbacks.push(value)))(query);
});
await new Promise((resolve) => listener.listen(0, "127.0.0.1", resolve));
const redirectUrl = `http://127.0.0.1:${listener.address().port}/callback`;
const nextCallback = () =>
  callbacks.length ? Promise.resolve(callbacks.shift()) : new Promise((resolve) => { delivered = (q) => { delivered = undefined; resolve(q); }; });

// What a client keeps between runs, in memory here; `announce` says whether a new authorization
// is handed to the person (the test) or only recorded.
class Provider {
  constructor() {
    this.stored = {};
    this.announce = true;
    this.expectedState = undefined;
  }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return {
      client_name: "TypeScript SDK connector", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none",
    };
  }
  state() { return (this.expectedState = randomUUID()); }
  clientInformation() { return this.stored.client; }
  saveClientInformation(info) { this.stored.client = info; }
  tokens() { return this.stored.tokens; }
  saveTokens(tokens) { this.stored.tokens = tokens; }
  saveCodeVerifier(verifier) { this.stored.verifier = verifier; }
  codeVerifier() { return this.stored.verifier; }
  invalidateCredentials(scope) {
    if (scope === "all" || scope === "client") delete this.stored.client;
    if (scope === "all" || scope === "tokens") delete this.stored.tokens;
    if (scope === "all" || scope === "verifier") delete this.stored.verifier;
  }
  redirectToAuthorization(authorizationUrl) {
    summary.authorizations.push(String(authorizationUrl));
    if (this.announce) say({ authorize: String(authorizationUrl) });
  }
}
const provider = new Provider();
const connect = async () => {
  const client = new Client({ name: "taste-memory-ts-oauth-test", version: "1.0.0" });
  await client.connect(new transports[transportName](new URL(url), { authProvider: provider }));
  return client;
};

// 1. No token: the 401 starts discovery, registration and authorization; the person consents and
// the browser brings the code to the redirect URI; finishAuth exchanges it.
let client;
await step("connect", async () => {
  const transport = new transports[transportName](new URL(url), { authProvider: provider });
  const first = new Client({ name: "taste-memory-ts-oauth-test", version: "1.0.0" });
  try {
    await first.connect(transport);
    return { authorizedWithoutConsent: true };
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  const answer = await nextCallback();
  const callback = { state_matches: answer.state === provider.expectedState, iss: answer.iss ?? null, error: answer.error ?? null };
  if (!answer.code) return callback;
  await transport.finishAuth(answer.code);
  client = await connect();
  return { ...callback, client_id: provider.stored.client?.client_id, scope: provider.stored.tokens?.scope };
});

const read = () => client.callTool({ name: "memory_get_profile", arguments: { user_id: userId } });
if (client) {
  await step("write", async () => client.callTool({
    name: "memory_update_profile",
    arguments: { user_id: userId, patch: { core_genres: ["power metal"] }, reason: "TypeScript OAuth test", source: "user" },
  }));
  await step("read", read);

  // 2. The access token runs out (the server answers its 401): the SDK refreshes on its own and
  // repeats the call, without the person.
  await step("refresh", async () => {
    const before = provider.stored.tokens;
    provider.stored.tokens = { ...before, access_token: "tma_expired" };
    const result = await read();
    const after = provider.stored.tokens;
    return {
      result, rotated: after.refresh_token !== before.refresh_token, fresh: after.access_token !== before.access_token,
      authorizations: summary.authorizations.length,
    };
  });

  // 3. Revocation (RFC 7009) of the refresh token ends the grant: the access token is refused at
  // once, and the client, unable to refresh, is sent back to consent.
  await step("revoke", async () => {
    const { access_token, refresh_token } = provider.stored.tokens;
    const origin = new URL(url).origin;
    const revoked = await fetch(`${origin}/revoke`, {
      method: "POST",
      body: new URLSearchParams({ token: refresh_token, client_id: provider.stored.client.client_id }),
    });
    const stale = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "ping" }),
    });
    return { revoked: revoked.status, staleStatus: stale.status, staleChallenge: stale.headers.get("www-authenticate") };
  });
  provider.announce = false;
  const consentsBefore = summary.authorizations.length;
  await step("afterRevoke", async () => read());
  summary.sentBackToConsent = summary.authorizations.length > consentsBefore;
  await client.close().catch(() => {});
}

listener.close();
say({ summary });
process.exit(0);
