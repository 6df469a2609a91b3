"""What the Cypher engine raises. The HTTP layer maps every one of them to a 400 with the message."""

from __future__ import annotations

import psycopg

# Reference messages (reference/behaviour.md §1); clients match on them.
UPDATING_NOT_SUPPORTED = "updating clauses are not supported"
PROCEDURES_NOT_SUPPORTED = "procedure invocation is not supported"
PARAMETERS_NOT_SUPPORTED = "user-specified parameters are not supported"
TOO_COMPLEX = "cypher query is too complex and is likely to result in poor or unstable database performance"


class CypherError(Exception):
    """A query we refuse to run; `message` is safe to show to the caller."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CypherSyntaxError(CypherError):
    """The text is not Cypher: `line L:C <parser message>`."""


class UnsupportedCypher(CypherError):
    """Valid Cypher that this engine does not run; the message names the construct."""

    def __init__(self, construct: str) -> None:
        super().__init__(f"{construct} is not supported")
        self.construct = construct


class CypherSemanticError(CypherError):
    """Well-formed but meaningless: an unbound variable, a clause in the wrong place."""


class MutationNotAllowed(CypherError):
    def __init__(self) -> None:
        super().__init__(UPDATING_NOT_SUPPORTED)


class QueryTooComplex(CypherError):
    def __init__(self) -> None:
        super().__init__(TOO_COMPLEX)


# The SQLSTATE the hg_* helpers of helpers.sql raise for an error of Cypher's found while the query runs
# (`toBoolean([])`: Neo4j's TypeError InvalidArgumentValue): their message is written for the user.
RUNTIME_ERROR_STATE = "HG001"


def runtime_error_message(error: BaseException) -> str | None:
    """The message of a Cypher error the statement raised (RUNTIME_ERROR_STATE), or None."""
    current: BaseException | None = error
    while current is not None:
        if isinstance(current, psycopg.Error) and current.sqlstate == RUNTIME_ERROR_STATE and current.diag:
            return current.diag.message_primary
        current = getattr(current, "orig", None) or current.__cause__
    return None
