"""The multipart forms of SAML provider creation and update, read with the reference's messages
(reference/behaviour.md §14).

The body is parsed as it streams in, through a byte cap: the metadata file may be at most 10 MiB, and a
larger upload is refused with a 400 that says so, before anything is stored.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Literal, overload

from starlette.datastructures import FormData, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from houndgraph.errors import BadRequest
from houndgraph.kit.body import iter_body
from houndgraph.sso.metadata import MAX_METADATA_BYTES, TOO_LARGE

FIELD_NAME = "name"
FIELD_METADATA = "metadata"
FIELD_ENABLED = "config.auto_provision.enabled"
FIELD_DEFAULT_ROLE = "config.auto_provision.default_role_id"
FIELD_ROLE_PROVISION = "config.auto_provision.role_provision"
# Room for the text fields and multipart framing next to a metadata file of the maximum size.
FORM_LIMIT = MAX_METADATA_BYTES + 1024 * 1024
NOT_MULTIPART = "request Content-Type isn't multipart/form-data"
# strconv.ParseBool's spellings, which the reference accepts.
TRUE_WORDS = frozenset({"1", "t", "T", "TRUE", "true", "True"})
FALSE_WORDS = frozenset({"0", "f", "F", "FALSE", "false", "False"})


async def _capped(request: Request) -> AsyncGenerator[bytes, None]:
    received = 0
    async for chunk in iter_body(request):
        received += len(chunk)
        if received > FORM_LIMIT:
            raise BadRequest(TOO_LARGE)
        yield chunk


async def read_form(request: Request) -> FormData:
    content_type = request.headers.get("content-type", "")
    if content_type.split(";", 1)[0].strip().lower() != "multipart/form-data":
        raise BadRequest(NOT_MULTIPART)
    parser = MultiPartParser(request.headers, _capped(request), max_files=8, max_fields=32,
                             max_part_size=64 * 1024)
    try:
        return await parser.parse()
    except MultiPartException as error:
        raise BadRequest(error.message) from None


def _values(form: FormData, field: str) -> list[str]:
    return [value for value in form.getlist(field) if isinstance(value, str)]


def text(form: FormData, field: str, *, required: bool) -> str | None:
    values = _values(form, field)
    if not values:
        if required:
            raise BadRequest(f'form is missing "{field}" parameter')
        return None
    if len(values) > 1:
        raise BadRequest(f'expected only one "{field}" parameter')
    return values[0]


@overload
def boolean(form: FormData, field: str, *, required: Literal[True]) -> bool: ...
@overload
def boolean(form: FormData, field: str, *, required: bool) -> bool | None: ...
def boolean(form: FormData, field: str, *, required: bool) -> bool | None:
    raw = text(form, field, required=required)
    if raw is None:
        return None
    if raw in TRUE_WORDS or raw in FALSE_WORDS:
        return raw in TRUE_WORDS
    raise BadRequest(f'"{field}" parameter could not be converted to bool')


@overload
def integer(form: FormData, field: str, *, required: Literal[True]) -> int: ...
@overload
def integer(form: FormData, field: str, *, required: bool) -> int | None: ...
def integer(form: FormData, field: str, *, required: bool) -> int | None:
    raw = text(form, field, required=required)
    if raw is None:
        return None
    try:
        value = int(raw.strip())
    except ValueError:
        raise BadRequest(f'"{field}" parameter could not be converted to int') from None
    if not -(2**31) <= value < 2**31:
        raise BadRequest(f'"{field}" parameter could not be converted to int')
    return value


async def metadata_file(form: FormData, *, required: bool) -> bytes | None:
    files = [value for value in form.getlist(FIELD_METADATA) if isinstance(value, UploadFile)]
    if not files:
        if required:
            raise BadRequest(f'form is missing "{FIELD_METADATA}" parameter')
        return None
    if len(files) > 1:
        raise BadRequest(f'expected only one "{FIELD_METADATA}" parameter')
    content = await files[0].read(MAX_METADATA_BYTES + 1)
    if len(content) > MAX_METADATA_BYTES:
        raise BadRequest(TOO_LARGE)
    return content


async def close(form: FormData) -> None:
    await form.close()
