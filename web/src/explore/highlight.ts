// Cypher syntax highlighting: a <pre> of coloured spans under a transparent <textarea> that takes the input.
import { h } from "../dom";

const KEYWORDS = new Set(("MATCH OPTIONAL WHERE RETURN WITH UNWIND ORDER BY SKIP LIMIT ASC DESC ASCENDING DESCENDING AND OR XOR NOT " +
  "IN STARTS ENDS CONTAINS IS NULL TRUE FALSE AS DISTINCT CASE WHEN THEN ELSE END CREATE MERGE SET DELETE DETACH REMOVE " +
  "CALL YIELD UNION ALL EXISTS COUNT").split(" "));
const FUNCTIONS = new Set(["shortestPath", "allShortestPaths", "toLower", "toUpper", "size", "length", "coalesce", "collect",
  "labels", "type", "id", "nodes", "relationships", "startNode", "endNode", "head", "last", "toString", "toInteger",
  "split", "replace", "trim", "substring", "datetime", "duration", "any", "all", "none", "single"]);

const TOKEN = /(\/\/[^\n]*)|('(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?)|(\b\d+(?:\.\d+)?\b)|(:\s*`?[A-Za-z_][A-Za-z0-9_]*`?)|([A-Za-z_][A-Za-z0-9_]*)|([\s\S])/g;

export function highlightCypher(text: string): Node[] {
  const out: Node[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const [token, comment, string, number, label, word] = match;
    let cls = "";
    if (comment) cls = "tok-comment";
    else if (string) cls = "tok-string";
    else if (number) cls = "tok-number";
    else if (label) cls = "tok-label";
    else if (word && KEYWORDS.has(word.toUpperCase())) cls = "tok-keyword";
    else if (word && FUNCTIONS.has(word)) cls = "tok-function";
    out.push(cls ? h("span", { class: cls }, token) : document.createTextNode(token));
  }
  // A trailing newline needs a character after it to take up a line in the <pre>.
  out.push(document.createTextNode("\n"));
  return out;
}

export function cypherEditor(id: string, onRun: () => void): { element: HTMLElement; textarea: HTMLTextAreaElement } {
  const pre = h("pre", { class: "cypher-highlight", "aria-hidden": "true" });
  const textarea = h("textarea", {
    id, class: "cypher-input", spellcheck: "false", autocomplete: "off", rows: 6,
    "aria-label": "Cypher query", placeholder: "MATCH (n:User) RETURN n LIMIT 10",
  });
  const sync = () => {
    pre.replaceChildren(...highlightCypher(textarea.value));
    pre.scrollTop = textarea.scrollTop;
    pre.scrollLeft = textarea.scrollLeft;
  };
  textarea.addEventListener("input", sync);
  textarea.addEventListener("scroll", sync);
  textarea.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      onRun();
    }
  });
  const element = h("div", { class: "cypher-editor" }, pre, textarea);
  const setValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")!;
  Object.defineProperty(textarea, "value", {
    get() {
      return setValue.get!.call(this);
    },
    set(value: string) {
      setValue.set!.call(this, value);
      sync();
    },
  });
  sync();
  return { element, textarea };
}
