from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, Field


class LoginRequest(BaseModel):
    login_method: Literal["secret"]
    username: str = Field(min_length=1, max_length=255)
    secret: str = Field(min_length=1, max_length=1024)
    # The one-time password, required once the user has activated multi-factor authentication.
    otp: str = Field(default="", max_length=16)


class LoginResponse(BaseModel):
    user_id: uuid.UUID
    auth_expired: bool
    session_token: str


class MFAEnrollmentRequest(BaseModel):
    secret: str = Field(default="", max_length=1024)


class MFAActivationRequest(BaseModel):
    otp: str = Field(default="", max_length=16)


class MFAEnrollmentView(BaseModel):
    qr_code: str
    totp_secret: str


class MFAStatusView(BaseModel):
    status: str
