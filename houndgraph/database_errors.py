"""What a database error means for the caller: the connection is gone, the statement was cancelled (its timeout or
the request's deadline), or PostgreSQL refused the values or the statement a request held (a message safe to
show; the driver's own text never is)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import psycopg
from sqlalchemy.exc import DBAPIError, PendingRollbackError

# SQLAlchemy's code for "Can't reconnect until invalid transaction is rolled back": the session's connection was
# invalidated, which it does on a lost connection, by a statement whose error the caller did not see.
INVALIDATED_TRANSACTION = "8s2b"


def connection_lost(error: BaseException) -> bool:
    """Whether `error` says the connection to the server is gone (the server stopped, restarted, or ended the
    backend), rather than that a statement failed; a cancelled statement is not a lost connection."""
    for cause in _causes(error):
        if isinstance(cause, DBAPIError) and cause.connection_invalidated:
            return True
        if isinstance(cause, psycopg.OperationalError) and not isinstance(cause, psycopg.errors.QueryCanceled):
            return True
        if isinstance(cause, PendingRollbackError) and cause.code == INVALIDATED_TRANSACTION:
            return True
    return False


def is_query_canceled(error: BaseException) -> bool:
    """True when PostgreSQL cancelled the statement: its timeout passed, or the request's deadline
    cancelled it."""
    return any(isinstance(cause, psycopg.errors.QueryCanceled) for cause in _causes(error))


def data_error_message(error: BaseException) -> str | None:
    """A message safe to show for an error caused by the values in a request (SQLSTATE class 22: a number
    out of range, a NUL character, a division by zero), or None for any other error. The driver's own
    text is never shown: it can quote internals."""
    for cause in _causes(error):
        if isinstance(cause, psycopg.DataError):
            words = re.sub(r"(?<!^)(?=[A-Z])", " ", type(cause).__name__).lower()
            return f"the request holds a value the database cannot take ({words})"
    return None


# SQLSTATE classes of a statement PostgreSQL refuses for what the statement says, whatever the server's state:
# 21 cardinality violation (a subquery giving several rows), 42 syntax error or access rule violation (a
# grouping error, no operator for the operand types), 54 program limit exceeded (a value too large to build).
REFUSED_STATEMENT_CLASSES = ("21", "42", "54")


def refused_statement_message(error: BaseException) -> str | None:
    """A message safe to show when PostgreSQL refused the statement a user's query became (one of
    REFUSED_STATEMENT_CLASSES), or None. As with data errors, the driver's own text is never shown."""
    for cause in _causes(error):
        if isinstance(cause, psycopg.Error) and (cause.sqlstate or "")[:2] in REFUSED_STATEMENT_CLASSES:
            words = re.sub(r"(?<!^)(?=[A-Z])", " ", type(cause).__name__).lower()
            return f"the query cannot be run ({words})"
    return None


def _causes(error: BaseException) -> Iterator[BaseException]:
    """`error`, then what it wraps: SQLAlchemy's driver error (`orig`), else its `__cause__`, and so on."""
    current: BaseException | None = error
    while current is not None:
        yield current
        current = getattr(current, "orig", None) or current.__cause__
