"""The datapipe's routes: its status, analysis requests and clear-database requests (the loop itself is `worker`)."""
