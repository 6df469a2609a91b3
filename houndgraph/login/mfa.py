"""Multi-factor authentication with time-based one-time passwords (RFC 6238): enrol (a new shared secret
and its QR code), activate with a first code, check a code at login, deactivate. The reference's rules and
messages (cmd/api/src/api/v2/auth/auth.go)."""

from __future__ import annotations

import hmac
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

import pyotp
import segno
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth.context import AuthContext
from houndgraph.auth.passwords import verify_password
from houndgraph.auth.permissions import P
from houndgraph.errors import BadRequest, Forbidden
from houndgraph.models import AuthSecret
from houndgraph.user import repository
from houndgraph.user.service import get, may_manage

SSO_USER = "Invalid operation, user is SSO"
ALREADY_ACTIVE = "multi-factor authentication already active"
ENROLLMENT_REQUIRED = "multi-factor authentication enrollment is required before activation"
INVALID_CURRENT_PASSWORD = "unable to verify current password"
OTP_INVALID = "one time password is invalid"
ADMIN_REQUIRED = "must be an admin to disable MFA for another user"
# A code is accepted in the 30-second step before and after the current one (clock drift).
VALID_WINDOW = 1


class MFAStatus(StrEnum):
    ACTIVATED = "activated"
    PENDING = "pending"
    DEACTIVATED = "deactivated"


@dataclass(frozen=True)
class Enrollment:
    qr_code: str  # a data: URI of a PNG image
    totp_secret: str


def status_of(secret: AuthSecret | None) -> MFAStatus:
    if secret is None or not secret.totp_secret:
        return MFAStatus.DEACTIVATED
    return MFAStatus.ACTIVATED if secret.totp_activated else MFAStatus.PENDING


def code_is_valid(secret: AuthSecret, otp: str) -> bool:
    return code_step(secret, otp) is not None


def code_step(secret: AuthSecret, otp: str, now: datetime | None = None) -> int | None:
    """The time step `otp` is the code of (this one or a neighbour, for clock drift), or None."""
    if not secret.totp_secret or not otp:
        return None
    totp, moment = pyotp.TOTP(secret.totp_secret), now or datetime.now(UTC)
    current = totp.timecode(moment)
    for step in range(current - VALID_WINDOW, current + VALID_WINDOW + 1):
        if hmac.compare_digest(totp.generate_otp(step), otp):
            return step
    return None


async def _password(session: AsyncSession, user_id: uuid.UUID) -> AuthSecret:
    secret = await repository.secret_of(session, user_id)
    if secret is None:
        raise BadRequest(INVALID_CURRENT_PASSWORD)
    return secret


async def enroll(session: AsyncSession, auth: AuthContext, user_id: uuid.UUID, password: str,
                 issuer: str) -> Enrollment:
    may_manage(auth, user_id)
    user = await get(session, user_id)
    if user.sso_provider_id is not None:
        raise BadRequest(SSO_USER)
    secret = await _password(session, user.id)
    if secret.totp_activated:
        raise BadRequest(ALREADY_ACTIVE)
    if not verify_password(secret.digest, password):
        raise BadRequest(INVALID_CURRENT_PASSWORD)
    secret.totp_secret = pyotp.random_base32()
    await session.flush()
    uri = pyotp.TOTP(secret.totp_secret).provisioning_uri(name=user.principal_name, issuer_name=issuer)
    return Enrollment(qr_code=segno.make(uri, error="m").png_data_uri(scale=4), totp_secret=secret.totp_secret)


async def activate(session: AsyncSession, auth: AuthContext, user_id: uuid.UUID, otp: str) -> MFAStatus:
    may_manage(auth, user_id)
    user = await get(session, user_id)
    secret = await repository.secret_of(session, user.id)
    if secret is None or not secret.totp_secret:
        raise BadRequest(ENROLLMENT_REQUIRED)
    if not code_is_valid(secret, otp):
        raise BadRequest(OTP_INVALID)
    secret.totp_activated = True
    await session.flush()
    return MFAStatus.ACTIVATED


async def deactivate(session: AsyncSession, auth: AuthContext, user_id: uuid.UUID, password: str) -> MFAStatus:
    """Users confirm with their own password; an administrator removing someone else's confirms with theirs."""
    if user_id != auth.user_id and not auth.has(P.AUTH_MANAGE_USERS):
        raise Forbidden(ADMIN_REQUIRED)
    user = await get(session, user_id)
    caller = await get(session, auth.user_id)
    if caller.sso_provider_id is None:
        confirming = await repository.secret_of(session, caller.id)
        if confirming is None or not verify_password(confirming.digest, password):
            raise BadRequest(INVALID_CURRENT_PASSWORD)
    secret = await repository.secret_of(session, user.id)
    if secret is not None:
        secret.totp_secret, secret.totp_activated = None, False
        await session.flush()
    return MFAStatus.DEACTIVATED


async def status(session: AsyncSession, auth: AuthContext, user_id: uuid.UUID) -> MFAStatus:
    may_manage(auth, user_id)
    user = await get(session, user_id)
    return status_of(await repository.secret_of(session, user.id))


async def check_login_code(session: AsyncSession, user_id: uuid.UUID, otp: str) -> None:
    """At login, after the password: a user with activated MFA must also send a valid code."""
    secret = await repository.secret_of(session, user_id)
    if secret is None or not secret.totp_activated:
        return
    step = code_step(secret, otp)
    # Once used, a code (and any older one) is refused: one seen over a shoulder or in a proxy log is spent.
    if step is None or not await repository.use_totp_step(session, user_id, step):
        raise BadRequest(OTP_INVALID)
