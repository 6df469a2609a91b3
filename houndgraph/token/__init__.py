"""API tokens: the id and key pairs that sign requests (`Authorization: bhesignature <id>`)."""
