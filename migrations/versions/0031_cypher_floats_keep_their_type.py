"""Cypher floats keep their type: a float with no fractional part is written with one (`2.0`, not `2`)

A Cypher value is jsonb, where a number with a scale is a float and one without an integer (hg_is_int). A
float8 result turned to jsonb loses the scale of a whole number: `toFloat(1)`, `4 ^ 0.5`, `avg([1, 3])`
and `6 / 3.0` answered integers. hg_float writes such a float as numeric with one decimal; the other
bodies are those of migrations 0006 and 0027, calling it.

Revision ID: 0031
Revises: 0030
"""

from alembic import op

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None

NUMBER = r"'^\s*[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$'"

FUNCTIONS = rf"""
CREATE OR REPLACE FUNCTION hg_float(f float8) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT CASE WHEN f = trunc(f) THEN to_jsonb(round(f::numeric, 1)) ELSE to_jsonb(f) END $$;

CREATE OR REPLACE FUNCTION hg_arith(op text, a jsonb, b jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE
PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(a) = 'number' AND jsonb_typeof(b) = 'number' THEN CASE op
    WHEN '-' THEN to_jsonb(a::numeric - b::numeric)
    WHEN '*' THEN to_jsonb(a::numeric * b::numeric)
    WHEN '/' THEN CASE WHEN b::numeric = 0 THEN NULL
                       WHEN hg_is_int(a) AND hg_is_int(b) THEN to_jsonb(trunc(a::numeric / b::numeric))
                       ELSE hg_float((a::numeric / b::numeric)::float8) END
    WHEN 'mod' THEN CASE WHEN b::numeric = 0 THEN NULL ELSE to_jsonb(mod(a::numeric, b::numeric)) END
    WHEN '^' THEN hg_float(power(a::float8, b::float8))
   END END $$;

CREATE OR REPLACE FUNCTION hg_to_float(a jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS
$$ BEGIN RETURN CASE jsonb_typeof(a)
    WHEN 'number' THEN hg_float(a::float8)
    WHEN 'string' THEN CASE WHEN (a #>> '{{}}') ~ {NUMBER} THEN hg_float((a #>> '{{}}')::float8) END
   END; END $$;
"""

PREVIOUS = rf"""
DROP FUNCTION hg_float(float8);
CREATE OR REPLACE FUNCTION hg_arith(op text, a jsonb, b jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE
PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(a) = 'number' AND jsonb_typeof(b) = 'number' THEN CASE op
    WHEN '-' THEN to_jsonb(a::numeric - b::numeric)
    WHEN '*' THEN to_jsonb(a::numeric * b::numeric)
    WHEN '/' THEN CASE WHEN b::numeric = 0 THEN NULL
                       WHEN hg_is_int(a) AND hg_is_int(b) THEN to_jsonb(trunc(a::numeric / b::numeric))
                       ELSE to_jsonb((a::numeric / b::numeric)::float8) END
    WHEN 'mod' THEN CASE WHEN b::numeric = 0 THEN NULL ELSE to_jsonb(mod(a::numeric, b::numeric)) END
    WHEN '^' THEN to_jsonb(power(a::float8, b::float8))
   END END $$;

CREATE OR REPLACE FUNCTION hg_to_float(a jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS
$$ BEGIN RETURN CASE jsonb_typeof(a)
    WHEN 'number' THEN to_jsonb(a::float8)
    WHEN 'string' THEN CASE WHEN (a #>> '{{}}') ~ {NUMBER} THEN to_jsonb((a #>> '{{}}')::float8) END
   END; END $$;
"""


def upgrade() -> None:
    op.execute(FUNCTIONS)


def downgrade() -> None:
    op.execute(PREVIOUS)
