from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import typer
from rich.console import Console
from sqlalchemy.orm import Session

from houndgraph.auth import passwords
from houndgraph.auth.passwords import random_password
from houndgraph.auth.permissions import ROLE_ADMINISTRATOR, ROLE_POWER_USER, ROLE_READ_ONLY, ROLE_UPLOAD_ONLY, ROLE_USER
from houndgraph.db import Database
from houndgraph.settings import InsecureSettingError, Settings
from houndgraph.user import commands
from houndgraph.user.commands import UserCommandError

app = typer.Typer(help="Users: create them, reset their passwords, disable them.", no_args_is_help=True)
console = Console(stderr=True)
ROLES = (ROLE_ADMINISTRATOR, ROLE_POWER_USER, ROLE_USER, ROLE_READ_ONLY, ROLE_UPLOAD_ONLY)
T = TypeVar("T")


@contextmanager
def _session() -> Iterator[Session]:
    """One transaction on the service's database (started, or attached to, as `serve` would)."""
    settings = Settings()
    passwords.configure(settings)
    database = Database.open(settings)
    try:
        database.migrate()
        with Session(database.sync_engine) as session, session.begin():
            yield session
    finally:
        database.close()


def _run(action: Callable[[Session], T]) -> T:
    try:
        with _session() as session:
            return action(session)
    except (UserCommandError, InsecureSettingError) as error:
        console.print(f"[bold red]Error:[/] {error}")
        raise typer.Exit(1) from None


def _password(generate: bool) -> str:
    if generate:
        return random_password()
    return typer.prompt("Password", hide_input=True, confirmation_prompt=True)


def _show_generated(principal: str, password: str) -> None:
    # Printed once, on stdout, so it can be piped; it is stored only as a digest.
    console.print(f"password for {principal!r} (shown once):")
    typer.echo(password)


@app.command("create")
def create(
    principal: str = typer.Argument(..., help="The login name."),
    role: str = typer.Option(ROLE_USER, help=f"One of: {', '.join(ROLES)}."),
    email: str | None = typer.Option(None, help="Email address (unique)."),
    first_name: str | None = typer.Option(None, help="First name."),
    last_name: str | None = typer.Option(None, help="Last name."),
    generate_password: bool = typer.Option(False, "--generate-password", help="Generate a password and print it."),
    must_change: bool | None = typer.Option(None, help="Require a new password at first login "
                                                       "(default: only for a generated password)."),
) -> None:
    """Create a user; the password is prompted for (hidden, twice) or generated."""
    password = _password(generate_password)
    must = generate_password if must_change is None else must_change
    _run(lambda session: commands.create_user(session, principal, password, role=role, email=email,
                                              first_name=first_name, last_name=last_name, must_change=must))
    console.print(f"created user {principal!r} with role {role!r}")
    if generate_password:
        _show_generated(principal, password)


@app.command("reset-password")
def reset_password(
    principal: str = typer.Argument(..., help="The login name."),
    generate_password: bool = typer.Option(False, "--generate-password", help="Generate a password and print it."),
    must_change: bool | None = typer.Option(None, help="Require a new password at next login "
                                                       "(default: only for a generated password)."),
) -> None:
    """Set a user's password; the password is prompted for (hidden, twice) or generated."""
    password = _password(generate_password)
    must = generate_password if must_change is None else must_change
    _run(lambda session: commands.reset_password(session, principal, password, must_change=must))
    console.print(f"password of {principal!r} changed")
    if generate_password:
        _show_generated(principal, password)


@app.command("disable")
def disable(principal: str = typer.Argument(..., help="The login name.")) -> None:
    """Disable a user: their sessions end and their API tokens stop working at once."""
    _run(lambda session: commands.disable_user(session, principal))
    console.print(f"user {principal!r} disabled")
