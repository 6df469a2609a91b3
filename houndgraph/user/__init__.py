"""Users of the service: administration, the minimal listing, and the first administrator."""
