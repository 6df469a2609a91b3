// Privilege zones through /api/v2/asset-group-tags: tags (zones, labels, Owned), their selectors and members.
// Membership is computed by the analysis each change requests, so changes show after the next analysis run.
import { api, get } from "../api";

export const TAG_ZONE = 1;
export const TAG_LABEL = 2;
export const TAG_OWNED = 3;
export const SEED_OBJECT_ID = 1;
export const SEED_CYPHER = 2;
export const CERTIFY_REVOKE = 1;
export const CERTIFY = 2;

export const TAG_TYPES: Record<number, string> = { [TAG_ZONE]: "Zone", [TAG_LABEL]: "Label", [TAG_OWNED]: "Owned" };
export const AUTO_CERTIFY: Record<number, string> = { 0: "Off", 1: "All members", 2: "Direct objects only" };
export const CERTIFICATION: Record<number, string> = { 0: "Pending", 1: "Revoked", 2: "Certified", 3: "Auto-certified" };
export const SOURCES: Record<number, string> = { 1: "Direct", 2: "Child", 3: "Parent" };

export interface Tag {
  id: number;
  type: number;
  name: string;
  description: string;
  position: number | null;
  require_certify: boolean | null;
  counts?: { selectors: number; custom_selectors: number; default_selectors: number; disabled_selectors: number; members: number };
}

export interface Seed {
  type: number;
  value: string;
}

export interface Selector {
  id: number;
  asset_group_tag_id: number;
  name: string;
  description: string;
  auto_certify: number;
  is_default: boolean;
  allow_disable: boolean;
  seeds: Seed[];
  disabled_at: string | null;
  counts?: { members: number };
}

export interface Member {
  id: number;
  object_id: string;
  primary_kind: string;
  name: string;
  source?: number;
}

export interface Certification extends Member {
  certified: number;
  certified_by: string;
  asset_group_tag_id: number;
}

const TAGS = "/asset-group-tags";

/** Tier Zero: the zone at position 1. */
export const isTierZero = (tag: Tag) => tag.type === TAG_ZONE && tag.position === 1;

/** The tags every install has (Tier Zero and Owned): renamed and deleted by nobody. */
export const isDefaultTag = (tag: Tag) => tag.type === TAG_OWNED || isTierZero(tag);

export async function listTags(): Promise<Tag[]> {
  const tags = (await get<{ data: { tags: Tag[] } }>(`${TAGS}?counts=true`)).data.tags;
  // Zones by position (Tier Zero first), then labels, then Owned.
  return tags.sort((a, b) => a.type - b.type || (a.position ?? 0) - (b.position ?? 0) || a.name.localeCompare(b.name));
}

export async function listSelectors(tagId: number): Promise<Selector[]> {
  return (await get<{ data: { selectors: Selector[] } }>(`${TAGS}/${tagId}/selectors?counts=true&limit=1000&sort_by=name`)).data.selectors;
}

export const createSelector = (tagId: number, body: Partial<Selector>) => api("POST", `${TAGS}/${tagId}/selectors`, body);
export const updateSelector = (tagId: number, id: number, body: Record<string, unknown>) =>
  api("PATCH", `${TAGS}/${tagId}/selectors/${id}`, body);
export const deleteSelector = (tagId: number, id: number) => api("DELETE", `${TAGS}/${tagId}/selectors/${id}`);

export async function preview(seeds: Seed[]): Promise<Member[]> {
  return (await api<{ data: { members: Member[] } }>("POST", `${TAGS}/preview-selectors`, { seeds, expansion: 1 })).data.members;
}

export async function listMembers(tagId: number, limit: number): Promise<{ members: Member[]; count: number }> {
  const answer = await get<{ data: { members: Member[] }; count: number }>(`${TAGS}/${tagId}/members?limit=${limit}&sort_by=name`);
  return { members: answer.data.members, count: answer.count };
}

export async function memberCounts(tagId: number): Promise<{ total_count: number; counts: Record<string, number> }> {
  return (await get<{ data: { total_count: number; counts: Record<string, number> } }>(`${TAGS}/${tagId}/members/counts`)).data;
}

export async function listCertifications(tagId: number): Promise<Certification[]> {
  return (await get<{ data: { members: Certification[] } }>(`/asset-group-tags/certifications?asset_group_tag_id=eq:${tagId}&limit=200`)).data.members;
}

export const certify = (memberIds: number[], action: number) =>
  api("POST", `${TAGS}/certifications`, { member_ids: memberIds, action });

/** The selectors of `tag` that name `objectId` as an object-id seed: how one object is put in a zone. */
export async function objectSelectors(tag: Tag, objectId: string): Promise<Selector[]> {
  return (await listSelectors(tag.id)).filter((selector) =>
    selector.seeds.some((seed) => seed.type === SEED_OBJECT_ID && seed.value === objectId));
}

/** Puts one object in a zone (or marks it owned): an object-id selector, as bhshell and the reference UI do. */
export async function addObject(tag: Tag, objectId: string, name: string): Promise<void> {
  await createSelector(tag.id, {
    name: name === objectId ? objectId : `${name} (${objectId})`, description: `Added from the explorer`,
    seeds: [{ type: SEED_OBJECT_ID, value: objectId }],
  });
}

/** Deletes `selectors` of `tag`. */
export async function deleteSelectors(tag: Tag, selectors: Selector[]): Promise<void> {
  for (const selector of selectors) await deleteSelector(tag.id, selector.id);
}

/** Takes one object out of a zone: deletes its object-id selectors there; the number deleted. */
export async function removeObject(tag: Tag, objectId: string): Promise<number> {
  const selectors = await objectSelectors(tag, objectId);
  await deleteSelectors(tag, selectors);
  return selectors.length;
}

/** The time of the last completed analysis: when it moves, zone membership may have changed. */
export async function lastAnalysis(): Promise<string> {
  return (await get<{ data: { last_complete_analysis_at: string } }>("/datapipe/status")).data.last_complete_analysis_at;
}
