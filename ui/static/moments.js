// Moments the person picks with the browser's date-time picker (<input type="datetime-local">): the
// input holds the person's local time, the tools take and give UTC ISO 8601.

const pad = (n, width = 2) => String(n).padStart(width, "0");

/** A date-time picker (to the second), with the given attributes (data-testid, aria-label, …). */
export function momentPicker(h, attrs) {
  return h("input", { ...attrs, type: "datetime-local", step: 1 });
}

/** "2025-03-04T18:00:00.000Z" → the picker's value in local time, "2025-03-04T19:00:00" in Berlin. */
export function toPicker(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const day = `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** The picker's local value → the UTC instant as ISO 8601 with Z; null when empty or incomplete. */
export function fromPicker(input) {
  const value = input.value.trim();
  if (!/^\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return null;
  const date = new Date(value); // a date-time without an offset is local time
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
