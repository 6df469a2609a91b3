"""The finding types: what each one means, why it matters and how to fix it, in our own words.

Three families. *Tier Zero attack paths*: one type per edge kind that leads from a principal outside
Tier Zero into it (a choke point: cut the edge and every path through it is gone). *Large default
groups*: Everyone, Authenticated Users, Domain Users, Domain Computers and BUILTIN\\Users hold a right
into Tier Zero, a path into it, or access to computers. *Configuration*: settings that make Tier
Zero easier to take (roastable accounts, unconstrained delegation, LAPS, LDAP signing, vulnerable
certificate templates and authorities).

Names follow BloodHound Enterprise where it has the type (`T0GenericAll`, `NonT0DCSyncers`,
`T0Logins`, `LargeDefaultGroupsAdmins`, `Kerberoasting`, ...), so existing integrations keep working.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from houndgraph.graph.kinds import ADEdge, AZEdge

EDGE_DOCS = "https://bloodhound.specterops.io/resources/edges/"


class Family(StrEnum):
    TIER_ZERO = "Tier Zero attack paths"
    LARGE_DEFAULT_GROUPS = "Least privilege"
    CONFIGURATION = "Configuration"


class Shape(StrEnum):
    # A principal, a Tier Zero (or other) target and the edge between them.
    RELATIONSHIP = "relationship"
    # A principal only.
    LIST = "list"


class Impact(StrEnum):
    # The enabled principals outside Tier Zero that can reach the finding's principal.
    REACH = "reach"
    # Every enabled principal of the environment (anyone can, e.g. request a roastable ticket).
    EVERYONE = "everyone"


class Platform(StrEnum):
    AD = "ad"
    AZURE = "azure"


@dataclass(frozen=True, slots=True)
class FindingType:
    name: str
    title: str
    family: Family
    shape: Shape
    platform: Platform
    what: str
    why: str
    remediation: str
    references: tuple[str, ...]
    impact: Impact = Impact.REACH
    edge_kind: str | None = None


@dataclass(frozen=True, slots=True)
class _Edge:
    kind: str
    suffix: str
    abuse: str
    remediation: str


_ACL_FIX = "Remove the access control entry from the Tier Zero object (or from the container it inherits from)."
_SESSION_FIX = ("Tier Zero accounts should log on only to Tier Zero computers: restrict their logon rights with "
                "authentication policies, Protected Users or a deny-logon GPO on every other computer.")

# Edge kinds that hand control of their end to their start, with what an attacker does with each.
_AD_EDGES = (
    _Edge(ADEdge.GenericAll, "GenericAll", "Full control: reset the password, add members, write any attribute.",
          _ACL_FIX),
    _Edge(ADEdge.GenericWrite, "GenericWrite", "Write any non-protected attribute: an SPN to roast, a logon "
          "script, a shadow credential.", _ACL_FIX),
    _Edge(ADEdge.WriteDacl, "WriteDACL", "Rewrite the object's permissions and grant itself full control.", _ACL_FIX),
    _Edge(ADEdge.WriteOwner, "WriteOwner", "Take ownership, then rewrite the permissions.", _ACL_FIX),
    _Edge(ADEdge.Owns, "Owns", "The owner may always rewrite the object's permissions.",
          "Make a Tier Zero group (Domain Admins) the owner of the object."),
    _Edge(ADEdge.AddMember, "AddMember", "Add any principal, itself included, to a Tier Zero group.", _ACL_FIX),
    _Edge(ADEdge.AddSelf, "AddSelf", "Add itself to a Tier Zero group.", _ACL_FIX),
    _Edge(ADEdge.ForceChangePassword, "ForceChangePassword", "Set a new password without knowing the old one.",
          _ACL_FIX),
    _Edge(ADEdge.AddKeyCredentialLink, "AddKeyCredentialLink", "Write a shadow credential and authenticate as the "
          "target with a certificate.", _ACL_FIX),
    _Edge(ADEdge.AllExtendedRights, "AllExtendedRights", "Every extended right: force a password change, read "
          "LAPS passwords, replicate secrets on a domain.", _ACL_FIX),
    _Edge(ADEdge.DCSync, "DCSync", "Replicate every password hash of the domain, krbtgt included.",
          "Remove the replication rights (DS-Replication-Get-Changes and -All) from the domain object."),
    _Edge(ADEdge.GetChangesAll, "GetChangesAll", "Half of DCSync: with Get-Changes (often held through another "
          "group) it replicates every secret.", "Remove DS-Replication-Get-Changes-All from the domain object."),
    _Edge(ADEdge.AdminTo, "Admins", "Local administrator on a Tier Zero computer: dump its credentials and "
          "its machine account.", "Remove the principal from the computer's Administrators group (or the GPO "
          "that puts it there)."),
    _Edge(ADEdge.CanRDP, "RDP", "Interactive logon to a Tier Zero computer, one local privilege escalation "
          "from owning it.", "Remove the principal from Remote Desktop Users on the computer."),
    _Edge(ADEdge.ExecuteDCOM, "DCOM", "Run code through DCOM on a Tier Zero computer.",
          "Remove the principal from Distributed COM Users on the computer."),
    _Edge(ADEdge.CanPSRemote, "PSRemote", "Run PowerShell remotely on a Tier Zero computer.",
          "Remove the principal from Remote Management Users on the computer."),
    _Edge(ADEdge.SQLAdmin, "SQLAdmin", "Administer a SQL Server instance running on a Tier Zero computer.",
          "Remove the principal's sysadmin role on the instance."),
    _Edge(ADEdge.HasSession, "Logins", "A Tier Zero account is logged on to a computer outside Tier Zero: whoever "
          "owns that computer can take the account's credentials.", _SESSION_FIX),
    _Edge(ADEdge.AllowedToDelegate, "AllowedToDelegate", "Constrained delegation to a Tier Zero service: "
          "impersonate any user, a domain admin included, to it.",
          "Remove the Tier Zero SPN from msDS-AllowedToDelegateTo, or move the account into Tier Zero."),
    _Edge(ADEdge.AllowedToAct, "AllowedToAct", "Resource-based constrained delegation: impersonate any user to "
          "the Tier Zero computer.", "Clear msDS-AllowedToActOnBehalfOfOtherIdentity on the computer."),
    _Edge(ADEdge.AddAllowedToAct, "AddAllowedToAct", "Configure resource-based constrained delegation on a Tier "
          "Zero computer, then impersonate anyone to it.", _ACL_FIX),
    _Edge(ADEdge.WriteAccountRestrictions, "WriteAccountRestrictions", "Write the account-restrictions property "
          "set, which includes resource-based delegation.", _ACL_FIX),
    _Edge(ADEdge.WriteSPN, "WriteSPN", "Set an SPN on a Tier Zero user and roast it.", _ACL_FIX),
    _Edge(ADEdge.WriteGPLink, "WriteGPLink", "Link a GPO of its choosing to a Tier Zero container.", _ACL_FIX),
    _Edge(ADEdge.SyncLAPSPassword, "SyncLAPSPassword", "Read every LAPS password of the domain by replication.",
          "Remove DS-Replication-Get-Changes-In-Filtered-Set and -All from the domain object."),
    _Edge(ADEdge.ReadLAPSPassword, "ReadLAPS", "Read the local administrator password of a Tier Zero computer.",
          "Remove the read permission on ms-Mcs-AdmPwd / msLAPS-Password, or delegate it only within Tier Zero."),
    _Edge(ADEdge.ReadGMSAPassword, "ReadGMSA", "Read the password of a Tier Zero group-managed service account.",
          "Limit PrincipalsAllowedToRetrieveManagedPassword to Tier Zero computers."),
    _Edge(ADEdge.DumpSMSAPassword, "DumpSMSA", "A computer holding a Tier Zero standalone managed service account "
          "hands its password to the computer's administrators.", "Host the account on a Tier Zero computer."),
    _Edge(ADEdge.HasSIDHistory, "HasSIDHistory", "Carries a Tier Zero SID in its SID history and is treated as "
          "that principal.", "Clear the sIDHistory attribute."),
    _Edge(ADEdge.CoerceToTGT, "CoerceToTGT", "Unconstrained delegation: coerce a domain controller to "
          "authenticate and catch its ticket.", "Remove unconstrained delegation from the computer."),
    _Edge(ADEdge.GoldenCert, "GoldenCert", "Hosts an enterprise CA: with its private key it forges a certificate "
          "for any user of the domain.", "Treat every CA host as Tier Zero, or move the CA to a Tier Zero host."),
    _Edge(ADEdge.ADCSESC1, "ADCSESC1", "Enrolls on a template that lets it name any subject, a domain admin "
          "included.", "Require manager approval or remove 'supply in request' from the template; restrict "
          "enrollment to those who need it."),
    _Edge(ADEdge.ADCSESC3, "ADCSESC3", "Enrolls as an enrollment agent and requests certificates on behalf of "
          "any user.", "Restrict enrollment agents on the CA and enrollment on the agent template."),
    _Edge(ADEdge.ADCSESC4, "ADCSESC4", "Controls a certificate template and can make it vulnerable to ESC1.",
          "Remove write permissions on the template from principals outside Tier Zero."),
    _Edge(ADEdge.ADCSESC6a, "ADCSESC6a", "The CA accepts a subject alternative name from any request "
          "(EDITF_ATTRIBUTESUBJECTALTNAME2) and the template has no security extension.",
          "Clear EDITF_ATTRIBUTESUBJECTALTNAME2 on the CA."),
    _Edge(ADEdge.ADCSESC6b, "ADCSESC6b", "The CA accepts a subject alternative name from any request and "
          "domain controllers map certificates weakly.", "Clear EDITF_ATTRIBUTESUBJECTALTNAME2 on the CA and "
          "enforce strong certificate binding."),
    _Edge(ADEdge.ADCSESC9a, "ADCSESC9a", "Rewrites a victim's UPN and enrolls on a template without the security "
          "extension.", "Enforce strong certificate binding on every DC; remove write access to the victim."),
    _Edge(ADEdge.ADCSESC9b, "ADCSESC9b", "Rewrites a victim computer's DNS name and enrolls on a template without "
          "the security extension.", "Enforce strong certificate binding; remove write access to the victim."),
    _Edge(ADEdge.ADCSESC10a, "ADCSESC10a", "Rewrites a victim's UPN while DCs map certificates weakly by UPN.",
          "Set StrongCertificateBindingEnforcement to 2 on every DC."),
    _Edge(ADEdge.ADCSESC10b, "ADCSESC10b", "Rewrites a victim computer's DNS name while Schannel maps certificates "
          "by UPN.", "Remove the UPN bit from CertificateMappingMethods on every DC."),
    _Edge(ADEdge.ADCSESC13, "ADCSESC13", "Enrolls on a template whose issuance policy is linked to a Tier Zero "
          "group.", "Unlink the issuance policy from the group, or restrict enrollment."),
    _Edge(ADEdge.CoerceAndRelayNTLMToSMB, "CoerceAndRelayNTLMToSMB", "Coerces a computer to authenticate and "
          "relays it to a Tier Zero computer without SMB signing.", "Require SMB signing on every computer."),
    _Edge(ADEdge.CoerceAndRelayNTLMToADCS, "CoerceAndRelayNTLMToADCS", "Coerces a computer to authenticate and "
          "relays it to a web enrollment endpoint for a certificate.", "Require HTTPS with EPA on web enrollment "
          "or disable it."),
    _Edge(ADEdge.CoerceAndRelayNTLMToLDAP, "CoerceAndRelayNTLMToLDAP", "Coerces a computer to authenticate and "
          "relays it to LDAP on a DC that does not require signing.", "Require LDAP signing on every DC."),
    _Edge(ADEdge.CoerceAndRelayNTLMToLDAPS, "CoerceAndRelayNTLMToLDAPS", "Coerces a computer to authenticate and "
          "relays it to LDAPS on a DC without channel binding.", "Require LDAPS channel binding on every DC."),
)
_AZ_FIX = "Remove the role assignment, ownership or app role from the principal outside Tier Zero."
_AZURE_EDGES = tuple(
    _Edge(kind, kind.value, abuse, _AZ_FIX) for kind, abuse in (
        (AZEdge.PrivilegedAuthAdmin, "Privileged Authentication Administrator: reset the credentials of any "
         "user, a Global Administrator included."),
        (AZEdge.PrivilegedRoleAdmin, "Privileged Role Administrator: grant itself Global Administrator."),
        (AZEdge.GlobalAdmin, "Global Administrator of the tenant."),
        (AZEdge.ResetPassword, "Reset the password of a Tier Zero user."),
        (AZEdge.AddSecret, "Add a secret to a Tier Zero application or service principal and sign in as it."),
        (AZEdge.MGAddSecret, "Add a secret to a Tier Zero service principal through Microsoft Graph."),
        (AZEdge.AddOwner, "Make itself owner of a Tier Zero object."),
        (AZEdge.MGAddOwner, "Make itself owner of a Tier Zero object through Microsoft Graph."),
        (AZEdge.Owns, "Owns a Tier Zero object: add a secret or members."),
        (AZEdge.AddMembers, "Add members to a Tier Zero group."),
        (AZEdge.MGAddMember, "Add members to a Tier Zero group through Microsoft Graph."),
        (AZEdge.MGGrantRole, "Grant any directory role, Global Administrator included."),
        (AZEdge.MGGrantAppRoles, "Grant any Microsoft Graph app role, then any directory role."),
        (AZEdge.ExecuteCommand, "Run commands on a Tier Zero device."),
        (AZEdge.RoleManagementReadWriteDirectory, "The RoleManagement.ReadWrite.Directory app role: grant any "
         "directory role."),
        (AZEdge.AppRoleAssignmentReadWriteAll, "The AppRoleAssignment.ReadWrite.All app role: grant itself any "
         "app role."),
        (AZEdge.DirectoryReadWriteAll, "The Directory.ReadWrite.All app role: change most directory objects."),
        (AZEdge.ApplicationReadWriteAll, "The Application.ReadWrite.All app role: add secrets to any application."),
        (AZEdge.ServicePrincipalEndpointReadWriteAll, "Rewrite the endpoints of a Tier Zero service principal."),
        (AZEdge.GroupReadWriteAll, "The Group.ReadWrite.All app role: add members to any group."),
        (AZEdge.GroupMemberReadWriteAll, "The GroupMember.ReadWrite.All app role: add members to any group."),
        (AZEdge.UserAccessAdministrator, "User Access Administrator: grant itself any Azure role."),
        (AZEdge.Owner, "Owner of a Tier Zero Azure resource."),
        (AZEdge.Contributor, "Contributor on a Tier Zero Azure resource."),
    )
)

# Rights of a large default group over computers are findings on any computer, not only Tier Zero ones.
COMPUTER_ACCESS_EDGES: frozenset[str] = frozenset(
    {ADEdge.AdminTo, ADEdge.CanRDP, ADEdge.ExecuteDCOM, ADEdge.CanPSRemote, ADEdge.SQLAdmin})
# Large default groups hold no sessions and hold no SID history worth a finding.
_NOT_FOR_GROUPS = frozenset({ADEdge.HasSession, ADEdge.HasSIDHistory, ADEdge.DumpSMSAPassword, ADEdge.CoerceToTGT})

_T0_WHY = ("Whoever controls this principal controls Tier Zero, and with it the whole environment. The impact is "
           "the share of enabled principals outside Tier Zero that can reach it: that many accounts are one "
           "compromise away from the domain, and removing this edge takes the path away from all of them.")
_LDG_WHY = ("Every user (or computer) of the environment is a member of this group, so the right is held by "
            "everyone: any phished account or compromised workstation can use it.")
_LDG_FIX = ("Remove the group from the permission or local group and grant it to a dedicated group holding only "
            "the accounts that need it.")


def _doc(kind: str) -> str:
    return EDGE_DOCS + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", kind.removeprefix("AZMG").removeprefix("AZ")).lower()


def _tier_zero_name(edge: _Edge) -> str:
    if edge.kind == ADEdge.DCSync:
        return "NonT0DCSyncers"
    return "T0" + edge.suffix


def _build() -> dict[str, FindingType]:
    types: list[FindingType] = []
    for platform, edges in ((Platform.AD, _AD_EDGES), (Platform.AZURE, _AZURE_EDGES)):
        for edge in edges:
            types.append(FindingType(
                name=_tier_zero_name(edge), title=f"{edge.kind} into Tier Zero from outside it",
                family=Family.TIER_ZERO, shape=Shape.RELATIONSHIP, platform=platform, edge_kind=edge.kind,
                what=f"A principal outside Tier Zero has {edge.kind} to a Tier Zero object. {edge.abuse}",
                why=_T0_WHY, remediation=edge.remediation, references=(_doc(edge.kind),),
            ))
    for edge in _AD_EDGES:
        if edge.kind in _NOT_FOR_GROUPS:
            continue
        scope = "a computer" if edge.kind in COMPUTER_ACCESS_EDGES else "a Tier Zero object"
        types.append(FindingType(
            name="LargeDefaultGroups" + edge.suffix, title=f"Large default group with {edge.kind} to {scope}",
            family=Family.LARGE_DEFAULT_GROUPS, shape=Shape.RELATIONSHIP, platform=Platform.AD,
            edge_kind=edge.kind, what=f"A group that holds every user or computer has {edge.kind} to {scope}. "
            f"{edge.abuse}", why=_LDG_WHY, remediation=_LDG_FIX, references=(_doc(edge.kind),),
        ))
    types.extend(_CONFIGURATION)
    return {finding.name: finding for finding in types}


def _config(name: str, title: str, what: str, why: str, remediation: str, *references: str,
            impact: Impact = Impact.REACH, family: Family = Family.CONFIGURATION) -> FindingType:
    return FindingType(name=name, title=title, family=family, shape=Shape.LIST, platform=Platform.AD, what=what,
                       why=why, remediation=remediation, references=references, impact=impact)


_ADCS = "https://posts.specterops.io/certified-pre-owned-d95910965cd2"
_CONFIGURATION = (
    _config("LargeDefaultGroupsPathToTierZero", "Large default group with a path into Tier Zero",
            "A group that holds every user or computer of the environment has an attack path into Tier Zero.",
            _LDG_WHY + " Here the path ends in Tier Zero: every account can take the domain.",
            "Follow the path from the group and cut its first edge that the group should not hold.",
            EDGE_DOCS + "member-of", family=Family.LARGE_DEFAULT_GROUPS, impact=Impact.EVERYONE),
    _config("Kerberoasting", "Kerberoastable Tier Zero users",
            "An enabled Tier Zero user has a service principal name.",
            "Any domain user can request a service ticket for it and crack the password offline; a Tier Zero "
            "password cracked is the domain lost.",
            "Remove the SPN, or run the service under a group-managed service account; otherwise give the "
            "account a long random password and AES-only encryption.",
            "https://attack.mitre.org/techniques/T1558/003/", impact=Impact.EVERYONE),
    _config("ASREPRoasting", "AS-REP roastable Tier Zero users",
            "An enabled Tier Zero user does not require Kerberos pre-authentication.",
            "Anyone who can reach a domain controller can ask for material encrypted with the user's password "
            "and crack it offline.", "Turn Kerberos pre-authentication back on for the account.",
            "https://attack.mitre.org/techniques/T1558/004/", impact=Impact.EVERYONE),
    _config("T0PasswordNeverExpires", "Tier Zero users whose password never expires",
            "An enabled Tier Zero user has 'password never expires' set.",
            "A Tier Zero password that is never changed stays valid for whoever once learned it (an old "
            "backup, a former administrator, a cracked hash).",
            "Clear the flag and rotate the password, or use a group-managed service account for services.",
            "https://learn.microsoft.com/windows/security/threat-protection/security-policy-settings/"
            "maximum-password-age"),
    _config("NonDCUnconstrainedDelegation", "Unconstrained delegation outside domain controllers",
            "An enabled computer or user that is not a domain controller is trusted for unconstrained delegation.",
            "Every account that authenticates to it leaves a forwardable ticket behind; coercing a domain "
            "controller to authenticate hands the attacker the DC's ticket and a DCSync.",
            "Switch to constrained or resource-based constrained delegation, and mark Tier Zero accounts as "
            "sensitive.", EDGE_DOCS + "coerce-to-tgt"),
    _config("ComputersWithoutLAPS", "Computers without LAPS",
            "An enabled computer that is not a domain controller does not have its local administrator password "
            "managed by LAPS.",
            "Local administrator passwords that are set once by an image are usually the same everywhere: one "
            "compromised computer opens all of them.", "Deploy Windows LAPS to the computer.",
            "https://learn.microsoft.com/windows-server/identity/laps/laps-overview"),
    _config("DCLDAPSigningDisabled", "Domain controllers that do not require LDAP signing",
            "A domain controller accepts unsigned LDAP binds.",
            "NTLM authentication coerced from any computer can be relayed to LDAP on it to change the directory "
            "(resource-based delegation, shadow credentials).",
            "Set 'Domain controller: LDAP server signing requirements' to Require signing.",
            EDGE_DOCS + "coerce-and-relay-ntlm-to-ldap"),
    _config("DCLDAPSChannelBindingDisabled", "Domain controllers without LDAPS channel binding",
            "A domain controller serves LDAPS without requiring channel binding (EPA).",
            "NTLM authentication coerced from any computer can be relayed to LDAPS on it.",
            "Set 'Domain controller: LDAP server channel binding token requirements' to Always.",
            EDGE_DOCS + "coerce-and-relay-ntlm-to-ldaps"),
    _config("ESC1CertTemplate", "Certificate templates open to ESC1",
            "A published template enables client authentication, lets the enrollee supply the subject and needs "
            "neither manager approval nor an authorized signature.",
            "Whoever may enroll can request a certificate as any user, a domain admin included.",
            "Clear 'Supply in the request', or require manager approval; restrict enrollment.", _ADCS),
    _config("ESC2CertTemplate", "Certificate templates open to ESC2",
            "A published template has no extended key usage or the Any Purpose one, and needs neither manager "
            "approval nor an authorized signature.",
            "Its certificates can be used for anything, including as an enrollment agent or for client "
            "authentication.", "Set explicit extended key usages on the template, or unpublish it.", _ADCS),
    _config("ESC3CertTemplate", "Enrollment agent certificate templates (ESC3)",
            "A published template issues Certificate Request Agent certificates without manager approval.",
            "An enrollment agent can request certificates on behalf of any user.",
            "Require manager approval, restrict enrollment, and set enrollment agent restrictions on the CA.",
            _ADCS),
    _config("ESC9CertTemplate", "Certificate templates without the security extension (ESC9)",
            "A published authentication template sets CT_FLAG_NO_SECURITY_EXTENSION.",
            "Its certificates do not carry the requester's SID, so weak certificate mapping lets a victim's "
            "renamed UPN impersonate another account.",
            "Clear the flag and enforce strong certificate binding on every DC.",
            "https://research.ifcr.dk/certipy-4-0-esc9-esc10-bloodhound-gui-new-authentication-and-request-methods"
            "-and-more-7237d88061f7"),
    _config("ESC15CertTemplate", "Schema version 1 templates that take a subject from the request (ESC15)",
            "A published schema version 1 template lets the enrollee supply the subject without manager approval.",
            "Version 1 templates accept application policies from the request, so an enrollee can add client "
            "authentication and name any subject.",
            "Duplicate the template as schema version 2 or later and unpublish the original.",
            "https://trustedsec.com/blog/ekuwu-not-just-another-ad-cs-esc"),
    _config("ESC6CertAuthority", "Certificate authorities that accept any subject alternative name (ESC6)",
            "An enterprise CA has EDITF_ATTRIBUTESUBJECTALTNAME2 set.",
            "Any request, on any template, can name another user as the subject alternative name.",
            "Clear EDITF_ATTRIBUTESUBJECTALTNAME2 (certutil -setreg policy\\EditFlags "
            "-EDITF_ATTRIBUTESUBJECTALTNAME2) and restart the CA.", _ADCS),
    _config("ESC8CertAuthority", "Certificate authorities with a relayable web enrollment endpoint (ESC8)",
            "An enterprise CA serves web enrollment over HTTP, or over HTTPS without EPA, with NTLM.",
            "NTLM authentication coerced from a domain controller can be relayed to it for a DC certificate.",
            "Disable web enrollment or require HTTPS with Extended Protection for Authentication.", _ADCS),
)

FINDING_TYPES: dict[str, FindingType] = _build()
TIER_ZERO_TYPE_BY_EDGE: dict[str, FindingType] = {
    finding.edge_kind: finding for finding in FINDING_TYPES.values()
    if finding.family is Family.TIER_ZERO and finding.edge_kind}
LARGE_DEFAULT_GROUP_TYPE_BY_EDGE: dict[str, FindingType] = {
    finding.edge_kind: finding for finding in FINDING_TYPES.values()
    if finding.family is Family.LARGE_DEFAULT_GROUPS and finding.edge_kind}


def severity(share: float) -> str:
    """BloodHound Enterprise's bands for a share (0-1) of exposed principals."""
    if share >= 0.95:
        return "critical"
    if share >= 0.80:
        return "high"
    if share >= 0.40:
        return "moderate"
    return "low"
