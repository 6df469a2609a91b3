"""Validation of a parameter value against its catalogue schema (reference/behaviour.md §6).

The order and the messages follow the reference: a non-empty object, exactly the schema's fields,
then the type and validators of each field. Every problem is reported, joined into one message.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import isodate
from dateutil.rrule import rrulestr

from houndgraph.config.parameters import (
    Boolean,
    Duration,
    FieldType,
    Integer,
    ParameterKey,
    ParameterSpec,
    RRule,
    Text,
)
from houndgraph.errors import BadRequest

MISSING_VALUE = "missing or invalid property: value"
INVALID_FIELD = "value property contains an invalid field"
INVALID_RRULE = "invalid rrule specified"
RRULE_REQUIRED = "rrule is required when scheduled analysis is enabled"


def duration_to_timedelta(text: str) -> timedelta:
    """An ISO-8601 duration as a timedelta; years and months count from now (P1M is not a fixed length)."""
    duration = isodate.parse_duration(text)
    if isinstance(duration, timedelta):
        return duration
    return duration.totimedelta(start=datetime.now(UTC))


def _type_error(name: str, expected: str) -> str:
    return f"invalid type for value property {name}: expected {expected}"


def _check_integer(name: str, field: Integer, raw: Any) -> str | None:
    # bool is an int in Python but not in JSON: `true` is no batch size.
    if isinstance(raw, bool) or not isinstance(raw, int):
        return _type_error(name, "an integer")
    if field.minimum is not None and field.maximum is not None and not field.minimum <= raw <= field.maximum:
        return f"{name} must be between {field.minimum} and {field.maximum}"
    if field.minimum is not None and raw < field.minimum:
        return f"{name} must be at least {field.minimum}"
    if field.maximum is not None and raw > field.maximum:
        return f"{name} must be at most {field.maximum}"
    return None


def _check_duration(name: str, field: Duration, raw: Any) -> str | None:
    if not isinstance(raw, str):
        return f"missing or invalid {name}"
    try:
        value = duration_to_timedelta(raw)
    except (isodate.ISO8601Error, ValueError, OverflowError):
        return f"missing or invalid {name}"
    low = duration_to_timedelta(field.minimum) if field.minimum else None
    high = duration_to_timedelta(field.maximum) if field.maximum else None
    if (low is not None and value < low) or (high is not None and value > high):
        if field.minimum and field.maximum:
            return f"{name} must be between {field.minimum} and {field.maximum}"
        if field.minimum:
            return f"{name} must be at least {field.minimum}"
        return f"{name} must be at most {field.maximum}"
    return None


def _check_rrule(name: str, raw: Any) -> str | None:
    if not isinstance(raw, str):
        return _type_error(name, "a string")
    if raw == "":
        return None
    # dateutil also accepts a bare EXDATE/RDATE set; a schedule needs a recurrence, whose FREQ is mandatory.
    if "FREQ=" not in raw.upper():
        return INVALID_RRULE
    try:
        rrulestr(raw)
    except (ValueError, TypeError, OverflowError):
        return INVALID_RRULE
    return None


def _check_field(name: str, field: FieldType, raw: Any) -> str | None:
    match field:
        case Boolean():
            return None if isinstance(raw, bool) else _type_error(name, "a boolean")
        case Text():
            return None if isinstance(raw, str) else _type_error(name, "a string")
        case Integer():
            return _check_integer(name, field, raw)
        case Duration():
            return _check_duration(name, field, raw)
        case RRule():
            return _check_rrule(name, raw)


def validate_value(spec: ParameterSpec, value: Any) -> dict[str, Any]:
    """The value, checked; raises BadRequest with the reference message otherwise."""
    if not isinstance(value, dict) or not value:
        raise BadRequest(MISSING_VALUE)
    if set(value) != set(spec.fields):
        raise BadRequest(INVALID_FIELD)
    problems = [problem for name, field in spec.fields.items()
                if (problem := _check_field(name, field, value[name])) is not None]
    if (not problems and spec.key == ParameterKey.SCHEDULED_ANALYSIS
            and value["enabled"] and value["rrule"] == ""):
        problems.append(RRULE_REQUIRED)
    if problems:
        raise BadRequest("; ".join(problems))
    return value
