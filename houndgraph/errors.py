"""The one error tree. Every failure the API reports is one of these, rendered by `app.py`."""

from __future__ import annotations

from http import HTTPStatus

# Reference messages clients match on (reference/behaviour.md §16).
RESOURCE_NOT_FOUND = "resource not found"
ID_MALFORMED = "id is malformed"
INTERNAL_ERROR = "an internal error has occurred that is preventing the service from servicing this request"
REQUEST_TIMED_OUT = "request timed out"
JSON_UNMARSHAL = "error unmarshalling JSON payload"
NOT_AUTHENTICATED = "not authenticated"
NOT_AUTHORIZED = "not authorized"
FORBIDDEN = "Forbidden"
BAD_FILTERS = "there are errors in the query parameter filters specified"
NOT_FILTERABLE = "the specified column cannot be filtered"
PREDICATE_NOT_SUPPORTED = "the specified filter predicate is not supported for this column"
NOT_SORTABLE = "column format does not support sorting"
METHOD_NOT_ALLOWED = "method not allowed"


class ServiceError(Exception):
    status: int = HTTPStatus.INTERNAL_SERVER_ERROR
    default_message: str = INTERNAL_ERROR

    def __init__(self, message: str | None = None, *, messages: list[str] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        self.messages = messages or [message or self.default_message]
        self.headers = headers or {}
        super().__init__("; ".join(self.messages))

    @property
    def message(self) -> str:
        return self.messages[0]


class BadRequest(ServiceError):
    status = HTTPStatus.BAD_REQUEST
    default_message = "bad request"


class Unauthorized(ServiceError):
    status = HTTPStatus.UNAUTHORIZED
    default_message = NOT_AUTHENTICATED


class Forbidden(ServiceError):
    status = HTTPStatus.FORBIDDEN
    default_message = FORBIDDEN


class NotFound(ServiceError):
    status = HTTPStatus.NOT_FOUND
    default_message = RESOURCE_NOT_FOUND


class MethodNotAllowed(ServiceError):
    status = HTTPStatus.METHOD_NOT_ALLOWED
    default_message = METHOD_NOT_ALLOWED


class Conflict(ServiceError):
    status = HTTPStatus.CONFLICT
    default_message = "unique constraint was violated"


class PayloadTooLarge(ServiceError):
    status = HTTPStatus.REQUEST_ENTITY_TOO_LARGE
    default_message = "request body is too large"


class UnsupportedMediaType(ServiceError):
    status = HTTPStatus.UNSUPPORTED_MEDIA_TYPE
    default_message = "unsupported content type"


class TooManyRequests(ServiceError):
    status = HTTPStatus.TOO_MANY_REQUESTS
    default_message = "too many requests"


class ResponseTooLarge(ServiceError):
    """An answer larger than the service sends (rows or bytes): the query should be narrowed."""

    status = HTTPStatus.BAD_REQUEST
    default_message = "the response is too large: narrow the query"


class InternalError(ServiceError):
    status = HTTPStatus.INTERNAL_SERVER_ERROR
    default_message = INTERNAL_ERROR


class RequestTimedOut(ServiceError):
    """The request's database work passed its `Prefer: wait` deadline."""

    status = HTTPStatus.INTERNAL_SERVER_ERROR
    default_message = REQUEST_TIMED_OUT


DATABASE_UNREACHABLE = "the database is unreachable"


class ServiceUnavailable(ServiceError):
    status = HTTPStatus.SERVICE_UNAVAILABLE
    default_message = "the service is unavailable"
