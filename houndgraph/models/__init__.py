"""SQLAlchemy tables of the application data, one module per table; the graph tables live in graph/."""

from houndgraph.models.asset_group_history import AssetGroupHistory as AssetGroupHistory
from houndgraph.models.asset_group_tag import AssetGroupTag as AssetGroupTag
from houndgraph.models.asset_group_tag_selector import AssetGroupTagSelector as AssetGroupTagSelector
from houndgraph.models.asset_group_tag_selector_node import AssetGroupTagSelectorNode as AssetGroupTagSelectorNode
from houndgraph.models.asset_group_tag_selector_seed import AssetGroupTagSelectorSeed as AssetGroupTagSelectorSeed
from houndgraph.models.attack_path_finding import AttackPathFinding as AttackPathFinding
from houndgraph.models.attack_path_posture import AttackPathPosture as AttackPathPosture
from houndgraph.models.attack_path_risk_count import AttackPathRiskCount as AttackPathRiskCount
from houndgraph.models.audit_log import AuditLog as AuditLog
from houndgraph.models.auth_secret import AuthSecret
from houndgraph.models.auth_token import AuthToken
from houndgraph.models.base import Base
from houndgraph.models.client import Client as Client
from houndgraph.models.client_event import ClientEvent as ClientEvent
from houndgraph.models.client_job import ClientJob as ClientJob
from houndgraph.models.custom_node_kind import CustomNodeKind as CustomNodeKind
from houndgraph.models.datapipe_status import DatapipeStatus
from houndgraph.models.domain_collection_result import DomainCollectionResult as DomainCollectionResult
from houndgraph.models.feature_flag import FeatureFlag
from houndgraph.models.ingest_job import IngestJob as IngestJob
from houndgraph.models.ingest_task import IngestTask as IngestTask
from houndgraph.models.login_address_pace import LoginAddressPace
from houndgraph.models.login_attempt import LoginFailure
from houndgraph.models.oidc_provider import OIDCProvider as OIDCProvider
from houndgraph.models.parameter import Parameter
from houndgraph.models.purge_request import PurgeRequest as PurgeRequest
from houndgraph.models.role import Permission, Role, roles_permissions
from houndgraph.models.saml_assertion_use import SAMLAssertionUse as SAMLAssertionUse
from houndgraph.models.saml_provider import SAMLProvider
from houndgraph.models.saved_query import SavedQuery
from houndgraph.models.saved_query_permission import SavedQueryPermission
from houndgraph.models.schema_environment import SchemaEnvironment as SchemaEnvironment
from houndgraph.models.schema_extension import SchemaExtension as SchemaExtension
from houndgraph.models.schema_node_kind import SchemaNodeKind as SchemaNodeKind
from houndgraph.models.schema_relationship_finding import SchemaRelationshipFinding as SchemaRelationshipFinding
from houndgraph.models.schema_relationship_kind import SchemaRelationshipKind as SchemaRelationshipKind
from houndgraph.models.source_kind import SourceKind as SourceKind
from houndgraph.models.sso_provider import SSOProvider
from houndgraph.models.upload_chunk import UploadChunk as UploadChunk
from houndgraph.models.user import User, users_roles
from houndgraph.models.user_session import UserSession

__all__ = [
    "AuthSecret", "AuthToken", "Base", "DatapipeStatus", "FeatureFlag", "LoginAddressPace", "LoginFailure", "Parameter",
    "Permission", "Role", "SAMLProvider", "SSOProvider", "SavedQuery", "SavedQueryPermission", "User", "UserSession",
    "roles_permissions", "users_roles",
]
