-- The edge generation: a counter of committed writes to `edge`, read by the in-memory path projection
-- (`graph/projection/`) to tell whether its copy of the edges is still the database's. Unlike the graph
-- generation above it moves at commit (a copy read between a write's statement and its commit must not be
-- filed under the new number), and analysis' writes move it too. Every statement writing `edge` marks its
-- transaction once (a row in `edge_change`); a deferred trigger on that row moves the counter at commit, after
-- every other statement, and removes the row. A rolled-back write moves nothing.

CREATE OR REPLACE FUNCTION mark_edge_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('houndgraph.edge_change_marked', true) IS DISTINCT FROM 'on' THEN
        INSERT INTO edge_change DEFAULT VALUES ON CONFLICT DO NOTHING;
        PERFORM set_config('houndgraph.edge_change_marked', 'on', true);
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION move_edge_generation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE edge_generation SET generation = generation + 1;
    DELETE FROM edge_change WHERE transaction_id = NEW.transaction_id;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER edge_marks_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON edge
FOR EACH STATEMENT EXECUTE FUNCTION mark_edge_change();

DROP TRIGGER IF EXISTS edge_change_moves_generation ON edge_change;
CREATE CONSTRAINT TRIGGER edge_change_moves_generation AFTER INSERT ON edge_change
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_edge_generation();
