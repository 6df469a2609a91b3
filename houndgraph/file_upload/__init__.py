"""File upload: upload jobs and their files (`/api/v2/file-upload*`); the datapipe ingests what they store."""
