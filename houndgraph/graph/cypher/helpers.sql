-- SQL helpers with Cypher's value semantics, called by the statements `translate/` writes.
--
-- The translator turns every scalar into jsonb. Cypher's operators are typed (1 + 'a' is a string, 1 < 'a' is
-- null, 7 / 2 is 3), which jsonb operators are not; these functions give the translated statement Cypher's
-- answers without the translator spelling out a CASE per operator.
--
-- Inlining: PostgreSQL inlines a SQL function into the calling statement only when it is not STRICT or its body
-- is strict too, and a CASE body is not. So the helpers that answer null for a null argument by their body alone
-- (every branch tests jsonb_typeof of the argument, which is null) are not STRICT and inline: a comparison
-- filter over 150k nodes took 1.7 s instead of 2.9 s, a CONTAINS filter 2.1 s instead of 5.9 s. hg_add stays
-- STRICT: its body builds `[x, null]` from a null argument. The conversions hg_to_integer and hg_to_float are
-- PL/pgSQL, which evaluates their body as a simple expression, 2-3x faster per call than the SQL function
-- executor a non-inlined SQL function runs through (object id parts converted in bulk, e.g. "users of the same
-- name in two domains").

-- A path is bigint[] alternating node and edge ids: [n0, e0, n1, ..., nk].
CREATE OR REPLACE FUNCTION hg_path_nodes(p bigint[]) RETURNS bigint[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT coalesce(array_agg(p[i] ORDER BY i), '{}') FROM generate_series(1, coalesce(array_length(p, 1), 0), 2) AS i $$;

CREATE OR REPLACE FUNCTION hg_path_edges(p bigint[]) RETURNS bigint[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT coalesce(array_agg(p[i] ORDER BY i), '{}') FROM generate_series(2, coalesce(array_length(p, 1), 0), 2) AS i $$;

-- Text of a scalar as Cypher's toString writes it.
CREATE OR REPLACE FUNCTION hg_str(a jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE jsonb_typeof(a) WHEN 'string' THEN a #>> '{}' WHEN 'null' THEN NULL
                               WHEN 'object' THEN coalesce(a ->> '~iso', a::text) ELSE a::text END $$;

-- A float8 turned to jsonb loses the scale of a whole number (`toFloat(1)` would read as the integer 1): hg_float
-- writes such a float as numeric with one decimal, so that it stays a float (hg_is_int reads the scale).
--
-- jsonb holds no NaN and no infinity, which Cypher's floats have (`0.0 / 0.0`, `1.0 / 0`): hg_float writes them as
-- a tagged object, as temporal values are (temporal/stored.py), whose `~iso` is the text the answer shows, as
-- Neo4j's HTTP API writes them: "NaN", "Infinity", "-Infinity". In Cypher's order NaN and Infinity come after
-- every number: they carry no order key (`~`), so they sort by themselves, and jsonb puts an object after every
-- number; -Infinity's order key, a string, puts it before every number (hg_order_key, hg_order_pick).
CREATE OR REPLACE FUNCTION hg_float(f float8) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT CASE WHEN f = 'NaN'::float8 THEN '{"~t": "Float", "~iso": "NaN"}'::jsonb
               WHEN f = 'Infinity'::float8 THEN '{"~t": "Float", "~iso": "Infinity"}'::jsonb
               WHEN f = '-Infinity'::float8 THEN '{"~": "", "~t": "Float", "~iso": "-Infinity"}'::jsonb
               WHEN f = trunc(f) THEN to_jsonb(round(f::numeric, 1)) ELSE to_jsonb(f) END $$;

-- A number, NaN or an infinity as numeric (which holds all three), for sums and numeric functions; null for any
-- other value. hg_float8 is the same as float8, for comparisons and float arithmetic; hg_from_numeric goes back.
CREATE OR REPLACE FUNCTION hg_numeric(a jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(a) = 'number' THEN a::numeric
               WHEN a ->> '~t' = 'Float' THEN (a ->> '~iso')::numeric END $$;

CREATE OR REPLACE FUNCTION hg_float8(a jsonb) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT hg_numeric(a)::float8 $$;

CREATE OR REPLACE FUNCTION hg_from_numeric(n numeric) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN n IN ('NaN', 'Infinity', '-Infinity') THEN hg_float(n::float8) ELSE to_jsonb(n) END $$;

CREATE OR REPLACE FUNCTION hg_is_nan(a jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT coalesce(a ->> '~t' = 'Float' AND a ->> '~iso' = 'NaN', false) $$;

-- Arithmetic of two floats as Java's doubles: a division by zero is NaN or an infinity, never an error.
CREATE OR REPLACE FUNCTION hg_float_arith(op text, x float8, y float8) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT
PARALLEL SAFE AS
$$ SELECT hg_float(CASE op
    WHEN '+' THEN x + y
    WHEN '-' THEN x - y
    WHEN '*' THEN x * y
    WHEN '/' THEN CASE WHEN y <> 0 THEN x / y WHEN x = 0 OR x = 'NaN' THEN 'NaN' WHEN x > 0 THEN 'Infinity'
                       ELSE '-Infinity' END
    WHEN 'mod' THEN CASE WHEN y = 0 OR x = 'NaN' OR y = 'NaN' OR x IN ('Infinity', '-Infinity') THEN 'NaN'
                         WHEN y IN ('Infinity', '-Infinity') THEN x ELSE x - trunc(x / y) * y END
    WHEN '^' THEN power(x, y) END) $$;

-- Two lists in Cypher's order: the first pair of elements that differs decides (null if either is null or
-- the two do not compare), else the shorter list comes first (`[1, 0] >= [1]`).
CREATE OR REPLACE FUNCTION hg_list_cmp(a jsonb, b jsonb) RETURNS int LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS
$$ DECLARE
    order_of_pair int;
BEGIN
    FOR i IN 0 .. least(jsonb_array_length(a), jsonb_array_length(b)) - 1 LOOP
        IF a -> i = 'null'::jsonb OR b -> i = 'null'::jsonb THEN
            RETURN NULL;
        END IF;
        order_of_pair := hg_cmp(a -> i, b -> i);
        IF order_of_pair IS NULL OR order_of_pair <> 0 THEN
            RETURN order_of_pair;
        END IF;
    END LOOP;
    RETURN sign(jsonb_array_length(a) - jsonb_array_length(b));
END $$;

-- hg_cmp where a side is an object: NaN or an infinity beside a number (hg_float), or two temporal values.
CREATE OR REPLACE FUNCTION hg_object_cmp(a jsonb, b jsonb) RETURNS int LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS
$$ DECLARE
    x float8 := hg_float8(a);
    y float8 := hg_float8(b);
BEGIN
    IF x IS NOT NULL AND y IS NOT NULL THEN
        RETURN CASE WHEN x = 'NaN' OR y = 'NaN' THEN 2 WHEN x < y THEN -1 WHEN x > y THEN 1 ELSE 0 END;
    ELSIF jsonb_typeof(a) = 'object' AND a -> '~t' = b -> '~t' AND a ->> '~t' <> 'Duration' THEN
        RETURN CASE WHEN a -> '~' < b -> '~' THEN -1 WHEN a -> '~' > b -> '~' THEN 1 ELSE 0 END;
    END IF;
    RETURN NULL;
END $$;

-- -1 / 0 / 1, or null when the values are not comparable (different types, maps, durations); 2 when they are
-- numbers and one is NaN, which is neither less, equal nor greater (`NaN >= 1` and `NaN < 1` are both false, so
-- the translator writes `>` as `= 1` and `>=` as `IN (0, 1)`). Temporal values (temporal/stored.sql) of one type
-- compare by their order key.
CREATE OR REPLACE FUNCTION hg_cmp(a jsonb, b jsonb) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(a) = jsonb_typeof(b) AND jsonb_typeof(a) IN ('number', 'string', 'boolean')
          THEN CASE WHEN a < b THEN -1 WHEN a > b THEN 1 ELSE 0 END
          WHEN jsonb_typeof(a) = 'array' AND jsonb_typeof(b) = 'array' THEN hg_list_cmp(a, b)
          WHEN jsonb_typeof(a) = 'object' OR jsonb_typeof(b) = 'object' THEN hg_object_cmp(a, b) END $$;

-- Cypher's `=` of two values, lists and maps compared element by element at any depth: lists of different sizes
-- (maps of different keys) differ; otherwise a pair of elements that differs decides false, else a null element
-- makes the answer null (jsonb's own `=` says [1, null] = [1, null], and [[2]] <> [[null]]).
CREATE OR REPLACE FUNCTION hg_equal(a jsonb, b jsonb) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS
$$ DECLARE
    verdict boolean := true;
    pair boolean;
    key text;
BEGIN
    IF a IS NULL OR b IS NULL OR a = 'null'::jsonb OR b = 'null'::jsonb THEN
        RETURN NULL;
    ELSIF a ->> '~t' = 'Float' OR b ->> '~t' = 'Float' THEN  -- NaN equals nothing, itself included
        RETURN coalesce(NOT hg_is_nan(a) AND hg_float8(a) = hg_float8(b), false);
    ELSIF jsonb_typeof(a) = 'array' AND jsonb_typeof(b) = 'array' THEN
        IF jsonb_array_length(a) <> jsonb_array_length(b) THEN
            RETURN false;
        END IF;
        FOR i IN 0 .. jsonb_array_length(a) - 1 LOOP
            pair := hg_equal(a -> i, b -> i);
            IF NOT pair THEN
                RETURN false;
            END IF;
            verdict := verdict AND pair;
        END LOOP;
        RETURN verdict;
    ELSIF jsonb_typeof(a) = 'object' AND jsonb_typeof(b) = 'object' THEN
        IF a ? '~t' THEN
            RETURN hg_temporal_equal(a, b);
        ELSIF NOT (a ?& ARRAY(SELECT jsonb_object_keys(b)) AND b ?& ARRAY(SELECT jsonb_object_keys(a))) THEN
            RETURN false;
        END IF;
        FOR key IN SELECT jsonb_object_keys(a) LOOP
            pair := hg_equal(a -> key, b -> key);
            IF NOT pair THEN
                RETURN false;
            END IF;
            verdict := verdict AND pair;
        END LOOP;
        RETURN verdict;
    END IF;
    RETURN a = b;
END $$;

-- ORDER BY, min() and max() sort values of any types in Cypher's order: maps, nodes, relationships, lists, paths,
-- the temporal types (datetime, localdatetime, date, time, localtime, duration), strings, booleans, numbers (NaN
-- and the infinities among them: hg_float), then null. jsonb's own order differs (it puts numbers before booleans
-- and strings first, and an array or an object after every scalar), so a value sorts by three keys:
-- hg_order_rank, the rank of its type; hg_order_key, null for a string, a number or a boolean, else a value that
-- jsonb orders as Cypher orders values of that type; then the value itself. Strings or numbers thus sort by
-- themselves as before, behind a rank that is the same for all of them, and the sort holds no second copy of each.
-- A node, relationship or path among other values is a tagged object (hg_node_value and its kin, below).
CREATE OR REPLACE FUNCTION hg_order_rank(a jsonb) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE jsonb_typeof(a) WHEN 'string' THEN 11 WHEN 'boolean' THEN 12 WHEN 'number' THEN 13 WHEN 'array' THEN 3
    WHEN 'object' THEN CASE a ->> '~t' WHEN 'Float' THEN 13 WHEN 'DateTime' THEN 5 WHEN 'LocalDateTime' THEN 6
                                       WHEN 'Date' THEN 7 WHEN 'Time' THEN 8 WHEN 'LocalTime' THEN 9
                                       WHEN 'Duration' THEN 10
                                       ELSE CASE WHEN a ? '~p' THEN 4 WHEN a ? '~r' THEN 2 WHEN a ? '~n' THEN 1
                                                 ELSE 0 END END
    WHEN 'null' THEN 14 END $$;

-- A list or a map as a value that jsonb orders as Cypher does. jsonb orders arrays by their length first, Cypher
-- element by element (a list that begins another comes first: [] < ['a'] < ['a', 1] < [1]). So the key of a
-- list is nested pairs, [key of the first element, key of the rest], ending in []: every array compared is of
-- length 2 or 0, and the elements decide. An element's key is [rank, key or value] (a null element sorts last).
-- A map is its entries in key order, each [key, rank, key or value], nested the same way.
CREATE OR REPLACE FUNCTION hg_order_nested(a jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS
$$ DECLARE
    key jsonb := '[]';
    item record;
BEGIN
    IF jsonb_typeof(a) = 'array' THEN
        FOR item IN SELECT e FROM jsonb_array_elements(a) WITH ORDINALITY AS t(e, i) ORDER BY i DESC LOOP
            key := jsonb_build_array(jsonb_build_array(hg_order_rank(item.e), coalesce(hg_order_key(item.e), item.e)),
                                     key);
        END LOOP;
    ELSE
        FOR item IN SELECT k, v FROM jsonb_each(a) AS t(k, v) ORDER BY k DESC LOOP
            key := jsonb_build_array(jsonb_build_array(item.k, hg_order_rank(item.v),
                                                       coalesce(hg_order_key(item.v), item.v)), key);
        END LOOP;
    END IF;
    RETURN key;
END $$;

-- Null for a scalar (it sorts as itself); a temporal value's order key (temporal/stored.sql); a list's or a map's
-- nested key.
CREATE OR REPLACE FUNCTION hg_order_key(a jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE jsonb_typeof(a) WHEN 'array' THEN hg_order_nested(a)
                               WHEN 'object' THEN CASE WHEN a ? '~t' THEN a -> '~' ELSE hg_order_nested(a) END END $$;

-- min() and max() of values of any types, in that order: hg_extreme(value, largest) is an aggregate whose state is
-- the least (greatest) value so far, so that it reads each value once and sorts nothing. Two scalars of one type
-- (the usual case: names, numbers, timestamps) compare as jsonb does, without the order key.
CREATE OR REPLACE FUNCTION hg_order_pick(a jsonb, b jsonb, largest boolean) RETURNS jsonb LANGUAGE plpgsql
IMMUTABLE PARALLEL SAFE AS
$$ BEGIN
    IF b IS NULL OR b = 'null'::jsonb THEN
        RETURN a;
    ELSIF a IS NULL THEN
        RETURN b;
    ELSIF jsonb_typeof(a) = jsonb_typeof(b) AND jsonb_typeof(a) IN ('string', 'number', 'boolean') THEN
        RETURN CASE WHEN CASE WHEN largest THEN b > a ELSE b < a END THEN b ELSE a END;
    END IF;
    RETURN CASE WHEN CASE WHEN largest THEN (hg_order_rank(b), coalesce(hg_order_key(b), b)) > (hg_order_rank(a), coalesce(hg_order_key(a), a))
                          ELSE (hg_order_rank(b), coalesce(hg_order_key(b), b)) < (hg_order_rank(a), coalesce(hg_order_key(a), a)) END
                THEN b ELSE a END;
END $$;

CREATE OR REPLACE AGGREGATE hg_extreme(jsonb, boolean) (SFUNC = hg_order_pick, STYPE = jsonb, PARALLEL = SAFE);

-- m.key of a map, or the component `key` of a temporal value (`n.d.days`, `n.t.epochSeconds`: any case).
CREATE OR REPLACE FUNCTION hg_member(m jsonb, key text) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT nullif(CASE WHEN jsonb_typeof(m) = 'object' AND m ? '~t' THEN m -> '~c' -> lower(key) ELSE m -> key END,
                 'null'::jsonb) $$;

CREATE OR REPLACE FUNCTION hg_bool(a jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN a = 'true'::jsonb THEN true WHEN a = 'false'::jsonb THEN false END $$;

CREATE OR REPLACE FUNCTION hg_is_int(a jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT jsonb_typeof(a) = 'number' AND scale(a::numeric) = 0 $$;

-- A sum, difference or product of two numbers: an integer past 64 bits is Neo4j's overflow error (a float, of
-- non-zero scale, is no integer).
CREATE OR REPLACE FUNCTION hg_number(n numeric) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN scale(n) = 0 AND (n > 9223372036854775807 OR n < -9223372036854775808)
               THEN hg_runtime_error('long overflow (ArithmeticError)', to_jsonb(n)) ELSE to_jsonb(n) END $$;

CREATE OR REPLACE FUNCTION hg_add(a jsonb, b jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT CASE
    WHEN jsonb_typeof(a) = 'number' AND jsonb_typeof(b) = 'number' THEN hg_number(a::numeric + b::numeric)
    WHEN jsonb_typeof(a) = 'array' AND jsonb_typeof(b) = 'array' THEN a || b
    WHEN jsonb_typeof(a) = 'array' THEN a || jsonb_build_array(b)
    WHEN jsonb_typeof(b) = 'array' THEN jsonb_build_array(a) || b
    WHEN jsonb_typeof(a) = 'object' OR jsonb_typeof(b) = 'object' THEN CASE
        WHEN hg_float8(a) IS NOT NULL AND hg_float8(b) IS NOT NULL THEN hg_float_arith('+', hg_float8(a), hg_float8(b))
        WHEN a ->> '~t' = 'Float' OR b ->> '~t' = 'Float' THEN to_jsonb(hg_str(a) || hg_str(b))
        ELSE hg_temporal_arith('+', a, b) END
    WHEN jsonb_typeof(a) = 'string' OR jsonb_typeof(b) = 'string' THEN to_jsonb(hg_str(a) || hg_str(b))
   END $$;

-- An integer divided by zero is Neo4j's ArithmeticError; a float divided by zero NaN or an infinity (hg_float_arith).
CREATE OR REPLACE FUNCTION hg_arith(op text, a jsonb, b jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(a) = 'number' AND jsonb_typeof(b) = 'number' THEN CASE op
    WHEN '-' THEN hg_number(a::numeric - b::numeric)
    WHEN '*' THEN hg_number(a::numeric * b::numeric)
    WHEN '/' THEN CASE WHEN b::numeric = 0 AND hg_is_int(a) AND hg_is_int(b) THEN hg_runtime_error('/ by zero (ArithmeticError)', jsonb_build_array(a, b))
                       WHEN b::numeric = 0 THEN hg_float_arith('/', a::float8, 0)
                       WHEN hg_is_int(a) AND hg_is_int(b) THEN hg_number(trunc(a::numeric / b::numeric))
                       ELSE hg_float((a::numeric / b::numeric)::float8) END
    WHEN 'mod' THEN CASE WHEN b::numeric = 0 AND hg_is_int(a) AND hg_is_int(b) THEN hg_runtime_error('/ by zero (ArithmeticError)', jsonb_build_array(a, b))
                         WHEN b::numeric = 0 THEN hg_float_arith('mod', a::float8, 0)
                         ELSE to_jsonb(mod(a::numeric, b::numeric)) END
    WHEN '^' THEN hg_float(power(a::float8, b::float8))
   END WHEN jsonb_typeof(a) = 'object' OR jsonb_typeof(b) = 'object' THEN CASE
        WHEN hg_float8(a) IS NOT NULL AND hg_float8(b) IS NOT NULL THEN hg_float_arith(op, hg_float8(a), hg_float8(b))
        ELSE hg_temporal_arith(op, a, b) END END $$;

CREATE OR REPLACE FUNCTION hg_neg(a jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(a) = 'number' THEN hg_number(-(a::numeric))
               WHEN a ->> '~t' = 'Float' THEN hg_float(-hg_float8(a)) END $$;

CREATE OR REPLACE FUNCTION hg_string_op(op text, a jsonb, b jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(a) = 'string' AND jsonb_typeof(b) = 'string' THEN CASE op
    WHEN 'STARTS' THEN starts_with(a #>> '{}', b #>> '{}')
    WHEN 'ENDS' THEN right(a #>> '{}', char_length(b #>> '{}')) = b #>> '{}'
    WHEN 'CONTAINS' THEN strpos(a #>> '{}', b #>> '{}') > 0
   END END $$;

-- x IN list with Cypher's nulls: null when x is null or when only a null element could match.
CREATE OR REPLACE FUNCTION hg_in(x jsonb, list jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE
    WHEN list IS NULL OR jsonb_typeof(list) <> 'array' THEN NULL
    WHEN jsonb_array_length(list) = 0 THEN false
    WHEN x IS NULL OR x = 'null'::jsonb THEN NULL
    WHEN list @> jsonb_build_array(x) AND jsonb_typeof(x) NOT IN ('array', 'object') THEN true
    WHEN NOT hg_is_nan(x) AND EXISTS (SELECT 1 FROM jsonb_array_elements(list) AS e WHERE e = x) THEN true
    WHEN list @> '[null]'::jsonb THEN NULL
    ELSE false END $$;

CREATE OR REPLACE FUNCTION hg_size(a jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE jsonb_typeof(a) WHEN 'array' THEN to_jsonb(jsonb_array_length(a))
                               WHEN 'string' THEN to_jsonb(char_length(a #>> '{}')) END $$;

-- A list's element (an index that is not an integer is Neo4j's TypeError) or a map's value. The error names both
-- operands, so that it is not raised while a statement is planned, for a branch that a row never takes.
CREATE OR REPLACE FUNCTION hg_index(a jsonb, i jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE
    WHEN jsonb_typeof(a) = 'array' AND jsonb_typeof(i) = 'number' AND scale(i::numeric) = 0
    THEN nullif(a -> (i::numeric)::int, 'null'::jsonb)
    WHEN jsonb_typeof(a) = 'array' AND jsonb_typeof(i) <> 'null'
    THEN hg_runtime_error('Type mismatch: a list index must be an Integer (TypeError)', jsonb_build_array(a, i))
    WHEN jsonb_typeof(a) = 'object' AND jsonb_typeof(i) = 'string' THEN nullif(a -> (i #>> '{}'), 'null'::jsonb)
   END $$;

CREATE OR REPLACE FUNCTION hg_slice(a jsonb, f jsonb, t jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(a) = 'array' THEN (
    SELECT coalesce(jsonb_agg(e ORDER BY i), '[]'::jsonb)
    FROM jsonb_array_elements(a) WITH ORDINALITY AS x(e, i)
    WHERE i - 1 >= CASE WHEN f IS NULL OR f = 'null'::jsonb THEN 0
                        WHEN f::numeric < 0 THEN jsonb_array_length(a) + f::numeric ELSE f::numeric END
      AND i - 1 < CASE WHEN t IS NULL OR t = 'null'::jsonb THEN jsonb_array_length(a)
                       WHEN t::numeric < 0 THEN jsonb_array_length(a) + t::numeric ELSE t::numeric END) END $$;

-- A conversion of a list or a map is Neo4j's runtime TypeError (InvalidArgumentValue), raised with the SQLSTATE
-- errors.RUNTIME_ERROR_STATE whose message the service shows as it is.
CREATE OR REPLACE FUNCTION hg_refuse_conversion(fn text, a jsonb) RETURNS void LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS
$$ BEGIN
    RAISE EXCEPTION 'Type mismatch: % cannot convert a % (InvalidArgumentValue)', fn,
        CASE jsonb_typeof(a) WHEN 'array' THEN 'list' WHEN 'object' THEN 'map' WHEN 'boolean' THEN 'boolean'
                             ELSE 'float' END USING ERRCODE = 'HG001';
END $$;

CREATE OR REPLACE FUNCTION hg_to_integer(a jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS
$$ BEGIN
   IF jsonb_typeof(a) IN ('array', 'object') THEN PERFORM hg_refuse_conversion('toInteger()', a); END IF;
   RETURN CASE jsonb_typeof(a)
    WHEN 'number' THEN to_jsonb(trunc(a::numeric))
    WHEN 'boolean' THEN to_jsonb(CASE WHEN a = 'true'::jsonb THEN 1 ELSE 0 END)
    WHEN 'string' THEN CASE WHEN (a #>> '{}') ~ '^\s*[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$'
                            THEN to_jsonb(trunc((a #>> '{}')::numeric)) END
   END; END $$;

CREATE OR REPLACE FUNCTION hg_to_float(a jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS
$$ BEGIN
   IF jsonb_typeof(a) IN ('array', 'object', 'boolean') THEN PERFORM hg_refuse_conversion('toFloat()', a); END IF;
   RETURN CASE jsonb_typeof(a)
    WHEN 'number' THEN hg_float(a::float8)
    WHEN 'string' THEN CASE WHEN (a #>> '{}') ~ '^\s*[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$'
                            THEN hg_float((a #>> '{}')::float8) END
   END; END $$;

CREATE OR REPLACE FUNCTION hg_to_boolean(a jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS
$$ BEGIN
   IF jsonb_typeof(a) IN ('array', 'object') OR (jsonb_typeof(a) = 'number' AND scale(a::numeric) > 0) THEN
       PERFORM hg_refuse_conversion('toBoolean()', a);
   END IF;
   RETURN CASE jsonb_typeof(a)
    WHEN 'boolean' THEN a
    WHEN 'string' THEN CASE lower(btrim(a #>> '{}')) WHEN 'true' THEN 'true'::jsonb WHEN 'false' THEN 'false'::jsonb END
    WHEN 'number' THEN to_jsonb(a::numeric <> 0)
   END; END $$;

CREATE OR REPLACE FUNCTION hg_to_string(a jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS
$$ BEGIN
   IF jsonb_typeof(a) = 'array' OR (jsonb_typeof(a) = 'object' AND NOT a ? '~t') THEN
       PERFORM hg_refuse_conversion('toString()', a);
   END IF;
   RETURN CASE WHEN jsonb_typeof(a) IN ('string', 'number', 'boolean', 'object') THEN to_jsonb(hg_str(a)) END; END $$;

-- A node, relationship or path inside a list or map (`[n, 1]`, `{key: r}`): a tagged object no map written in a
-- query can be (`{"~n": id}`, `{"~r": id}`, `{"~p": [n0, e0, n1, ...]}`), so that jsonb's equality is the
-- entities' (by id) and the answer can show each as the record it is (graph_query/literals.py). STRICT: a null
-- entity stays null; their bodies are strict too, so they inline.
CREATE OR REPLACE FUNCTION hg_node_value(n bigint) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT jsonb_build_object('~n', n) $$;

CREATE OR REPLACE FUNCTION hg_rel_value(r bigint) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT jsonb_build_object('~r', r) $$;

CREATE OR REPLACE FUNCTION hg_path_value(p bigint[]) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT jsonb_build_object('~p', to_jsonb(p)) $$;

-- A list of node or relationship ids (`tag` '~n' or '~r'), or a jsonb list of paths, as a list of tagged objects.
CREATE OR REPLACE FUNCTION hg_entities_value(ids bigint[], tag text) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT
PARALLEL SAFE AS
$$ SELECT coalesce(jsonb_agg(CASE WHEN x IS NULL THEN 'null'::jsonb ELSE jsonb_build_object(tag, x) END ORDER BY i),
                   '[]'::jsonb)
   FROM unnest(ids) WITH ORDINALITY AS u(x, i) $$;

CREATE OR REPLACE FUNCTION hg_paths_value(paths jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT coalesce(jsonb_agg(CASE WHEN jsonb_typeof(p) = 'array' THEN jsonb_build_object('~p', p) ELSE p END
                             ORDER BY i), '[]'::jsonb)
   FROM jsonb_array_elements(paths) WITH ORDINALITY AS u(p, i) $$;

-- `v.key` of a value: a property of the node or relationship it holds (`(list[1]).name`), else a map's member. The
-- lookup is a function of its own so that this one, without a subquery, still inlines for the maps it mostly reads.
CREATE OR REPLACE FUNCTION hg_entity_property(v jsonb, key text) RETURNS jsonb LANGUAGE sql STABLE STRICT
PARALLEL SAFE AS
$$ SELECT CASE WHEN v ? '~n'
               THEN (SELECT nullif(properties -> key, 'null'::jsonb) FROM node WHERE id = (v ->> '~n')::bigint)
               ELSE (SELECT nullif(properties -> key, 'null'::jsonb) FROM edge WHERE id = (v ->> '~r')::bigint) END $$;

CREATE OR REPLACE FUNCTION hg_value_member(v jsonb, key text) RETURNS jsonb LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(v) = 'object' AND (v ? '~n' OR v ? '~r') THEN hg_entity_property(v, key)
               ELSE hg_member(v, key) END $$;

-- keys() and properties() of a value: the properties of the node or relationship it holds, else the map itself.
CREATE OR REPLACE FUNCTION hg_entity_properties(v jsonb) RETURNS jsonb LANGUAGE sql STABLE STRICT PARALLEL SAFE AS
$$ SELECT CASE WHEN v ? '~n' THEN (SELECT properties FROM node WHERE id = (v ->> '~n')::bigint)
               ELSE (SELECT properties FROM edge WHERE id = (v ->> '~r')::bigint) END $$;

CREATE OR REPLACE FUNCTION hg_value_properties(v jsonb) RETURNS jsonb LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(v) = 'object' AND (v ? '~n' OR v ? '~r') THEN hg_entity_properties(v) ELSE v END $$;

-- labels() and type() of a value holding a node or a relationship (`labels(list[0])`); a type error otherwise.
CREATE OR REPLACE FUNCTION hg_value_labels(v jsonb) RETURNS jsonb LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN v IS NULL OR v = 'null'::jsonb THEN NULL
               WHEN jsonb_typeof(v) = 'object' AND v ? '~n'
               THEN (SELECT coalesce(jsonb_agg(k.name ORDER BY array_position(n.kind_ids, k.id)), '[]'::jsonb)
                     FROM node AS n JOIN kind AS k ON k.id = ANY(n.kind_ids) WHERE n.id = (v ->> '~n')::bigint)
               ELSE hg_runtime_error('Type mismatch: labels() expects a node (InvalidArgumentValue)', v) END $$;

CREATE OR REPLACE FUNCTION hg_value_type(v jsonb) RETURNS jsonb LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN v IS NULL OR v = 'null'::jsonb THEN NULL
               WHEN jsonb_typeof(v) = 'object' AND v ? '~r'
               THEN (SELECT to_jsonb(k.name) FROM edge AS e JOIN kind AS k ON k.id = e.kind_id
                     WHERE e.id = (v ->> '~r')::bigint)
               ELSE hg_runtime_error('Type mismatch: type() expects a relationship (InvalidArgumentValue)', v) END $$;
