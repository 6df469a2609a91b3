"""Azure and Entra ID rules, and the hybrid links between Entra and AD users (`common` holds what they share)."""
