"""Single sign-on providers: SAML identity providers created from their metadata, and the service-provider
metadata an identity provider needs from us."""
