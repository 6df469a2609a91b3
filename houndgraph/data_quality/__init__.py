"""Data-quality statistics (per AD domain, per Azure tenant, per platform) and collection completeness."""
