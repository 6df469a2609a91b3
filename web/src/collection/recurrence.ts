// The recurrence editor of a schedule: frequency, interval, weekdays and first run give an RFC 5545 rule
// (`DTSTART:...Z` then `RRULE:...`, as the service reads it); the next runs are previewed as it changes.
import { RRule, rrulestr, Weekday } from "rrule";
import { h, replace } from "../dom";

const FREQUENCIES = [
  { value: RRule.HOURLY, label: "Hours" }, { value: RRule.DAILY, label: "Days" },
  { value: RRule.WEEKLY, label: "Weeks" }, { value: RRule.MONTHLY, label: "Months" },
];
const WEEKDAYS: [Weekday, string][] = [[RRule.MO, "Mon"], [RRule.TU, "Tue"], [RRule.WE, "Wed"], [RRule.TH, "Thu"],
  [RRule.FR, "Fri"], [RRule.SA, "Sat"], [RRule.SU, "Sun"]];
const PREVIEW = 5;

const utcStamp = (date: Date) => date.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");

/** The next `count` runs of a rule from now, or the parser's complaint. */
export function nextRuns(text: string, count = PREVIEW): Date[] {
  const rule = rrulestr(text);
  const runs: Date[] = [];
  let moment = new Date();
  for (let i = 0; i < count; i++) {
    const next = rule.after(moment, false);
    if (!next) break;
    runs.push(next);
    moment = next;
  }
  return runs;
}

export function describe(text: string): string {
  try {
    return rrulestr(text).toText();
  } catch {
    return text;
  }
}

function localInput(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

export function recurrenceEditor(): { element: HTMLElement; rule: () => string } {
  const start = h("input", { type: "datetime-local", id: "schedule-start", value: localInput(new Date(Date.now() + 3_600_000)), oninput: update });
  const interval = h("input", { type: "number", id: "schedule-interval", min: 1, max: 999, value: 1, oninput: update });
  const frequency = h("select", { id: "schedule-frequency", onchange: update },
    FREQUENCIES.map((f) => h("option", { value: f.value, selected: f.value === RRule.DAILY }, f.label)));
  const days = WEEKDAYS.map(([day, label]) => ({ day, input: h("input", { type: "checkbox", id: `schedule-day-${label}`, onchange: update }), label }));
  const dayPicker = h("fieldset", { class: "option-boxes hidden", id: "schedule-days" }, h("legend", null, "On"),
    days.map((d) => h("label", { class: "check", for: d.input.id }, d.input, d.label)));
  const ruleText = h("code", { id: "schedule-rrule", class: "rule-text" });
  const preview = h("ol", { id: "schedule-preview", class: "preview-runs", "aria-live": "polite" });
  let text = "";

  function update(): void {
    const first = new Date(start.value);
    dayPicker.classList.toggle("hidden", Number(frequency.value) !== RRule.WEEKLY);
    if (Number.isNaN(first.getTime())) {
      replace(preview, h("li", { class: "form-error" }, "Choose the first run's date and time."));
      text = "";
      return;
    }
    const parts = [`FREQ=${RRule.FREQUENCIES[Number(frequency.value)]}`];
    if (Number(interval.value) > 1) parts.push(`INTERVAL=${Math.floor(Number(interval.value))}`);
    const chosen = days.filter((d) => d.input.checked).map((d) => d.day.toString());
    if (Number(frequency.value) === RRule.WEEKLY && chosen.length) parts.push(`BYDAY=${chosen.join(",")}`);
    text = `DTSTART:${utcStamp(first)}\nRRULE:${parts.join(";")}`;
    ruleText.textContent = text;
    try {
      const runs = nextRuns(text);
      replace(preview, runs.length ? runs.map((run) => h("li", null, run.toLocaleString())) : h("li", { class: "muted" }, "No run left."));
    } catch (error) {
      replace(preview, h("li", { class: "form-error" }, (error as Error).message));
    }
  }

  update();
  return {
    element: h("div", { class: "recurrence-editor" },
      h("label", { for: "schedule-start" }, "First run"), start,
      h("div", { class: "row" }, h("label", { for: "schedule-interval", class: "inline" }, "Every"), interval,
        h("label", { for: "schedule-frequency", class: "sr-only" }, "Unit"), frequency),
      dayPicker,
      h("p", { class: "muted" }, "Rule: ", ruleText),
      h("h3", null, "Next runs"), preview),
    rule: () => text,
  };
}
