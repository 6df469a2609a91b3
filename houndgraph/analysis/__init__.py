"""Post-processing analysis over the graph: derived attack edges, zones, data quality."""
