// "Show the Cypher": for each entity-panel section, a Cypher query that draws what the section lists, with the
// paths that put each entry there. Written after the service's relations (houndgraph/graph/related.py): the
// same edges, directions and depths. Two differ on purpose, being simpler to read: GPO application ignores
// blocked inheritance, and the members holding a right on a computer include the groups between.
import { cypherString as literal } from "../graph/model";

const ACL = ["AddAllowedToAct", "AddKeyCredentialLink", "AddMember", "AddSelf", "AllExtendedRights", "DCSync", "Enroll",
  "ForceChangePassword", "GenericAll", "GenericWrite", "GetChanges", "GetChangesAll", "GetChangesInFilteredSet", "ManageCA",
  "ManageCertificates", "Owns", "OwnsLimitedRights", "ReadGMSAPassword", "ReadLAPSPassword", "SyncLAPSPassword",
  "WriteAccountRestrictions", "WriteDacl", "WriteGPLink", "WriteOwner", "WriteOwnerLimitedRights", "WritePKIEnrollmentFlag",
  "WritePKINameFlag", "WriteSPN"].join("|");
const ESCALATIONS = "GoldenCert|ADCSESC1|ADCSESC3|ADCSESC4|ADCSESC6a|ADCSESC6b|ADCSESC9a|ADCSESC9b|ADCSESC10a|ADCSESC10b";
const TRUSTS = "SameForestTrust|CrossForestTrust";
const PKI_IN = "HostsCAService|IssuedSignedBy|EnterpriseCAFor";
const PKI_OUT = "EnterpriseCAFor|TrustedForNTAuth|IssuedSignedBy|RootCAFor|NTAuthStoreFor";

export interface SectionTarget {
  kind: string;
  objectId: string;
  properties: Record<string, unknown>;
}

type Builder = (n: string, sid: string) => string;

const controllers: Builder = (n) => `MATCH p = (m)-[:MemberOf*0..]->()-[:${ACL}]->(${n}) WHERE m <> n RETURN p`;
const controllables: Builder = (n) => `MATCH p = (${n})-[:MemberOf*0..]->()-[:${ACL}]->(m) WHERE m <> n RETURN p`;
const membership: Builder = (n) => `MATCH p = (${n})-[:MemberOf*1..]->(g) RETURN p`;
const appliedGpos: Builder = (n) => `MATCH p = (g:GPO)-[:GPLink]->()-[:Contains*0..]->(${n}) RETURN p`;
const rights = (edge: string): Builder => (n) => `MATCH p = (${n})-[:MemberOf*0..]->()-[:${edge}]->(c:Computer) RETURN p`;
const holders = (edge: string): Builder => (n) => `MATCH p = (m)-[:MemberOf*0..]->()-[:${edge}]->(${n}) RETURN p`;
const inbound = (edge: string, kind = ""): Builder => (n) => `MATCH p = (m${kind})-[:${edge}]->(${n}) RETURN p`;
const outbound = (edge: string): Builder => (n) => `MATCH p = (${n})-[:${edge}]->(m) RETURN p`;
const inDomain = (kind: string): Builder => (_n, sid) => `MATCH (m:${kind}) WHERE m.domainsid = ${literal(sid)} RETURN m`;
const gpoAffected = (where: string): Builder => (n) => `MATCH p = (${n})-[:GPLink]->()-[:Contains*0..]->(m) WHERE ${where} RETURN p`;
const contained = (kind: string): Builder => (n) => `MATCH p = (${n})-[:Contains*1..]->(m:${kind}) RETURN p`;
const foreignMembers = (kind: string): Builder => (_n, sid) =>
  `MATCH p = (m:${kind})-[:MemberOf*1..]->(g:Group) WHERE g.domainsid = ${literal(sid)} AND m.domainsid <> ${literal(sid)} RETURN p`;
const foreignHolders = (edges: string, kind: string): Builder => (_n, sid) =>
  `MATCH p = (m)-[:MemberOf*0..]->()-[:${edges}]->(t:${kind}) WHERE t.domainsid = ${literal(sid)} AND m.domainsid <> ${literal(sid)} RETURN p`;
const pki: Builder = (n) => `MATCH p = (${n})-[:${PKI_OUT}*1..]->(m) RETURN p UNION MATCH p = (m)-[:${PKI_IN}*1..]->(${n}) RETURN p`;

const OUTBOUND_RIGHTS: Record<string, Builder> = {
  adminRights: rights("AdminTo"), rdpRights: rights("CanRDP"), backupRights: rights("CanBackup"),
  dcomRights: rights("ExecuteDCOM"), psRemoteRights: rights("CanPSRemote"),
};
const COMMON: Record<string, Builder> = { controllers, controllables };

const SECTIONS: Record<string, Record<string, Builder>> = {
  User: {
    ...OUTBOUND_RIGHTS, sessions: inbound("HasSession", ":Computer"), groupMembership: membership,
    sqlAdmin: outbound("SQLAdmin"), constrainedDelegation: outbound("AllowedToDelegate"), gpos: appliedGpos,
  },
  Group: {
    ...OUTBOUND_RIGHTS, membership,
    sessions: (n) => `MATCH p = (c:Computer)-[:HasSession]->()-[:MemberOf*0..]->(${n}) RETURN p`,
    members: (n) => `MATCH p = (m)-[:MemberOf*1..]->(${n}) RETURN p`,
  },
  Computer: {
    ...OUTBOUND_RIGHTS, sessions: outbound("HasSession"), groupMembership: membership, gpos: appliedGpos,
    adminUsers: holders("AdminTo"), rdpUsers: holders("CanRDP"), dcomUsers: holders("ExecuteDCOM"),
    psRemoteUsers: holders("CanPSRemote"), backupOperators: holders("CanBackup"), sqlAdminUsers: inbound("SQLAdmin"),
    constrainedUsers: inbound("AllowedToDelegate"), constrainedPrivs: outbound("AllowedToDelegate"),
  },
  Domain: {
    users: inDomain("User"), groups: inDomain("Group"), computers: inDomain("Computer"), ous: inDomain("OU"), gpos: inDomain("GPO"),
    foreignUsers: foreignMembers("User"), foreignGroups: foreignMembers("Group"),
    foreignGPOControllers: foreignHolders(ACL, "GPO"), foreignAdmins: foreignHolders("AdminTo", "Computer"),
    inboundTrusts: (n) => `MATCH p = (d:Domain)-[:${TRUSTS}*1..]->(${n}) RETURN p`,
    outboundTrusts: (n) => `MATCH p = (${n})-[:${TRUSTS}*1..]->(d:Domain) RETURN p`,
    linkedgpos: appliedGpos, dcsyncers: inbound("DCSync"),
    "adcs-escalations": (n) => `MATCH p = (m)-[:${ESCALATIONS}*1..]->(${n}) RETURN p`,
  },
  GPO: {
    ous: gpoAffected("m:OU OR m:Container"), computers: gpoAffected("m:Computer"), users: gpoAffected("m:User"),
    tierzero: gpoAffected("(m:User OR m:Computer OR m:Group) AND (m:Tag_Tier_Zero OR coalesce(m.system_tags, '') CONTAINS 'admin_tier_0')"),
  },
  OU: { gpos: appliedGpos, users: contained("User"), groups: contained("Group"), computers: contained("Computer") },
  AIACA: { "pki-hierarchy": pki },
  RootCA: { "pki-hierarchy": (n) => `MATCH p = (m)-[:${PKI_IN}*1..]->(${n}) RETURN p` },
  EnterpriseCA: { "pki-hierarchy": pki, "published-templates": inbound("PublishedTo") },
  NTAuthStore: { "trusted-cas": inbound("TrustedForNTAuth") },
  CertTemplate: { "published-to-cas": outbound("PublishedTo") },
  IssuancePolicy: { linkedTemplates: inbound("ExtendedByPolicy", ":CertTemplate") },
  AZUser: { group_membership: (n) => `MATCH p = (${n})-[:AZMemberOf*1..]->(g) RETURN p` },
  AZGroup: {
    group_membership: (n) => `MATCH p = (${n})-[:AZMemberOf*1..]->(g) RETURN p`,
    group_members: (n) => `MATCH p = (m)-[:AZMemberOf*1..]->(${n}) RETURN p`,
  },
};

/** The node itself, as a pattern binding `n`. */
function node(target: SectionTarget): string {
  return `n:${target.kind} {objectid: ${literal(target.objectId)}}`;
}

/** The query behind the panel's section `key` of `target`, or null where the panel has no Cypher for it. */
export function sectionCypher(target: SectionTarget, key: string): string | null {
  const builder = SECTIONS[target.kind]?.[key] ?? COMMON[key];
  if (!builder) return null;
  const sid = String(target.properties.domainsid ?? target.objectId);
  return builder(node(target), sid);
}

/** The query that draws the node itself (the Object Information section). */
export function objectCypher(target: SectionTarget): string {
  return `MATCH (${node(target)}) RETURN n`;
}
