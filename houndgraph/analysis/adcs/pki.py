"""The PKI plumbing derived from certificates: TrustedForNTAuth, IssuedSignedBy, EnterpriseCAFor,
ExtendedByPolicy, and EnrollOnBehalfOf.

In our words (reference `PostTrustedForNTAuth`, `PostIssuedSignedBy`, `PostEnterpriseCAFor`,
`PostExtendedByPolicyBinding`, `PostEnrollOnBehalfOf`):
* TrustedForNTAuth: an EnterpriseCA whose `certthumbprint` is listed in an NTAuthStore's
  `certthumbprints` -> that store.
* IssuedSignedBy: an EnterpriseCA, RootCA or AIACA whose `certchain` has a second entry (its issuer's
  thumbprint) -> every EnterpriseCA or RootCA with that `certthumbprint`.
* EnterpriseCAFor: an EnterpriseCA -> every RootCA or AIACA carrying the same certificate (same
  `certthumbprint`): the CA's own certificate is the root (or the AIA copy of it).
* ExtendedByPolicy: a CertTemplate whose `certificatepolicy` lists an OID -> the IssuancePolicy whose
  `certtemplateoid` is that OID (in the same domain when both carry a `domainsid`).
* EnrollOnBehalfOf (run after the above, it needs the chains): between templates published by hosted
  Enterprise CAs that chain to a common domain. An enrollment-agent template A (published to one CA)
  -> a schema-1 template B (published to the other) when A's `effectiveekus` is empty or has the
  Certificate Request Agent or Any Purpose EKU; A -> a schema-2+ template B (B != A) when A's EKUs have
  Certificate Request Agent but not Any Purpose, and B requires exactly one authorized signature with
  the Certificate Request Agent application policy. Templates without `effectiveekus` are skipped.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from houndgraph.analysis.adcs import common as adcs
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge, ADNode

EKU_ANY_PURPOSE = "2.5.29.37.0"
EKU_CERT_REQUEST_AGENT = "1.3.6.1.4.1.311.20.2.1"


def _by_thumbprint(ctx: Context, *kinds: str) -> dict[str, set[int]]:
    found: dict[str, set[int]] = defaultdict(set)
    for kind in kinds:
        for node, thumbprint in ctx.nodes(kind, columns=("certthumbprint",)):
            if isinstance(thumbprint, str) and thumbprint:
                found[thumbprint.upper()].add(node)
    return found


def compute_certificates(ctx: Context) -> Derived:
    cas = dict(ctx.nodes(ADNode.EnterpriseCA, columns=("certthumbprint",)))
    trusted: set[tuple[int, int]] = set()
    ca_by_thumbprint = _by_thumbprint(ctx, ADNode.EnterpriseCA)
    for store, thumbprints in ctx.nodes(ADNode.NTAuthStore, columns=("certthumbprints",)):
        for thumbprint in thumbprints if isinstance(thumbprints, list) else []:
            if isinstance(thumbprint, str) and thumbprint:
                trusted.update((ca, store) for ca in ca_by_thumbprint.get(thumbprint.upper(), ()))

    issuers = _by_thumbprint(ctx, ADNode.EnterpriseCA, ADNode.RootCA)
    signed: set[tuple[int, int]] = set()
    for kind in (ADNode.EnterpriseCA, ADNode.RootCA, ADNode.AIACA):
        for node, chain in ctx.nodes(kind, columns=("certchain",)):
            if isinstance(chain, list) and len(chain) > 1 and isinstance(chain[1], str):
                signed.update((node, issuer) for issuer in issuers.get(chain[1].upper(), ()))

    roots = _by_thumbprint(ctx, ADNode.RootCA, ADNode.AIACA)
    enterprise_for = {
        (ca, root)
        for ca, thumbprint in cas.items() if isinstance(thumbprint, str) and thumbprint
        for root in roots.get(thumbprint.upper(), ())
    }
    return {
        ADEdge.TrustedForNTAuth: trusted,
        ADEdge.IssuedSignedBy: signed,
        ADEdge.EnterpriseCAFor: enterprise_for,
        ADEdge.ExtendedByPolicy: _extended_by_policy(ctx),
    }


def _extended_by_policy(ctx: Context) -> set[tuple[int, int]]:
    policies: dict[str, list[tuple[int, Any]]] = defaultdict(list)
    for policy, oid, sid in ctx.nodes(ADNode.IssuancePolicy, columns=("certtemplateoid", "domainsid")):
        if isinstance(oid, str) and oid:
            policies[oid].append((policy, sid))
    pairs: set[tuple[int, int]] = set()
    for template, oids, sid in ctx.nodes(ADNode.CertTemplate, columns=("certificatepolicy", "domainsid")):
        for oid in oids if isinstance(oids, list) else []:
            for policy, policy_sid in policies.get(str(oid), ()):
                if sid is None or policy_sid is None or sid == policy_sid:
                    pairs.add((template, policy))
    return pairs


def compute_enroll_on_behalf_of(ctx: Context) -> Derived:
    data = adcs.data(ctx)
    pairs: set[tuple[int, int]] = set()
    for agent_ca, agent_domains in data.chained.items():
        agents = data.published.get(agent_ca, [])
        if not agents:
            continue
        for target_ca, target_domains in data.chained.items():
            if agent_domains.isdisjoint(target_domains):
                continue
            for target in data.published.get(target_ca, []):
                pairs.update((agent, target) for agent in agents if _can_enroll_on_behalf(
                    data.properties[agent], agent, data.properties[target], target))
    return {ADEdge.EnrollOnBehalfOf: pairs}


def _can_enroll_on_behalf(agent: dict[str, Any], agent_id: int, target: dict[str, Any], target_id: int) -> bool:
    ekus = adcs.strings(agent, "effectiveekus")
    if ekus is None:
        return False
    version = adcs.number(target, "schemaversion")
    if version == 1:
        return not ekus or EKU_CERT_REQUEST_AGENT in ekus or EKU_ANY_PURPOSE in ekus
    if version >= 2:
        return (
            agent_id != target_id
            and EKU_ANY_PURPOSE not in ekus
            and EKU_CERT_REQUEST_AGENT in ekus
            and adcs.number(target, "authorizedsignatures") == 1
            and EKU_CERT_REQUEST_AGENT in (adcs.strings(target, "applicationpolicies") or [])
        )
    return False


CERTIFICATES_RULE = Rule(
    "PKI",
    (ADEdge.TrustedForNTAuth, ADEdge.IssuedSignedBy, ADEdge.EnterpriseCAFor, ADEdge.ExtendedByPolicy),
    compute_certificates,
)
ENROLL_ON_BEHALF_OF_RULE = Rule("EnrollOnBehalfOf", (ADEdge.EnrollOnBehalfOf,), compute_enroll_on_behalf_of)
