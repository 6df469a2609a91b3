"""Permissions and the built-in roles, as the reference names them (authority, name).

The database holds the same catalogue (seeded by migration 0001, brought to the reference of BloodHound 9.8
by 0029) and is what requests are checked against; these constants are what the route table names.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True)
class PermissionKey:
    authority: str
    name: str

    def __str__(self) -> str:
        return f"{self.authority}.{self.name}"


class P(Enum):
    APP_READ_CONFIG = PermissionKey("app", "ReadAppConfig")
    APP_WRITE_CONFIG = PermissionKey("app", "WriteAppConfig")
    RISKS_GENERATE_REPORT = PermissionKey("risks", "GenerateReport")
    RISKS_MANAGE = PermissionKey("risks", "ManageRisks")
    AUTH_CREATE_TOKEN = PermissionKey("auth", "CreateToken")
    AUTH_MANAGE_PROVIDERS = PermissionKey("auth", "ManageProviders")
    AUTH_MANAGE_SELF = PermissionKey("auth", "ManageSelf")
    AUTH_MANAGE_USERS = PermissionKey("auth", "ManageUsers")
    AUTH_READ_USERS = PermissionKey("auth", "ReadUsers")
    AUTH_READ_USERS_MINIMAL = PermissionKey("auth", "ReadUsersMinimal")
    AUTH_READ_PROVIDERS = PermissionKey("auth", "ReadProviders")
    AUDIT_LOG_READ = PermissionKey("audit_log", "Read")
    ANALYSIS_REQUEST = PermissionKey("analysis", "Request")
    ALERTS_READ = PermissionKey("alerts", "Read")
    ALERTS_MANAGE = PermissionKey("alerts", "Manage")
    CLIENTS_MANAGE = PermissionKey("clients", "Manage")
    CLIENTS_READ = PermissionKey("clients", "Read")
    CLIENTS_TASKING = PermissionKey("clients", "Tasking")
    COLLECTION_MANAGE_JOBS = PermissionKey("collection", "ManageJobs")
    COLLECTION_READ_JOBS = PermissionKey("collection", "ReadJobs")
    DB_WIPE = PermissionKey("db", "Wipe")
    GRAPH_DB_READ = PermissionKey("graphdb", "Read")
    GRAPH_DB_WRITE = PermissionKey("graphdb", "Write")
    GRAPH_DB_INGEST = PermissionKey("graphdb", "Ingest")
    GRAPH_DB_MUTATE = PermissionKey("graphdb", "Mutate")
    GRAPH_DB_READ_INGEST = PermissionKey("graphdb", "ReadIngest")
    OPENGRAPH_READ = PermissionKey("opengraph", "Read")
    OPENGRAPH_WRITE = PermissionKey("opengraph", "Write")
    SAVED_QUERIES_READ = PermissionKey("saved_queries", "Read")
    SAVED_QUERIES_WRITE = PermissionKey("saved_queries", "Write")


ROLE_ADMINISTRATOR = "Administrator"
ROLE_POWER_USER = "Power User"
ROLE_USER = "User"
ROLE_READ_ONLY = "Read-Only"
ROLE_UPLOAD_ONLY = "Upload-Only"
ROLE_AUDITOR = "Auditor"
