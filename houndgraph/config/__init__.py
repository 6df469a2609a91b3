"""Application configuration parameters (`/api/v2/config`) and feature flags (`/api/v2/features`)."""
