// The one way the page reaches the service: the session endpoints and POST /ui/api/tools/<tool>.
import { parseExact } from "./json.js";

const BASE = "/ui/api";
let csrf = null;

export class ApiError extends Error {
  constructor(code, message, status, details) {
    super(message);
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

async function request(method, path, body, { needsCsrf = false, exact = false } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (needsCsrf && csrf) headers["X-CSRF-Token"] = csrf;
  const response = await fetch(BASE + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
    cache: "no-store",
  });
  if (response.status === 204) return null;
  let data = null;
  try {
    data = exact ? parseExact(await response.text()) : await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(error.code || `HTTP_${response.status}`,
      error.message || `The server answered ${response.status} ${response.statusText}`.trim(),
      response.status, error.details);
  }
  return data;
}

function remember(session) {
  csrf = session && session.signed_in ? session.csrf : null;
  return session;
}

export async function getSession() {
  return remember(await request("GET", "/session"));
}

export async function signIn(token) {
  return remember(await request("POST", "/session", token ? { token } : {}));
}

export async function signOut() {
  try {
    await request("DELETE", "/session", undefined, { needsCsrf: true });
  } finally {
    csrf = null;
  }
}

/** Call a tool; resolves to the envelope's result, throws ApiError for an envelope error or HTTP error.
 * exact: integers past 2^53 stay exact (json.js), for data sent back as it came (export). */
export async function callTool(tool, args, { exact = false } = {}) {
  const envelope = await request("POST", `/tools/${encodeURIComponent(tool)}`, args, { needsCsrf: true, exact });
  if (!envelope || envelope.success !== true) {
    const error = (envelope && envelope.error) || {};
    throw new ApiError(error.code || "ERROR", error.message || `${tool} failed`, 200, error.details);
  }
  return envelope.result;
}

/** A paged read whole: the first page's answer, with the `listKey` items of every page after it
 * (followed by next_cursor) joined in order; reads beyond the PRD answer at most 16 KB a page. */
export async function callAllPages(tool, args, listKey) {
  const first = await callTool(tool, args);
  let page = first;
  while (page.next_cursor) {
    page = await callTool(tool, { ...args, cursor: page.next_cursor });
    first[listKey] = first[listKey].concat(page[listKey]);
  }
  first.next_cursor = null;
  return first;
}

/** Upload a listening history for the server to import (POST /ui/api/history-imports, the file as
 * the body); resolves to the job id. XMLHttpRequest, not fetch: only it reports the upload's progress,
 * as onProgress(sentBytes, totalBytes). */
export function uploadHistory(userId, file, { format, includePrivate }, onProgress) {
  const query = new URLSearchParams({ user_id: String(userId), format, include_private: String(includePrivate),
    name: file.name });
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${BASE}/history-imports?${query}`);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    if (csrf) xhr.setRequestHeader("X-CSRF-Token", csrf);
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onerror = () => reject(new TypeError("network error"));
    xhr.onload = () => {
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch { data = null; }
      if (xhr.status === 202 && data && data.job_id) { resolve(data.job_id); return; }
      const error = (data && data.error) || {};
      reject(new ApiError(error.code || `HTTP_${xhr.status}`,
        error.message || `The server answered ${xhr.status} ${xhr.statusText}`.trim(), xhr.status, error.details));
    };
    xhr.send(file);
  });
}

/** Where a history import stands: {state: "running"|"done"|"failed", read, total, file, report|error}. */
export async function historyImport(jobId) {
  return request("GET", `/history-imports/${encodeURIComponent(jobId)}`);
}

/** Stop a running history import; its answer once it has stopped (state "cancelled"). */
export async function cancelHistoryImport(jobId) {
  return request("DELETE", `/history-imports/${encodeURIComponent(jobId)}`, undefined, { needsCsrf: true });
}

// --- OAuth: a client's consent request and the clients connected to this session's users ---

/** What a client asks for: {client_name, redirect_origin, scopes, users: [{user_id, held_scopes}]}. */
export async function consentRequest(requestId) {
  return request("GET", `/oauth/requests/${encodeURIComponent(requestId)}`);
}

/** Approve (body {user_id}) or deny a consent request; resolves to {redirect}, where the browser goes next. */
export async function answerConsent(requestId, verdict, body) {
  return request("POST", `/oauth/requests/${encodeURIComponent(requestId)}/${verdict}`, body ?? {}, { needsCsrf: true });
}

/** The clients connected to this session's users: [{client_id, client_name, user_id, scopes, connected_at, last_used_at}]. */
export async function connectedClients() {
  return (await request("GET", "/oauth/clients")).clients;
}

/** Disconnect a client: every grant it holds for this session's users ends at its next call. */
export async function revokeClient(clientId) {
  return request("POST", `/oauth/clients/${encodeURIComponent(clientId)}/revoke`, {}, { needsCsrf: true });
}
