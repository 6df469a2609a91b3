// A Cypher answer without a graph, as a table: sort by a column (click its header), choose the columns shown,
// export the shown columns in the shown order as CSV.
import { download, h, replace } from "../dom";

type Cell = unknown;

const text = (cell: Cell) => (cell === null || cell === undefined ? "" : typeof cell === "object" ? JSON.stringify(cell) : String(cell));

function compare(a: Cell, b: Cell): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return text(a).localeCompare(text(b), undefined, { numeric: true });
}

function csvCell(cell: Cell): string {
  const value = text(cell);
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function renderResultTable(host: HTMLElement, columns: string[], rows: Cell[][], close: () => void): void {
  const shown = new Set(columns);
  let sortColumn = -1;
  let descending = false;

  function ordered(): Cell[][] {
    if (sortColumn < 0) return rows;
    const sorted = [...rows].sort((a, b) => compare(a[sortColumn], b[sortColumn]));
    return descending ? sorted.reverse() : sorted;
  }

  function exportCsv(): void {
    const indexes = columns.map((_, i) => i).filter((i) => shown.has(columns[i]));
    const lines = [indexes.map((i) => csvCell(columns[i])).join(","), ...ordered().map((row) => indexes.map((i) => csvCell(row[i])).join(","))];
    download("query-result.csv", new Blob([lines.join("\n") + "\n"], { type: "text/csv" }));
  }

  const body = h("div", { class: "table-scroll" });
  function draw(): void {
    const indexes = columns.map((_, i) => i).filter((i) => shown.has(columns[i]));
    replace(body, h("table", { class: "data-table" },
      h("thead", null, h("tr", null, indexes.map((i) => h("th", {
        scope: "col", "aria-sort": i === sortColumn ? (descending ? "descending" : "ascending") : "none",
      }, h("button", { class: "link sort-button", onclick: () => {
        descending = i === sortColumn ? !descending : false;
        sortColumn = i;
        draw();
      } }, columns[i]))))),
      h("tbody", null, ordered().map((row) => h("tr", null, indexes.map((i) => h("td", null, text(row[i]) || "—")))))));
  }

  const chooser = h("details", { class: "column-chooser" }, h("summary", null, "Columns"),
    columns.map((column, i) => {
      const box = h("input", { type: "checkbox", id: `result-column-${i}`, checked: true, onchange: () => {
        if (box.checked) shown.add(column);
        else shown.delete(column);
        draw();
      } });
      return h("label", { class: "check", for: box.id }, box, column);
    }));
  replace(host,
    h("div", { class: "row" }, h("strong", null, `${rows.length} rows`), chooser,
      h("button", { class: "small", id: "result-csv", onclick: exportCsv }, "Export CSV"),
      h("button", { class: "small", onclick: close }, "Close")),
    body);
  draw();
}
