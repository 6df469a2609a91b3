"""Application configuration parameters (`/api/v2/config`); feature flags live in `feature_flag`.

Deviation from the reference (reference/behaviour.md §6): `auth.session_ttl_hours` is settable with
`PUT /api/v2/config` (`{"hours": 1..720}`), because issue #2 asks that an operator can change the
lifetime of new sessions; the reference keeps it protected. Sessions already issued keep their expiry.
"""
