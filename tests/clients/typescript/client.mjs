// Drive Taste Memory with the official TypeScript MCP SDK client, the way a Node agent would.
//
//   node client.mjs <url> <sse|streamable-http> <user_id>
//
// Prints one JSON summary on stdout for tests/clients/test_typescript_client.py to check. Each step
// records its own failure instead of stopping the run, so one missing capability does not hide the
// answers of the others. The SDK itself validates every tool result's structuredContent against
// the outputSchema that tools/list published (Client.callTool throws when it does not match).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, transportName, userArg] = process.argv.slice(2);
const userId = Number(userArg ?? "1");
const transports = { sse: SSEClientTransport, "streamable-http": StreamableHTTPClientTransport };
if (!url || !transports[transportName]) {
  console.error("usage: node client.mjs <url> <sse|streamable-http> <user_id>");
  process.exit(2);
}

const summary = { transport: transportName };

// Run one step; its value (or its error message) goes into the summary under `name`.
async function step(name, run) {
  try {
    summary[name] = await run();
  } catch (error) {
    summary[name] = { error: String(error?.message ?? error) };
  }
}

const client = new Client({ name: "taste-memory-ts-test", version: "1.0.0" });
let toolListChanged;
const toldToolsChanged = new Promise((resolve) => { toolListChanged = resolve; });
client.setNotificationHandler(ToolListChangedNotificationSchema, () => toolListChanged(true));
await client.connect(new transports[transportName](new URL(url)));
summary.server = client.getServerVersion();

await step("tools", async () => {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  const withOutputSchema = tools.filter((tool) => tool.outputSchema).map((tool) => tool.name);
  return { count: tools.length, names: tools.map((tool) => tool.name), withOutputSchema };
});

const patch = { playlist_rules: { max_tracks_per_artist: 2 }, core_genres: ["symphonic metal"] };
await step("write", async () => client.callTool({
  name: "memory_update_profile",
  arguments: { user_id: userId, patch, reason: "User feedback: TypeScript client test", source: "user" },
}));
await step("read", async () => client.callTool({ name: "memory_get_profile", arguments: { user_id: userId } }));

// More tools, in-band: enable a toolset, hear that the list changed, list again, call a new tool.
await step("toolsets", async () => {
  const enabled = await client.callTool({ name: "memory_enable_toolsets", arguments: { toolsets: ["ledger"] } });
  const timeout = new Promise((resolve) => setTimeout(() => resolve(false), 10000));
  const told = await Promise.race([toldToolsChanged, timeout]);
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  const timeline = await client.callTool({
    name: "memory_get_playlist_timeline",
    arguments: { user_id: userId, playlist_id: "playlist00000000000001" },
  });
  return { enabled: enabled.structuredContent, told, names, timeline: timeline.structuredContent };
});

await step("resourceTemplates", async () => (await client.listResourceTemplates()).resourceTemplates
  .map((template) => template.uriTemplate));
await step("resource", async () => client.readResource({ uri: `memory://users/${userId}/profile` }));

await step("prompts", async () => (await client.listPrompts()).prompts.map((prompt) => prompt.name));
await step("prompt", async () => client.getPrompt({ name: "start_session", arguments: { user_id: String(userId) } }));

await client.close();
console.log(JSON.stringify(summary));
