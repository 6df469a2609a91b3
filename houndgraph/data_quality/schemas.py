"""Data-quality rows as the reference writes them (`model.ad-data-quality-stat` and friends)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from houndgraph.kit.nullable import SqlNullTime

SORT_COLUMNS = ("created_at", "updated_at")
DEFAULT_LIMIT = 1000
DEFAULT_WINDOW_DAYS = 30

AD_COUNTERS = (
    "users", "groups", "computers", "ous", "containers", "gpos", "aiacas", "rootcas", "enterprisecas",
    "ntauthstores", "certtemplates", "issuancepolicies", "sites", "siteservers", "sitesubnets", "acls", "sessions",
    "relationships",
)
AZURE_COUNTERS = (
    "relationships", "users", "groups", "apps", "service_principals", "devices", "management_groups",
    "subscriptions", "resource_groups", "vms", "key_vaults", "automation_accounts", "container_registries",
    "function_apps", "logic_apps", "managed_clusters", "vm_scale_sets", "web_apps",
)


class Platform(StrEnum):
    AD = "ad"
    AZURE = "azure"


class _Row(BaseModel):
    id: int
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()
    run_id: str

    @classmethod
    def of(cls, row: dict[str, Any]) -> _Row:
        values = dict(row)
        values["deleted_at"] = SqlNullTime.of(values.get("deleted_at"))
        values["run_id"] = str(values["run_id"])
        return cls.model_validate(values)


class _ADCounters(_Row):
    users: int = 0
    groups: int = 0
    computers: int = 0
    ous: int = 0
    containers: int = 0
    gpos: int = 0
    aiacas: int = 0
    rootcas: int = 0
    enterprisecas: int = 0
    ntauthstores: int = 0
    certtemplates: int = 0
    issuancepolicies: int = 0
    sites: int = 0
    siteservers: int = 0
    sitesubnets: int = 0
    acls: int = 0
    sessions: int = 0
    relationships: int = 0
    session_completeness: float = 0.0
    local_group_completeness: float = 0.0


class ADDataQualityStat(_ADCounters):
    domain_sid: str


class ADDataQualityAggregation(_ADCounters):
    domains: int = 0


class _AzureCounters(_Row):
    relationships: int = 0
    users: int = 0
    groups: int = 0
    apps: int = 0
    service_principals: int = 0
    devices: int = 0
    management_groups: int = 0
    subscriptions: int = 0
    resource_groups: int = 0
    vms: int = 0
    key_vaults: int = 0
    automation_accounts: int = 0
    container_registries: int = 0
    function_apps: int = 0
    logic_apps: int = 0
    managed_clusters: int = 0
    vm_scale_sets: int = 0
    web_apps: int = 0


class AzureDataQualityStat(_AzureCounters):
    tenantid: str = Field(validation_alias="tenant_id")


class AzureDataQualityAggregation(_AzureCounters):
    tenants: int = 0


class Completeness(BaseModel):
    """Each figure under its own name (the reference swaps the two keys; we do not)."""

    LocalGroupCompleteness: float
    SessionCompleteness: float
