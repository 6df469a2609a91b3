"""The datapipe: the loop that purges, ingests and analyses; its status, analysis and clear-database routes."""
