"""The background worker: the datapipe loop (purge, ingest, analysis, the collection scheduler), the reading
process that parses collector files beside it, and the task writer that puts a file's batches into the graph.

Only the composition root (`app`) and the CLI start it; the API reaches it through rows (`datapipe_status`,
ingest tasks, purge requests), never by import.
"""
