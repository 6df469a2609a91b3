"""Collector readers: SharpHound, AzureHound and OpenGraph files to node and edge records."""
