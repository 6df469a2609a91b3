// What each edge kind means, in our own words: how an attacker uses it, how a defender sees it, how to fix it.

export interface EdgeHelp {
  summary: string;
  abuse: string;
  detect: string;
  remediate: string;
  references: string[];
}

const ACL_DETECT = "Directory change auditing (event 5136) and DACL reads from unusual hosts show this being used.";
const ACL_FIX = "Remove the access control entry from the target's security descriptor, or take the principal out of the group that holds it.";
const MS_ACL = "https://learn.microsoft.com/en-us/windows/win32/secauthz/access-control-lists";
const ADCS_REF = "https://specterops.io/wp-content/uploads/sites/3/2022/06/Certified_Pre-Owned.pdf";
const AZ_ROLES = "https://learn.microsoft.com/en-us/entra/identity/role-based-access-control/permissions-reference";

function acl(summary: string, abuse: string): EdgeHelp {
  return { summary, abuse, detect: ACL_DETECT, remediate: ACL_FIX, references: [MS_ACL] };
}

function esc(summary: string, abuse: string, remediate: string): EdgeHelp {
  return {
    summary, abuse,
    detect: "Certificate requests whose subject differs from the requester (CA event 4886/4887) and logons with certificates (event 4768 with certificate fields).",
    remediate, references: [ADCS_REF],
  };
}

export const EDGE_HELP: Record<string, EdgeHelp> = {
  MemberOf: {
    summary: "The source is a member of the target group and holds every right the group holds.",
    abuse: "Nothing to do: act as the group member; the group's rights come with the logon token.",
    detect: "Nothing to detect in itself; changes to sensitive group memberships raise event 4728/4732/4756.",
    remediate: "Take the principal out of the group if it does not need the group's rights.",
    references: ["https://learn.microsoft.com/en-us/windows-server/identity/ad-ds/manage/understand-security-groups"],
  },
  AdminTo: {
    summary: "The source is a local administrator of the target computer.",
    abuse: "Run code on the computer remotely (services, scheduled tasks, WMI), dump credentials of logged-on users.",
    detect: "Remote service creation (7045), network logons (4624 type 3) by unusual admins, EDR process trees.",
    remediate: "Remove the principal from the local Administrators group; use LAPS and tiered admin accounts.",
    references: ["https://learn.microsoft.com/en-us/windows-server/identity/laps/laps-overview"],
  },
  HasSession: {
    summary: "The target user was logged on to the source computer when the data was collected.",
    abuse: "Whoever controls the computer can take the user's credentials or tokens from memory.",
    detect: "Credential access on the host: LSASS reads, token theft (EDR).",
    remediate: "Keep privileged users off lower-tier computers; enable Credential Guard and Protected Users.",
    references: ["https://learn.microsoft.com/en-us/windows-server/identity/securing-privileged-access/securing-privileged-access-reference-material"],
  },
  CanRDP: {
    summary: "The source may log on to the target computer through Remote Desktop.",
    abuse: "Open an interactive session, then look for credentials or escalate locally.",
    detect: "Remote interactive logons (4624 type 10).",
    remediate: "Remove the principal from Remote Desktop Users or the matching user right.",
    references: ["https://learn.microsoft.com/en-us/windows/security/threat-protection/security-policy-settings/allow-log-on-through-remote-desktop-services"],
  },
  CanPSRemote: {
    summary: "The source may open a PowerShell remoting (WinRM) session on the target computer.",
    abuse: "Run commands remotely with the source's rights.",
    detect: "WinRM logons and PowerShell script block logging (4104).",
    remediate: "Remove the principal from Remote Management Users.",
    references: ["https://learn.microsoft.com/en-us/powershell/scripting/learn/remoting/winrmsecurity"],
  },
  ExecuteDCOM: {
    summary: "The source may start DCOM objects on the target computer.",
    abuse: "Launch commands through DCOM applications such as MMC20.Application.",
    detect: "Processes started by DCOM launch services with network logons.",
    remediate: "Remove the principal from Distributed COM Users.",
    references: ["https://learn.microsoft.com/en-us/windows/win32/com/dcom-security-enhancements"],
  },
  SQLAdmin: {
    summary: "The source is a sysadmin of a SQL Server instance on the target computer.",
    abuse: "Run operating system commands through the database engine (for example xp_cmdshell).",
    detect: "SQL Server audit of configuration changes and command execution.",
    remediate: "Remove the login from the sysadmin role.",
    references: ["https://learn.microsoft.com/en-us/sql/relational-databases/security/authentication-access/server-level-roles"],
  },
  AllowedToDelegate: {
    summary: "The source is trusted for constrained delegation to a service on the target.",
    abuse: "With the source's credentials, ask for service tickets to the target as any user (S4U2Self/S4U2Proxy).",
    detect: "Kerberos service ticket requests with S4U (event 4769 with transited services).",
    remediate: "Clear msDS-AllowedToDelegateTo or mark sensitive accounts as not delegable.",
    references: ["https://learn.microsoft.com/en-us/windows-server/security/kerberos/kerberos-constrained-delegation-overview"],
  },
  AllowedToAct: {
    summary: "The source may act on behalf of other users against the target (resource-based constrained delegation).",
    abuse: "Ask for a service ticket to the target as an administrator and use it.",
    detect: "Changes to msDS-AllowedToActOnBehalfOfOtherIdentity (5136) and S4U ticket requests.",
    remediate: "Clear the attribute on the target computer.",
    references: ["https://learn.microsoft.com/en-us/windows-server/security/kerberos/kerberos-constrained-delegation-overview"],
  },
  AddAllowedToAct: acl("The source may write the target's resource-based delegation attribute.",
    "Add a computer the attacker controls, then impersonate users to the target."),
  GenericAll: acl("The source has full control over the target object.",
    "Reset the password, add members, write a shadow credential or a delegation setting: whatever fits the target."),
  GenericWrite: acl("The source may write most attributes of the target.",
    "Set a script path or SPN on a user, a delegation attribute on a computer, a member on a group."),
  WriteDacl: acl("The source may change the target's permissions.",
    "Grant itself full control, then abuse the target as with GenericAll."),
  WriteOwner: acl("The source may make itself the target's owner.",
    "Take ownership, grant itself rights through the owner's implicit access, then abuse them."),
  Owns: acl("The source owns the target object and so may change its permissions.",
    "Grant itself full control and abuse it."),
  ForceChangePassword: acl("The source may reset the target user's password without knowing it.",
    "Set a new password and log on as the user (noisy: the user notices)."),
  AddMember: acl("The source may add principals to the target group.", "Add itself and inherit the group's rights."),
  AddSelf: acl("The source may add itself to the target group.", "Join the group and inherit its rights."),
  AllExtendedRights: acl("The source holds every extended right on the target (password reset, LAPS read, replication on a domain).",
    "Reset passwords, read LAPS passwords or, on a domain, replicate secrets."),
  AddKeyCredentialLink: acl("The source may write the target's msDS-KeyCredentialLink (shadow credentials).",
    "Add a key of its own and authenticate as the target with PKINIT."),
  WriteSPN: acl("The source may set service principal names on the target.", "Add an SPN and Kerberoast the account."),
  WriteAccountRestrictions: acl("The source may write the target computer's account restrictions, including delegation.",
    "Configure resource-based delegation and impersonate users to the computer."),
  ReadLAPSPassword: acl("The source may read the target computer's local administrator password from LAPS.",
    "Read the password and log on as the local administrator."),
  ReadGMSAPassword: acl("The source may read the target group-managed service account's password.",
    "Retrieve the managed password and act as the service account."),
  DCSync: {
    summary: "The source may replicate secrets from the target domain (both replication rights).",
    abuse: "Ask a domain controller for any account's password hash, krbtgt included.",
    detect: "Directory replication requests (event 4662 with replication GUIDs) from non-DC hosts.",
    remediate: "Remove the replication rights from everything but domain controllers.",
    references: ["https://learn.microsoft.com/en-us/windows/win32/adschema/r-ds-replication-get-changes-all"],
  },
  GetChanges: acl("The source holds DS-Replication-Get-Changes on the domain (half of DCSync).", "Combined with GetChangesAll, replicate secrets."),
  GetChangesAll: acl("The source holds DS-Replication-Get-Changes-All on the domain (half of DCSync).", "Combined with GetChanges, replicate secrets."),
  Contains: {
    summary: "The target object sits inside the source container, OU or domain; inheritable rights and GPOs flow down.",
    abuse: "Control of the container (or a GPO linked to it) reaches the objects inside.",
    detect: "Changes to inheritable ACEs and GPO links on the container.",
    remediate: "Review inheritable permissions and linked GPOs of the container.",
    references: ["https://learn.microsoft.com/en-us/windows-server/identity/ad-ds/plan/reviewing-ou-design-concepts"],
  },
  GPLink: {
    summary: "The source GPO is linked to the target domain or OU and applies to what it contains.",
    abuse: "Whoever can edit the GPO can run code on every computer and user it applies to.",
    detect: "GPO changes (5136 on groupPolicyContainer) and new scheduled tasks from policy.",
    remediate: "Limit who may edit the GPO; unlink it where it is not needed.",
    references: ["https://learn.microsoft.com/en-us/previous-versions/windows/desktop/policy/group-policy-objects"],
  },
  TrustedBy: {
    summary: "The target domain trusts the source domain.",
    abuse: "Principals of the trusted side may be granted access in the trusting domain; SID filtering limits what crosses.",
    detect: "Cross-domain Kerberos referrals and logons.",
    remediate: "Enable SID filtering and selective authentication; remove trusts that are not needed.",
    references: ["https://learn.microsoft.com/en-us/entra/identity/domain-services/concepts-forest-trust"],
  },
  HasSIDHistory: {
    summary: "The source carries the target's SID in its sidHistory and so gets the target's access.",
    abuse: "Log on as the source and receive the target's rights in the token.",
    detect: "Accounts with sidHistory set (attribute changes, event 4765).",
    remediate: "Clear sidHistory after migrations; enable SID filtering on trusts.",
    references: ["https://learn.microsoft.com/en-us/windows/win32/adschema/a-sidhistory"],
  },
  CoerceToTGT: {
    summary: "The source has unconstrained delegation: a coerced authentication from the target leaves a TGT on it.",
    abuse: "Force a domain controller to authenticate to the source, then reuse its TGT.",
    detect: "Authentication coercion (print spooler, EFS RPC) and TGT exports on the host.",
    remediate: "Remove unconstrained delegation; use constrained or resource-based delegation.",
    references: ["https://learn.microsoft.com/en-us/windows-server/security/kerberos/kerberos-constrained-delegation-overview"],
  },
  Enroll: {
    summary: "The source may request certificates from the target template or CA.",
    abuse: "On its own harmless; with a weak template (ESC1, ESC2, ESC3) it becomes a path to impersonation.",
    detect: "Certificate requests on the CA (4886/4887).",
    remediate: "Restrict enrollment to the principals that need the template.",
    references: [ADCS_REF],
  },
  PublishedTo: {
    summary: "The source template is published on the target enterprise CA, which issues certificates from it.",
    abuse: "Enrollment rights on the template become usable through this CA.",
    detect: "Changes to the CA's certificateTemplates attribute.",
    remediate: "Unpublish templates that are not needed.",
    references: [ADCS_REF],
  },
  ADCSESC1: esc("The source may enroll in a template that lets the requester choose the subject and allows client authentication.",
    "Request a certificate naming a domain administrator and authenticate as them.",
    "Turn off 'supply in the request' on the template, require manager approval, or limit enrollment."),
  ADCSESC3: esc("The source may get an enrollment agent certificate and enroll on behalf of others.",
    "Enroll on behalf of a privileged user with the agent certificate.",
    "Restrict enrollment agents on the CA and enrollment on agent templates."),
  ADCSESC4: esc("The source may change a certificate template that the domain trusts for authentication.",
    "Make the template vulnerable (ESC1), then abuse it.",
    "Remove write rights on the template from non-administrators."),
  ADCSESC6a: esc("The CA accepts a subject alternative name from any request (EDITF_ATTRIBUTESUBJECTALTNAME2) and strong mapping is not enforced.",
    "Request any client-authentication certificate with another user's name in the SAN.",
    "Clear the EDITF_ATTRIBUTESUBJECTALTNAME2 flag on the CA; enforce strong certificate mapping."),
  ADCSESC6b: esc("Like ESC6a, with the weak mapping reached through the UPN.",
    "Request a certificate with a privileged UPN in the SAN.",
    "Clear the CA flag; enforce strong certificate mapping."),
  ADCSESC9a: esc("A template without the security extension lets the source impersonate through a changed UPN.",
    "Change a controlled account's UPN to a victim's, enroll, restore it, authenticate as the victim.",
    "Enforce strong certificate binding; remove CT_FLAG_NO_SECURITY_EXTENSION."),
  ADCSESC9b: esc("As ESC9a, through the dNSHostName of a computer.",
    "Change a controlled computer's DNS name, enroll, authenticate as the victim computer.",
    "Enforce strong certificate binding."),
  ADCSESC10a: esc("Weak certificate mapping on domain controllers lets the source impersonate through a changed UPN.",
    "As ESC9a, without needing a special template.", "Set StrongCertificateBindingEnforcement to 2."),
  ADCSESC10b: esc("As ESC10a, through the dNSHostName of a computer (Schannel mapping).",
    "Change a controlled computer's DNS name and authenticate over Schannel.", "Enforce strong mapping for Schannel."),
  ADCSESC13: esc("The source may enroll in a template whose issuance policy is linked to a group.",
    "Get a certificate and receive the linked group's rights at logon.", "Remove the OID group link or restrict enrollment."),
  GoldenCert: {
    summary: "The source computer hosts an enterprise CA of the target domain; its private key signs certificates the domain trusts.",
    abuse: "With control of the CA host, steal the CA key and forge certificates for anyone.",
    detect: "Access to the CA private key (DPAPI, certutil backups) on the CA host.",
    remediate: "Treat CA hosts as Tier Zero; protect the key with an HSM.",
    references: [ADCS_REF],
  },
  ManageCA: acl("The source may manage the certificate authority (change its configuration).", "Turn on risky CA flags (ESC6) or approve pending requests."),
  ManageCertificates: acl("The source may approve and issue pending certificate requests.", "Approve its own request for a template that needs approval."),
  SyncedToEntraUser: {
    summary: "The on-premises user is synchronised to the target Entra ID user.",
    abuse: "Control of the on-premises account (for example a password reset) carries over to the cloud account.",
    detect: "Password changes of synchronised privileged users.",
    remediate: "Use cloud-only accounts for cloud administration.",
    references: ["https://learn.microsoft.com/en-us/entra/identity/hybrid/connect/whatis-azure-ad-connect"],
  },
  AZMemberOf: {
    summary: "The source is a member of the target Entra ID group.",
    abuse: "Gets the group's roles and resource rights.",
    detect: "Audit log entries for group membership changes.",
    remediate: "Remove the membership if it is not needed.",
    references: [AZ_ROLES],
  },
  AZHasRole: {
    summary: "The source holds the target Entra ID role.",
    abuse: "Use whatever the role permits, up to full tenant control for Global Administrator.",
    detect: "Role assignment changes and sign-ins by role holders.",
    remediate: "Remove the assignment; use PIM for just-in-time elevation.",
    references: [AZ_ROLES],
  },
  AZOwns: {
    summary: "The source owns the target object (group, application or service principal).",
    abuse: "Owners can add members or credentials and act as the object.",
    detect: "Changes to credentials and members of owned objects.",
    remediate: "Remove unneeded owners.",
    references: [AZ_ROLES],
  },
  AZAddSecret: {
    summary: "The source may add a secret to the target application or service principal.",
    abuse: "Add a secret and sign in as the service principal.",
    detect: "Audit events for new credentials on applications.",
    remediate: "Restrict the roles that can manage application credentials.",
    references: [AZ_ROLES],
  },
  AZResetPassword: {
    summary: "The source may reset the target user's password.",
    abuse: "Reset and sign in as the user (if MFA allows).",
    detect: "Password reset audit events.",
    remediate: "Restrict password administrator roles.",
    references: [AZ_ROLES],
  },
};

export function edgeHelp(kind: string): EdgeHelp {
  return EDGE_HELP[kind] ?? {
    summary: `A ${kind} relationship from the source to the target.`,
    abuse: "See the references for the technique behind this relationship.",
    detect: "Depends on the technique.",
    remediate: "Remove the right or configuration that creates the relationship.",
    references: ["https://bloodhound.specterops.io/resources/edges/overview"],
  };
}
