"""Feature flags (`/api/v2/features`). The table is the source of truth; migration 0004 seeds it."""
