"""Settings from HOUNDGRAPH_* environment variables, checked before anything starts."""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from functools import lru_cache
from pathlib import Path

from pydantic import Field, PrivateAttr, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

MIN_ADMIN_PASSWORD_LENGTH = 12
MIN_SECRET_KEY_LENGTH = 32
SECRET_KEY_FILE = "secret_key"


class InsecureSettingError(ValueError):
    """A setting that would make the service unsafe to run; the message says how to fix it."""


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity (`taskset`, a container's cpuset), which may be fewer than
    the machine's `os.cpu_count()`; one worker per machine CPU on two allowed ones fought over them."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # a platform without CPU affinity (macOS)
        return os.cpu_count() or 1


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="HOUNDGRAPH_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=1, le=65535)
    data_dir: Path = Path("./.houndgraph")
    database_url: str | None = None
    # A streaming replica of that PostgreSQL (a hot standby): graph reads go there once it has replayed what
    # committed before they arrived, and to the primary when it cannot (`read_replica`). Unset, the primary serves all.
    read_database_url: str | None = None
    # The longest a graph read waits for the replica to catch up before the primary serves it (never more than half
    # of what remains of the request's deadline).
    read_replica_max_wait_seconds: float = Field(default=1.0, ge=0)
    # The URL users reach the service at (https://bloodhound.example.com): single sign-on builds the audience,
    # assertion consumer and callback URLs it checks from it, never from a request's Host header (which the
    # sender chooses). Unset, it is http://HOST:PORT, right only when users reach the service directly.
    public_url: str | None = None
    # A PEM file holding the certificate that identifies this service to SAML identity providers, served to
    # administrators at /api/v2/sso-providers/{id}/signing-certificate (the reference's service provider
    # certificate). Only its first certificate is ever read out, never a key the file may also hold; nothing is
    # signed with it (requests stay unsigned). Unset, that route answers 404.
    saml_service_provider_certificate: Path | None = None
    admin_password: SecretStr | None = None
    secret_key: SecretStr | None = None
    # Upload limits: a single uploaded file, and what a zip may expand to.
    max_upload_bytes: int = 2 * 1024**3
    max_unzipped_bytes: int = 8 * 1024**3
    max_zip_ratio: int = 200
    enable_cypher_mutations: bool = False
    # Lets through Cypher queries the complexity guard would refuse as likely to run away.
    disable_cypher_complexity_limit: bool = False
    # Seconds between datapipe ticks; tests shorten it.
    datapipe_interval: float = 2.0
    # Seconds a running upload job may go without a file before the datapipe times it out.
    upload_idle_timeout: float = 3600.0
    # Seconds a collection job may stay ready without its client starting it, or run without an upload
    # or an end, before the scheduler times it out (status 4).
    client_job_timeout: float = 6 * 3600.0
    # Login throttle, within the window: this many failures for one account from one address answer 429 to
    # that address; once an account has `login_max_failures_per_account` from all addresses, every address that
    # has failed on it waits too. An address with `login_max_failures_per_address` failures, whatever the
    # accounts, is paced: one attempt per `login_paced_attempt_seconds` (a rate, not a lock-out: many people
    # may share it). An address without failures on the account (its owner's) is never refused for long.
    login_max_failures: int = 5
    login_max_failures_per_address: int = 50
    login_paced_attempt_seconds: float = Field(default=1.0, gt=0, le=60)
    login_max_failures_per_account: int = 50
    login_failure_window_seconds: int = 300
    # argon2id cost of new password digests: argon2's RFC 9106 low-memory profile. Tests lower it; a digest
    # keeps its own parameters, so verifying a stored password costs what it cost when it was set.
    password_hash_time_cost: int = Field(default=3, ge=1)
    password_hash_memory_kib: int = Field(default=64 * 1024, ge=8)
    password_hash_parallelism: int = Field(default=4, ge=1)
    log_level: str = "info"
    # Worker processes of `houndgraph serve` sharing its port: one per core, as requests are CPU-bound
    # Python and one process uses one core.
    workers: int = Field(default_factory=usable_cpus, ge=1)
    # Graph queries (Cypher, path finding, search) one user may run at once, across all the service's processes;
    # more answer 429. Each holds a database connection and up to a core of PostgreSQL while it runs: four leave
    # the pool and the CPU to everyone else (an automation sharing one account may still send several at once).
    graph_queries_per_user: int = Field(default=4, ge=1)
    # Long graph queries (past `long_graph_query_seconds` of statement time) running at once in the whole service,
    # one per user: fewer than the cores, so that short requests always find one (`query_slots`). More wait for a
    # slot within their own deadline.
    long_graph_queries: int = Field(default_factory=lambda: max(usable_cpus() - 1, 1), ge=1)
    long_graph_query_seconds: float = Field(default=0.5, gt=0)
    # Path finding and search requests running at once in the whole service (all processes, all users): fewer than
    # the cores, as the long Cypher queries, so that short requests always find one. More wait a moment in line.
    graph_searches: int = Field(default_factory=lambda: max(usable_cpus() - 1, 1), ge=1)
    # Seconds of work a request may do, its database work included. `Prefer: wait=N` may only lower it;
    # raising it is for the administrator who runs the service, here.
    request_timeout_seconds: int = Field(default=30, ge=1)
    # Each process runs a small graph query as it starts (`app.warm_up`), so that no user's first query pays
    # for what loads once. Off for test services that start by the hundred.
    warm_up: bool = True
    # Path searches run over a copy of the edge table in memory (`<data_dir>/projection`, one per host, about 12
    # bytes per edge), rebuilt in the background after the edges change; off, they all run in PostgreSQL.
    path_projection: bool = True
    # The largest JSON response body; a bigger answer is refused with 400 (narrow the query instead).
    max_response_bytes: int = Field(default=64 * 1024**2, ge=1024)
    # Password hashes computed at once (each argon2 verification takes ~50 ms of one core and 64 MiB);
    # logins waiting beyond eight times this many answer 429.
    password_hash_workers: int = 2
    # Proxies whose X-Forwarded-For is believed (comma-separated); unset, the peer's address is the client's.
    forwarded_allow_ips: str | None = None
    # Also accept API-token signatures computed over the path without its query string, as the official
    # Python SDK and some CLIs send them (reference issue #3098). Off by default: such a signature does
    # not cover the query, so whoever sees one request can replay it with other query parameters within
    # the signature's hour. See the README.
    accept_path_only_signatures: bool = False
    _signing_key: bytes | None = PrivateAttr(default=None)

    def public_base_url(self) -> str:
        if self.public_url:
            return self.public_url.rstrip("/")
        host = "localhost" if self.host in ("0.0.0.0", "::", "") else self.host  # noqa: S104 - a wildcard bind
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}"

    @property
    def uploads_dir(self) -> Path:
        return self.data_dir / "uploads"

    @property
    def collectors_dir(self) -> Path:
        """Collector releases an operator placed here (`<type>/<file>.zip`), offered by `/api/v2/collectors`."""
        return self.data_dir / "collectors"

    @property
    def pgdata_dir(self) -> Path:
        return self.data_dir / "pgdata"

    def check(self) -> None:
        """Refuse settings that are unsafe; called once at start."""
        if self.admin_password is not None:
            check_password_strength(self.admin_password.get_secret_value(), "HOUNDGRAPH_ADMIN_PASSWORD")
        if self.secret_key is not None and len(self.secret_key.get_secret_value()) < MIN_SECRET_KEY_LENGTH:
            raise InsecureSettingError(
                f"HOUNDGRAPH_SECRET_KEY must be at least {MIN_SECRET_KEY_LENGTH} characters; "
                "unset it to have one generated and kept in the data directory"
            )
        if self.host not in ("127.0.0.1", "localhost", "::1") and self.admin_password is None:
            raise InsecureSettingError(
                f"HOUNDGRAPH_HOST={self.host} listens beyond this machine: "
                "set HOUNDGRAPH_ADMIN_PASSWORD rather than relying on a password printed to the console"
            )

    def signing_key(self) -> bytes:
        """The JWT signing key: the configured one, or one generated once and kept with 0600 rights.
        Read once per process: requests must not touch the disk for it."""
        if self._signing_key is None:
            self._signing_key = self._load_signing_key()
        return self._signing_key

    def _load_signing_key(self) -> bytes:
        if self.secret_key is not None:
            return self.secret_key.get_secret_value().encode()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path = self.data_dir / SECRET_KEY_FILE
        if not path.exists():
            _create_key_file(path)
        if path.stat().st_mode & 0o077:
            raise InsecureSettingError(f"{path} is readable by other users; chmod 600 it")
        return path.read_text().strip().encode()


def _create_key_file(path: Path) -> None:
    """A new key written whole beside `path`, then linked there unless another process linked one first: the
    processes of `make serve` start together on a new data directory, and when the file was created empty and then
    written, another read it empty or failed to create it (one worker signed sessions with an empty key, the other
    refused them)."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")  # 0600
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(48))
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        os.unlink(temporary)


WEAK_PASSWORDS = {"password", "admin", "administrator", "bloodhound", "changeme", "houndgraph", "letmein"}


def check_password_strength(password: str, what: str = "password") -> None:
    lowered = password.lower()
    if len(password) < MIN_ADMIN_PASSWORD_LENGTH:
        raise InsecureSettingError(f"{what} must be at least {MIN_ADMIN_PASSWORD_LENGTH} characters long")
    if any(word in lowered for word in WEAK_PASSWORDS) and len(set(lowered)) < 10:
        raise InsecureSettingError(f"{what} is too easy to guess")
    classes = sum(
        [any(c.islower() for c in password), any(c.isupper() for c in password),
         any(c.isdigit() for c in password), any(not c.isalnum() for c in password)]
    )
    if classes < 3:
        raise InsecureSettingError(
            f"{what} must mix at least three of: lower case, upper case, digits, symbols"
        )


@lru_cache
def get_settings() -> Settings:
    return Settings()
