-- Waking the datapipe: a write that gives it work notifies the channel every datapipe listens on
-- (`worker/loop.py`, `WAKE_CHANNEL`), so the work starts at once instead of at the next tick, from whichever process
-- wrote it. A notification is sent at the commit, once per transaction however many rows it wrote (row triggers:
-- a statement that writes no row, as the datapipe's own steps often do, notifies no one). Without one the
-- datapipe still ticks at its interval: that is how time passing (schedules, timeouts) reaches it.

CREATE OR REPLACE FUNCTION wake_datapipe() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('houndgraph_datapipe', '');
    RETURN NULL;
END $$;

-- A file to read.
DROP TRIGGER IF EXISTS ingest_tasks_wake_datapipe ON ingest_tasks;
CREATE TRIGGER ingest_tasks_wake_datapipe AFTER INSERT ON ingest_tasks
FOR EACH ROW EXECUTE FUNCTION wake_datapipe();

-- An upload job ended, was cancelled, or moved on.
DROP TRIGGER IF EXISTS ingest_jobs_wake_datapipe ON ingest_jobs;
CREATE TRIGGER ingest_jobs_wake_datapipe AFTER UPDATE OF status ON ingest_jobs
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION wake_datapipe();

-- An analysis was asked for.
DROP TRIGGER IF EXISTS datapipe_status_wake_datapipe ON datapipe_status;
CREATE TRIGGER datapipe_status_wake_datapipe AFTER UPDATE OF analysis_requested ON datapipe_status
FOR EACH ROW WHEN (NEW.analysis_requested AND NOT OLD.analysis_requested) EXECUTE FUNCTION wake_datapipe();

-- The database is to be cleared.
DROP TRIGGER IF EXISTS purge_requests_wake_datapipe ON purge_requests;
CREATE TRIGGER purge_requests_wake_datapipe AFTER INSERT ON purge_requests
FOR EACH ROW EXECUTE FUNCTION wake_datapipe();

-- Collection: a schedule changed, or a collection job was created or changed its status.
DROP TRIGGER IF EXISTS client_events_wake_datapipe ON client_events;
CREATE TRIGGER client_events_wake_datapipe AFTER INSERT OR UPDATE ON client_events
FOR EACH ROW EXECUTE FUNCTION wake_datapipe();

DROP TRIGGER IF EXISTS client_jobs_insert_wake_datapipe ON client_jobs;
CREATE TRIGGER client_jobs_insert_wake_datapipe AFTER INSERT ON client_jobs
FOR EACH ROW EXECUTE FUNCTION wake_datapipe();

DROP TRIGGER IF EXISTS client_jobs_status_wake_datapipe ON client_jobs;
CREATE TRIGGER client_jobs_status_wake_datapipe AFTER UPDATE OF status ON client_jobs
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION wake_datapipe();
