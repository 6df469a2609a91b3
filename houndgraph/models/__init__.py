"""SQLAlchemy tables of the application data, one module per table; the graph tables live in graph/."""

from houndgraph.models.audit_log import AuditLog as AuditLog
from houndgraph.models.auth_secret import AuthSecret
from houndgraph.models.auth_token import AuthToken
from houndgraph.models.base import Base
from houndgraph.models.datapipe_status import DatapipeStatus
from houndgraph.models.feature_flag import FeatureFlag
from houndgraph.models.ingest_job import IngestJob as IngestJob
from houndgraph.models.ingest_task import IngestTask as IngestTask
from houndgraph.models.login_attempt import LoginFailure
from houndgraph.models.oidc_provider import OIDCProvider as OIDCProvider
from houndgraph.models.parameter import Parameter
from houndgraph.models.purge_request import PurgeRequest as PurgeRequest
from houndgraph.models.role import Permission, Role, roles_permissions
from houndgraph.models.saml_provider import SAMLProvider
from houndgraph.models.saved_query import SavedQuery
from houndgraph.models.saved_query_permission import SavedQueryPermission
from houndgraph.models.source_kind import SourceKind as SourceKind
from houndgraph.models.sso_provider import SSOProvider
from houndgraph.models.user import User, users_roles
from houndgraph.models.user_session import UserSession

__all__ = [
    "AuthSecret", "AuthToken", "Base", "DatapipeStatus", "FeatureFlag", "LoginFailure", "Parameter", "Permission",
    "Role", "SAMLProvider", "SSOProvider", "SavedQuery", "SavedQueryPermission", "User", "UserSession",
    "roles_permissions", "users_roles",
]
