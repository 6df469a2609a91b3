"""Alembic configuration built in code, so migrations run from `houndgraph serve` with no alembic.ini."""

from __future__ import annotations

from pathlib import Path

from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config
