"""Authentication: password logins with server-side sessions (JWT), and HMAC-signed requests."""
