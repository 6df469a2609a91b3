// The edge kinds path finding may cross, grouped as the reference's pathfinding filter groups them.

export const EDGE_FILTER_GROUPS: { group: string; sections: { name: string; kinds: string[] }[] }[] = [
  {
    group: "Active Directory",
    sections: [
      { name: "Structure", kinds: ["Contains", "GPLink", "HasSIDHistory", "MemberOf", "TrustedBy", "SameForestTrust", "CrossForestTrust", "SpoofSIDHistory", "AbuseTGTDelegation", "HasTrustKeys", "ContainsIdentity", "PropagatesACEsTo", "GPOAppliesTo", "CanApplyGPO"] },
      { name: "Lateral Movement", kinds: ["AdminTo", "AllowedToAct", "AllowedToDelegate", "CanPSRemote", "CanRDP", "CoerceToTGT", "ExecuteDCOM", "HasSession", "SQLAdmin", "CanBackup"] },
      { name: "Credential Access", kinds: ["DCSync", "DumpSMSAPassword", "GetChanges", "GetChangesAll", "ReadGMSAPassword", "ReadLAPSPassword", "SyncLAPSPassword"] },
      { name: "Object Manipulation", kinds: ["AddAllowedToAct", "AddKeyCredentialLink", "AddMember", "AddSelf", "AllExtendedRights", "ForceChangePassword", "GenericAll", "GenericWrite", "Owns", "OwnsLimitedRights", "WriteAccountRestrictions", "WriteDacl", "WriteGPLink", "WriteOwner", "WriteOwnerLimitedRights", "WriteSPN"] },
      { name: "Active Directory Certificate Services", kinds: ["ADCSESC1", "ADCSESC3", "ADCSESC4", "ADCSESC6a", "ADCSESC6b", "ADCSESC9a", "ADCSESC9b", "ADCSESC10a", "ADCSESC10b", "ADCSESC13", "DCFor", "GoldenCert", "ManageCA", "ManageCertificates", "EnrollOnBehalfOf", "DelegatedEnrollmentAgent"] },
      { name: "NTLM Relay", kinds: ["CoerceAndRelayNTLMToADCS", "CoerceAndRelayNTLMToLDAP", "CoerceAndRelayNTLMToLDAPS", "CoerceAndRelayNTLMToSMB"] },
    ],
  },
  {
    group: "Azure",
    sections: [
      { name: "Structure", kinds: ["AZAppAdmin", "AZCloudAppAdmin", "AZContains", "AZGlobalAdmin", "AZHasRole", "AZManagedIdentity", "AZMemberOf", "AZNodeResourceGroup", "AZPrivilegedAuthAdmin", "AZPrivilegedRoleAdmin", "AZRunsAs"] },
      { name: "Resource Abuse", kinds: ["AZAKSContributor", "AZAutomationContributor", "AZAvereContributor", "AZContributor", "AZExecuteCommand", "AZGetCertificates", "AZGetKeys", "AZGetSecrets", "AZKeyVaultContributor", "AZLogicAppContributor", "AZOwner", "AZUserAccessAdministrator", "AZVMAdminLogin", "AZVMContributor", "AZWebsiteContributor"] },
      { name: "Object Manipulation", kinds: ["AZAddMembers", "AZAddOwner", "AZAddSecret", "AZMGAddMember", "AZMGAddOwner", "AZMGAddSecret", "AZMGGrantAppRoles", "AZMGGrantRole", "AZOwns", "AZResetPassword", "AZRoleApprover", "AZRoleEligible"] },
      { name: "Hybrid", kinds: ["SyncedToEntraUser", "SyncedToADUser"] },
    ],
  },
];

export const ALL_PATH_KINDS = EDGE_FILTER_GROUPS.flatMap((g) => g.sections.flatMap((s) => s.kinds));
