"""A small hand-drawn AD forest and Azure tenant for the query-library corpus, and a plain-Python
model of it that answers each library question independently of the engine.

AD (LAB.LOCAL, S-1-5-21-1; CHILD.LAB.LOCAL, S-1-5-21-2):
    alice -MemberOf-> IT -MemberOf-> DOMAIN ADMINS -MemberOf-> ADMINISTRATORS <-MemberOf- ENTERPRISE ADMINS
    erin -MemberOf-> DOMAIN ADMINS, PROTECTED USERS      bob -MemberOf-> HELPDESK -MemberOf-> DOMAIN USERS (CHILD)
    dave -MemberOf-> DOMAIN USERS (CHILD)                 bob -MemberOf-> GMSA READERS -ReadGMSAPassword-> gmsa01$
    users -MemberOf-> DOMAIN USERS; WS02 -MemberOf-> DOMAIN COMPUTERS -AdminTo-> WS01 -AdminTo-> SRV01
    DOMAIN USERS: AdminTo/GenericAll WS01, CanRDP WS02 + SRV01, ReadLAPSPassword WS02, ExecuteDCOM SRV01
    HELPDESK: AdminTo WS02 + SRV01, GenericWrite WS POLICY, ForceChangePassword carol, ManageCA LAB-CA
    sessions: WS01 -> alice, DC01 -> erin, WS02 -> bob, SRV01 -> svc_sql
    domain rights: DOMAIN ADMINS DCSync, ENTERPRISE ADMINS AllExtendedRights, carol GenericAll,
                   DOMAIN CONTROLLERS GetChanges + GetChangesAll, dave GetChanges only
    ADCS: CA01 -HostsCAService-> LAB-CA -IssuedSignedBy-> LAB-ROOT -RootCAFor-> LAB.LOCAL, LAB-CA
          -EnterpriseCAFor-> LAB-ROOT, LAB-CA -TrustedForNTAuth-> NTAUTH -NTAuthStoreFor-> LAB.LOCAL,
          templates ESC1, AGENT, NOEXT published to LAB-CA (UNPUBLISHED is not)
Azure (CONTOSO): admin -AZHasRole-> Global Administrator, admin -AZGlobalAdmin-> tenant, help
    -AZHasRole-> Helpdesk Administrator, dev -AZMemberOf-> OPS -AZHasRole-> Helpdesk Administrator,
    OPS -AZContributor-> PROD-RG -AZContains-> VM01, KV01; PROD-SUB -AZContains-> PROD-RG,
    AUTOMATION-APP -AZRunsAs-> AUTOMATION-SP -AZMGGrantAppRoles-> tenant, guest
    -AZUserAccessAdministrator-> PROD-SUB, help -AZResetPassword-> admin
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

T0 = {"system_tags": "admin_tier_0"}
OLD, RECENT = 1_500_000_000, 4_000_000_000  # epoch seconds: long ago, and far ahead


def _sid(rid: str | int, domain: int = 1) -> str:
    # Three sub-authorities, as real domain SIDs have: split(objectid, '-')[7] is the RID.
    return f"S-1-5-21-{domain}-{domain}-{domain}-{rid}"


# short name -> (kinds, properties); `name` defaults to the short name upper-cased @LAB.LOCAL.
NODES: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "lab": (("Base", "Domain", "Tag_Tier_Zero"), {"name": "LAB.LOCAL", "objectid": "S-1-5-21-1", "collected": True,
                                                  "functionallevel": "2016", **T0}),
    "child": (("Base", "Domain"), {"name": "CHILD.LAB.LOCAL", "objectid": "S-1-5-21-2", "collected": True}),
    "da": (("Base", "Group", "Tag_Tier_Zero"), {"name": "DOMAIN ADMINS@LAB.LOCAL", "objectid": _sid(512), **T0}),
    "ea": (("Base", "Group", "Tag_Tier_Zero"), {"name": "ENTERPRISE ADMINS@LAB.LOCAL", "objectid": _sid(519), **T0}),
    "du": (("Base", "Group"), {"name": "DOMAIN USERS@LAB.LOCAL", "objectid": _sid(513)}),
    "dcomp": (("Base", "Group"), {"name": "DOMAIN COMPUTERS@LAB.LOCAL", "objectid": _sid(515)}),
    "dcs": (("Base", "Group", "Tag_Tier_Zero"), {"name": "DOMAIN CONTROLLERS@LAB.LOCAL", "objectid": _sid(516),
                                                 **T0}),
    "adms": (("Base", "Group", "Tag_Tier_Zero"), {"name": "ADMINISTRATORS@LAB.LOCAL",
                                                  "objectid": "LAB.LOCAL-S-1-5-32-544", **T0}),
    "pu": (("Base", "Group"), {"name": "PROTECTED USERS@LAB.LOCAL", "objectid": _sid(525)}),
    "it": (("Base", "Group", "Tag_Tier_Zero"), {"name": "IT@LAB.LOCAL", "objectid": _sid(1105), **T0}),
    "hd": (("Base", "Group"), {"name": "HELPDESK@LAB.LOCAL", "objectid": _sid(1106)}),
    "gmsar": (("Base", "Group"), {"name": "GMSA READERS@LAB.LOCAL", "objectid": _sid(1107)}),
    "cdu": (("Base", "Group"), {"name": "DOMAIN USERS@CHILD.LAB.LOCAL", "objectid": _sid(513, 2)}),
    "alice": (("Base", "User", "Tag_Tier_Zero"), {
        "objectid": _sid(1101), "hasspn": True, "enabled": True, "admincount": True, "sensitive": False,
        "pwdneverexpires": True, "supportedencryptiontypes": ["RC4-HMAC-MD5", "AES128-CTS-HMAC-SHA1-96"],
        "lastlogontimestamp": OLD, "lastlogon": OLD, "whencreated": OLD, "pwdlastset": OLD, **T0}),
    "bob": (("Base", "User"), {"objectid": _sid(1102), "dontreqpreauth": True, "enabled": True, "hasspn": False,
                               "lastlogontimestamp": RECENT, "pwdlastset": RECENT}),
    "carol": (("Base", "User"), {"objectid": _sid(1103), "enabled": False, "hasspn": True, "admincount": True}),
    "dave": (("Base", "User", "Tag_Owned"), {"objectid": _sid(1104), "enabled": True, "hasspn": False,
                                             "system_tags": "owned", "owned": True,
                                             "description": "temporary password in the helpdesk ticket"}),
    "bob_child": (("Base", "User"), {"name": "BOB@CHILD.LAB.LOCAL", "objectid": _sid(1102, 2), "enabled": True}),
    "erin": (("Base", "User", "Tag_Tier_Zero"), {"objectid": _sid(1108), "enabled": True, "sensitive": True,
                                                 "pwdneverexpires": False, "admincount": True,
                                                 "lastlogontimestamp": RECENT, **T0}),
    "svc_sql": (("Base", "User"), {"objectid": _sid(1109), "hasspn": True, "enabled": True,
                                   "unconstraineddelegation": True, "supportedencryptiontypes": ["AES256-CTS"],
                                   "pwdneverexpires": True}),
    "gmsa01$": (("Base", "User"), {"objectid": _sid(1110), "gmsa": True, "enabled": True}),
    "krbtgt": (("Base", "User", "Tag_Tier_Zero"), {"objectid": _sid(502), "hasspn": True, "enabled": False, **T0}),
    "dc01": (("Base", "Computer", "Tag_Tier_Zero"), {
        "name": "DC01.LAB.LOCAL", "objectid": _sid(1000), "unconstraineddelegation": True, "isdc": True,
        "enabled": True, "operatingsystem": "Windows Server 2019 Standard", "haslaps": False,
        "strongcertificatebindingenforcementraw": 1, "certificatemappingmethodsraw": 4, "pwdlastset": OLD,
        "whencreated": OLD, "smbsigning": True, **T0}),
    "ws01": (("Base", "Computer"), {"name": "WS01.LAB.LOCAL", "objectid": _sid(1201), "enabled": True,
                                    "operatingsystem": "Windows 7 Professional", "haslaps": True}),
    "ws02": (("Base", "Computer"), {"name": "WS02.LAB.LOCAL", "objectid": _sid(1202), "enabled": True,
                                    "operatingsystem": "Windows 10 Enterprise", "haslaps": True}),
    "srv01": (("Base", "Computer"), {"name": "SRV01.LAB.LOCAL", "objectid": _sid(1203), "enabled": True,
                                     "operatingsystem": "Windows Server 2008 R2 Standard", "haslaps": True,
                                     "unconstraineddelegation": True}),
    "ca01": (("Base", "Computer"), {"name": "CA01.LAB.LOCAL", "objectid": _sid(1204), "enabled": True,
                                    "operatingsystem": "Windows Server 2016 Datacenter", "haslaps": False}),
    "ou_ws": (("Base", "OU"), {"name": "WORKSTATIONS@LAB.LOCAL", "objectid": "OU-WS"}),
    "ou_t0": (("Base", "OU", "Tag_Tier_Zero"), {"name": "TIER0@LAB.LOCAL", "objectid": "OU-T0", **T0}),
    "gpo1": (("Base", "GPO"), {"name": "DEFAULT DOMAIN POLICY@LAB.LOCAL", "objectid": "GPO-1"}),
    "gpo2": (("Base", "GPO"), {"name": "WS POLICY@LAB.LOCAL", "objectid": "GPO-2"}),
    "conf": (("Base", "Container"), {"name": "CONFIGURATION@LAB.LOCAL", "objectid": "CONF",
                                     "distinguishedname": "CN=CONFIGURATION,DC=LAB,DC=LOCAL"}),
    "pks": (("Base", "Container"), {"name": "PUBLIC KEY SERVICES@LAB.LOCAL", "objectid": "PKS",
                                    "distinguishedname": "CN=PUBLIC KEY SERVICES,CN=SERVICES,CN=CONFIGURATION,"
                                                         "DC=LAB,DC=LOCAL"}),
    "eca": (("Base", "EnterpriseCA"), {"name": "LAB-CA@LAB.LOCAL", "objectid": "ECA",
                                       "isuserspecifiessanenabled": True}),
    "rca": (("Base", "RootCA"), {"name": "LAB-ROOT@LAB.LOCAL", "objectid": "RCA"}),
    "nta": (("Base", "NTAuthStore"), {"name": "NTAUTHCERTIFICATES@LAB.LOCAL", "objectid": "NTA"}),
    "t_esc1": (("Base", "CertTemplate"), {"name": "ESC1@LAB.LOCAL", "objectid": "T-ESC1",
                                          "enrolleesuppliessubject": True, "authenticationenabled": True,
                                          "requiresmanagerapproval": False, "nosecurityextension": False,
                                          "effectiveekus": ["1.3.6.1.5.5.7.3.2"], "schemaversion": 2}),
    "t_agent": (("Base", "CertTemplate"), {"name": "AGENT@LAB.LOCAL", "objectid": "T-AGENT",
                                           "enrolleesuppliessubject": False, "authenticationenabled": False,
                                           "requiresmanagerapproval": False, "nosecurityextension": False,
                                           "effectiveekus": ["1.3.6.1.4.1.311.20.2.1"], "schemaversion": 1}),
    "t_noext": (("Base", "CertTemplate"), {"name": "NOEXT@LAB.LOCAL", "objectid": "T-NOEXT",
                                           "enrolleesuppliessubject": True, "authenticationenabled": True,
                                           "requiresmanagerapproval": True, "nosecurityextension": True,
                                           "effectiveekus": [], "schemaversion": 2}),
    "t_unpub": (("Base", "CertTemplate"), {"name": "UNPUBLISHED@LAB.LOCAL", "objectid": "T-UNPUB",
                                           "enrolleesuppliessubject": True, "authenticationenabled": True,
                                           "requiresmanagerapproval": False, "effectiveekus": []}),
    # Azure
    "tenant": (("AZBase", "AZTenant", "Tag_Tier_Zero"), {"name": "CONTOSO", "objectid": "TENANT-1", **T0}),
    "az_admin": (("AZBase", "AZUser", "Tag_Tier_Zero"), {"name": "ADMIN@CONTOSO.COM", "objectid": "AZU-1",
                                                         "enabled": True, **T0}),
    "az_help": (("AZBase", "AZUser"), {"name": "HELP@CONTOSO.COM", "objectid": "AZU-2", "enabled": True}),
    "az_dev": (("AZBase", "AZUser", "Tag_Owned"), {"name": "DEV@CONTOSO.COM", "objectid": "AZU-3", "enabled": True,
                                                   "system_tags": "owned"}),
    "az_guest": (("AZBase", "AZUser"), {"name": "GUEST@CONTOSO.COM", "objectid": "AZU-4", "enabled": True}),
    "az_ops": (("AZBase", "AZGroup"), {"name": "OPS@CONTOSO.COM", "objectid": "AZG-1"}),
    "r_ga": (("AZBase", "AZRole", "Tag_Tier_Zero"), {"name": "Global Administrator", "objectid": "AZR-GA", **T0}),
    "r_hd": (("AZBase", "AZRole", "Tag_Tier_Zero"), {"name": "Helpdesk Administrator", "objectid": "AZR-HD", **T0}),
    "r_read": (("AZBase", "AZRole"), {"name": "Directory Readers", "objectid": "AZR-READ"}),
    "sp_auto": (("AZBase", "AZServicePrincipal"), {"name": "AUTOMATION-SP", "objectid": "AZSP-1"}),
    "sp_graph": (("AZBase", "AZServicePrincipal"), {"name": "MICROSOFT GRAPH", "objectid": "AZSP-2"}),
    "app_auto": (("AZBase", "AZApp"), {"name": "AUTOMATION-APP", "objectid": "AZAPP-1"}),
    "sub": (("AZBase", "AZSubscription"), {"name": "PROD-SUB", "objectid": "AZSUB-1"}),
    "rg": (("AZBase", "AZResourceGroup"), {"name": "PROD-RG", "objectid": "AZRG-1"}),
    "vm": (("AZBase", "AZVM"), {"name": "VM01", "objectid": "AZVM-1"}),
    "kv": (("AZBase", "AZKeyVault"), {"name": "KV01", "objectid": "AZKV-1"}),
}
for _key, (_kinds, _props) in NODES.items():
    _props.setdefault("name", f"{_key.upper()}@LAB.LOCAL")
    if "User" in _kinds or "Group" in _kinds or "Computer" in _kinds:
        child = _key in ("cdu", "bob_child")
        _props.setdefault("domainsid", "S-1-5-21-2" if child else "S-1-5-21-1")
        _props.setdefault("domain", "CHILD.LAB.LOCAL" if child else "LAB.LOCAL")

EDGES: list[tuple[str, str, str]] = [
    ("alice", "MemberOf", "it"), ("it", "MemberOf", "da"), ("da", "MemberOf", "adms"), ("ea", "MemberOf", "adms"),
    ("erin", "MemberOf", "da"), ("erin", "MemberOf", "pu"), ("bob", "MemberOf", "hd"), ("hd", "MemberOf", "cdu"),
    ("dave", "MemberOf", "cdu"), ("bob", "MemberOf", "gmsar"), ("gmsar", "ReadGMSAPassword", "gmsa01$"),
    *[(u, "MemberOf", "du") for u in ("alice", "bob", "carol", "dave", "svc_sql")],
    ("ws02", "MemberOf", "dcomp"), ("dcomp", "AdminTo", "ws01"), ("ws01", "AdminTo", "srv01"),
    ("dc01", "MemberOf", "dcs"), ("dc01", "DCFor", "lab"),
    ("du", "AdminTo", "ws01"), ("du", "GenericAll", "ws01"), ("du", "CanRDP", "ws02"), ("du", "CanRDP", "srv01"),
    ("du", "ReadLAPSPassword", "ws02"), ("du", "ExecuteDCOM", "srv01"),
    ("hd", "AdminTo", "ws02"), ("hd", "AdminTo", "srv01"), ("hd", "GenericWrite", "gpo2"),
    ("hd", "ForceChangePassword", "carol"), ("hd", "ManageCA", "eca"), ("carol", "ManageCertificates", "eca"),
    ("ws01", "HasSession", "alice"), ("dc01", "HasSession", "erin"), ("ws02", "HasSession", "bob"),
    ("srv01", "HasSession", "svc_sql"),
    ("da", "DCSync", "lab"), ("ea", "AllExtendedRights", "lab"), ("carol", "GenericAll", "lab"),
    ("dcs", "GetChanges", "lab"), ("dcs", "GetChangesAll", "lab"), ("dave", "GetChanges", "lab"),
    ("lab", "Contains", "ou_ws"), ("lab", "Contains", "ou_t0"), ("lab", "Contains", "conf"),
    ("conf", "Contains", "pks"), ("ou_t0", "Contains", "alice"), ("ou_t0", "Contains", "dc01"),
    ("ou_ws", "Contains", "ws01"), ("ou_ws", "Contains", "ws02"), ("ou_ws", "Contains", "bob"),
    ("ou_ws", "Contains", "dave"),
    ("pks", "Contains", "eca"), ("pks", "Contains", "t_esc1"), ("pks", "Contains", "nta"), ("pks", "Contains", "rca"),
    ("gpo1", "GPLink", "lab"), ("gpo2", "GPLink", "ou_ws"),
    ("lab", "SameForestTrust", "child"), ("child", "SameForestTrust", "lab"),
    ("svc_sql", "AllowedToDelegate", "dc01"), ("bob", "AllowedToAct", "ws02"), ("alice", "AllowedToAct", "dc01"),
    ("bob", "AddKeyCredentialLink", "alice"),
    ("ca01", "HostsCAService", "eca"), ("eca", "IssuedSignedBy", "rca"), ("rca", "RootCAFor", "lab"),
    ("eca", "EnterpriseCAFor", "rca"), ("eca", "TrustedForNTAuth", "nta"), ("nta", "NTAuthStoreFor", "lab"),
    ("t_esc1", "PublishedTo", "eca"), ("t_agent", "PublishedTo", "eca"), ("t_noext", "PublishedTo", "eca"),
    ("du", "Enroll", "t_esc1"), ("hd", "GenericAll", "t_agent"), ("bob", "AllExtendedRights", "t_noext"),
    ("du", "Enroll", "t_unpub"),
    ("az_admin", "AZHasRole", "r_ga"), ("az_admin", "AZGlobalAdmin", "tenant"), ("az_help", "AZHasRole", "r_hd"),
    ("az_dev", "AZMemberOf", "az_ops"), ("az_ops", "AZHasRole", "r_hd"), ("az_guest", "AZHasRole", "r_read"),
    ("az_ops", "AZContributor", "rg"), ("rg", "AZContains", "vm"), ("rg", "AZContains", "kv"),
    ("sub", "AZContains", "rg"), ("app_auto", "AZRunsAs", "sp_auto"), ("sp_auto", "AZMGGrantAppRoles", "tenant"),
    ("sp_auto", "AZMGAppRoleAssignment_ReadWrite_All", "sp_graph"), ("az_guest", "AZUserAccessAdministrator", "sub"),
    ("az_help", "AZResetPassword", "az_admin"),
]


class Model:
    """The graph above as Python data, with the few graph walks the questions need."""

    def __init__(self) -> None:
        self.kinds = {key: set(kinds) for key, (kinds, _) in NODES.items()}
        self.props = {key: props for key, (_, props) in NODES.items()}
        self.edges = list(EDGES)

    def name(self, key: str) -> str:
        return str(self.props[key]["name"])

    def of(self, kind: str) -> list[str]:
        return [k for k, kinds in self.kinds.items() if kind in kinds]

    def p(self, key: str, prop: str) -> Any:
        return self.props[key].get(prop)

    def tier_zero(self, key: str) -> bool:
        return "Tag_Tier_Zero" in self.kinds[key]

    def tagged(self, key: str) -> bool:
        return self.p(key, "system_tags") == "admin_tier_0"

    def rid(self, key: str, suffix: str) -> bool:
        return str(self.p(key, "objectid")).endswith(suffix)

    def out(self, key: str, kinds: Iterable[str]) -> list[str]:
        wanted = set(kinds)
        return [e for s, k, e in self.edges if s == key and k in wanted]

    def inward(self, key: str, kinds: Iterable[str]) -> list[str]:
        wanted = set(kinds)
        return [s for s, k, e in self.edges if e == key and k in wanted]

    def pairs(self, kinds: Iterable[str]) -> list[tuple[str, str]]:
        wanted = set(kinds)
        return [(s, e) for s, k, e in self.edges if k in wanted]

    def trails(self, start: str, kinds: Iterable[str], low: int = 1, high: int | None = None,
               reverse: bool = False) -> Iterator[list[str]]:
        """Every walk from `start` along `kinds` using no edge twice (Cypher's rule), as node lists."""
        wanted = set(kinds)
        indexed = [(i, s, e) for i, (s, k, e) in enumerate(self.edges) if k in wanted]

        def walk(path: list[str], used: frozenset[int]) -> Iterator[list[str]]:
            depth = len(path) - 1
            if depth >= low:
                yield path
            if high is not None and depth >= high:
                return
            for i, s, e in indexed:
                here, there = (e, s) if reverse else (s, e)
                if here == path[-1] and i not in used:
                    yield from walk([*path, there], used | {i})

        yield from walk([start], frozenset())

    def reach(self, start: str, kinds: Iterable[str], low: int = 1) -> set[str]:
        return {path[-1] for path in self.trails(start, kinds, low)}

    def distances(self, start: str, kinds: Iterable[str]) -> dict[str, int]:
        """Breadth-first hop counts from `start` (itself excluded unless it lies on a cycle: never 0)."""
        wanted = set(kinds)
        seen: dict[str, int] = {}
        queue = deque([(start, 0)])
        while queue:
            node, depth = queue.popleft()
            for s, k, e in self.edges:
                if s == node and k in wanted and e not in seen and e != start:
                    seen[e] = depth + 1
                    queue.append((e, depth + 1))
        return seen

    def shortest(self, sources: Iterable[str], targets: Iterable[str], kinds: Iterable[str],
                 ) -> set[tuple[str, str, int]]:
        """(source name, target name, length) of every connected pair, as shortestPath returns them."""
        kinds = list(kinds)
        target_set = set(targets)
        return {(self.name(s), self.name(t), d) for s in sources for t, d in self.distances(s, kinds).items()
                if t in target_set and t != s}
