from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from houndgraph.kit.nullable import SqlNullTime
from houndgraph.models import OIDCProvider, SAMLProvider, SSOProvider, User
from houndgraph.sso.metadata import ServiceProviderURLs
from houndgraph.user.schemas import UserView


class SAMLProviderView(BaseModel):
    """`model.saml-provider`: the `sp_*` URLs are computed from the request's scheme and host."""

    id: int
    name: str
    display_name: str
    idp_issuer_uri: str
    idp_sso_uri: str
    root_uri_version: int
    principal_attribute_mappings: list[str]
    sp_issuer_uri: str
    sp_sso_uri: str
    sp_metadata_uri: str
    sp_acs_uri: str
    sso_provider_id: int | None
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()

    @classmethod
    def of(cls, saml: SAMLProvider, urls: ServiceProviderURLs) -> SAMLProviderView:
        return cls(id=saml.id, name=saml.name, display_name=saml.display_name, idp_issuer_uri=saml.issuer_uri,
                   idp_sso_uri=saml.single_sign_on_uri, root_uri_version=saml.root_uri_version,
                   principal_attribute_mappings=list(saml.principal_attribute_mappings or []),
                   sp_issuer_uri=urls.issuer, sp_sso_uri=urls.sso, sp_metadata_uri=urls.metadata,
                   sp_acs_uri=urls.acs, sso_provider_id=saml.sso_provider_id,
                   created_at=saml.created_at, updated_at=saml.updated_at)


class AutoProvisionConfig(BaseModel):
    enabled: bool = False
    default_role_id: int = 0
    role_provision: bool = False


class ProviderConfig(BaseModel):
    auto_provision: AutoProvisionConfig = AutoProvisionConfig()


class OIDCProviderView(BaseModel):
    id: int
    sso_provider_id: int
    client_id: str
    issuer: str
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()

    @classmethod
    def of(cls, oidc: OIDCProvider) -> OIDCProviderView:
        return cls(id=oidc.id, sso_provider_id=oidc.sso_provider_id, client_id=oidc.client_id, issuer=oidc.issuer,
                   created_at=oidc.created_at, updated_at=oidc.updated_at)


class OIDCConfig(BaseModel):
    auto_provision: AutoProvisionConfig = AutoProvisionConfig()


class OIDCProviderCreate(BaseModel):
    name: str = Field(min_length=1, max_length=255)
    issuer: str = Field(min_length=1, max_length=2048, pattern=r"^https?://")
    client_id: str = Field(min_length=1, max_length=1024)
    config: OIDCConfig | None = None


class AuthProviderView(BaseModel):
    """`model.auth-provider`: one entry of `GET /api/v2/sso-providers`, whatever the protocol."""

    id: int
    name: str
    type: str
    slug: str
    details: SAMLProviderView | OIDCProviderView | None
    config: ProviderConfig
    # Where a browser starts this provider's sign-in, and where the provider answers (on the caller's host).
    login_uri: str
    callback_uri: str
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, provider: SSOProvider, details: SAMLProviderView | OIDCProviderView | None,
           urls: ServiceProviderURLs) -> AuthProviderView:
        return cls(id=provider.id, name=provider.name, type=provider.type, slug=provider.slug, details=details,
                   config=ProviderConfig.model_validate(provider.config or {}), login_uri=urls.sso,
                   callback_uri=urls.acs, created_at=provider.created_at, updated_at=provider.updated_at)


class DeletedProvider(BaseModel):
    affected_users: list[UserView]

    @classmethod
    def of(cls, users: list[User]) -> DeletedProvider:
        return cls(affected_users=[UserView.of(user) for user in users])


class SAMLProviderList(BaseModel):
    saml_providers: list[SAMLProviderView]


class SignOnEndpoint(BaseModel):
    name: str
    initiation_url: str


class SignOnEndpointList(BaseModel):
    endpoints: list[SignOnEndpoint]
