"""ADCSESC4: control over a published template lets one rewrite it into an ESC1 template.

For each hosted Enterprise CA and each template published to it, with E = the CA's enrollers
(the reference set of every cross product below, see `membership`):
* E x the template's controllers (Owns, GenericAll, WriteDacl, WriteOwner);
* E x GenericWrite holders x Enroll-or-AllExtendedRights holders on the template;
and, when the template enables authentication and is schema 1 or requires no authorized signature:
* E x Enroll/AllExtendedRights x WritePKINameFlag x WritePKIEnrollmentFlag holders;
* if the enrollee supplies the subject: E x Enroll/AllExtendedRights x WritePKIEnrollmentFlag;
* if no manager approval is required: E x Enroll/AllExtendedRights x WritePKINameFlag.
All of them -> every domain the CA chains to.
"""

from __future__ import annotations

from houndgraph.analysis.adcs import common as adcs
from houndgraph.analysis.adcs.common import flag
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge


def compute(ctx: Context) -> Derived:
    data = adcs.data(ctx)
    templates = sorted({template for ca in data.chained for template in data.published.get(ca, [])})
    generic_write = ctx.sources(templates, ADEdge.GenericWrite)
    enroll = ctx.sources(templates, ADEdge.Enroll, ADEdge.AllExtendedRights)
    name_flag = ctx.sources(templates, ADEdge.WritePKINameFlag)
    enrollment_flag = ctx.sources(templates, ADEdge.WritePKIEnrollmentFlag)
    cross = ctx.membership.cross_product
    pairs: set[tuple[int, int]] = set()
    for ca, domains in data.chained.items():
        enrollers = data.ca_enrollers[ca]
        principals: set[int] = set()
        for template in data.published.get(ca, []):
            properties = data.properties[template]
            principals |= cross(enrollers, data.template_controllers[template])
            principals |= cross(enrollers, generic_write[template], enroll[template])
            if not flag(properties, "authenticationenabled") or not adcs.template_signature_ok(properties):
                continue
            principals |= cross(enrollers, enroll[template], name_flag[template], enrollment_flag[template])
            if flag(properties, "enrolleesuppliessubject"):
                principals |= cross(enrollers, enroll[template], enrollment_flag[template])
            if not flag(properties, "requiresmanagerapproval"):
                principals |= cross(enrollers, enroll[template], name_flag[template])
        pairs.update((principal, domain) for principal in principals for domain in domains)
    return {ADEdge.ADCSESC4: pairs}


RULE = Rule("ADCSESC4", (ADEdge.ADCSESC4,), compute)
