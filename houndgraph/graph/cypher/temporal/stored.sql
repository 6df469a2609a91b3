-- Temporal values inside the translated statement: the tagged jsonb objects of temporal/stored.py, built and
-- computed here for the values a statement reads from the graph or computes per row (the translator computes
-- those of literals itself and binds them). Installed before graph/cypher/helpers.sql, whose operators call it.
--
-- An object: {"~": order key, "~t": type, "~v": fields, "~iso": ISO 8601 text, "~c": {component: value}};
-- the fields of an instant are [days since 1970-01-01, nanoseconds of the day, offset seconds, zone name],
-- those of a duration [months, days, seconds, nanoseconds (0 to 999,999,999)]. stored.py builds the same.

-- java.time's text of a time of day: seconds only when not zero, a fraction in groups of three digits.
CREATE OR REPLACE FUNCTION hg_time_text(nanos bigint) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT lpad((nanos / 3600000000000)::text, 2, '0') || ':' || lpad((nanos / 60000000000 % 60)::text, 2, '0')
   || CASE WHEN nanos % 60000000000 = 0 THEN ''
      ELSE ':' || lpad((nanos / 1000000000 % 60)::text, 2, '0')
        || CASE WHEN nanos % 1000000000 = 0 THEN ''
                WHEN nanos % 1000000 = 0 THEN '.' || lpad((nanos % 1000000000 / 1000000)::text, 3, '0')
                WHEN nanos % 1000 = 0 THEN '.' || lpad((nanos % 1000000000 / 1000)::text, 6, '0')
                ELSE '.' || lpad((nanos % 1000000000)::text, 9, '0') END END $$;

CREATE OR REPLACE FUNCTION hg_offset_text(off int) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT CASE WHEN off = 0 THEN 'Z' ELSE CASE WHEN off > 0 THEN '+' ELSE '-' END
   || lpad((abs(off) / 3600)::text, 2, '0') || ':' || lpad((abs(off) / 60 % 60)::text, 2, '0')
   || CASE WHEN abs(off) % 60 = 0 THEN '' ELSE ':' || lpad((abs(off) % 60)::text, 2, '0') END END $$;

-- An instant (kind Date, LocalTime, Time, LocalDateTime or DateTime) from its fields; the ones its kind lacks
-- are null.
CREATE OR REPLACE FUNCTION hg_temporal(kind text, epoch_day int, nanos bigint, off int, zone text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS
$$ DECLARE
    d date := date '1970-01-01' + epoch_day;
    c jsonb := '{}';
    instant numeric;
    offset_name text := replace(hg_offset_text(off), 'Z', '+00:00');
    day_text text := to_char(d, 'YYYY-MM-DD');
BEGIN
    IF epoch_day IS NOT NULL THEN
        c := jsonb_build_object('year', extract(year FROM d)::int, 'quarter', extract(quarter FROM d)::int,
            'month', extract(month FROM d)::int, 'week', extract(week FROM d)::int,
            'weekyear', extract(isoyear FROM d)::int, 'day', extract(day FROM d)::int,
            'ordinalday', extract(doy FROM d)::int, 'weekday', extract(isodow FROM d)::int,
            'dayofweek', extract(isodow FROM d)::int,
            'dayofquarter', d - date_trunc('quarter', d)::date + 1);
    END IF;
    IF nanos IS NOT NULL THEN
        c := c || jsonb_build_object('hour', nanos / 3600000000000, 'minute', nanos / 60000000000 % 60,
            'second', nanos / 1000000000 % 60, 'millisecond', nanos % 1000000000 / 1000000,
            'microsecond', nanos % 1000000000 / 1000, 'nanosecond', nanos % 1000000000);
    END IF;
    IF kind IN ('Time', 'DateTime') THEN
        c := c || jsonb_build_object('offset', offset_name, 'offsetminutes', floor(off / 60.0)::int,
            'offsetseconds', off, 'timezone', coalesce(zone, offset_name));
    END IF;
    IF kind = 'DateTime' THEN
        instant := epoch_day::numeric * 86400000000000 + nanos - off::numeric * 1000000000;
        c := c || jsonb_build_object('epochseconds', floor(instant / 1000000000)::bigint,
                                     'epochmillis', floor(instant / 1000000)::bigint);
    END IF;
    RETURN jsonb_build_object(
        '~', CASE kind WHEN 'Date' THEN jsonb_build_array(epoch_day) WHEN 'LocalTime' THEN jsonb_build_array(nanos)
                       WHEN 'Time' THEN jsonb_build_array(nanos - off::bigint * 1000000000, off)
                       WHEN 'LocalDateTime' THEN jsonb_build_array(epoch_day, nanos)
                       ELSE jsonb_build_array(instant) END,
        '~t', kind, '~v', jsonb_build_array(epoch_day, nanos, off, zone),
        '~iso', CASE kind WHEN 'Date' THEN day_text WHEN 'LocalTime' THEN hg_time_text(nanos)
                          WHEN 'Time' THEN hg_time_text(nanos) || hg_offset_text(off)
                          WHEN 'LocalDateTime' THEN day_text || 'T' || hg_time_text(nanos)
                          ELSE day_text || 'T' || hg_time_text(nanos) || hg_offset_text(off)
                               || coalesce('[' || zone || ']', '') END,
        '~c', c);
END $$;

-- A duration of months, days and nanoseconds (the nanoseconds split into seconds and a non-negative rest).
CREATE OR REPLACE FUNCTION hg_duration(months bigint, days bigint, amount numeric) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS
$$ DECLARE
    total numeric := round(amount);
    s bigint := floor(total / 1000000000);
    n bigint := total - s::numeric * 1000000000;
    hours numeric := trunc(total / 3600000000000);
    minutes numeric := trunc((total - hours * 3600000000000) / 60000000000);
    rest numeric := total - hours * 3600000000000 - minutes * 60000000000;
    fraction bigint := abs(rest) % 1000000000;
    clock text;
    iso text;
BEGIN
    clock := CASE WHEN hours <> 0 THEN hours || 'H' ELSE '' END || CASE WHEN minutes <> 0 THEN minutes || 'M' ELSE '' END
        || CASE WHEN rest = 0 THEN ''
           ELSE CASE WHEN rest < 0 THEN '-' ELSE '' END || trunc(abs(rest) / 1000000000)
                || CASE WHEN fraction = 0 THEN '' ELSE rtrim('.' || lpad(fraction::text, 9, '0'), '0') END || 'S' END;
    iso := CASE WHEN months = 0 AND days = 0 AND total = 0 THEN 'PT0S'
        ELSE 'P' || CASE WHEN months / 12 <> 0 THEN (months / 12) || 'Y' ELSE '' END
             || CASE WHEN months % 12 <> 0 THEN (months % 12) || 'M' ELSE '' END
             || CASE WHEN days <> 0 THEN days || 'D' ELSE '' END
             || CASE WHEN clock <> '' THEN 'T' || clock ELSE '' END END;
    RETURN jsonb_build_object('~', jsonb_build_array(months, days, total), '~t', 'Duration',
        '~v', jsonb_build_array(months, days, s, n), '~iso', iso,
        '~c', jsonb_build_object('years', months / 12, 'quarters', months / 3, 'months', months,
            'weeks', days / 7, 'days', days, 'hours', s / 3600, 'minutes', s / 60, 'seconds', s,
            'milliseconds', floor(total / 1000000)::bigint, 'microseconds', floor(total / 1000)::bigint,
            'nanoseconds', total, 'quartersofyear', months / 3 % 4, 'monthsofquarter', months % 3,
            'monthsofyear', months % 12, 'daysofweek', days % 7, 'minutesofhour', s / 60 % 60,
            'secondsofminute', s % 60, 'millisecondsofsecond', n / 1000000, 'microsecondsofsecond', n / 1000,
            'nanosecondsofsecond', n));
END $$;

-- A timestamptz the statement computed (datetime({epochSeconds: n.lastlogon})) as Neo4j's DateTime at UTC.
CREATE OR REPLACE FUNCTION hg_datetime_of(t timestamptz) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT hg_temporal('DateTime', floor(e / 86400)::int, ((e - floor(e / 86400) * 86400) * 1000000000)::bigint, 0, NULL)
   FROM (SELECT extract(epoch FROM t) AS e) AS x $$;

-- An interval the statement computed as a duration: months, days and the time kept apart, as both keep them.
CREATE OR REPLACE FUNCTION hg_duration_of(i interval) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$ SELECT hg_duration((extract(year FROM i) * 12 + extract(month FROM i))::bigint, extract(day FROM i)::bigint,
                      ((extract(hour FROM i) * 3600 + extract(minute FROM i) * 60) * 1000000
                       + extract(microseconds FROM i)) * 1000) $$;

-- A stored DateTime as a timestamptz, a stored duration as an interval (microseconds kept, as PostgreSQL does).
CREATE OR REPLACE FUNCTION hg_timestamptz(a jsonb) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(a) = 'object' AND a ->> '~t' = 'DateTime'
          THEN to_timestamp(0) + ((a -> '~' ->> 0)::numeric / 1000) * interval '1 microsecond' END $$;

CREATE OR REPLACE FUNCTION hg_interval(a jsonb) RETURNS interval LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(a) = 'object' AND a ->> '~t' = 'Duration'
          THEN make_interval(months => (a -> '~v' ->> 0)::int, days => (a -> '~v' ->> 1)::int,
                             secs => (a -> '~v' ->> 2)::float8 + (a -> '~v' ->> 3)::float8 / 1000000000) END $$;

-- Neo4j's runtime error (its class named in the message), raised with the SQLSTATE errors.RUNTIME_ERROR_STATE
-- whose message the service shows as it is; helpers.sql raises its errors through it too. `operands` is not read:
-- a call whose arguments are all constants is computed while the statement is planned (the function is immutable,
-- so that the helpers calling it inline), whether or not its CASE branch is ever taken; passing the operands the
-- branch depends on defers it to the rows.
CREATE OR REPLACE FUNCTION hg_runtime_error(message text, operands jsonb DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS
$$ BEGIN RAISE EXCEPTION '%', message USING ERRCODE = 'HG001'; END $$;

-- value + sign * amount (a duration), as temporal/durations.py's `plus`: months first (a missing day of the
-- month becomes its last), then days, then the time.
CREATE OR REPLACE FUNCTION hg_temporal_plus(a jsonb, amount jsonb, sign int) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS
$$ DECLARE
    kind text := a ->> '~t';
    v jsonb := a -> '~v';
    months bigint := sign * (amount -> '~v' ->> 0)::bigint;
    days bigint := sign * (amount -> '~v' ->> 1)::bigint;
    nanos numeric := sign * ((amount -> '~v' ->> 2)::numeric * 1000000000 + (amount -> '~v' ->> 3)::numeric);
    day_nanos constant numeric := 86400000000000;
    day date;
    total numeric;
BEGIN
    IF kind = 'Duration' THEN
        RETURN hg_duration((v ->> 0)::bigint + months, (v ->> 1)::bigint + days,
                           (v ->> 2)::numeric * 1000000000 + (v ->> 3)::numeric + nanos);
    END IF;
    IF kind IN ('LocalTime', 'Time') THEN
        RETURN hg_temporal(kind, NULL, mod(mod((v ->> 1)::numeric + nanos, day_nanos) + day_nanos, day_nanos)::bigint,
                           (v ->> 2)::int, NULL);
    END IF;
    IF kind = 'DateTime' AND v ->> 3 IS NOT NULL THEN
        RETURN hg_runtime_error('arithmetic on a stored datetime of a named time zone is not supported');
    END IF;
    day := ((date '1970-01-01' + (v ->> 0)::int) + make_interval(months => months::int))::date + days::int;
    IF kind = 'Date' THEN
        RETURN hg_temporal(kind, day - date '1970-01-01' + trunc(nanos / day_nanos)::int, NULL, NULL, NULL);
    END IF;
    total := (v ->> 1)::numeric + nanos;
    RETURN hg_temporal(kind, day - date '1970-01-01' + floor(total / day_nanos)::int,
                       (total - floor(total / day_nanos) * day_nanos)::bigint, (v ->> 2)::int, NULL);
END $$;

-- duration * factor (or / factor), as temporal/durations.py's `scaled`: a fraction of a month becomes days
-- and seconds (an average month, 2,629,746 s), a fraction of a day seconds.
CREATE OR REPLACE FUNCTION hg_duration_scaled(a jsonb, factor numeric) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS
$$ DECLARE
    months numeric := (a -> '~v' ->> 0)::numeric * factor;
    days numeric := (a -> '~v' ->> 1)::numeric * factor + (months - trunc(months)) * 2629746 / 86400;
    nanos numeric := (((a -> '~v' ->> 2)::numeric + (a -> '~v' ->> 3)::numeric / 1000000000) * factor
                      + (days - trunc(days)) * 86400) * 1000000000;
BEGIN
    -- Half a nanosecond rounds to the even one, as Python's Decimal (and Neo4j) round it.
    IF nanos - floor(nanos) = 0.5 THEN
        nanos := floor(nanos) + floor(nanos) % 2;
    END IF;
    RETURN hg_duration(trunc(months)::bigint, trunc(days)::bigint, round(nanos));
END $$;

-- An operator of Cypher's arithmetic where a side is an object (a temporal value, or a map: a type error).
CREATE OR REPLACE FUNCTION hg_temporal_arith(op text, a jsonb, b jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS
$$ DECLARE
    ta text := CASE WHEN jsonb_typeof(a) = 'object' THEN a ->> '~t' END;
    tb text := CASE WHEN jsonb_typeof(b) = 'object' THEN b ->> '~t' END;
BEGIN
    IF a IS NULL OR b IS NULL OR a = 'null'::jsonb OR b = 'null'::jsonb THEN
        RETURN NULL;
    END IF;
    IF op IN ('+', '-') AND tb = 'Duration' AND ta IS NOT NULL THEN
        RETURN hg_temporal_plus(a, b, CASE op WHEN '+' THEN 1 ELSE -1 END);
    END IF;
    IF op = '+' AND ta = 'Duration' AND tb IS NOT NULL THEN
        RETURN hg_temporal_plus(b, a, 1);
    END IF;
    IF op IN ('*', '/') AND ta = 'Duration' AND jsonb_typeof(b) = 'number' THEN
        IF op = '/' AND b::numeric = 0 THEN
            RETURN hg_runtime_error('/ by zero (ArithmeticError)');
        END IF;
        RETURN hg_duration_scaled(a, CASE op WHEN '*' THEN b::numeric ELSE 1 / b::numeric END);
    END IF;
    IF op = '*' AND tb = 'Duration' AND jsonb_typeof(a) = 'number' THEN
        RETURN hg_duration_scaled(b, a::numeric);
    END IF;
    RETURN hg_runtime_error(format('Type mismatch: the operator %s does not apply to %s and %s (InvalidArgumentType)',
        CASE op WHEN 'mod' THEN '%' ELSE op END, coalesce(ta, jsonb_typeof(a)), coalesce(tb, jsonb_typeof(b))));
END $$;

-- Cypher's `=` of a temporal value: the same type and the same instant (or the same duration).
CREATE OR REPLACE FUNCTION hg_temporal_equal(a jsonb, b jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN b IS NULL OR b = 'null'::jsonb THEN NULL
               ELSE coalesce(jsonb_typeof(b) = 'object' AND a -> '~t' = b -> '~t' AND a -> '~' = b -> '~', false) END $$;
