"""Which findings the graph holds after Tier Zero tagging: the candidates, before impact is counted.

* Relationship findings: every edge of a kind with a finding type from a node without the Tier Zero tag to a
  node with it (the type named after the edge kind); when the start is a large default group, the
  large-default-group type of that kind instead, which also covers computer access (AdminTo, CanRDP,
  ExecuteDCOM, CanPSRemote, SQLAdmin) to any computer, Tier Zero or not.
* List findings: nodes whose properties make one of the configuration types (see `_NODE_RULES`), the
  published certificate templates and enterprise CAs that enable an ESC path, and (added by the caller
  once reachability is known) large default groups with a path into Tier Zero.

The environment of a finding is the domain SID or tenant id of the Tier Zero target (relationship) or
of the principal (list); a Domain or AZTenant node is its own environment. Well-known principals
that SharpHound names after their domain (`TESTLAB.LOCAL-S-1-1-0`, without a `domainsid`) belong to
the domain of that name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from houndgraph.analysis.adcs import common as adcs
from houndgraph.analysis.adcs import esc1, esc9
from houndgraph.analysis.adcs.common import flag, number, strings
from houndgraph.analysis.context import AUTHENTICATED_USERS_SUFFIX, EVERYONE_SUFFIX, Context
from houndgraph.analysis.findings.finding_types import (
    COMPUTER_ACCESS_EDGES,
    FINDING_TYPES,
    LARGE_DEFAULT_GROUP_TYPE_BY_EDGE,
    TIER_ZERO_TYPE_BY_EDGE,
    FindingType,
)
from houndgraph.graph.kinds import TIER_ZERO_TAG, ADNode

# Object id endings of the large default groups: Domain Users, Domain Computers, BUILTIN\Users,
# Authenticated Users, Everyone.
LARGE_GROUP_SUFFIXES = ("-513", "-515", "-S-1-5-32-545", "-" + AUTHENTICATED_USERS_SUFFIX, "-" + EVERYONE_SUFFIX)
# Of those, the groups every principal belongs to without a MemberOf edge saying so.
EVERYONE_SUFFIXES = ("-" + AUTHENTICATED_USERS_SUFFIX, "-" + EVERYONE_SUFFIX)
ANY_PURPOSE_EKU = "2.5.29.37.0"
CERTIFICATE_REQUEST_AGENT_EKU = "1.3.6.1.4.1.311.20.2.1"
ENVIRONMENT_SQL = "COALESCE({n}.properties->>'domainsid', {n}.properties->>'tenantid', {n}.properties->>'objectid')"


@dataclass(frozen=True, slots=True)
class Candidate:
    finding: FindingType
    environment: str
    principal: int
    target: int | None = None
    edge_id: int | None = None
    rel_kind: str | None = None


class Environments:
    """Turns the raw environment of a node (`domainsid`, `tenantid` or object id) into a domain or tenant."""

    def __init__(self, ctx: Context) -> None:
        self.by_name = {str(name).upper(): str(objectid) for _, name, objectid in
                        ctx.nodes(ADNode.Domain, columns=("name", "objectid")) if name and objectid}

    def resolve(self, raw: object) -> str | None:
        if raw is None:
            return None
        value = str(raw)
        prefix, separator, _ = value.partition("-S-1-")
        if separator and prefix and not prefix.startswith("S-1-"):
            return self.by_name.get(prefix.upper(), value)
        return value


def large_default_groups(ctx: Context) -> dict[int, bool]:
    """Large default groups that are not Tier Zero -> whether every principal belongs to it implicitly."""
    rows = ctx.nodes(ADNode.Group, " OR ".join(f"n.properties->>'objectid' LIKE %(s{i})s"
                                               for i in range(len(LARGE_GROUP_SUFFIXES))),
                     {f"s{i}": "%" + suffix for i, suffix in enumerate(LARGE_GROUP_SUFFIXES)}, columns=("objectid",))
    tag = ctx.kind_id(TIER_ZERO_TAG)
    tier_zero = ctx.has_kind([row[0] for row in rows], TIER_ZERO_TAG) if tag is not None else set()
    return {row[0]: str(row[1]).endswith(EVERYONE_SUFFIXES) for row in rows if row[0] not in tier_zero}


_INTO_TIER_ZERO = f"""
SELECT e.id, e.start_id, e.end_id, k.name, {ENVIRONMENT_SQL.format(n="t")}
FROM node t
JOIN edge e ON e.end_id = t.id AND e.kind_id = ANY(%(kinds)s)
JOIN kind k ON k.id = e.kind_id
JOIN node s ON s.id = e.start_id
WHERE t.kind_ids @> ARRAY[%(tag)s]::smallint[] AND NOT s.kind_ids @> ARRAY[%(tag)s]::smallint[]
"""
_COMPUTER_ACCESS = f"""
SELECT e.id, e.start_id, e.end_id, k.name, {ENVIRONMENT_SQL.format(n="t")}
FROM edge e JOIN kind k ON k.id = e.kind_id JOIN node t ON t.id = e.end_id
WHERE e.start_id = ANY(%(groups)s) AND e.kind_id = ANY(%(kinds)s)
"""


def relationships(ctx: Context, environments: Environments, large_groups: dict[int, bool]) -> list[Candidate]:
    tag = ctx.kind_id(TIER_ZERO_TAG)
    found: dict[tuple[str, int, int, str], Candidate] = {}
    rows: list[tuple[Any, ...]] = []
    if tag is not None:
        rows += ctx.conn.execute(_INTO_TIER_ZERO, {
            "tag": tag, "kinds": ctx.kind_ids(set(TIER_ZERO_TYPE_BY_EDGE) | set(LARGE_DEFAULT_GROUP_TYPE_BY_EDGE))
        }).fetchall()
    if large_groups:
        rows += ctx.conn.execute(_COMPUTER_ACCESS, {
            "groups": sorted(large_groups), "kinds": ctx.kind_ids(COMPUTER_ACCESS_EDGES)}).fetchall()
    for edge_id, start, end, kind, raw in rows:
        finding = (LARGE_DEFAULT_GROUP_TYPE_BY_EDGE if start in large_groups else TIER_ZERO_TYPE_BY_EDGE).get(kind)
        environment = environments.resolve(raw)
        if finding is None or environment is None:
            continue
        found[(finding.name, start, end, kind)] = Candidate(finding, environment, start, end, edge_id, kind)
    return list(found.values())


# Configuration types read from one node's properties: (type, node kinds, SQL condition on `n`).
_ENABLED = "n.properties->'enabled' = 'true'::jsonb"
_TIER_ZERO = "n.kind_ids @> ARRAY[%(tag)s]::smallint[]"
_NOT_DC = "n.properties->'isdc' IS DISTINCT FROM 'true'::jsonb"
_NODE_RULES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("Kerberoasting", (ADNode.User,), f"{_ENABLED} AND {_TIER_ZERO} AND n.properties->'hasspn' = 'true'::jsonb"),
    ("ASREPRoasting", (ADNode.User,),
     f"{_ENABLED} AND {_TIER_ZERO} AND n.properties->'dontreqpreauth' = 'true'::jsonb"),
    ("T0PasswordNeverExpires", (ADNode.User,),
     f"{_ENABLED} AND {_TIER_ZERO} AND n.properties->'pwdneverexpires' = 'true'::jsonb"),
    ("NonDCUnconstrainedDelegation", (ADNode.User, ADNode.Computer),
     f"{_ENABLED} AND {_NOT_DC} AND n.properties->'unconstraineddelegation' = 'true'::jsonb"),
    ("ComputersWithoutLAPS", (ADNode.Computer,),
     f"{_ENABLED} AND {_NOT_DC} AND n.properties->'haslaps' = 'false'::jsonb"),
    ("DCLDAPSigningDisabled", (ADNode.Computer,),
     "n.properties->'isdc' = 'true'::jsonb AND n.properties->'ldapsigning' = 'false'::jsonb "
     "AND n.properties->'ldapavailable' IS DISTINCT FROM 'false'::jsonb"),
    ("DCLDAPSChannelBindingDisabled", (ADNode.Computer,),
     "n.properties->'isdc' = 'true'::jsonb AND n.properties->'ldapsepa' = 'false'::jsonb "
     "AND n.properties->'ldapsavailable' = 'true'::jsonb"),
)


def configuration(ctx: Context, environments: Environments) -> list[Candidate]:
    """The configuration types of `_NODE_RULES` in one pass over the nodes they read (a pass per type read the
    users and computers seven times: 4 s at a million objects), then the certificate services'."""
    tag = ctx.kind_id(TIER_ZERO_TAG)
    rules = [(name, kind_ids, condition) for name, kinds, condition in _NODE_RULES
             if (kind_ids := ctx.kind_ids(kinds)) and not (tag is None and _TIER_ZERO in condition)]
    conditions = [f"(n.kind_ids && %(k{position})s::smallint[] AND {condition})"
                  for position, (_, _, condition) in enumerate(rules)]
    params: dict[str, Any] = {"tag": tag, "kinds": sorted({kind for _, kind_ids, _ in rules for kind in kind_ids}),
                              **{f"k{position}": kind_ids for position, (_, kind_ids, _) in enumerate(rules)}}
    found: list[list[Candidate]] = [[] for _ in rules]
    if rules:
        matched = ", ".join(f"coalesce({condition}, false)" for condition in conditions)
        rows = ctx.conn.execute(
            f"SELECT n.id, {ENVIRONMENT_SQL.format(n='n')}, {matched} FROM node n "
            f"WHERE n.kind_ids && %(kinds)s::smallint[] AND ({' OR '.join(conditions)})", params,
        ).fetchall()
        for node, raw, *matches in rows:
            environment = environments.resolve(raw)
            if environment is None:
                continue
            for position, match in enumerate(matches):
                if match:
                    found[position].append(Candidate(FINDING_TYPES[rules[position][0]], environment, node))
    return [candidate for candidates in found for candidate in candidates] + _certificate_services(ctx)


def _template_types(template: dict[str, Any]) -> Iterable[str]:
    approval_free = not flag(template, "requiresmanagerapproval") and adcs.template_signature_ok(template)
    ekus = strings(template, "effectiveekus")
    if esc1.template_valid(template):
        yield "ESC1CertTemplate"
    if approval_free and ekus is not None and (not ekus or ANY_PURPOSE_EKU in ekus):
        yield "ESC2CertTemplate"
    if approval_free and ekus is not None and CERTIFICATE_REQUEST_AGENT_EKU in ekus:
        yield "ESC3CertTemplate"
    if flag(template, "nosecurityextension") and (esc9.name_template_valid(template, scenario_b=False)
                                                   or esc9.name_template_valid(template, scenario_b=True)):
        yield "ESC9CertTemplate"
    if number(template, "schemaversion") == 1 and flag(template, "enrolleesuppliessubject") \
            and not flag(template, "requiresmanagerapproval"):
        yield "ESC15CertTemplate"


def _certificate_services(ctx: Context) -> list[Candidate]:
    """Templates published to, and CAs that are, hosted enterprise CAs chaining to a domain."""
    data = adcs.data(ctx)
    if not data.chained:
        return []
    domains = {node: str(properties.get("objectid")) for node, properties in
               ctx.properties(set().union(*data.chained.values())).items()}
    found: dict[tuple[str, int, str], Candidate] = {}
    for ca, chained in data.chained.items():
        environments = sorted(domains[domain] for domain in chained)
        ca_types = [name for name, enabled in (
            ("ESC6CertAuthority", flag(data.properties[ca], "isuserspecifiessanenabled")),
            ("ESC8CertAuthority", flag(data.properties[ca], "hasvulnerableendpoint"))) if enabled]
        subjects = [(ca, name) for name in ca_types]
        subjects += [(template, name) for template in data.published.get(ca, [])
                     for name in _template_types(data.properties[template])]
        for node, name in subjects:
            for environment in environments:
                found[(name, node, environment)] = Candidate(FINDING_TYPES[name], environment, node)
    return list(found.values())
