// The Export page's "Import listening history" card: a Spotify or Last.fm history uploaded, imported
// by the server (as `memory-service import-history` does) with its progress shown, then its report.
import { ApiError, cancelHistoryImport, historyImport, uploadHistory } from "./api.js";
import { clearError, h, replace, showError, when } from "./dom.js";

const FORMATS = {
  auto: "Recognise each file",
  "spotify-extended": "Spotify extended streaming history",
  "spotify-account": "Spotify account data",
  lastfm: "Last.fm recent tracks",
};
const POLL_MS = 500;
// The report's fields in the order the import checks them, in words.
const REPORT = [
  ["entries", "Rows read"],
  ["plays", "Plays stored"],
  ["skips", "Skips stored (played under 30 seconds)"],
  ["private_skipped", "Left out: played in a private session"],
  ["not_music", "Left out: podcasts, audiobooks, rows without an artist"],
  ["duplicates", "Already stored"],
  ["tracks_added", "Tracks added to the catalog"],
  ["first_played", "First play"],
  ["last_played", "Last play"],
];

const megabytes = (n) => `${(n / 1e6).toFixed(1)} MB`;
const pause = (ms) => new Promise((done) => setTimeout(done, ms));

function bar(testid, label) {
  const progress = h("progress", { "data-testid": testid, max: 1, value: 0, "aria-label": label });
  const wrap = h("div", { class: "progress", hidden: true }, h("span", { class: "small muted" }, label), progress);
  return { wrap, show(done, total) {
    wrap.hidden = false;
    progress.max = Math.max(total, 1);
    progress.value = Math.min(done, progress.max);
  } };
}

function reportTable(report, leftOut) {
  const value = (key) => {
    const raw = report[key];
    if (key === "first_played" || key === "last_played") {
      return raw ? h("time", { datetime: raw, title: raw }, when(raw)) : h("span", { class: "muted" }, "none");
    }
    return String(raw);
  };
  return [
    h("table", { "data-testid": "history-report" },
      h("thead", {}, h("tr", {}, h("th", {}, "What"), h("th", { class: "num" }, "Count"))),
      h("tbody", {}, REPORT.map(([key, label]) => h("tr", { "data-testid": "history-report-row", "data-field": key,
        "data-value": report[key] ?? "" }, h("th", { scope: "row" }, label), h("td", { class: "num" }, value(key)))))),
    leftOut.length ? h("ul", { class: "small muted", "data-testid": "history-left-out" },
      leftOut.map((f) => h("li", {}, `Left out ${f.file}: ${f.note}`))) : null,
  ];
}

/** Poll the job until it ends; its answer (done or failed), or null once the view is gone. */
async function followed(view, jobId, onRunning) {
  for (;;) {
    let job;
    try {
      job = await historyImport(jobId);
    } catch (error) {
      if (error.code !== "RATE_LIMITED") throw error;
      await pause(1000 * ((error.details && error.details.retry_after_s) || 1));
      continue;
    }
    if (!view.current()) return null;
    if (job.state !== "running") return job;
    onRunning(job);
    await pause(POLL_MS);
  }
}

export function historyCard(view, status) {
  const file = h("input", { type: "file", accept: ".json,.zip,application/json,application/zip",
    "data-testid": "history-file", id: "history-file" });
  const format = h("select", { "data-testid": "history-format", id: "history-format" },
    Object.entries(FORMATS).map(([value, label]) => h("option", { value }, label)));
  const includePrivate = h("input", { type: "checkbox", "data-testid": "history-include-private",
    id: "history-include-private" });
  const button = h("button", { type: "button", class: "primary", "data-testid": "history-start", disabled: true },
    "Import history");
  const upload = bar("history-upload-progress", "Upload");
  const work = bar("history-import-progress", "Import");
  const cancel = h("button", { type: "button", "data-testid": "history-cancel", hidden: true }, "Cancel import");
  let running = null; // the job being imported, while it runs
  cancel.addEventListener("click", async () => {
    cancel.disabled = true;
    try {
      if (running) await cancelHistoryImport(running);
    } catch (error) {
      if (error.code !== "CONFLICT") showError(error); // already finished: the poll shows how
    }
  });
  const note = h("p", { class: "muted small", "data-testid": "history-note", "aria-live": "polite" });
  const out = h("div", { "data-testid": "history-result" });
  file.addEventListener("change", () => { button.disabled = !file.files.length; });
  button.addEventListener("click", async () => {
    clearError();
    replace(out);
    upload.wrap.hidden = work.wrap.hidden = true;
    button.disabled = true;
    const chosen = file.files[0];
    if (view.uploadLimit && chosen.size > view.uploadLimit) {
      showError({ code: "INVALID_ARGUMENT", message: `${chosen.name} is ${megabytes(chosen.size)}, larger than this ` +
        `server takes (${megabytes(view.uploadLimit)}): import it with memory-service import-history.` });
      button.disabled = false;
      return;
    }
    try {
      note.textContent = `Uploading ${chosen.name}…`;
      const jobId = await uploadHistory(view.userId, chosen,
        { format: format.value, includePrivate: includePrivate.checked }, (sent, total) => {
          upload.show(sent, total);
          note.textContent = `Uploading ${chosen.name}: ${megabytes(sent)} of ${megabytes(total)}.`;
        });
      upload.show(1, 1);
      note.textContent = "Uploaded; importing…";
      running = jobId;
      cancel.hidden = false;
      cancel.disabled = false;
      const job = await followed(view, jobId, (running) => {
        work.show(running.read, running.total);
        note.textContent = running.file
          ? `Importing ${running.file}: ${megabytes(running.read)} of ${megabytes(running.total)} read.`
          : "Importing…";
      });
      if (!job) return;
      if (job.state === "cancelled") {
        note.textContent = "Cancelled. Files imported before the cancel stay; importing the same file again adds the rest.";
        return;
      }
      if (job.state === "failed") {
        note.textContent = "The import stopped. Files imported before the error stay; importing again adds the rest.";
        showError(new ApiError(job.error.code, job.error.message, 200, job.error.details));
        return;
      }
      work.show(1, 1);
      const { plays, skips, entries } = job.report;
      note.textContent = `Imported: ${counted(plays, "play")} and ${counted(skips, "skip")} of ${counted(entries, "row")}.`;
      replace(out, reportTable(job.report, job.left_out || []));
    } catch (error) {
      note.textContent = "";
      showError(error);
    } finally {
      running = null;
      cancel.hidden = true;
      button.disabled = !file.files.length;
    }
  });
  return h("section", { class: "card", "data-testid": "history-card" }, h("h2", {}, "Import listening history"),
    h("p", {}, "Years of listening as plays: Spotify's data download (the ZIP as downloaded, or one of its ",
      "JSON files) or Last.fm recent-tracks pages. Importing the same file again changes nothing."),
    status.enabled ? null : h("p", { class: "muted small" }, "Memory is off for this user: an import is refused."),
    h("div", { class: "row" },
      h("label", { for: "history-file" }, "History file"), file,
      h("label", { for: "history-format" }, "Format"), format,
      h("label", {}, includePrivate, " include private sessions"), button, cancel),
    upload.wrap, work.wrap, note, out);
}

function counted(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
