"""Multi-factor authentication (TOTP): enrol, activate with a first code, log in with a code, deactivate."""

from __future__ import annotations

import httpx
import pyotp

from tests.factories import PASSWORD, create_user, user_with_role
from tests.user.helpers import assert_error


def login(client: httpx.Client, principal: str, **otp: str) -> httpx.Response:
    return client.post("/api/v2/login", json={"login_method": "secret", "username": principal,
                                              "secret": PASSWORD, **otp})


def test_the_whole_mfa_story(admin: httpx.Client) -> None:
    user, headers = user_with_role(admin, "User")
    base = f"/api/v2/bloodhound-users/{user['id']}"
    assert admin.get(f"{base}/mfa-activation", headers=headers).json()["data"] == {"status": "deactivated"}
    assert_error(admin.post(f"{base}/mfa", json={"secret": "wrong"}, headers=headers), 400,
                 "unable to verify current password")
    assert_error(admin.post(f"{base}/mfa-activation", json={"otp": "123456"}, headers=headers), 400,
                 "multi-factor authentication enrollment is required before activation")

    enrolled = admin.post(f"{base}/mfa", json={"secret": PASSWORD}, headers=headers)
    assert enrolled.status_code == 200, enrolled.text
    data = enrolled.json()["data"]
    assert data["qr_code"].startswith("data:image/png;base64,") and len(data["totp_secret"]) >= 16
    totp = pyotp.TOTP(data["totp_secret"])
    assert admin.get(f"{base}/mfa-activation", headers=headers).json()["data"] == {"status": "pending"}
    assert login(admin, user["principal_name"]).status_code == 200, "not asked for before activation"

    wrong = str((int(totp.now()) + 500000) % 1000000).zfill(6)
    assert_error(admin.post(f"{base}/mfa-activation", json={"otp": wrong}, headers=headers), 400,
                 "one time password is invalid")
    activated = admin.post(f"{base}/mfa-activation", json={"otp": totp.now()}, headers=headers)
    assert activated.status_code == 200 and activated.json()["data"] == {"status": "activated"}
    assert_error(admin.post(f"{base}/mfa", json={"secret": PASSWORD}, headers=headers), 400,
                 "multi-factor authentication already active")

    assert_error(login(admin, user["principal_name"]), 400, "one time password is invalid")
    assert_error(login(admin, user["principal_name"], otp=wrong), 400, "one time password is invalid")
    code = totp.now()
    signed_in = login(admin, user["principal_name"], otp=code)
    assert signed_in.status_code == 200 and signed_in.json()["data"]["session_token"]
    # A code is good once: one seen over a shoulder or in a proxy log is spent.
    assert_error(login(admin, user["principal_name"], otp=code), 400, "one time password is invalid")

    assert_error(admin.request("DELETE", f"{base}/mfa", json={"secret": "wrong"}, headers=headers), 400,
                 "unable to verify current password")
    removed = admin.request("DELETE", f"{base}/mfa", json={"secret": PASSWORD}, headers=headers)
    assert removed.status_code == 200 and removed.json()["data"] == {"status": "deactivated"}
    assert login(admin, user["principal_name"]).status_code == 200


def test_only_an_administrator_acts_on_someone_elses_mfa(admin: httpx.Client) -> None:
    other = create_user(admin)
    _, headers = user_with_role(admin, "User")
    base = f"/api/v2/bloodhound-users/{other['id']}"
    assert_error(admin.get(f"{base}/mfa-activation", headers=headers), 403)
    assert_error(admin.post(f"{base}/mfa", json={"secret": PASSWORD}, headers=headers), 403)
    assert_error(admin.request("DELETE", f"{base}/mfa", json={"secret": PASSWORD}, headers=headers), 403,
                 "must be an admin to disable MFA for another user")
    assert admin.get(f"{base}/mfa-activation").json()["data"] == {"status": "deactivated"}
