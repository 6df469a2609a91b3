from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import Depends, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from houndgraph.auth.dependencies import CurrentAuth
from houndgraph.deps import SessionDep, SessionsDep, SettingsDep
from houndgraph.errors import BadRequest, NotFound, ServiceError
from houndgraph.kit.answers import answers_file, answers_page_or_redirect, redirects
from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.ids import parse_int_id
from houndgraph.kit.params import list_query
from houndgraph.kit.query import ListQuery
from houndgraph.models import SSOProvider
from houndgraph.sso import forms, oidc_login, service
from houndgraph.sso.listing import PROVIDERS
from houndgraph.sso.metadata import service_provider_metadata
from houndgraph.sso.schemas import (
    AuthProviderView,
    AutoProvisionConfig,
    DeletedProvider,
    OIDCProviderCreate,
    OIDCProviderView,
    SAMLProviderList,
    SAMLProviderView,
    SignOnEndpoint,
    SignOnEndpointList,
)

SAML_METADATA_MEDIA_TYPE = "application/samlmetadata+xml"
UI_PATH = "/ui"
SSO_PATH = "/api/v2/sso"
SUCCESSOR = "/api/v2/sso-providers/saml"
SUCCESSOR_LIST = "/api/v2/sso-providers"


def _base_url(request: Request) -> str:
    """Scheme and host as the caller reached us (uvicorn applies X-Forwarded-* from trusted proxies): for the
    URLs shown to an administrator. Sign-in checks what it receives against `Settings.public_base_url`."""
    return f"{request.url.scheme}://{request.url.netloc}"


def _saml_view(request: Request, provider: SSOProvider) -> SAMLProviderView:
    assert provider.saml_provider is not None
    return SAMLProviderView.of(provider.saml_provider, service.service_provider_urls(_base_url(request), provider))


def _provider_view(request: Request, provider: SSOProvider) -> AuthProviderView:
    urls = service.service_provider_urls(_base_url(request), provider)
    if provider.oidc_provider is not None:
        return AuthProviderView.of(provider, OIDCProviderView.of(provider.oidc_provider), urls)
    return AuthProviderView.of(provider, _saml_view(request, provider) if provider.saml_provider else None, urls)


async def create_oidc_provider(body: OIDCProviderCreate, request: Request,
                               session: SessionDep) -> DataEnvelope[AuthProviderView]:
    return DataEnvelope(data=_provider_view(request, await service.create_oidc(session, body)))


async def create_saml_provider(request: Request, session: SessionDep) -> DataEnvelope[SAMLProviderView]:
    form = await forms.read_form(request)
    try:
        name = forms.text(form, forms.FIELD_NAME, required=True)
        metadata = await forms.metadata_file(form, required=True)
        config = AutoProvisionConfig(enabled=forms.boolean(form, forms.FIELD_ENABLED, required=True),
                                     default_role_id=forms.integer(form, forms.FIELD_DEFAULT_ROLE, required=True),
                                     role_provision=forms.boolean(form, forms.FIELD_ROLE_PROVISION, required=True))
    finally:
        await form.close()
    assert name is not None and metadata is not None
    provider = await service.create_saml(session, name, metadata, config)
    return DataEnvelope(data=_saml_view(request, provider))


async def create_saml_provider_deprecated(request: Request, response: Response,
                                          session: SessionDep) -> DataEnvelope[SAMLProviderView]:
    """Seed operation 1: name and metadata only, no auto-provisioning."""
    response.headers["Deprecation"] = "true"
    response.headers["Link"] = f'<{SUCCESSOR}>; rel="successor-version"'
    form = await forms.read_form(request)
    try:
        name = forms.text(form, forms.FIELD_NAME, required=True)
        metadata = await forms.metadata_file(form, required=True)
    finally:
        await form.close()
    assert name is not None and metadata is not None
    provider = await service.create_saml(session, name, metadata, None)
    return DataEnvelope(data=_saml_view(request, provider))


ProviderQuery = Annotated[ListQuery, Depends(list_query(PROVIDERS))]


async def list_providers(query: ProviderQuery, request: Request,
                         session: SessionDep) -> DataEnvelope[list[AuthProviderView]]:
    providers = await service.list_providers(session, query)
    return DataEnvelope(data=[_provider_view(request, provider) for provider in providers])


async def get_provider(sso_provider_id: str, request: Request, session: SessionDep) -> DataEnvelope[AuthProviderView]:
    provider = await service.get_provider(session, parse_int_id(sso_provider_id, bits=32))
    return DataEnvelope(data=_provider_view(request, provider))


async def update_provider(sso_provider_id: str, request: Request,
                          session: SessionDep) -> DataEnvelope[SAMLProviderView]:
    provider_id = parse_int_id(sso_provider_id, bits=32)
    await service.saml_provider(session, provider_id)
    form = await forms.read_form(request)
    try:
        changes = service.SAMLProviderChanges(
            name=forms.text(form, forms.FIELD_NAME, required=False),
            metadata_xml=await forms.metadata_file(form, required=False),
            enabled=forms.boolean(form, forms.FIELD_ENABLED, required=False),
            default_role_id=forms.integer(form, forms.FIELD_DEFAULT_ROLE, required=False),
            role_provision=forms.boolean(form, forms.FIELD_ROLE_PROVISION, required=False),
        )
    finally:
        await form.close()
    provider = await service.update_saml(session, provider_id, changes)
    return DataEnvelope(data=_saml_view(request, provider))


async def delete_provider(sso_provider_id: str, auth: CurrentAuth,
                          session: SessionDep) -> DataEnvelope[DeletedProvider]:
    users = await service.delete(session, auth, parse_int_id(sso_provider_id, bits=32))
    return DataEnvelope(data=DeletedProvider.of(users))


def _deprecated(response: Response) -> None:
    response.headers["Deprecation"] = "true"
    response.headers["Link"] = f'<{SUCCESSOR_LIST}>; rel="successor-version"'


async def list_saml_providers(request: Request, response: Response,
                              session: SessionDep) -> DataEnvelope[SAMLProviderList]:
    _deprecated(response)
    providers = await service.list_saml(session)
    return DataEnvelope(data=SAMLProviderList(saml_providers=[_saml_view(request, p) for p in providers]))


async def list_saml_sign_on_endpoints(request: Request, response: Response,
                                      session: SessionDep) -> DataEnvelope[SignOnEndpointList]:
    """Where the login page sends someone who picks a SAML provider."""
    _deprecated(response)
    providers = await service.list_saml(session)
    return DataEnvelope(data=SignOnEndpointList(endpoints=[
        SignOnEndpoint(name=p.name, initiation_url=_saml_view(request, p).sp_sso_uri) for p in providers]))


async def get_saml_provider(saml_provider_id: str, request: Request, response: Response,
                            session: SessionDep) -> DataEnvelope[SAMLProviderView]:
    _deprecated(response)
    provider = await service.by_saml_provider_id(session, parse_int_id(saml_provider_id, bits=32))
    return DataEnvelope(data=_saml_view(request, provider))


async def delete_saml_provider(saml_provider_id: str, auth: CurrentAuth, response: Response,
                               session: SessionDep) -> DataEnvelope[DeletedProvider]:
    _deprecated(response)
    provider = await service.by_saml_provider_id(session, parse_int_id(saml_provider_id, bits=32))
    return DataEnvelope(data=DeletedProvider.of(await service.delete(session, auth, provider.id)))


@answers_file("text/plain")
async def signing_certificate(sso_provider_id: str, session: SessionDep, settings: SettingsDep) -> Response:
    """The service provider certificate (PEM) to give a SAML provider's administrators, as a download."""
    # The reference answers an id it cannot read as a 32-bit integer with 404, not 400.
    try:
        provider_id = parse_int_id(sso_provider_id, bits=32, signed=True)
    except BadRequest:
        raise NotFound() from None
    provider = await service.saml_provider(session, provider_id)
    return Response(service.service_provider_certificate(settings), media_type="text/plain; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{provider.slug}-signing-certificate.pem"'})


@answers_file(SAML_METADATA_MEDIA_TYPE)
async def service_provider_metadata_xml(slug: str, request: Request, session: SessionDep) -> Response:
    provider = await service.by_slug(session, slug)
    urls = service.service_provider_urls(_base_url(request), provider)
    return Response(service_provider_metadata(urls), media_type=SAML_METADATA_MEDIA_TYPE)


def _signed_in(request: Request, token: str) -> Response:
    redirect = RedirectResponse(f"{UI_PATH}/", status_code=302)
    redirect.set_cookie("token", token, secure=request.url.scheme == "https", samesite="strict")
    redirect.delete_cookie(oidc_login.STATE_COOKIE, path=SSO_PATH)
    return redirect


def _sign_in_failed(error: ServiceError) -> Response:
    # As in the reference, the browser flow answers errors with a redirect to the UI naming them.
    return RedirectResponse(f"{UI_PATH}?error={quote(error.message)}", status_code=302)


@answers_page_or_redirect(page="SAML: a page that posts the authentication request to the identity provider.",
                          redirect="OIDC: the provider's authorization endpoint; on failure, the UI naming the error.")
async def sso_login(slug: str, request: Request, sessions: SessionsDep, settings: SettingsDep) -> Response:
    """SAML: a page posting the authentication request to the IdP. OIDC: a redirect to its authorization
    endpoint, with the pending state in a cookie (the provider is asked holding no database connection)."""
    async with sessions.open() as session:
        provider = await service.by_any_slug(session, slug)
    if provider.oidc_provider is None:
        page, headers = service.saml_login_page(provider, settings.public_base_url())
        return HTMLResponse(page, headers=headers)
    try:
        location, state_cookie = await service.oidc_start(settings, provider, provider.oidc_provider,
                                                          settings.public_base_url())
    except ServiceError as error:
        return _sign_in_failed(error)
    redirect = RedirectResponse(location, status_code=302)
    redirect.set_cookie(oidc_login.STATE_COOKIE, state_cookie, path=SSO_PATH, httponly=True, samesite="lax",
                        secure=request.url.scheme == "https", max_age=int(oidc_login.STATE_LIFETIME.total_seconds()))
    return redirect


@redirects("The UI, signed in (the session token in the `token` cookie) or naming the error.")
async def saml_callback(slug: str, request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """The SAML assertion consumer service."""
    form = await request.form()
    try:
        saml_response = form.get("SAMLResponse")
        if not isinstance(saml_response, str) or not saml_response:
            raise BadRequest('form is missing "SAMLResponse" parameter')
        token = await service.saml_sign_in(session, settings, slug, saml_response, settings.public_base_url())
    except ServiceError as error:
        return _sign_in_failed(error)
    finally:
        await form.close()
    return _signed_in(request, token)


@redirects("The UI, signed in (the session token in the `token` cookie) or naming the error.")
async def oidc_callback(slug: str, request: Request, sessions: SessionsDep, settings: SettingsDep,
                        code: str = "", state: str = "") -> Response:
    """Where the OIDC provider sends the browser back with an authorization code."""
    try:
        if not code or not state:
            raise BadRequest("OIDC callback is missing its code or state")
        token = await service.oidc_sign_in(sessions, settings, slug, code, state,
                                           request.cookies.get(oidc_login.STATE_COOKIE), settings.public_base_url())
    except ServiceError as error:
        return _sign_in_failed(error)
    return _signed_in(request, token)


@redirects("The provider's sign-in, /api/v2/sso/{slug}/login.")
async def legacy_saml_login(slug: str) -> Response:
    return RedirectResponse(f"/api/v2/sso/{quote(slug, safe='')}/login", status_code=302)


@redirects("The provider's callback, /api/v2/sso/{slug}/callback (307 keeps the posted form).")
async def legacy_saml_acs(slug: str) -> Response:
    # 307 keeps the method and the posted form.
    return RedirectResponse(f"/api/v2/sso/{quote(slug, safe='')}/callback", status_code=307)
