-- pair_path_edges: the bidirectional breadth-first search between two nodes, inside PostgreSQL.
--
-- Called by `graph/paths.pair_paths` (Cypher's shortestPath between one pair) and by the path routes'
-- statement (`pathfinding/repository.PAIR_PATH_GRAPH`). Returns the edges of every shortest path from
-- `p_left` to `p_right` (following edges forward) as three parallel arrays (start id, kind id, end id), with
-- the number of nodes it visited; past `p_max_nodes` visited nodes it stops and returns NULL arrays. Edges are
-- followed when their kind is in `p_kinds` (NULL: any kind).
--
-- Why inside PostgreSQL: one statement per level instead of one per level and side with each level's rows
-- handed to Python. Each level advances the side with the smaller frontier, unless its edges outnumber the
-- other's: its edges are read up to 16 per node of the other frontier (an index-only read); only when it has
-- that many are the other side's counted and the cheaper side read whole. At one million objects a user's
-- three groups lead to 30 000 objects where the top group's 17 members have about 200 members of their own:
-- by frontier size alone the search read the 30 000 edges, by the count it reads the 200.
--
-- Each side's visited nodes are one array in the order reached, with the position where each depth begins
-- (`f_at`, `b_at`): a depth's nodes are a slice, and a meeting node's depth on the other side follows from
-- its position. Once the sides meet, every shortest path passes through one of the meeting nodes at the same
-- distance from the left end; the edges are read back level by level from those nodes to each end, each level
-- only the edges into (or out of) nodes already on a path, with both ends of the edge in the index condition,
-- so that a meeting node with half a million members is not read whole. The statements are planned once per
-- session (`plan_cache_mode = force_generic_plan`): the arrays change every call, and a custom plan per call
-- estimated every array element.

CREATE OR REPLACE FUNCTION pair_path_edges(p_left bigint, p_right bigint, p_kinds smallint[], p_max_nodes bigint,
                                OUT visited bigint, OUT starts bigint[], OUT kinds smallint[],
                                OUT ends bigint[])
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    -- Each side's visited nodes in the order reached, so by depth; f_at[d + 1] is where depth d begins
    -- in f_seen, and its last element is one past the end.
    f_seen bigint[] := ARRAY[p_left];
    f_at integer[] := ARRAY[1, 2];
    f_front bigint[] := ARRAY[p_left];
    b_seen bigint[] := ARRAY[p_right];
    b_at integer[] := ARRAY[1, 2];
    b_front bigint[] := ARRAY[p_right];
    forward boolean;
    probe bigint;
    found bigint;
    fresh bigint[];
    hit bigint;
    at_left integer;
    at_right integer;
    meeting bigint[];
    cur bigint[];
BEGIN
    visited := 0;
    LOOP
        IF cardinality(f_front) = 0 OR cardinality(b_front) = 0 THEN
            starts := '{}';
            kinds := '{}';
            ends := '{}';
            RETURN;
        END IF;
        -- Advance the side with fewer edges to read: the smaller frontier, read up to 16 edges per node
        -- of the other frontier. Fewer than that, and what was read is the whole level.
        forward := cardinality(f_front) <= cardinality(b_front);
        probe := 16 * CASE WHEN forward THEN cardinality(b_front) ELSE cardinality(f_front) END;
        LOOP
            IF forward THEN
                WITH reached AS MATERIALIZED (
                    SELECT e.end_id AS id FROM edge e WHERE e.start_id = ANY(f_front)
                      AND (p_kinds IS NULL OR e.kind_id = ANY(p_kinds)) LIMIT probe),
                counted AS MATERIALIZED (SELECT count(*) AS n FROM reached)
                SELECT counted.n, level.fresh, level.hit INTO found, fresh, hit FROM counted,
                    (SELECT coalesce(array_agg(x.id), '{}') AS fresh, min(o.at) AS hit
                     FROM (SELECT DISTINCT r.id FROM reached r WHERE r.id NOT IN (SELECT unnest(f_seen))) AS x
                     LEFT JOIN unnest(b_seen) WITH ORDINALITY AS o(node, at) ON o.node = x.id
                     WHERE probe IS NULL OR (SELECT n FROM counted) < probe) AS level;
            ELSE
                WITH reached AS MATERIALIZED (
                    SELECT e.start_id AS id FROM edge e WHERE e.end_id = ANY(b_front)
                      AND (p_kinds IS NULL OR e.kind_id = ANY(p_kinds)) LIMIT probe),
                counted AS MATERIALIZED (SELECT count(*) AS n FROM reached)
                SELECT counted.n, level.fresh, level.hit INTO found, fresh, hit FROM counted,
                    (SELECT coalesce(array_agg(x.id), '{}') AS fresh, min(o.at) AS hit
                     FROM (SELECT DISTINCT r.id FROM reached r WHERE r.id NOT IN (SELECT unnest(b_seen))) AS x
                     LEFT JOIN unnest(f_seen) WITH ORDINALITY AS o(node, at) ON o.node = x.id
                     WHERE probe IS NULL OR (SELECT n FROM counted) < probe) AS level;
            END IF;
            EXIT WHEN probe IS NULL OR found < probe;
            -- As many edges as the probe allowed: count the other side's, up to as many, and read
            -- the whole level of the side with fewer (the first side on a tie).
            IF forward THEN
                SELECT count(*) INTO found FROM (SELECT FROM edge e WHERE e.end_id = ANY(b_front)
                    AND (p_kinds IS NULL OR e.kind_id = ANY(p_kinds)) LIMIT probe) AS other;
                forward := found >= probe;
            ELSE
                SELECT count(*) INTO found FROM (SELECT FROM edge e WHERE e.start_id = ANY(f_front)
                    AND (p_kinds IS NULL OR e.kind_id = ANY(p_kinds)) LIMIT probe + 1) AS other;
                forward := found <= probe;
            END IF;
            probe := NULL;
        END LOOP;
        IF forward THEN
            f_seen := f_seen || fresh;
            f_at := f_at || (cardinality(f_seen) + 1);
            f_front := fresh;
        ELSE
            b_seen := b_seen || fresh;
            b_at := b_at || (cardinality(b_seen) + 1);
            b_front := fresh;
        END IF;
        visited := visited + cardinality(fresh);
        IF visited > p_max_nodes THEN
            RETURN;
        END IF;
        IF hit IS NOT NULL THEN
            -- The sides meet: at this side's new level and the other side's depth of the first meeting
            -- node it had reached (the smallest position is the smallest depth).
            IF forward THEN
                at_left := cardinality(f_at) - 2;
                at_right := (SELECT max(d) FROM generate_subscripts(b_at, 1) AS d WHERE b_at[d] <= hit) - 1;
            ELSE
                at_right := cardinality(b_at) - 2;
                at_left := (SELECT max(d) FROM generate_subscripts(f_at, 1) AS d WHERE f_at[d] <= hit) - 1;
            END IF;
            EXIT;
        END IF;
    END LOOP;
    -- Every shortest path passes through a meeting node: reached at depth at_left from the left and at_right
    -- from the right. From those nodes, walk back to each end level by level, each level the edges between
    -- the nodes already on a path and the side's nodes one level nearer its end, in one statement that also
    -- lists the next level's nodes: both ends of the edge in the index condition, so that a meeting node with
    -- half a million members is not read whole.
    meeting := ARRAY(SELECT unnest(f_seen[f_at[at_left + 1] : f_at[at_left + 2] - 1])
                     INTERSECT SELECT unnest(b_seen[b_at[at_right + 1] : b_at[at_right + 2] - 1]));
    starts := '{}';
    kinds := '{}';
    ends := '{}';
    cur := meeting;
    FOR level IN REVERSE at_left..1 LOOP
        SELECT starts || array_agg(e.start_id), kinds || array_agg(e.kind_id), ends || array_agg(e.end_id),
               array_agg(DISTINCT e.start_id)
        INTO starts, kinds, ends, cur FROM edge e
        WHERE e.end_id = ANY(cur) AND (p_kinds IS NULL OR e.kind_id = ANY(p_kinds))
          AND e.start_id = ANY(f_seen[f_at[level] : f_at[level + 1] - 1]);
    END LOOP;
    cur := meeting;
    FOR level IN REVERSE at_right..1 LOOP
        SELECT starts || array_agg(e.start_id), kinds || array_agg(e.kind_id), ends || array_agg(e.end_id),
               array_agg(DISTINCT e.end_id)
        INTO starts, kinds, ends, cur FROM edge e
        WHERE e.start_id = ANY(cur) AND (p_kinds IS NULL OR e.kind_id = ANY(p_kinds))
          AND e.end_id = ANY(b_seen[b_at[level] : b_at[level + 1] - 1]);
    END LOOP;
END
$$;
