"""Who is calling: session tokens (JWT) and HMAC-signed requests, the credential cache, permissions, the request's
identity (`AuthContext`) and the route guards. A kernel: it imports no domain (`policy.AuthPolicy` carries what
it reads of theirs); signing in is the `login` domain."""
