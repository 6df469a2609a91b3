"""Health of this process for load balancers: the database reachable, the datapipe thread alive."""
