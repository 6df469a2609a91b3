"""SharpHound computers: sessions, local groups, user rights, delegation and DC registry data.

Both computer layouts ingest to the same shape. Current SharpHound reports `LocalGroups` (each group
with its own object id); older output has one list per well-known group (`LocalAdmins`,
`RemoteDesktopUsers`, `DcomUsers`, `PSRemoteUsers`), which becomes the local group
`<computer SID>-<RID>` so that analysis (AdminTo from -544, CanRDP from -555, ...) reads both alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.ingest.ad_common import (
    NOT_ACL,
    as_list,
    as_str,
    base_properties,
    emit_aces,
    emit_container,
    emit_incoming,
    emit_outgoing,
    lower_keys,
    node_kinds,
    typed,
)
from houndgraph.ingest.ad_objects import emit_coerce_to_tgt, emit_primary_group, object_id
from houndgraph.ingest.emitter import Emitter

HAS_URA = "hasura"
IGNORED_LOCAL_GROUP_NAME = "IGNOREME"
# Citrix "Direct Access Users" matters to CanRDP even when empty, so it is kept like a populated group.
DIRECT_ACCESS_USERS = "DIRECT ACCESS USERS"
_SESSION_LISTS = ("sessions", "privilegedsessions", "registrysessions")
_USER_RIGHTS = {
    "SeRemoteInteractiveLogonRight": ADEdge.RemoteInteractiveLogonRight,
    "SeBackupPrivilege": ADEdge.BackupPrivilege,
    "SeRestorePrivilege": ADEdge.RestorePrivilege,
}
# Older layout: list name -> (RID, the group's name on the machine).
_LEGACY_LOCAL_GROUPS = {
    "localadmins": ("544", "ADMINISTRATORS"),
    "remotedesktopusers": ("555", "REMOTE DESKTOP USERS"),
    "dcomusers": ("562", "DISTRIBUTED COM USERS"),
    "psremoteusers": ("580", "REMOTE MANAGEMENT USERS"),
}
_NTLM_FLAGS: dict[str, tuple[str, Callable[[Any], Any]]] = {  # registry value -> (property, how the value reads)
    "restrictsendingntlmtraffic": ("restrictoutboundntlm", lambda v: v == 2),
    "restrictreceivingntlmtraffic": ("restrictreceivingntlmtraffic", lambda v: v == 2),
    "requiresecuritysignature": ("requiresecuritysignature", lambda v: v != 0),
    "enablesecuritysignature": ("enablesecuritysignature", lambda v: v != 0),
    "ntlmminclientsec": ("ntlmminclientsec", lambda v: v),
    "ntlmminserversec": ("ntlmminserversec", lambda v: v),
    "lmcompatibilitylevel": ("lmcompatibilitylevel", lambda v: v),
    "usemachineid": ("usemachineid", lambda v: v != 0),
    "clientallowedntlmservers": ("clientallowedntlmservers", lambda v: v),
}
_CERT_MAPPING_METHODS = (
    (0x01, "0x01: One-to-one (subject/issuer)"),
    (0x02, "0x02: Many-to-one (issuer certificate)"),
    (0x04, "0x04: User principal name (UPN/SAN)"),
    (0x08, "0x08: Kerberos service-for-user (S4U) certificate"),
    (0x10, "0x10: Kerberos service-for-user (S4U) explicit certificate"),
)
_USER_SID, _COMPUTER_SID = "UserSID", "ComputerSID"
_REGISTRY_VALUE_MISSING = "Registry value does not exist"
_BINDING_ENFORCEMENT = {-1: _REGISTRY_VALUE_MISSING, 0: "Disabled", 1: "Compatibility mode", 2: "Full enforcement mode"}


def convert_computer(out: Emitter, record: dict[str, Any]) -> None:
    objectid = object_id(out, record, "computer")
    if objectid is None:
        return
    kind = ADNode.Computer
    properties = base_properties(record)
    _collected_properties(record, properties)
    _dc_registry_properties(record, properties)
    emit_aces(out, record.get("aces"), objectid, kind, properties)
    emit_primary_group(out, record, objectid, kind)
    emit_container(out, record, objectid, kind)
    emit_outgoing(out, record.get("allowedtodelegate"), objectid, kind, ADEdge.AllowedToDelegate)
    emit_incoming(out, record.get("allowedtoact"), objectid, kind, ADEdge.AllowedToAct)
    emit_outgoing(out, record.get("dumpsmsapassword"), objectid, kind, ADEdge.DumpSMSAPassword)
    emit_outgoing(out, record.get("hassidhistory"), objectid, kind, ADEdge.HasSIDHistory)
    for field in _SESSION_LISTS:
        _emit_sessions(out, lower_keys(record.get(field)))
    domain = as_str(record.get("domainsid"))
    if record.get("isdc") is True and domain:
        out.edge(objectid, kind, domain, ADNode.Domain, ADEdge.DCFor, NOT_ACL)
    else:  # a DC's unconstrained delegation is by design, not an attack path
        emit_coerce_to_tgt(out, record, properties, objectid, kind)
    for raw in as_list(record.get("localgroups")):
        _emit_local_group(out, lower_keys(raw), objectid)
    _emit_legacy_local_groups(out, record, objectid, as_str(properties.get("name")))
    for raw in as_list(record.get("userrights")):
        if _emit_user_right(out, lower_keys(raw), objectid):
            properties[HAS_URA] = True
    out.node(objectid, node_kinds(kind), properties)


def _emit_sessions(out: Emitter, sessions: dict[str, Any]) -> None:
    if sessions.get("collected") is not True:
        return
    for raw in as_list(sessions.get("results")):
        if isinstance(raw, dict) and len(raw) == 2 and _USER_SID in raw and _COMPUTER_SID in raw:
            # SharpHound's own spelling, and nothing else (as `ad_common.typed` reads a principal): no dict made.
            computer, user = as_str(raw[_COMPUTER_SID]), as_str(raw[_USER_SID])
        else:
            session = lower_keys(raw)
            computer, user = as_str(session.get("computersid")), as_str(session.get("usersid"))
        out.edge(computer, ADNode.Computer, user, ADNode.User, ADEdge.HasSession, NOT_ACL)


def _emit_local_group(out: Emitter, group: dict[str, Any], computer: str) -> None:
    name = as_str(group.get("name"))
    results = as_list(group.get("results"))
    if group.get("collected") is not True:
        return
    if not results and not name.upper().startswith(DIRECT_ACCESS_USERS):
        return
    group_id = as_str(group.get("objectidentifier"))
    if not group_id:
        out.warnings.add(f"computer {computer}: a local group has no ObjectIdentifier: skipped")
        return
    # SharpHound names a domain's built-in groups IGNOREME on DCs: the group node comes from groups.json.
    if name != IGNORED_LOCAL_GROUP_NAME:
        out.node(group_id, node_kinds(ADNode.LocalGroup), {"name": name})
    out.edge(group_id, ADNode.LocalGroup, computer, ADNode.Computer, ADEdge.LocalToComputer, NOT_ACL)
    emit_incoming(out, results, group_id, ADNode.LocalGroup, ADEdge.MemberOfLocalGroup)
    _emit_local_names(out, group)


def _emit_local_names(out: Emitter, group: dict[str, Any]) -> None:
    """Local accounts SharpHound could name but not type: nodes with only a name."""
    for raw in as_list(group.get("localnames")):
        local = lower_keys(raw)
        local_id = as_str(local.get("objectidentifier"))
        if local_id:
            out.node(local_id, (ADNode.Base,), {"name": local.get("principalname")})


def _emit_legacy_local_groups(out: Emitter, record: dict[str, Any], computer: str, computer_name: str) -> None:
    for field, (rid, group_name) in _LEGACY_LOCAL_GROUPS.items():
        result = lower_keys(record.get(field))
        members = as_list(result.get("results"))
        if result.get("collected") is not True or not members:
            continue
        group_id = f"{computer}-{rid}"
        name = f"{group_name}@{computer_name}" if computer_name else group_name
        out.node(group_id, node_kinds(ADNode.LocalGroup), {"name": name})
        out.edge(group_id, ADNode.LocalGroup, computer, ADNode.Computer, ADEdge.LocalToComputer, NOT_ACL)
        emit_incoming(out, members, group_id, ADNode.LocalGroup, ADEdge.MemberOfLocalGroup)


def _emit_user_right(out: Emitter, right: dict[str, Any], computer: str) -> bool:
    edge_kind = _USER_RIGHTS.get(as_str(right.get("privilege")))
    results = as_list(right.get("results"))
    if edge_kind is None or right.get("collected") is not True or not results:
        return False
    for grant in results:
        grant_id, grant_kind = typed(grant)
        out.edge(grant_id, grant_kind, computer, ADNode.Computer, edge_kind, NOT_ACL)
    return True


def _collected_properties(record: dict[str, Any], properties: dict[str, Any]) -> None:
    """Results of the NTLM-relay checks, written only when SharpHound collected them."""
    webclient = lower_keys(record.get("iswebclientrunning"))
    if webclient.get("collected") is True:
        properties["webclientrunning"] = webclient.get("result")
    smb = lower_keys(record.get("smbinfo"))
    if smb.get("collected") is True:
        properties["smbsigning"] = lower_keys(smb.get("result")).get("signingenabled")
    ntlm = lower_keys(record.get("ntlmregistrydata"))
    if ntlm.get("collected") is True:
        values = lower_keys(ntlm.get("result"))
        for key, (prop, read) in _NTLM_FLAGS.items():
            # A value absent from the registry clears what an earlier collection stored.
            value = values.get(key)
            properties[prop] = None if value is None else read(value)
    for old, new in (("ldapenabled", "ldapavailable"), ("ldapsenabled", "ldapsavailable")):
        if old in properties:
            properties[new] = properties.pop(old)


def _dc_registry_properties(record: dict[str, Any], properties: dict[str, Any]) -> None:
    registry = lower_keys(record.get("dcregistrydata"))
    if not registry:
        return
    mapping = lower_keys(registry.get("certificatemappingmethods"))
    if mapping.get("collected") is True and isinstance(mapping.get("value"), int):
        value = mapping["value"]
        properties["certificatemappingmethodsraw"] = value
        if value == -1:
            properties["certificatemappingmethods"] = [_REGISTRY_VALUE_MISSING]
        else:
            properties["certificatemappingmethods"] = [text for bit, text in _CERT_MAPPING_METHODS if value & bit]
    binding = lower_keys(registry.get("strongcertificatebindingenforcement"))
    if binding.get("collected") is True and isinstance(binding.get("value"), int):
        properties["strongcertificatebindingenforcementraw"] = binding["value"]
        if binding["value"] in _BINDING_ENFORCEMENT:
            properties["strongcertificatebindingenforcement"] = _BINDING_ENFORCEMENT[binding["value"]]
    netlogon = lower_keys(registry.get("vulnerablenetlogonsecuritydescriptor"))
    properties["vulnerablenetlogonsecuritydescriptorcollected"] = netlogon.get("collected") is True
    if netlogon.get("collected") is True:
        properties["vulnerablenetlogonsecuritydescriptor"] = netlogon.get("value")
