-- A node's edges go with it. The edge table has no foreign keys (they cost every edge COPY a look-up of both
-- ends), so deleting or truncating nodes removes their edges here, once per statement.

CREATE OR REPLACE FUNCTION node_delete_edges() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- A statement that deleted no node writes no edge: even an empty DELETE on `edge` moves the edge generation
    -- (edge_generation.sql), and with it the path searches' copy of the edges, rebuilt for nothing.
    IF EXISTS (SELECT FROM deleted_node) THEN
        DELETE FROM edge WHERE start_id IN (SELECT id FROM deleted_node);
        DELETE FROM edge WHERE end_id IN (SELECT id FROM deleted_node);
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER node_delete_edges AFTER DELETE ON node
REFERENCING OLD TABLE AS deleted_node
FOR EACH STATEMENT EXECUTE FUNCTION node_delete_edges();

CREATE OR REPLACE FUNCTION node_truncate_edges() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- DELETE, not TRUNCATE: the usual `TRUNCATE edge, node` already holds `edge` open here,
    -- and then finds nothing left to delete.
    DELETE FROM edge;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER node_truncate_edges AFTER TRUNCATE ON node
FOR EACH STATEMENT EXECUTE FUNCTION node_truncate_edges();
