"""CoerceAndRelayNTLMToSMB / ToLDAP / ToLDAPS / ToADCS: any authenticated user can coerce a computer
to authenticate and relay that NTLM authentication to a service that does not insist on signing.

Reference `PostNTLM`, in our words. The source of every edge is the domain's Authenticated Users group
(a Group whose object id ends `-S-1-5-11`, keyed by its `domainsid`); the target is a computer.
* A computer is *unprotected* (a usable coercion victim) when it has a `domainsid` whose domain has an
  Authenticated Users group and a Domain node, `restrictoutboundntlm` is present and false, and it is
  not a (transitive) member of the domain's Protected Users group (`-525`) unless the domain's
  `functionallevel` is one where that group does not stop the relay (2000 ... 2012).
* ToSMB: a computer with `smbsigning = false` (present) is the target when some *other* unprotected
  computer holds AdminTo on it, directly or through a group it belongs to.
* ToLDAP / ToLDAPS: an unprotected computer with `webclientrunning = true` is the target when its
  domain has a DC (`isdc = true`, same `domainsid`) with `ldapavailable = true` and `ldapsigning =
  false` (LDAP), or with `ldapsavailable = true` and `ldapsepa = false` (LDAPS) - unless the only such
  DC is the computer itself.
* ToADCS: for each Enterprise CA with `hasvulnerableendpoint = true`, hosted and chained to a domain
  (see `adcs`), and each published template needing no manager approval, enabling authentication and
  schema 1 or no authorized signature: the enrollers of the template and of the CA expanded to
  non-group principals; if neither side is granted to Everyone / Authenticated Users the victims are
  both sets' intersection, otherwise the union of the sides whose partner is granted to everybody.
  Unprotected computers among them are targets from that domain's Authenticated Users.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from houndgraph.analysis.adcs import common as adcs
from houndgraph.analysis.adcs.common import flag
from houndgraph.analysis.context import AUTHENTICATED_USERS_SUFFIX, Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge, ADNode

PROTECTED_USERS_RID = "-525"
VULNERABLE_FUNCTIONAL_LEVELS = frozenset({"2000 Mixed/Native", "2003 Interim", "2003", "2008", "2008 R2", "2012"})
# Only these properties of computers matter here (the full documents are large: SPN lists, ...).
_COMPUTER_KEYS = ("domainsid", "restrictoutboundntlm", "smbsigning", "webclientrunning", "isdc", "ldapavailable",
                  "ldapsigning", "ldapsavailable", "ldapsepa")
_RELAY_KINDS = (ADEdge.CoerceAndRelayNTLMToSMB, ADEdge.CoerceAndRelayNTLMToLDAP, ADEdge.CoerceAndRelayNTLMToLDAPS,
                ADEdge.CoerceAndRelayNTLMToADCS)


def _by_sid(ctx: Context, suffix: str) -> dict[str, int]:
    rows = ctx.nodes(ADNode.Group, "n.properties->>'objectid' LIKE %(suffix)s", {"suffix": f"%{suffix}"},
                     columns=("domainsid",))
    return {str(sid): node for node, sid in sorted(rows) if sid}


def compute(ctx: Context) -> Derived:
    result: dict[str, set[tuple[int, int]]] = {kind: set() for kind in _RELAY_KINDS}
    authenticated = _by_sid(ctx, f"-{AUTHENTICATED_USERS_SUFFIX}")
    if not authenticated:
        return result
    domains = {str(row[1] or row[2]): row[3] for row in ctx.nodes(
        ADNode.Domain, columns=("domainsid", "objectid", "functionallevel")) if row[1] or row[2]}
    computers = {row[0]: dict(zip(_COMPUTER_KEYS, row[1:], strict=True))
                 for row in ctx.nodes(ADNode.Computer, columns=_COMPUTER_KEYS)}
    protected: dict[str, frozenset[int]] = {
        sid: ctx.membership.members(group) for sid, group in _by_sid(ctx, PROTECTED_USERS_RID).items()}
    unprotected = {
        computer for computer, properties in computers.items()
        if _unprotected(properties, computer, authenticated, domains, protected)
    }
    _smb(ctx, computers, unprotected, authenticated, result[ADEdge.CoerceAndRelayNTLMToSMB])
    _ldap(computers, unprotected, authenticated, result)
    _adcs(ctx, unprotected, authenticated, result[ADEdge.CoerceAndRelayNTLMToADCS])
    return result


def _unprotected(properties: dict[str, Any], computer: int, authenticated: dict[str, int],
                 domains: dict[str, Any], protected: dict[str, frozenset[int]]) -> bool:
    sid = properties.get("domainsid")
    if sid not in authenticated or sid not in domains or properties.get("restrictoutboundntlm") is not False:
        return False
    return computer not in protected.get(sid, frozenset()) or domains[sid] in VULNERABLE_FUNCTIONAL_LEVELS


def _smb(ctx: Context, computers: dict[int, dict[str, Any]], unprotected: set[int], authenticated: dict[str, int],
         pairs: set[tuple[int, int]]) -> None:
    targets = [computer for computer, properties in computers.items()
               if properties.get("smbsigning") is False and properties.get("domainsid") in authenticated]
    admins = ctx.sources(targets, ADEdge.AdminTo)
    # For each group, two unprotected computers it contains: one of them is not the target itself.
    witnesses = ctx.membership.witnesses(unprotected, limit=2)
    for target in targets:
        relays = set()
        for admin in admins[target]:
            if admin in unprotected:
                relays.add(admin)
            relays |= witnesses.get(admin, frozenset())
        if relays - {target}:
            pairs.add((authenticated[computers[target]["domainsid"]], target))


def _ldap(computers: dict[int, dict[str, Any]], unprotected: set[int], authenticated: dict[str, int],
          result: dict[str, set[tuple[int, int]]]) -> None:
    ldap: dict[str, set[int]] = defaultdict(set)
    ldaps: dict[str, set[int]] = defaultdict(set)
    for computer, properties in computers.items():
        if properties.get("isdc") is not True:
            continue
        sid = str(properties.get("domainsid"))
        if properties.get("ldapavailable") is True and properties.get("ldapsigning") is False:
            ldap[sid].add(computer)
        if properties.get("ldapsavailable") is True and properties.get("ldapsepa") is False:
            ldaps[sid].add(computer)
    for computer in unprotected:
        properties = computers[computer]
        if properties.get("webclientrunning") is not True:
            continue
        sid = str(properties["domainsid"])
        for kind, relayable in ((ADEdge.CoerceAndRelayNTLMToLDAP, ldap), (ADEdge.CoerceAndRelayNTLMToLDAPS, ldaps)):
            if relayable[sid] - {computer}:
                result[kind].add((authenticated[sid], computer))


def _adcs(ctx: Context, unprotected: set[int], authenticated: dict[str, int], pairs: set[tuple[int, int]]) -> None:
    data = adcs.data(ctx)
    sids = {node: str(sid or objectid)
            for node, sid, objectid in ctx.nodes(ADNode.Domain, columns=("domainsid", "objectid"))}
    for ca, domains in data.chained.items():
        if not flag(data.properties[ca], "hasvulnerableendpoint"):
            continue
        sources = [authenticated[sids[domain]] for domain in domains if sids.get(domain) in authenticated]
        if not sources:
            continue
        ca_enrollers = data.ca_enrollers[ca]
        ca_victims = adcs.leaf_principals(ctx, data, ca_enrollers)
        ca_special = _granted_to_everybody(ctx, ca_enrollers)
        for template in data.published.get(ca, []):
            properties = data.properties[template]
            enrollers = data.template_enrollers[template]
            if flag(properties, "requiresmanagerapproval") or not flag(properties, "authenticationenabled") \
                    or not adcs.template_signature_ok(properties) or not enrollers:
                continue
            template_victims = adcs.leaf_principals(ctx, data, enrollers)
            template_special = _granted_to_everybody(ctx, enrollers)
            if not template_special and not ca_special:
                victims = template_victims & ca_victims
            else:
                victims = (ca_victims if template_special else set()) | (template_victims if ca_special else set())
            pairs.update((source, victim) for victim in victims & unprotected for source in sources)


def _granted_to_everybody(ctx: Context, holders: set[int]) -> bool:
    return not holders.isdisjoint(ctx.shortcut_groups)


RULE = Rule("CoerceAndRelayNTLM", _RELAY_KINDS, compute)
