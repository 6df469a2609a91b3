// Privilege Zones: the tags (Tier Zero and the other zones, labels, Owned) on the left; the chosen tag's
// selectors (create, edit, disable, delete, preview) and members with their counts and certification.
// Membership is computed by the analysis each change requests: the page follows the datapipe and refreshes
// the members when an analysis completes.
import { api, ApiError } from "../api";
import { formatValue, h, latestOnly, modal, replace, toast } from "../dom";
import { kindBadge } from "../graph/kinds";
import type { AppContext } from "../main";
import {
  AUTO_CERTIFY, CERTIFICATION, CERTIFY, CERTIFY_REVOKE, certify, createSelector, deleteSelector, isDefaultTag, lastAnalysis,
  listCertifications, listMembers, listSelectors, listTags, memberCounts, preview, SEED_CYPHER, SEED_OBJECT_ID,
  SOURCES, TAG_LABEL, TAG_OWNED, TAG_TYPES, TAG_ZONE, updateSelector, type Certification, type Member, type Seed,
  type Selector, type Tag,
} from "./api";

const MEMBERS_SHOWN = 100;
const FOLLOW_EVERY_MS = 2000;
const FOLLOW_FOR_MS = 10 * 60 * 1000;

function seedsText(selector: Selector): string {
  const type = selector.seeds[0]?.type;
  const values = selector.seeds.map((seed) => seed.value.trim());
  return type === SEED_CYPHER ? values.join("\n") : values.join(", ");
}

function memberList(members: Member[]): HTMLElement {
  return h("ul", { class: "entity-list", id: "selector-preview-list" }, members.map((member) =>
    h("li", { class: "preview-member", "data-member": member.name },
      kindBadge(member.primary_kind), h("span", null, member.name),
      member.source && member.source > 1 ? h("span", { class: "chip" }, SOURCES[member.source]) : null)));
}

export function zonesPage(root: HTMLElement, context: AppContext, path: string): () => void {
  let tags: Tag[] = [];
  let current: Tag | null = null;
  let followTimer: number | undefined;
  let followUntil = 0;
  let seenAnalysis = "";
  let alive = true;
  let polling: Promise<void> | null = null;

  const tagList = h("div", { class: "zone-tags", id: "zone-tags" });
  const content = h("section", { class: "zones-content", "aria-labelledby": "zone-title" });
  const selectorsHost = h("div", { id: "selectors" });
  const membersHost = h("div", { id: "members" });
  const countsHost = h("div", { class: "chips", id: "member-counts" });
  const followStatus = h("p", { class: "muted", id: "members-status", role: "status" });

  // --- tags ---------------------------------------------------------------------------------------
  // After a change, the refresh it makes and the refresh after the analysis can be out at once: in the members and
  // selectors only the newest answer draws (an older one landing last would show them as they were before the
  // change). The tags are not dropped so: whoever loads them goes on to draw with them.
  const memberLoads = latestOnly(), selectorLoads = latestOnly();

  async function loadTags(): Promise<void> {
    tags = await listTags();
    const wanted = Number(path.split("/")[2]) || current?.id;
    current = tags.find((tag) => tag.id === wanted) ?? tags.find((tag) => tag.type === TAG_ZONE) ?? tags[0] ?? null;
    const groups: [string, Tag[]][] = [["Zones", tags.filter((t) => t.type === TAG_ZONE)],
      ["Labels", tags.filter((t) => t.type === TAG_LABEL)], ["Owned", tags.filter((t) => t.type === TAG_OWNED)]];
    replace(tagList, groups.filter(([, list]) => list.length).map(([title, list]) => [
      h("h2", { class: "section-title" }, title),
      list.map((tag) => h("a", {
        href: `/ui/zones/${tag.id}`, class: `zone-tag${tag === current ? " active" : ""}`, "data-tag": tag.name,
        "aria-current": tag === current ? "page" : null,
        onclick: (event: MouseEvent) => {
          event.preventDefault();
          context.navigate(`/zones/${tag.id}`);
        },
      }, h("span", null, tag.name), h("span", { class: "count", title: "Members" }, String(tag.counts?.members ?? 0)))),
    ]));
  }

  async function editTag(tag: Tag | null): Promise<void> {
    const name = h("input", { id: "tag-name", value: tag?.name ?? "", required: true });
    const description = h("input", { id: "tag-description", value: tag?.description ?? "" });
    const type = h("select", { id: "tag-type" },
      h("option", { value: String(TAG_ZONE) }, "Zone"), h("option", { value: String(TAG_LABEL) }, "Label"));
    const requireCertify = h("input", { type: "checkbox", id: "tag-require-certify", checked: !!tag?.require_certify });
    const fields = [
      h("label", { for: "tag-name" }, "Name"), name,
      h("p", { class: "muted hint" }, "Letters, digits, spaces and underscores."),
      h("label", { for: "tag-description" }, "Description"), description,
      !tag && [h("label", { for: "tag-type" }, "Type"), type],
      (!tag || tag.type === TAG_ZONE) && h("label", { class: "check" }, requireCertify, "Members must be certified"),
    ];
    const isDefault = !!tag && isDefaultTag(tag);
    if (isDefault) name.disabled = true;
    if ((await modal(tag ? `Edit ${tag.name}` : "Create a zone or label", fields,
      [{ label: "Cancel", value: "cancel" }, { label: tag ? "Save" : "Create", value: "ok", primary: true }])) !== "ok") return;
    const zone = tag ? tag.type === TAG_ZONE : type.value === String(TAG_ZONE);
    const body: Record<string, unknown> = { description: description.value };
    if (!isDefault) body.name = name.value.trim();
    if (zone) body.require_certify = requireCertify.checked;
    try {
      if (tag) {
        await api("PATCH", `/asset-group-tags/${tag.id}`, body);
      } else {
        const created = (await api<{ data: Tag }>("POST", "/asset-group-tags", { ...body, type: Number(type.value) })).data;
        context.navigate(`/zones/${created.id}`);
        return;
      }
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  async function deleteTag(tag: Tag): Promise<void> {
    if ((await modal("Delete", `Delete ${tag.name} and its selectors? Its members lose the tag at the next analysis.`,
      [{ label: "Cancel", value: "cancel" }, { label: "Delete", value: "ok", danger: true }])) !== "ok") return;
    try {
      // Stop following first: a poll still running would reload the deleted tag's selectors and members.
      followUntil = 0;
      window.clearTimeout(followTimer);
      await polling;
      await api("DELETE", `/asset-group-tags/${tag.id}`);
      context.navigate("/zones");
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  // --- selectors ----------------------------------------------------------------------------------
  async function editSelector(tag: Tag, selector: Selector | null): Promise<void> {
    const name = h("input", { id: "selector-name", value: selector?.name ?? "", required: true });
    const description = h("input", { id: "selector-description", value: selector?.description ?? "" });
    const seedType = h("select", { id: "selector-seed-type" },
      h("option", { value: String(SEED_OBJECT_ID) }, "Object IDs"), h("option", { value: String(SEED_CYPHER) }, "Cypher"));
    seedType.value = String(selector?.seeds[0]?.type ?? SEED_OBJECT_ID);
    const seeds = h("textarea", { id: "selector-seeds", rows: 5, class: "mono", spellcheck: "false" });
    seeds.value = selector ? seedsText(selector).replace(/, /g, "\n") : "";
    const hint = h("p", { class: "muted hint" });
    const showHint = () => {
      hint.textContent = seedType.value === String(SEED_CYPHER)
        ? "A Cypher query returning the nodes to select."
        : "One object ID (SID or Azure object ID) per line.";
    };
    seedType.addEventListener("change", showHint);
    showHint();
    const autoCertify = h("select", { id: "selector-auto-certify" },
      Object.entries(AUTO_CERTIFY).map(([value, label]) => h("option", { value }, label)));
    autoCertify.value = String(selector?.auto_certify ?? 0);
    const previewResult = h("div", { id: "selector-preview", role: "status" });
    const readSeeds = (): Seed[] => {
      const type = Number(seedType.value);
      if (type === SEED_CYPHER) return seeds.value.trim() ? [{ type, value: seeds.value.trim() }] : [];
      return seeds.value.split(/[\s,]+/).filter(Boolean).map((value) => ({ type, value }));
    };
    const runPreview = async () => {
      replace(previewResult, h("p", { class: "muted" }, "Previewing…"));
      try {
        const members = await preview(readSeeds());
        replace(previewResult, h("p", { class: "muted" }, `${members.length} objects would be selected${members.length >= 200 ? " (first 200)" : ""}.`),
          memberList(members));
      } catch (error) {
        replace(previewResult, h("p", { class: "form-error" }, (error as Error).message));
      }
    };
    const fields = [
      h("label", { for: "selector-name" }, "Name"), name,
      h("label", { for: "selector-description" }, "Description"), description,
      h("label", { for: "selector-seed-type" }, "Select by"), seedType,
      h("label", { for: "selector-seeds" }, "Seeds"), seeds, hint,
      tag.type === TAG_ZONE && [h("label", { for: "selector-auto-certify" }, "Automatic certification"), autoCertify],
      h("div", { class: "row" }, h("button", { type: "button", id: "selector-preview-run", onclick: () => void runPreview() }, "Preview")),
      previewResult,
    ];
    if (selector?.is_default) [name, description, seedType, seeds].forEach((field) => (field.disabled = true));
    if ((await modal(selector ? `Edit selector ${selector.name}` : `New selector in ${tag.name}`, fields,
      [{ label: "Cancel", value: "cancel" }, { label: selector ? "Save" : "Create", value: "ok", primary: true }])) !== "ok") return;
    // Default selectors change only their certification and state; custom ones change everything.
    const body: Record<string, unknown> = selector?.is_default ? {}
      : { name: name.value.trim(), description: description.value, seeds: readSeeds() };
    if (tag.type === TAG_ZONE) body.auto_certify = Number(autoCertify.value);
    await change(() => selector ? updateSelector(tag.id, selector.id, body) : createSelector(tag.id, body));
  }

  async function toggleSelector(tag: Tag, selector: Selector): Promise<void> {
    await change(() => updateSelector(tag.id, selector.id, { disabled: !selector.disabled_at }));
  }

  async function removeSelector(tag: Tag, selector: Selector): Promise<void> {
    if ((await modal("Delete selector", `Delete the selector ${selector.name}? Its objects leave ${tag.name} at the next analysis.`,
      [{ label: "Cancel", value: "cancel" }, { label: "Delete", value: "ok", danger: true }])) !== "ok") return;
    await change(() => deleteSelector(tag.id, selector.id));
  }

  function selectorsTable(tag: Tag, selectors: Selector[]): HTMLElement {
    if (!selectors.length) return h("p", { class: "muted" }, "No selectors yet: create one to put objects in this tag.");
    return h("div", { class: "table-scroll" }, h("table", { class: "data-table" },
      h("thead", null, h("tr", null, ["Name", "Seeds", "Members", tag.type === TAG_ZONE ? "Auto-certify" : null, "Status", ""]
        .filter((c) => c !== null).map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", null, selectors.map((selector) => h("tr", {
        class: `selector-row${selector.disabled_at ? " disabled" : ""}`, "data-selector": selector.name,
      },
      h("td", null, selector.name, selector.is_default ? h("span", { class: "chip" }, "Default") : null,
        selector.description ? h("div", { class: "muted hint" }, selector.description) : null),
      h("td", null, h("span", { class: "muted hint" }, selector.seeds[0]?.type === SEED_CYPHER ? "Cypher: " : "Object IDs: "),
        h("code", { class: "seed-text" }, seedsText(selector))),
      h("td", { class: "selector-members" }, String(selector.counts?.members ?? 0)),
      tag.type === TAG_ZONE ? h("td", null, AUTO_CERTIFY[selector.auto_certify] ?? String(selector.auto_certify)) : null,
      h("td", null, selector.disabled_at ? h("span", { class: "chip" }, "Disabled") : "Enabled"),
      h("td", null, h("div", { class: "row-actions" },
        h("button", { class: "small", onclick: () => void editSelector(tag, selector) }, "Edit"),
        (!selector.is_default || selector.allow_disable) && h("button", {
          class: "small", onclick: () => void toggleSelector(tag, selector),
        }, selector.disabled_at ? "Enable" : "Disable"),
        !selector.is_default && h("button", { class: "small danger", onclick: () => void removeSelector(tag, selector) }, "Delete"))))))));
  }

  // --- members and certification ------------------------------------------------------------------
  async function certifyMembers(ids: number[], action: number): Promise<void> {
    await change(() => certify(ids, action), refreshMembers);
  }

  async function refreshMembers(): Promise<void> {
    const tag = current;
    if (!tag) return;
    const newest = memberLoads();
    const [{ members, count }, counts, certifications] = await Promise.all([
      listMembers(tag.id, MEMBERS_SHOWN), memberCounts(tag.id),
      tag.require_certify ? listCertifications(tag.id) : Promise.resolve([] as Certification[])]);
    if (!newest()) return;
    const certified = new Map(certifications.map((row) => [row.id, row]));
    replace(countsHost, h("span", { class: "chip", id: "member-total" }, `${counts.total_count} ${counts.total_count === 1 ? "member" : "members"}`),
      Object.entries(counts.counts).map(([kind, n]) => h("span", { class: "chip", "data-kind": kind }, `${kind}: ${n}`)));
    const pending = certifications.filter((row) => row.certified === 0 || row.certified === 1);
    replace(membersHost,
      tag.require_certify && h("div", { class: "row" },
        h("span", { class: "muted", id: "pending-certification" }, pending.length
          ? `Waiting for certification: ${pending.slice(0, 10).map((row) => row.name).join(", ")}${pending.length > 10 ? ` and ${pending.length - 10} more` : ""}.`
          : "Every selected object is certified."),
        pending.length > 0 && h("button", {
          class: "small", id: "certify-all", onclick: () => void certifyMembers(pending.map((row) => row.id), CERTIFY),
        }, "Certify all")),
      members.length ? h("div", { class: "table-scroll" }, h("table", { class: "data-table" },
        h("thead", null, h("tr", null, ["Name", "Kind", "Object ID", tag.require_certify ? "Certification" : null, ""]
          .filter((c) => c !== null).map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", null, members.map((member) => {
          const row = certified.get(member.id);
          return h("tr", { class: "member-row", "data-member": member.name },
            h("td", null, h("span", { class: "member-name" }, kindBadge(member.primary_kind), member.name)),
            h("td", null, member.primary_kind), h("td", { class: "mono" }, member.object_id),
            tag.require_certify ? h("td", { class: "certification" }, row ? CERTIFICATION[row.certified] ?? formatValue(row.certified) : "—") : null,
            h("td", null, tag.require_certify && row && row.certified !== 3 && (row.certified === 2
              ? h("button", { class: "small", onclick: () => void certifyMembers([member.id], CERTIFY_REVOKE) }, "Revoke")
              : h("button", { class: "small", onclick: () => void certifyMembers([member.id], CERTIFY) }, "Certify"))));
        })))) : h("p", { class: "muted" }, "No members yet."),
      count > members.length && h("p", { class: "muted" }, `Showing ${members.length} of ${count}.`));
  }

  /** Makes a change that requests an analysis (a failure is shown), follows the datapipe, then redraws. */
  async function change(action: () => Promise<unknown>, redraw: () => Promise<void> = refresh): Promise<void> {
    try {
      await action();
      follow();
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await redraw();
  }

  /** Follows the datapipe after a change: each completed analysis refreshes the members and counts. */
  function follow(): void {
    followUntil = Date.now() + FOLLOW_FOR_MS;
    followStatus.textContent = "Analysis requested: the members follow when it has run.";
    if (followTimer === undefined && polling === null) startPoll();
  }

  function startPoll(): void {
    polling = poll().finally(() => { polling = null; });
  }

  async function poll(): Promise<void> {
    followTimer = undefined;
    if (!alive) return;
    try {
      const last = await lastAnalysis();
      // A page left (or a tag deleted and the page left) while a request was out stops here.
      if (alive && last !== seenAnalysis) {
        seenAnalysis = last;
        await loadTags();
        if (alive) await Promise.all([refreshSelectors(), refreshMembers()]);
        followStatus.textContent = `Members as of the analysis of ${new Date(last).toLocaleString()}.`;
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
    if (alive && Date.now() < followUntil) followTimer = window.setTimeout(startPoll, FOLLOW_EVERY_MS);
  }

  async function refresh(): Promise<void> {
    await loadTags();
    const tag = current;
    if (!tag) {
      replace(content, h("p", { class: "muted" }, "No tags."));
      return;
    }
    replace(content,
      h("header", { class: "row zone-header" },
        h("h1", { id: "zone-title" }, tag.name),
        h("span", { class: "chip" }, TAG_TYPES[tag.type] ?? "Tag"),
        tag.require_certify && h("span", { class: "chip" }, "Certification required"),
        h("button", { id: "edit-tag", onclick: () => void editTag(tag) }, "Edit"),
        !isDefaultTag(tag) && h("button", { id: "delete-tag", class: "danger", onclick: () => void deleteTag(tag) }, "Delete")),
      tag.description && tag.description !== tag.name ? h("p", { class: "muted" }, tag.description) : null,
      h("div", { class: "card" },
        h("div", { class: "row" }, h("h2", null, "Selectors"),
          h("button", { class: "primary", id: "create-selector", onclick: () => void editSelector(tag, null) }, "Create selector")),
        selectorsHost),
      h("div", { class: "card" },
        h("div", { class: "row" }, h("h2", null, "Members"), countsHost), followStatus, membersHost));
    await Promise.all([refreshSelectors(), refreshMembers()]);
  }

  async function refreshSelectors(): Promise<void> {
    const tag = current;
    if (!tag) return;
    const newest = selectorLoads();
    try {
      const selectors = await listSelectors(tag.id);
      if (newest()) replace(selectorsHost, selectorsTable(tag, selectors));
    } catch (error) {
      if (newest()) replace(selectorsHost, h("p", { class: "form-error" }, (error as Error).message));
    }
  }

  replace(root, h("div", { class: "zones" },
    h("nav", { class: "admin-nav zones-nav", "aria-label": "Tags" },
      h("button", { class: "primary", id: "create-tag", onclick: () => void editTag(null) }, "Create zone or label"),
      tagList),
    content));
  void (async () => {
    seenAnalysis = await lastAnalysis().catch(() => "");
    await refresh();
  })();
  return () => {
    alive = false;
    window.clearTimeout(followTimer);
  };
}
