"""The wire format, written once: envelopes, pagination, sort_by and filters."""
