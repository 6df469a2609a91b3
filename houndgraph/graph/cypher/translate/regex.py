"""Java regular expressions (what Neo4j's =~ takes) as PostgreSQL regular expressions."""

from __future__ import annotations

import re

from houndgraph.graph.cypher.errors import CypherError, UnsupportedCypher

_LEADING_FLAGS = re.compile(r"^\(\?([a-zA-Z]+)\)")
# Java-only syntax that PostgreSQL's engine would read differently or reject.
_UNSUPPORTED = (
    (re.compile(r"(?<!\\)(\*|\+|\?|\})\+"), "possessive quantifiers in =~"),
    (re.compile(r"\(\?<[A-Za-z]"), "named groups in =~"),
    (re.compile(r"\\[pP]\{"), "unicode classes in =~"),
    (re.compile(r"\\[QEAzZGhHvVRX]"), "Java-only escapes in =~"),
)


def java_to_postgres(pattern: str) -> tuple[str, bool]:
    """The PostgreSQL pattern matching the whole string as Java's matches() does, and whether the
    match ignores case. Raises for the constructs whose meaning would change."""
    case_insensitive = False
    match = _LEADING_FLAGS.match(pattern)
    if match:
        for flag in match.group(1):
            if flag == "i":
                case_insensitive = True
            elif flag in "su":
                # PostgreSQL's `.` matches newlines unless told otherwise (what (?s) asks); (?u) only
                # widens case folding, which PostgreSQL already does for non-ASCII letters.
                continue
            else:
                raise UnsupportedCypher(f"the regular expression flag (?{flag})")
        pattern = pattern[match.end():]
    if "(?" in pattern.replace("(?:", "").replace("(?=", "").replace("(?!", "").replace("(?<=", "") \
            .replace("(?<!", ""):
        raise UnsupportedCypher("inline flags after the start of a regular expression")
    for check, what in _UNSUPPORTED:
        if check.search(pattern):
            raise UnsupportedCypher(what)
    try:
        re.compile(pattern)
    except re.error as error:
        raise CypherError(f"invalid regular expression: {error}") from error
    return f"^(?:{pattern})$", case_insensitive
