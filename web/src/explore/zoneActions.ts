// The node context menu's zone entries: mark or unmark owned, add to or remove from a zone or label, for one
// node or for the nodes picked on the graph. Each node is an object-id selector of its own on the tag (as
// bhshell and the reference UI do, so that one can be taken out again alone); membership follows at the next
// analysis, so each node is watched until its markers change and then redrawn.
import { h, modal, toast } from "../dom";
import { fetchNode, type GraphNode } from "../graph/model";
import {
  addObject, deleteSelectors, isTierZero, listTags, objectSelectors, removeObject, TAG_OWNED, TAG_TYPES, type Selector, type Tag,
} from "../zones/api";

type Markers = Pick<GraphNode, "isOwnedObject" | "isTierZero">;
type MenuItem = [label: string, action: () => void];

const WATCH_EVERY_MS = 1500;
const WATCH_FOR_MS = 10 * 60 * 1000;

export function zoneActions(redraw: (id: string, markers: Markers) => void) {
  const timers = new Set<number>();
  let stopped = false;

  async function markers(node: GraphNode): Promise<Markers | null> {
    try {
      const found = (await fetchNode(node.objectId)).nodes[0];
      return found ? { isOwnedObject: found.isOwnedObject, isTierZero: found.isTierZero } : null;
    } catch {
      return null;
    }
  }

  /** Polls the node until `done` holds for its markers (the analysis ran), then redraws it. */
  function watch(node: GraphNode, done: (markers: Markers) => boolean): void {
    const until = Date.now() + WATCH_FOR_MS;
    const tick = async () => {
      const now = await markers(node);
      if (stopped) return;
      if (now && (done(now) || Date.now() > until)) {
        redraw(node.id, now);
        return;
      }
      if (Date.now() > until) return;
      const timer = window.setTimeout(() => {
        timers.delete(timer);
        void tick();
      }, WATCH_EVERY_MS);
      timers.add(timer);
    };
    void tick();
  }

  async function owned(): Promise<Tag> {
    const tag = (await listTags()).find((t) => t.type === TAG_OWNED);
    if (!tag) throw new Error("the Owned tag is missing");
    return tag;
  }

  async function setOwned(node: GraphNode, mark: boolean): Promise<void> {
    try {
      const tag = await owned();
      if (mark) {
        await addObject(tag, node.objectId, node.label);
      } else if ((await removeObject(tag, node.objectId)) === 0) {
        toast(`${node.label} is owned through a Cypher selector: change it on the Privilege Zones page.`, "error");
        return;
      }
      toast(`${node.label} ${mark ? "marked as owned" : "no longer owned"}: the graph follows after the analysis.`);
      watch(node, (now) => now.isOwnedObject === mark);
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  function tagChoice(tags: Tag[]): HTMLSelectElement {
    return h("select", { id: "zone-choice", "aria-label": "Zone or label" },
      tags.map((tag) => h("option", { value: String(tag.id) }, `${tag.name} (${TAG_TYPES[tag.type] ?? "Tag"})`)));
  }

  async function addToZone(node: GraphNode): Promise<void> {
    try {
      const tags = (await listTags()).filter((tag) => tag.type !== TAG_OWNED);
      const choice = tagChoice(tags);
      if ((await modal(`Add ${node.label} to a zone`, [h("label", { for: "zone-choice" }, "Zone or label"), choice],
        [{ label: "Cancel", value: "cancel" }, { label: "Add", value: "ok", primary: true }])) !== "ok") return;
      const tag = tags.find((t) => String(t.id) === choice.value)!;
      await addObject(tag, node.objectId, node.label);
      toast(`${node.label} added to ${tag.name}: the graph follows after the analysis.`);
      if (isTierZero(tag)) watch(node, (now) => now.isTierZero);
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  async function removeFromZone(node: GraphNode): Promise<void> {
    try {
      const tags = (await listTags()).filter((tag) => tag.type !== TAG_OWNED);
      // Each tag's object-id selectors naming the node, listed once: they are what the removal deletes.
      const naming = new Map<Tag, Selector[]>();
      await Promise.all(tags.map(async (tag) => naming.set(tag, await objectSelectors(tag, node.objectId))));
      const holding = tags.filter((tag) => naming.get(tag)!.length);
      if (!holding.length) {
        toast(`No zone names ${node.label} by its object ID; Cypher selectors are edited on the Privilege Zones page.`, "error");
        return;
      }
      const choice = tagChoice(holding);
      if ((await modal(`Remove ${node.label} from a zone`, [h("label", { for: "zone-choice" }, "Zone or label"), choice],
        [{ label: "Cancel", value: "cancel" }, { label: "Remove", value: "ok", danger: true }])) !== "ok") return;
      const tag = holding.find((t) => String(t.id) === choice.value)!;
      await deleteSelectors(tag, naming.get(tag)!);
      toast(`${node.label} removed from ${tag.name}: the graph follows after the analysis.`);
      if (isTierZero(tag)) watch(node, (now) => !now.isTierZero);
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  /** Adds each node to `tag` in turn; the number added before any failure. */
  async function addEach(tag: Tag, nodes: GraphNode[]): Promise<number> {
    let added = 0;
    for (const node of nodes) {
      await addObject(tag, node.objectId, node.label);
      added++;
    }
    return added;
  }

  async function markAllOwned(nodes: GraphNode[]): Promise<void> {
    const pending = nodes.filter((node) => !node.isOwnedObject);
    if (!pending.length) {
      toast("Every selected node is owned already.");
      return;
    }
    try {
      await addEach(await owned(), pending);
      toast(`${pending.length} nodes marked as owned: the graph follows after the analysis.`);
      for (const node of pending) watch(node, (now) => now.isOwnedObject);
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  async function addAllToZone(nodes: GraphNode[]): Promise<void> {
    try {
      const tags = (await listTags()).filter((tag) => tag.type !== TAG_OWNED);
      const choice = tagChoice(tags);
      if ((await modal(`Add ${nodes.length} nodes to a zone`, [h("label", { for: "zone-choice" }, "Zone or label"), choice],
        [{ label: "Cancel", value: "cancel" }, { label: "Add", value: "ok", primary: true }])) !== "ok") return;
      const tag = tags.find((t) => String(t.id) === choice.value)!;
      await addEach(tag, nodes);
      toast(`${nodes.length} nodes added to ${tag.name}: the graph follows after the analysis.`);
      if (isTierZero(tag)) for (const node of nodes) watch(node, (now) => now.isTierZero);
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  return {
    markAllOwned,
    addAllToZone,
    menuItems(node: GraphNode): MenuItem[] {
      return [
        node.isOwnedObject ? ["Unmark as owned", () => void setOwned(node, false)] : ["Mark as owned", () => void setOwned(node, true)],
        ["Add to zone…", () => void addToZone(node)],
        ["Remove from zone…", () => void removeFromZone(node)],
      ];
    },
    stop(): void {
      stopped = true;
      for (const timer of timers) window.clearTimeout(timer);
      timers.clear();
    },
  };
}
