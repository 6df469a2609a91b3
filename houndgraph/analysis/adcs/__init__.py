"""Certificate-services rules: the PKI plumbing and the ESC edges read from it (`common` holds what they share)."""
