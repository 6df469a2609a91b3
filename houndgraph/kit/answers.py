"""What a handler that writes its own `Response` sends, declared for the OpenAPI document.

Handlers that return a model are described by their return annotation. The others write their bytes
themselves: graph answers rendered by hand (validating a large graph would cost as much as building it),
files, redirects, empty bodies. FastAPI sends a returned `Response` as it is, so what is declared here is
never applied to an answer at run time; it only tells `/api/openapi.json` what the body is, and the
response-conformance fuzzer (tests/fuzz) holds the real answers to it. `register_routes` reads the
declaration off the handler.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from starlette.responses import Response

Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])
_ATTRIBUTE = "__answers__"

TEXT: dict[str, Any] = {"schema": {"type": "string"}}
BINARY: dict[str, Any] = {"schema": {"type": "string", "format": "binary"}}


@dataclass(frozen=True)
class Answer:
    """`model` is the JSON body at the route's own status; `content` any other media types it may be sent
    as; `others` further statuses (FastAPI's `responses` entries). Without a JSON model the route is
    documented with a bare `Response` class, so no empty JSON schema is added beside the real content."""

    model: Any = None
    content: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    others: Mapping[int, dict[str, Any]] = field(default_factory=dict)
    description: str | None = None
    headers: Mapping[str, dict[str, Any]] = field(default_factory=dict)


def _declare(answer: Answer) -> Callable[[Endpoint], Endpoint]:
    def mark(endpoint: Endpoint) -> Endpoint:
        setattr(endpoint, _ATTRIBUTE, answer)
        return endpoint

    return mark


def answers(model: Any, *, content: Mapping[str, dict[str, Any]] | None = None,
            others: Mapping[int, dict[str, Any]] | None = None) -> Callable[[Endpoint], Endpoint]:
    """The handler's JSON body follows `model` (and may come as the other media types of `content`)."""
    return _declare(Answer(model, content or {}, others or {}))


def answers_file(media_type: str, *, binary: bool = False, schema: dict[str, Any] | None = None
                 ) -> Callable[[Endpoint], Endpoint]:
    """A document or a download rather than JSON; `schema` for a document a client parses (YAML)."""
    return _declare(Answer(content={media_type: {"schema": schema} if schema else BINARY if binary else TEXT}))


def answers_nothing(endpoint: Endpoint) -> Endpoint:
    """A body-less answer at the route's status (the reference's 200s and 202s with no response data)."""
    return _declare(Answer(description="No response data."))(endpoint)


def answers_nothing_or(others: Mapping[int, str]) -> Callable[[Endpoint], Endpoint]:
    """A body-less answer at the route's status or at one of `others` (status: what it means)."""
    return _declare(Answer(description="No response data.",
                           others={status: {"description": meaning} for status, meaning in others.items()}))


def _location(description: str) -> dict[str, Any]:
    return {"Location": {"description": description, "schema": {"type": "string"}}}


def redirects(description: str) -> Callable[[Endpoint], Endpoint]:
    """A browser step answered with a redirect at the route's status (a 3xx in the route table)."""
    return _declare(Answer(description=description, headers=_location(description)))


def answers_page_or_redirect(page: str, redirect: str) -> Callable[[Endpoint], Endpoint]:
    """A browser step answered with an HTML page at the route's status, or with a 302 redirect."""
    return _declare(Answer(content={"text/html": TEXT}, description=page,
                           others={302: {"description": redirect, "headers": _location(redirect)}}))


def route_options(endpoint: Callable[..., Any], status_code: int, failures: Mapping[str, dict[str, Any]]
                  ) -> dict[str, Any]:
    """`add_api_route` keywords: the failures every route may answer (in place of FastAPI's 422, which this
    service never sends), and the answer the handler declared, if it did."""
    answer: Answer | None = getattr(endpoint, _ATTRIBUTE, None)
    if answer is None:
        return {"responses": dict(failures)}
    own: dict[str, Any] = {}
    if answer.model is not None:
        own["model"] = answer.model
    if answer.content:
        own["content"] = {media: dict(spec) for media, spec in answer.content.items()}
    if answer.description:
        own["description"] = answer.description
    if answer.headers:
        own["headers"] = dict(answer.headers)
    options: dict[str, Any] = {"responses": {status_code: own, **answer.others, **failures}}
    if answer.model is None:
        options["response_class"] = Response
    return options
