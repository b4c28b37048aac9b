// JSON without losing integers past 2^53 (an export's recorded_ns values are nanoseconds): such a number
// is kept as its source text (JSON.rawJSON), which JSON.stringify writes back unchanged.

const INTEGER = /^-?\d+$/;

function keep(key, value, context) {
  if (typeof value !== "number" || Number.isSafeInteger(value) || !context || !INTEGER.test(context.source)) return value;
  if (typeof JSON.rawJSON !== "function") {
    throw new Error("This browser would round the export's large numbers: use `memory-service export`/`import` instead.");
  }
  return JSON.rawJSON(context.source);
}

/** JSON.parse that keeps every integer exactly (needs JSON.parse source text access, as in Chromium ≥ 114). */
export function parseExact(text) {
  return JSON.parse(text, keep);
}
