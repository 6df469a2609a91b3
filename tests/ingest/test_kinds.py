"""The kind constants: the reference's exact spellings, and groupings other modules rely on."""

from __future__ import annotations

from houndgraph.graph.kinds import (
    AD_ACL_EDGES,
    AD_POST_PROCESSED_EDGES,
    AD_RAW_OWNER_EDGES,
    AD_TRAVERSABLE_EDGES,
    AZ_POST_PROCESSED_EDGES,
    AZ_TRAVERSABLE_EDGES,
    ADEdge,
    ADNode,
    AZEdge,
    AZNode,
    primary_kind,
)

# reference/behaviour.md §17, newest list.
AD_POST_PROCESSED = """DCSync ProtectAdminGroups SyncLAPSPassword CanRDP AdminTo CanPSRemote ExecuteDCOM
TrustedForNTAuth IssuedSignedBy EnterpriseCAFor GoldenCert ADCSESC1 ADCSESC3 ADCSESC4 ADCSESC6a ADCSESC6b
ADCSESC9a ADCSESC9b ADCSESC10a ADCSESC10b ADCSESC13 EnrollOnBehalfOf SyncedToEntraUser Owns WriteOwner ExtendedByPolicy
CoerceAndRelayNTLMToADCS CoerceAndRelayNTLMToSMB CoerceAndRelayNTLMToLDAP CoerceAndRelayNTLMToLDAPS GPOAppliesTo
CanApplyGPO HasTrustKeys CanBackup""".split()
AZ_POST_PROCESSED = """AZAddSecret AZExecuteCommand AZResetPassword AZAddMembers AZGlobalAdmin AZPrivilegedRoleAdmin
AZPrivilegedAuthAdmin AZMGAddMember AZMGAddOwner AZMGAddSecret AZMGGrantAppRoles AZMGGrantRole SyncedToADUser
AZRoleApprover AZAddOwner""".split()


def test_spellings_that_differ_from_the_member_names() -> None:
    assert ADNode.LocalGroup == "ADLocalGroup" and ADNode.LocalUser == "ADLocalUser"
    assert ADNode.Base == "Base" and AZNode.Base == "AZBase"
    assert ADEdge.WriteDacl == "WriteDacl"
    assert AZEdge.ApplicationReadWriteAll == "AZMGApplication_ReadWrite_All"
    assert AZEdge.SyncedToADUser == "SyncedToADUser" and ADEdge.SyncedToEntraUser == "SyncedToEntraUser"
    assert {kind.value for kind in ADEdge if kind.value.startswith("ADCSESC")} >= {"ADCSESC1", "ADCSESC13"}


def test_post_processed_lists_match_the_reference() -> None:
    assert sorted(AD_POST_PROCESSED_EDGES) == sorted(AD_POST_PROCESSED)
    assert sorted(AZ_POST_PROCESSED_EDGES) == sorted(AZ_POST_PROCESSED)


def test_groupings_are_consistent() -> None:
    # Raw owner kinds wait for analysis: never traversable, never counted as controllers.
    assert not AD_RAW_OWNER_EDGES & (AD_TRAVERSABLE_EDGES | AD_ACL_EDGES)
    assert {ADEdge.GenericAll, ADEdge.Owns, ADEdge.WriteOwner, ADEdge.Enroll} <= AD_ACL_EDGES
    assert not {ADEdge.MemberOf, ADEdge.Contains, ADEdge.AdminTo} & AD_ACL_EDGES
    assert {ADEdge.MemberOf, ADEdge.AdminTo, ADEdge.HasSession, ADEdge.ADCSESC1} <= AD_TRAVERSABLE_EDGES
    assert {AZEdge.MemberOf, AZEdge.GlobalAdmin, AZEdge.Contains} <= AZ_TRAVERSABLE_EDGES
    assert not {kind.value for kind in ADEdge} & {kind.value for kind in AZEdge}
    assert not {kind.value for kind in ADNode} & {kind.value for kind in AZNode}


def test_primary_kind() -> None:
    assert primary_kind(["Base", "User"]) == "User"
    assert primary_kind(("User", "Base")) == "User"
    assert primary_kind(["AZBase", "AZUser"]) == "AZUser"
    assert primary_kind(["Base"]) == "Base"
    assert primary_kind(["ADLocalGroup", "Base", "Group"]) == "Group"  # a local group yields to a domain kind
    assert primary_kind(["ADLocalGroup", "Base"]) == "ADLocalGroup"
    assert primary_kind(["Person", "Employee", "HR"]) == "Person"  # OpenGraph: the first kind
    assert primary_kind(["User", "Base", "MetaDetail"]) == "Meta"
    assert primary_kind([]) == "Unknown"
