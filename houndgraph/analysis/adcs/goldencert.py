"""GoldenCert: whoever controls the computer hosting an Enterprise CA can forge certificates with its
key for every domain the CA chains to. Every Computer with HostsCAService to a hosted Enterprise CA
(see `adcs` for "hosted" and "chains") -> each domain the CA chains to."""

from __future__ import annotations

from houndgraph.analysis.adcs import common as adcs
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge


def compute(ctx: Context) -> Derived:
    data = adcs.data(ctx)
    pairs = {
        (computer, domain)
        for ca, domains in data.chained.items()
        for computer in data.hosts.get(ca, ())
        for domain in domains
    }
    return {ADEdge.GoldenCert: pairs}


RULE = Rule("GoldenCert", (ADEdge.GoldenCert,), compute)
