// The page's own confirmation for destructive tools (they get `confirm: true` only after this).
import { h } from "./dom.js";

/** Ask with a modal <dialog>; resolves true when the person presses the confirm button. */
export function confirmDialog(title, message, action = "Forget") {
  return new Promise((resolve) => {
    const yes = h("button", { type: "button", class: "danger", "data-testid": "confirm" }, action);
    const no = h("button", { type: "button", "data-testid": "cancel" }, "Cancel");
    const dialog = h("dialog", { class: "confirm", "data-testid": "confirm-dialog", "aria-label": title },
      h("h2", {}, title), h("p", {}, message), h("div", { class: "row end" }, no, yes));
    let answer = false;
    yes.addEventListener("click", () => { answer = true; dialog.close(); });
    no.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => { dialog.remove(); resolve(answer); });
    document.body.append(dialog);
    dialog.showModal();
    no.focus();
  });
}

/** Confirm, then run ``work`` with ``control`` disabled; errors go to the page's error line. */
export async function confirmed(control, title, message, action, work, showError) {
  if (!(await confirmDialog(title, message, action))) return;
  control.disabled = true;
  try {
    await work();
  } catch (error) {
    showError(error);
  } finally {
    control.disabled = false;
  }
}
