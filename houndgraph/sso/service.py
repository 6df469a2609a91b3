"""SSO providers (reference/behaviour.md §14): SAML providers made from an identity provider's metadata,
their auto-provisioning settings, and the service-provider URLs derived from the caller's host."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth.context import AuthContext
from houndgraph.deps import RequestSessions
from houndgraph.errors import BadRequest, Conflict, Forbidden, InternalError, NotFound
from houndgraph.kit.filters import (
    where,
)
from houndgraph.kit.query import ListQuery
from houndgraph.kit.sorting import order_by
from houndgraph.login import service as login_service
from houndgraph.models import OIDCProvider, SAMLProvider, SSOProvider, User
from houndgraph.models.saml_provider import ROOT_URI_VERSION_CURRENT, ROOT_URI_VERSION_LEGACY
from houndgraph.models.sso_provider import SSO_TYPE_OIDC, SSO_TYPE_SAML
from houndgraph.settings import Settings
from houndgraph.sso import oidc_login, repository, saml_login
from houndgraph.sso.forms import FIELD_DEFAULT_ROLE
from houndgraph.sso.listing import PROVIDERS
from houndgraph.sso.metadata import ServiceProviderURLs, is_web_url, parse_identity_provider
from houndgraph.sso.schemas import AutoProvisionConfig, OIDCProviderCreate

NAME_TAKEN = "sso provider name must be unique"
NOT_THIS_PROVIDER = "user is not authorized for this provider"
INVALID_DEFAULT_ROLE = f'"{FIELD_DEFAULT_ROLE}" parameter is invalid'
OWN_PROVIDER = "user may not delete their own SAML auth provider"
INVALID_ACS = "metadata does not have a valid ACS location"
UNIQUE_CONSTRAINTS = frozenset({"uq_sso_providers_name", "uq_sso_providers_slug", "uq_saml_providers_name"})
ROOT_PATHS = {ROOT_URI_VERSION_LEGACY: "/api/v1/login/saml", ROOT_URI_VERSION_CURRENT: "/api/v2/sso"}
# The name becomes a path segment of the login URLs (as its slug).
_UNSAFE_NAME = re.compile(r"[/\\?#%\x00-\x1f\x7f]")

def slug_for(name: str) -> str:
    """The reference's slug: lower case, spaces as dashes."""
    return name.lower().replace(" ", "-")


def _check_name(name: str) -> None:
    if not name.strip():
        raise BadRequest('"name" parameter must not be empty')
    if _UNSAFE_NAME.search(name):
        raise BadRequest('"name" parameter may not contain "/", "\\", "?", "#", "%" or control characters')


def service_provider_urls(base_url: str, provider: SSOProvider) -> ServiceProviderURLs:
    """Our URLs for this provider, on the host the caller used. The reference builds them from the name; we
    use the slug, which is what the login routes match, so the URLs resolve whatever the name's case."""
    version = provider.saml_provider.root_uri_version if provider.saml_provider else ROOT_URI_VERSION_CURRENT
    root = f"{base_url.rstrip('/')}{ROOT_PATHS[version]}/{quote(provider.slug, safe='')}"
    acs = f"{root}/acs" if version == ROOT_URI_VERSION_LEGACY else f"{root}/callback"
    return ServiceProviderURLs(issuer=root, sso=f"{root}/login", metadata=f"{root}/metadata", acs=acs)


async def _check_role(session: AsyncSession, role_id: int) -> None:
    if not await repository.role_exists(session, role_id):
        raise BadRequest(INVALID_DEFAULT_ROLE)


async def _store(session: AsyncSession, provider: SSOProvider, *, new: bool) -> SSOProvider:
    try:
        return await (repository.add(session, provider) if new else repository.save(session, provider))
    except IntegrityError as error:
        constraint = getattr(getattr(error.orig, "diag", None), "constraint_name", None)
        if constraint in UNIQUE_CONSTRAINTS:
            raise Conflict(NAME_TAKEN) from None
        raise


async def create_saml(session: AsyncSession, name: str, metadata_xml: bytes,
                      config: AutoProvisionConfig | None) -> SSOProvider:
    """`config` None is the deprecated route's provider: no auto-provisioning."""
    _check_name(name)
    if config is not None:
        await _check_role(session, config.default_role_id)
    metadata = parse_identity_provider(metadata_xml)
    provider = SSOProvider(
        name=name, slug=slug_for(name), type=SSO_TYPE_SAML,
        config={"auto_provision": (config or AutoProvisionConfig()).model_dump()},
        saml_provider=SAMLProvider(name=name, display_name=name, issuer_uri=metadata.entity_id,
                                   single_sign_on_uri=metadata.sso_post_url, metadata_xml=metadata_xml,
                                   root_uri_version=ROOT_URI_VERSION_CURRENT),
    )
    return await _store(session, provider, new=True)


@dataclass(frozen=True, slots=True)
class SAMLProviderChanges:
    """A PATCH: None leaves the field as it is."""

    name: str | None = None
    metadata_xml: bytes | None = None
    enabled: bool | None = None
    default_role_id: int | None = None
    role_provision: bool | None = None


async def by_any_slug(session: AsyncSession, slug: str) -> SSOProvider:
    provider = await repository.by_slug(session, slug)
    if provider is None or (provider.saml_provider is None and provider.oidc_provider is None):
        raise NotFound()
    return provider


async def saml_provider(session: AsyncSession, provider_id: int) -> SSOProvider:
    provider = await repository.by_id(session, provider_id)
    if provider is None or provider.type != SSO_TYPE_SAML or provider.saml_provider is None:
        raise NotFound()
    return provider


async def by_saml_provider_id(session: AsyncSession, saml_provider_id: int) -> SSOProvider:
    """The deprecated `/saml/providers/{id}` routes name the SAML settings' own id."""
    provider = await repository.by_saml_id(session, saml_provider_id)
    if provider is None:
        raise NotFound()
    return provider


async def list_saml(session: AsyncSession) -> list[SSOProvider]:
    providers = await repository.list_all(session, None, [SSOProvider.id])
    return [provider for provider in providers if provider.saml_provider is not None]


async def update_saml(session: AsyncSession, provider_id: int, changes: SAMLProviderChanges) -> SSOProvider:
    provider = await saml_provider(session, provider_id)
    saml = provider.saml_provider
    assert saml is not None
    if changes.name is not None:
        _check_name(changes.name)
        provider.name, provider.slug = changes.name, slug_for(changes.name)
        saml.name = saml.display_name = changes.name
    if changes.metadata_xml is not None:
        metadata = parse_identity_provider(changes.metadata_xml)
        saml.metadata_xml, saml.issuer_uri, saml.single_sign_on_uri = (
            changes.metadata_xml, metadata.entity_id, metadata.sso_post_url)
        if metadata.acs_post_url is not None and ROOT_PATHS[saml.root_uri_version] not in metadata.acs_post_url:
            # The IdP was configured with our other URL layout: follow it, or refuse an ACS that is neither.
            versions = [v for v, path in ROOT_PATHS.items() if path in metadata.acs_post_url]
            if not versions:
                raise BadRequest(INVALID_ACS)
            saml.root_uri_version = versions[0]
    config = AutoProvisionConfig.model_validate((provider.config or {}).get("auto_provision", {}))
    if changes.default_role_id is not None:
        await _check_role(session, changes.default_role_id)
        config.default_role_id = changes.default_role_id
    if changes.enabled is not None:
        config.enabled = changes.enabled
    if changes.role_provision is not None:
        config.role_provision = changes.role_provision
    # A new dict, so that the JSONB column is seen as changed.
    provider.config = {**(provider.config or {}), "auto_provision": config.model_dump()}
    return await _store(session, provider, new=False)


async def list_providers(session: AsyncSession, query: ListQuery) -> list[SSOProvider]:
    condition = where(query.filters, PROVIDERS.expressions)
    return await repository.list_all(session, condition, order_by(query.sort, PROVIDERS.expressions))


NO_SERVICE_PROVIDER_CERTIFICATE = "no SAML service provider certificate is configured"


def service_provider_certificate(settings: Settings) -> bytes:
    """The configured service provider certificate as PEM: the file's first certificate alone, so that a private
    key kept in the same file is never sent."""
    path = settings.saml_service_provider_certificate
    if path is None:
        raise NotFound(NO_SERVICE_PROVIDER_CERTIFICATE)
    try:
        certificate = x509.load_pem_x509_certificate(path.read_bytes())
    except (OSError, ValueError) as error:
        raise InternalError(f"the SAML service provider certificate {str(path)!r} cannot be read") from error
    return certificate.public_bytes(serialization.Encoding.PEM)


async def get_provider(session: AsyncSession, provider_id: int) -> SSOProvider:
    provider = await repository.by_id(session, provider_id)
    if provider is None:
        raise NotFound()
    return provider


async def by_slug(session: AsyncSession, slug: str) -> SSOProvider:
    provider = await repository.by_slug(session, slug)
    if provider is None or provider.saml_provider is None:
        raise NotFound()
    return provider


async def delete(session: AsyncSession, auth: AuthContext, provider_id: int) -> list[User]:
    """Returns the users who logged in with it (as they were): they keep their accounts, unlinked."""
    provider = await get_provider(session, provider_id)
    caller = await repository.user_by_id(session, auth.user_id)
    if caller is not None and caller.sso_provider_id == provider.id:
        raise Conflict(OWN_PROVIDER)
    users = await repository.users_of(session, provider.id)
    await repository.delete_provider(session, provider, [user.id for user in users])
    return users


def saml_login_page(provider: SSOProvider, base_url: str) -> tuple[str, dict[str, str]]:
    """The page that sends the browser on to the identity provider with an authentication request, and its
    headers. A stored location that is not http(s) (accepted before metadata was checked for it) is refused."""
    if provider.saml_provider is None:
        raise NotFound()
    if not is_web_url(provider.saml_provider.single_sign_on_uri):
        raise BadRequest("the identity provider's sign-on location is not an http(s) URL")
    urls = service_provider_urls(base_url, provider)
    nonce = secrets.token_urlsafe(16)
    return (saml_login.authn_request_form(provider.saml_provider.single_sign_on_uri, urls, nonce),
            saml_login.login_page_headers(nonce))


async def saml_sign_in(session: AsyncSession, settings: Settings, slug: str, saml_response: str,
                       base_url: str) -> str:
    """A session (its JWT) for the user a signed SAML response names."""
    provider = await by_slug(session, slug)
    saml = provider.saml_provider
    assert saml is not None
    assertion = saml_login.verify_response(
        saml_response, metadata_xml=saml.metadata_xml, idp_entity_id=saml.issuer_uri,
        urls=service_provider_urls(base_url, provider),
        principal_attributes=list(saml.principal_attribute_mappings or []))
    if not await repository.claim_assertion(session, assertion.assertion_id, assertion.valid_until):
        raise BadRequest("SAML assertion was already used")
    claims = assertion.attributes
    return await _session_for(session, settings, provider, assertion.principal,
                              claims.get(saml_login.GIVEN_NAME, [None])[0], claims.get(saml_login.SURNAME, [None])[0],
                              claims.get(saml_login.ROLE, []))


async def create_oidc(session: AsyncSession, data: OIDCProviderCreate) -> SSOProvider:
    _check_name(data.name)
    config = data.config.auto_provision if data.config else AutoProvisionConfig()
    if config.enabled:
        await _check_role(session, config.default_role_id)
    provider = SSOProvider(name=data.name, slug=slug_for(data.name), type=SSO_TYPE_OIDC,
                           config={"auto_provision": config.model_dump()},
                           oidc_provider=OIDCProvider(client_id=data.client_id, issuer=data.issuer))
    return await _store(session, provider, new=True)


async def oidc_provider(session: AsyncSession, slug: str) -> tuple[SSOProvider, OIDCProvider]:
    provider = await repository.by_slug(session, slug)
    if provider is None or provider.oidc_provider is None:
        raise NotFound()
    return provider, provider.oidc_provider


def oidc_callback_url(base_url: str, provider: SSOProvider) -> str:
    return f"{base_url.rstrip('/')}{ROOT_PATHS[ROOT_URI_VERSION_CURRENT]}/{quote(provider.slug, safe='')}/callback"


async def oidc_start(settings: Settings, provider: SSOProvider, oidc: OIDCProvider, base_url: str
                     ) -> tuple[str, str]:
    """(where to send the browser, the state cookie to set). Asks the provider: call it holding no session."""
    discovery = await oidc_login.discover(oidc.issuer)
    return oidc_login.start(discovery, oidc.client_id, oidc_callback_url(base_url, provider), provider.slug,
                            settings.signing_key())


async def oidc_sign_in(sessions: RequestSessions, settings: Settings, slug: str, code: str, state: str,
                       cookie: str | None, base_url: str) -> str:
    """The provider is read, then asked (holding no connection: it may be slow), then the session is made."""
    async with sessions.open() as session:
        provider, oidc = await oidc_provider(session, slug)
    discovery = await oidc_login.discover(oidc.issuer)
    identity = await oidc_login.finish(discovery, oidc.client_id, oidc_callback_url(base_url, provider),
                                       provider.slug, code, state, cookie, settings.signing_key())
    async with sessions.open() as session:
        return await _session_for(session, settings, provider, identity.principal, identity.given_name,
                                  identity.family_name, [])


async def _session_for(session: AsyncSession, settings: Settings, provider: SSOProvider, principal: str,
                       first_name: str | None, last_name: str | None, role_names: list[str]) -> str:
    """A session for the user an identity provider vouched for: an existing user linked to this provider,
    or, with auto-provisioning on, a new one."""
    user = await repository.user_by_principal(session, principal)
    if user is None:
        user = await _provision(session, provider, principal, first_name, last_name, role_names)
    if user.sso_provider_id != provider.id:
        raise Forbidden(NOT_THIS_PROVIDER)
    if user.is_disabled:
        raise Forbidden("user disabled")
    return await login_service.issue_session(session, settings, user.id, datetime.now(UTC))


async def _provision(session: AsyncSession, provider: SSOProvider, principal: str, first_name: str | None,
                     last_name: str | None, role_names: list[str]) -> User:
    config = AutoProvisionConfig.model_validate((provider.config or {}).get("auto_provision", {}))
    if not config.enabled:
        raise Forbidden(NOT_THIS_PROVIDER)
    role = None
    if config.role_provision:
        for name in role_names:
            role = role or await repository.role_named(session, name)
    role = role or await repository.role_by_id(session, config.default_role_id)
    user = User(principal_name=principal, email_address=principal, first_name=first_name, last_name=last_name,
                sso_provider_id=provider.id, eula_accepted=True, roles=[role] if role else [])
    return await repository.add_user(session, user)
