-- The graph generation: a sequence every statement that writes nodes or edges moves, so that analysis can tell
-- whether anything was written since its last run (`analysis/generation.py`), and the Cypher planner whether
-- the kind statistics it holds are still current (`graph/kind_catalogue.py`). Analysis' own writes (under the setting `houndgraph.analysis`) do not
-- move it: they are what the last run wrote.

CREATE OR REPLACE FUNCTION graph_generation_next() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('houndgraph.analysis', true) IS DISTINCT FROM 'on' THEN
        PERFORM nextval('graph_generation');
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER node_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON node
FOR EACH STATEMENT EXECUTE FUNCTION graph_generation_next();

CREATE OR REPLACE TRIGGER edge_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON edge
FOR EACH STATEMENT EXECUTE FUNCTION graph_generation_next();
