from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import typer
from rich.console import Console
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth import passwords
from houndgraph.auth.passwords import random_password
from houndgraph.auth.permissions import ROLE_ADMINISTRATOR, ROLE_POWER_USER, ROLE_READ_ONLY, ROLE_UPLOAD_ONLY, ROLE_USER
from houndgraph.db import Database
from houndgraph.errors import ServiceError
from houndgraph.settings import InsecureSettingError, Settings
from houndgraph.user import service as user_service
from houndgraph.user.schemas import UserCreate

app = typer.Typer(help="Users: create them, reset their passwords, disable them.", no_args_is_help=True)
console = Console(stderr=True)
ROLES = (ROLE_ADMINISTRATOR, ROLE_POWER_USER, ROLE_USER, ROLE_READ_ONLY, ROLE_UPLOAD_ONLY)
T = TypeVar("T")


async def _in_transaction(action: Callable[[AsyncSession], Awaitable[T]]) -> T:
    """One transaction on the service's database (started, or attached to, as `serve` would), through the
    same user service the API calls: the CLI follows the API's rules."""
    settings = Settings()
    passwords.configure(settings)
    database = Database.open(settings)
    try:
        database.migrate()
        async with database.session() as session:
            return await action(session)
    finally:
        await database.dispose()
        database.close()


def _run(action: Callable[[AsyncSession], Awaitable[T]]) -> T:
    try:
        return asyncio.run(_in_transaction(action))
    except (ServiceError, InsecureSettingError) as error:
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

    async def action(session: AsyncSession) -> None:
        user_service.check_secret_strength(password)
        data = UserCreate(principal=principal, email_address=email or "", first_name=first_name or "",
                          last_name=last_name or "", roles=[await user_service.role_id(session, role)],
                          secret=password, needs_password_reset=must)
        await user_service.create(session, data)

    _run(action)
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

    async def action(session: AsyncSession) -> None:
        user = await user_service.by_principal(session, principal)
        await user_service.reset_secret(session, user, password, must)

    _run(action)
    console.print(f"password of {principal!r} changed")
    if generate_password:
        _show_generated(principal, password)


@app.command("disable")
def disable(principal: str = typer.Argument(..., help="The login name.")) -> None:
    """Disable a user: their sessions end and their API tokens stop working at once."""

    async def action(session: AsyncSession) -> None:
        await user_service.disable(session, await user_service.by_principal(session, principal))

    _run(action)
    console.print(f"user {principal!r} disabled")
