"""Signing in: login, logout, the caller's own view (`/self`) and multi-factor authentication."""
