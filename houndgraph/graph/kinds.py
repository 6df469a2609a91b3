"""Node and edge kinds of the AD and Azure graphs, as BloodHound CE names them.

The values are the kind names stored in the graph and written by clients in Cypher, so they must match
the reference schema exactly (e.g. a local group is `ADLocalGroup`, not `LocalGroup`).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class ADNode(StrEnum):
    Base = "Base"
    User = "User"
    Computer = "Computer"
    Group = "Group"
    GPO = "GPO"
    OU = "OU"
    Container = "Container"
    Domain = "Domain"
    LocalGroup = "ADLocalGroup"
    LocalUser = "ADLocalUser"
    AIACA = "AIACA"
    RootCA = "RootCA"
    EnterpriseCA = "EnterpriseCA"
    NTAuthStore = "NTAuthStore"
    CertTemplate = "CertTemplate"
    IssuancePolicy = "IssuancePolicy"
    # Active Directory sites (SharpHound v2.17): a site, a server object under it, a subnet assigned to it.
    Site = "Site"
    SiteServer = "SiteServer"
    SiteSubnet = "SiteSubnet"
    # Enterprise "combo" nodes: CE never creates them but keeps the kinds, and the display kind of a
    # node carrying one of them is Meta.
    Meta = "Meta"
    MetaDetail = "MetaDetail"
    MetaIncludes = "MetaIncludes"


class ADEdge(StrEnum):
    Owns = "Owns"
    GenericAll = "GenericAll"
    GenericWrite = "GenericWrite"
    WriteOwner = "WriteOwner"
    WriteDacl = "WriteDacl"
    MemberOf = "MemberOf"
    ForceChangePassword = "ForceChangePassword"
    AllExtendedRights = "AllExtendedRights"
    AddMember = "AddMember"
    HasSession = "HasSession"
    Contains = "Contains"
    GPLink = "GPLink"
    AllowedToDelegate = "AllowedToDelegate"
    CoerceToTGT = "CoerceToTGT"
    GetChanges = "GetChanges"
    GetChangesAll = "GetChangesAll"
    GetChangesInFilteredSet = "GetChangesInFilteredSet"
    # Older releases modelled every trust as TrustedBy; current ones use the two forest-aware kinds.
    TrustedBy = "TrustedBy"
    CrossForestTrust = "CrossForestTrust"
    SameForestTrust = "SameForestTrust"
    SpoofSIDHistory = "SpoofSIDHistory"
    AbuseTGTDelegation = "AbuseTGTDelegation"
    AllowedToAct = "AllowedToAct"
    AdminTo = "AdminTo"
    CanPSRemote = "CanPSRemote"
    CanRDP = "CanRDP"
    ExecuteDCOM = "ExecuteDCOM"
    HasSIDHistory = "HasSIDHistory"
    AddSelf = "AddSelf"
    DCSync = "DCSync"
    ReadLAPSPassword = "ReadLAPSPassword"
    ReadGMSAPassword = "ReadGMSAPassword"
    DumpSMSAPassword = "DumpSMSAPassword"
    SQLAdmin = "SQLAdmin"
    AddAllowedToAct = "AddAllowedToAct"
    WriteSPN = "WriteSPN"
    AddKeyCredentialLink = "AddKeyCredentialLink"
    LocalToComputer = "LocalToComputer"
    MemberOfLocalGroup = "MemberOfLocalGroup"
    RemoteInteractiveLogonRight = "RemoteInteractiveLogonRight"
    SyncLAPSPassword = "SyncLAPSPassword"
    WriteAccountRestrictions = "WriteAccountRestrictions"
    WriteGPLink = "WriteGPLink"
    RootCAFor = "RootCAFor"
    DCFor = "DCFor"
    PublishedTo = "PublishedTo"
    ManageCertificates = "ManageCertificates"
    ManageCA = "ManageCA"
    DelegatedEnrollmentAgent = "DelegatedEnrollmentAgent"
    Enroll = "Enroll"
    HostsCAService = "HostsCAService"
    WritePKIEnrollmentFlag = "WritePKIEnrollmentFlag"
    WritePKINameFlag = "WritePKINameFlag"
    NTAuthStoreFor = "NTAuthStoreFor"
    TrustedForNTAuth = "TrustedForNTAuth"
    EnterpriseCAFor = "EnterpriseCAFor"
    IssuedSignedBy = "IssuedSignedBy"
    GoldenCert = "GoldenCert"
    EnrollOnBehalfOf = "EnrollOnBehalfOf"
    OIDGroupLink = "OIDGroupLink"
    ExtendedByPolicy = "ExtendedByPolicy"
    ADCSESC1 = "ADCSESC1"
    ADCSESC3 = "ADCSESC3"
    ADCSESC4 = "ADCSESC4"
    # ESC5 and ESC7 were produced by older releases only; kept so graphs loaded from them still parse.
    ADCSESC5 = "ADCSESC5"
    ADCSESC6a = "ADCSESC6a"
    ADCSESC6b = "ADCSESC6b"
    ADCSESC7 = "ADCSESC7"
    ADCSESC9a = "ADCSESC9a"
    ADCSESC9b = "ADCSESC9b"
    ADCSESC10a = "ADCSESC10a"
    ADCSESC10b = "ADCSESC10b"
    ADCSESC13 = "ADCSESC13"
    SyncedToEntraUser = "SyncedToEntraUser"
    CoerceAndRelayNTLMToSMB = "CoerceAndRelayNTLMToSMB"
    CoerceAndRelayNTLMToADCS = "CoerceAndRelayNTLMToADCS"
    CoerceAndRelayNTLMToLDAP = "CoerceAndRelayNTLMToLDAP"
    CoerceAndRelayNTLMToLDAPS = "CoerceAndRelayNTLMToLDAPS"
    # Owner rights arrive raw from the collector; analysis decides whether they become Owns/WriteOwner.
    WriteOwnerLimitedRights = "WriteOwnerLimitedRights"
    WriteOwnerRaw = "WriteOwnerRaw"
    OwnsLimitedRights = "OwnsLimitedRights"
    OwnsRaw = "OwnsRaw"
    ClaimSpecialIdentity = "ClaimSpecialIdentity"
    ContainsIdentity = "ContainsIdentity"
    PropagatesACEsTo = "PropagatesACEsTo"
    GPOAppliesTo = "GPOAppliesTo"
    CanApplyGPO = "CanApplyGPO"
    HasTrustKeys = "HasTrustKeys"
    ProtectAdminGroups = "ProtectAdminGroups"
    CanBackup = "CanBackup"
    BackupPrivilege = "BackupPrivilege"
    RestorePrivilege = "RestorePrivilege"
    # A site's server object -> the computer account it stands for (its `serverReference`).
    ServerIs = "ServerIs"


class AZNode(StrEnum):
    Base = "AZBase"
    App = "AZApp"
    VMScaleSet = "AZVMScaleSet"
    Role = "AZRole"
    Device = "AZDevice"
    FunctionApp = "AZFunctionApp"
    Group = "AZGroup"
    KeyVault = "AZKeyVault"
    ManagementGroup = "AZManagementGroup"
    ResourceGroup = "AZResourceGroup"
    ServicePrincipal = "AZServicePrincipal"
    Subscription = "AZSubscription"
    Tenant = "AZTenant"
    User = "AZUser"
    VM = "AZVM"
    ManagedCluster = "AZManagedCluster"
    ContainerRegistry = "AZContainerRegistry"
    WebApp = "AZWebApp"
    LogicApp = "AZLogicApp"
    AutomationAccount = "AZAutomationAccount"


class AZEdge(StrEnum):
    AvereContributor = "AZAvereContributor"
    Contains = "AZContains"
    Contributor = "AZContributor"
    GetCertificates = "AZGetCertificates"
    GetKeys = "AZGetKeys"
    GetSecrets = "AZGetSecrets"
    HasRole = "AZHasRole"
    MemberOf = "AZMemberOf"
    Owner = "AZOwner"
    RunsAs = "AZRunsAs"
    VMContributor = "AZVMContributor"
    AutomationContributor = "AZAutomationContributor"
    KeyVaultContributor = "AZKeyVaultContributor"
    VMAdminLogin = "AZVMAdminLogin"
    AddMembers = "AZAddMembers"
    AddSecret = "AZAddSecret"
    ExecuteCommand = "AZExecuteCommand"
    GlobalAdmin = "AZGlobalAdmin"
    PrivilegedAuthAdmin = "AZPrivilegedAuthAdmin"
    Grant = "AZGrant"
    GrantSelf = "AZGrantSelf"
    PrivilegedRoleAdmin = "AZPrivilegedRoleAdmin"
    ResetPassword = "AZResetPassword"
    UserAccessAdministrator = "AZUserAccessAdministrator"
    Owns = "AZOwns"
    ScopedTo = "AZScopedTo"
    CloudAppAdmin = "AZCloudAppAdmin"
    AppAdmin = "AZAppAdmin"
    AddOwner = "AZAddOwner"
    ManagedIdentity = "AZManagedIdentity"
    # Microsoft Graph app roles held by a service principal, named after the permission.
    ApplicationReadWriteAll = "AZMGApplication_ReadWrite_All"
    AppRoleAssignmentReadWriteAll = "AZMGAppRoleAssignment_ReadWrite_All"
    DirectoryReadWriteAll = "AZMGDirectory_ReadWrite_All"
    GroupReadWriteAll = "AZMGGroup_ReadWrite_All"
    GroupMemberReadWriteAll = "AZMGGroupMember_ReadWrite_All"
    RoleManagementReadWriteDirectory = "AZMGRoleManagement_ReadWrite_Directory"
    ServicePrincipalEndpointReadWriteAll = "AZMGServicePrincipalEndpoint_ReadWrite_All"
    AKSContributor = "AZAKSContributor"
    NodeResourceGroup = "AZNodeResourceGroup"
    WebsiteContributor = "AZWebsiteContributor"
    LogicAppContributor = "AZLogicAppContributor"
    MGAddMember = "AZMGAddMember"
    MGAddOwner = "AZMGAddOwner"
    MGAddSecret = "AZMGAddSecret"
    MGGrantAppRoles = "AZMGGrantAppRoles"
    MGGrantRole = "AZMGGrantRole"
    RoleEligible = "AZRoleEligible"
    RoleApprover = "AZRoleApprover"
    SyncedToADUser = "SyncedToADUser"


# Kinds created from an ACE on the target object: the "controllers" of an object are their sources.
AD_ACL_EDGES: frozenset[ADEdge] = frozenset(
    {
        ADEdge.AllExtendedRights, ADEdge.ForceChangePassword, ADEdge.AddMember, ADEdge.AddAllowedToAct,
        ADEdge.GenericAll, ADEdge.WriteDacl, ADEdge.WriteOwner, ADEdge.GenericWrite, ADEdge.ReadLAPSPassword,
        ADEdge.ReadGMSAPassword, ADEdge.Owns, ADEdge.AddSelf, ADEdge.WriteSPN, ADEdge.AddKeyCredentialLink,
        ADEdge.GetChanges, ADEdge.GetChangesAll, ADEdge.GetChangesInFilteredSet,
        ADEdge.WriteAccountRestrictions, ADEdge.WriteGPLink, ADEdge.SyncLAPSPassword, ADEdge.DCSync,
        ADEdge.ManageCertificates, ADEdge.ManageCA, ADEdge.Enroll, ADEdge.WritePKIEnrollmentFlag,
        ADEdge.WritePKINameFlag, ADEdge.WriteOwnerLimitedRights, ADEdge.OwnsLimitedRights,
    }
)  # fmt: skip

# Raw owner kinds also come from the security descriptor but are not traversable until analysis
# turns them into Owns / WriteOwner.
AD_RAW_OWNER_EDGES: frozenset[ADEdge] = frozenset({ADEdge.OwnsRaw, ADEdge.WriteOwnerRaw})

# Kinds path finding follows by default (an attacker can move along them).
AD_TRAVERSABLE_EDGES: frozenset[ADEdge] = frozenset(
    {
        ADEdge.Owns, ADEdge.GenericAll, ADEdge.GenericWrite, ADEdge.WriteOwner, ADEdge.WriteDacl,
        ADEdge.MemberOf, ADEdge.ForceChangePassword, ADEdge.AllExtendedRights, ADEdge.AddMember,
        ADEdge.HasSession, ADEdge.GPLink, ADEdge.AllowedToDelegate, ADEdge.CoerceToTGT, ADEdge.AllowedToAct,
        ADEdge.AdminTo, ADEdge.CanPSRemote, ADEdge.CanRDP, ADEdge.ExecuteDCOM, ADEdge.HasSIDHistory,
        ADEdge.AddSelf, ADEdge.DCSync, ADEdge.ReadLAPSPassword, ADEdge.ReadGMSAPassword,
        ADEdge.DumpSMSAPassword, ADEdge.SQLAdmin, ADEdge.AddAllowedToAct, ADEdge.WriteSPN,
        ADEdge.AddKeyCredentialLink, ADEdge.SyncLAPSPassword, ADEdge.WriteAccountRestrictions,
        ADEdge.WriteGPLink, ADEdge.GoldenCert, ADEdge.ADCSESC1, ADEdge.ADCSESC3, ADEdge.ADCSESC4,
        ADEdge.ADCSESC6a, ADEdge.ADCSESC6b, ADEdge.ADCSESC9a, ADEdge.ADCSESC9b, ADEdge.ADCSESC10a,
        ADEdge.ADCSESC10b, ADEdge.ADCSESC13, ADEdge.SyncedToEntraUser, ADEdge.CoerceAndRelayNTLMToSMB,
        ADEdge.CoerceAndRelayNTLMToADCS, ADEdge.WriteOwnerLimitedRights, ADEdge.OwnsLimitedRights,
        ADEdge.ClaimSpecialIdentity, ADEdge.CoerceAndRelayNTLMToLDAP, ADEdge.CoerceAndRelayNTLMToLDAPS,
        ADEdge.ContainsIdentity, ADEdge.PropagatesACEsTo, ADEdge.GPOAppliesTo, ADEdge.CanApplyGPO,
        ADEdge.HasTrustKeys, ADEdge.ManageCA, ADEdge.ManageCertificates, ADEdge.CanBackup, ADEdge.Contains,
        ADEdge.DCFor, ADEdge.SameForestTrust, ADEdge.SpoofSIDHistory, ADEdge.AbuseTGTDelegation,
    }
)  # fmt: skip

# Kinds that analysis owns: deleted and recomputed on every run, never taken from a collector file.
AD_POST_PROCESSED_EDGES: frozenset[ADEdge] = frozenset(
    {
        ADEdge.DCSync, ADEdge.ProtectAdminGroups, ADEdge.SyncLAPSPassword, ADEdge.CanRDP, ADEdge.AdminTo,
        ADEdge.CanPSRemote, ADEdge.ExecuteDCOM, ADEdge.TrustedForNTAuth, ADEdge.IssuedSignedBy,
        ADEdge.EnterpriseCAFor, ADEdge.GoldenCert, ADEdge.ADCSESC1, ADEdge.ADCSESC3, ADEdge.ADCSESC4,
        ADEdge.ADCSESC6a, ADEdge.ADCSESC6b, ADEdge.ADCSESC9a, ADEdge.ADCSESC9b, ADEdge.ADCSESC10a,
        ADEdge.ADCSESC10b, ADEdge.ADCSESC13, ADEdge.EnrollOnBehalfOf, ADEdge.SyncedToEntraUser,
        ADEdge.Owns, ADEdge.WriteOwner, ADEdge.ExtendedByPolicy, ADEdge.CoerceAndRelayNTLMToADCS,
        ADEdge.CoerceAndRelayNTLMToSMB, ADEdge.CoerceAndRelayNTLMToLDAP, ADEdge.CoerceAndRelayNTLMToLDAPS,
        ADEdge.GPOAppliesTo, ADEdge.CanApplyGPO, ADEdge.HasTrustKeys, ADEdge.CanBackup,
    }
)  # fmt: skip

AZ_TRAVERSABLE_EDGES: frozenset[AZEdge] = frozenset(
    {
        AZEdge.AvereContributor, AZEdge.Contains, AZEdge.Contributor, AZEdge.GetCertificates,
        AZEdge.GetKeys, AZEdge.GetSecrets, AZEdge.HasRole, AZEdge.MemberOf, AZEdge.Owner, AZEdge.RunsAs,
        AZEdge.VMContributor, AZEdge.AutomationContributor, AZEdge.KeyVaultContributor,
        AZEdge.VMAdminLogin, AZEdge.AddMembers, AZEdge.AddSecret, AZEdge.ExecuteCommand,
        AZEdge.GlobalAdmin, AZEdge.PrivilegedAuthAdmin, AZEdge.Grant, AZEdge.GrantSelf,
        AZEdge.PrivilegedRoleAdmin, AZEdge.ResetPassword, AZEdge.UserAccessAdministrator, AZEdge.Owns,
        AZEdge.CloudAppAdmin, AZEdge.AppAdmin, AZEdge.AddOwner, AZEdge.ManagedIdentity,
        AZEdge.AKSContributor, AZEdge.NodeResourceGroup, AZEdge.WebsiteContributor,
        AZEdge.LogicAppContributor, AZEdge.MGAddMember, AZEdge.MGAddOwner, AZEdge.MGAddSecret,
        AZEdge.MGGrantAppRoles, AZEdge.MGGrantRole, AZEdge.SyncedToADUser,
    }
)  # fmt: skip

AZ_POST_PROCESSED_EDGES: frozenset[AZEdge] = frozenset(
    {
        AZEdge.AddSecret, AZEdge.ExecuteCommand, AZEdge.ResetPassword, AZEdge.AddMembers,
        AZEdge.GlobalAdmin, AZEdge.PrivilegedRoleAdmin, AZEdge.PrivilegedAuthAdmin, AZEdge.MGAddMember,
        AZEdge.MGAddOwner, AZEdge.MGAddSecret, AZEdge.MGGrantAppRoles, AZEdge.MGGrantRole,
        AZEdge.SyncedToADUser, AZEdge.RoleApprover, AZEdge.AddOwner,
    }
)  # fmt: skip

AD_NODE_KINDS: frozenset[str] = frozenset(ADNode)
AZ_NODE_KINDS: frozenset[str] = frozenset(AZNode)
KNOWN_EDGE_KINDS: frozenset[str] = frozenset(ADEdge) | frozenset(AZEdge)

_BASE_KINDS = frozenset({ADNode.Base, AZNode.Base})
_META_KINDS = frozenset({ADNode.Meta, ADNode.MetaDetail, ADNode.MetaIncludes})
UNKNOWN_KIND = "Unknown"
# The kind privilege-zone tagging puts on Tier Zero members, read as `isTierZero`.
TIER_ZERO_TAG = "Tag_Tier_Zero"


def primary_kind(kinds: Iterable[str]) -> str:
    """The kind a node is displayed as: its first kind that is not a base kind.

    A local group yields to any other kind (a node merged from a domain group and a local group shows
    as the group); a node with only a base kind shows as that base kind; a node with none is Unknown.
    """
    kinds = list(kinds)
    if any(kind in _META_KINDS for kind in kinds):
        return ADNode.Meta
    base: str | None = None
    local_group = False
    for kind in kinds:
        if kind in _BASE_KINDS:
            base = base or kind
        elif kind == ADNode.LocalGroup:
            local_group = True
        else:
            return kind
    if local_group:
        return ADNode.LocalGroup
    return base or UNKNOWN_KIND
