// The collection options of a job or a schedule, as checkboxes in a dialog.
import { h } from "../dom";
import { COLLECTION_OPTIONS } from "./model";

export function optionBoxes(prefix: string, checked: (flag: string) => boolean = () => true): { element: HTMLElement; values: () => Record<string, boolean> } {
  const boxes = COLLECTION_OPTIONS.map((o) => ({
    flag: o.flag,
    input: h("input", { type: "checkbox", id: `${prefix}-${o.flag}`, checked: checked(o.flag) }),
    label: o.label,
  }));
  return {
    element: h("fieldset", { class: "option-boxes" }, h("legend", null, "Collect"),
      boxes.map((b) => h("label", { class: "check", for: b.input.id }, b.input, b.label))),
    values: () => Object.fromEntries(boxes.map((b) => [b.flag, b.input.checked])),
  };
}
