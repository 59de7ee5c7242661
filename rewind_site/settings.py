"""Rewind settings. Everything a deployment changes comes from the environment (DESIGN.md,
Configuration); nothing here needs editing to move from SQLite to PostgreSQL."""

from __future__ import annotations

import os
import re
import secrets
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from rewind_site.env import (
    env_bool,
    env_collector_url,
    env_float,
    env_int,
    env_json_object,
    env_pairs,
    env_seconds,
    env_secret,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent


def _local_secret_key(path: Path) -> str:
    """For the local default: a random key made once per install and kept in ``var/`` (0600),
    so sessions survive a restart and no two installs share a key. Deployments set SECRET_KEY."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(50)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first: use theirs
            return path.read_text().strip()
        with os.fdopen(fd, "w") as handle:
            handle.write(key)
        return key


SECRET_KEY = env_secret("SECRET_KEY") or _local_secret_key(BASE_DIR / "var" / "secret_key")


def _fernet_keys(name: str) -> list[str]:
    """Fernet keys, comma-separated (each 32 url-safe base64 bytes, as
    ``Fernet.generate_key()`` prints them); the first encrypts, every one decrypts."""
    import base64
    import binascii

    keys = [k.strip() for k in os.environ.get(name, "").split(",") if k.strip()]
    for i, key in enumerate(keys, 1):
        try:
            ok = len(base64.urlsafe_b64decode(key.encode("ascii"))) == 32
        except (binascii.Error, ValueError):
            ok = False
        if not ok:
            raise ImproperlyConfigured(
                f"{name}: key {i} is not a Fernet key (32 url-safe base64 bytes; make one with "
                "python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())')"
            )
    return keys


# Content that only looks like a secret is kept exactly and encrypted at rest with the first of
# these keys (runs.lib.sealing; rotation: README, "What is kept"); credentials are fingerprinted
# with REWIND_FINGERPRINT_KEY. Unset, both are derived from SECRET_KEY.
REWIND_ENCRYPTION_KEYS = _fernet_keys("REWIND_ENCRYPTION_KEYS")
REWIND_FINGERPRINT_KEY = env_secret("REWIND_FINGERPRINT_KEY", min_length=32)
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = [h for h in env_str("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "django_tasks_db",
    "axes",  # failed sign-ins: lock-out per username and address (its own migrations)
    "runs",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "servestatic.middleware.ServeStaticMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Every page needs a signed-in user; health and login opt out with @login_not_required.
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Turns a locked-out sign-in into the "locked" page; last, as django-axes asks.
    "axes.middleware.AxesMiddleware",
]

# --- HTTPS and the browser's defences (README, "Production") ---------------------------------

# Served over HTTPS only (directly or behind a TLS-terminating proxy): redirect plain HTTP,
# cookies only over HTTPS, and HSTS. `manage.py check --deploy` is clean with this, DEBUG off,
# a SECRET_KEY and ALLOWED_HOSTS set.
REWIND_HTTPS = env_bool("REWIND_HTTPS", False)
SECURE_SSL_REDIRECT = REWIND_HTTPS
SECURE_REDIRECT_EXEMPT = [r"^api/health$"]  # load balancers probe over plain HTTP from inside
SESSION_COOKIE_SECURE = REWIND_HTTPS
CSRF_COOKIE_SECURE = REWIND_HTTPS
# One year by default; REWIND_HSTS_SECONDS=3600 for a first roll-out. Browsers remember it.
SECURE_HSTS_SECONDS = (
    env_int("REWIND_HSTS_SECONDS", 31_536_000, minimum=0, maximum=63_072_000) if REWIND_HTTPS else 0
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS > 0  # consent only; nothing is submitted anywhere
# Only behind a proxy that sets X-Forwarded-Proto itself and strips it from clients: trusting
# the header otherwise lets any client claim HTTPS.
if env_bool("REWIND_TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# A strict Content-Security-Policy on every response: scripts (htmx and its SSE extension) only
# from this origin and only with the response's nonce, styles only from static/css, no inline
# handlers or eval (the htmx-config meta in templates/base.html turns off htmx's eval and its
# injected indicator <style>). The browser tests fail on any violation.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF],
    "connect-src": [CSP.SELF],  # htmx requests and the SSE stream
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

ROOT_URLCONF = "rewind_site.urls"
WSGI_APPLICATION = "rewind_site.wsgi.application"
ASGI_APPLICATION = "rewind_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",  # csp_nonce for the <script> tags
            ],
        },
    },
]


def _database(url: str, *, worker: bool = False) -> dict:
    """The database ``url`` names. A ``worker`` (``manage.py db_worker``: one thread, long
    lived) keeps its connection from task to task, checked before each reuse; with
    ``CONN_MAX_AGE`` 0 the worker closes it around every task and opens it again, which cost
    a third of a cached replay's time there. Everything else (the dashboard under ASGI)
    closes it at the end of each request, as Django advises."""
    if not url:
        url = f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
    try:
        config = dj_database_url.parse(
            url, conn_max_age=None if worker else 0, conn_health_checks=worker
        )
    except (ValueError, KeyError) as exc:
        raise ImproperlyConfigured(f"DATABASE_URL is not a database URL: {exc}") from None
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # Settings that hold under concurrent writers (DESIGN.md, Execution): WAL so readers
        # never block the writer, IMMEDIATE so a write transaction takes the lock up front
        # instead of failing on upgrade, and a busy timeout instead of "database is locked".
        config["OPTIONS"] = {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 30,
        }
        # Tests use a file database (the in-memory default never exercises locking), one per
        # test process in the temp directory so two suites never share or clobber one.
        config["TEST"] = {
            "NAME": env_str("REWIND_TEST_DB")
            or os.path.join(tempfile.gettempdir(), f"rewind-test-{os.getpid()}.sqlite3")
        }
    return config


DATABASES = {"default": _database(env_str("DATABASE_URL"), worker=sys.argv[1:2] == ["db_worker"])}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
# Sign-in attempts (README, "Configuration"): after REWIND_LOGIN_FAILURE_LIMIT wrong passwords
# for one username from one address, that pair is locked for REWIND_LOGIN_COOLOFF_MINUTES after
# its last failure — the right password too — and the sign-in page says until when. django-axes
# counts (a table of its own); its backend comes first so it can refuse before a password is
# checked, and it signs nobody in: ModelBackend does.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("REWIND_LOGIN_FAILURE_LIMIT", 10, minimum=1, maximum=1000)
AXES_COOLOFF_TIME = timedelta(
    minutes=env_int("REWIND_LOGIN_COOLOFF_MINUTES", 15, minimum=1, maximum=7 * 24 * 60)
)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]  # one user cannot lock out another
AXES_RESET_ON_SUCCESS = True  # a right password before the limit forgets the failures
# Attempts while locked do not push the end of the lock on: the page can say when it ends.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "runs.views.signin.locked_out"
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/runs/"
LOGOUT_REDIRECT_URL = "/login/"

# Runs and forks execute in the background through Django's Tasks framework. The database
# backend needs nothing installed and works the same on SQLite and PostgreSQL; workers are
# `manage.py db_worker` processes, on this machine or any other sharing the database.
TASKS = {
    "default": {
        "BACKEND": env_str("REWIND_TASKS_BACKEND", "django_tasks_db.DatabaseBackend"),
        "QUEUES": ["default"],
    }
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "var" / "static"  # only for collectstatic in a deployment
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # ServeStatic warns at start-up when it is missing
# Serve straight from the app and package static folders: no collectstatic step to forget.
SERVESTATIC_USE_FINDERS = True
SERVESTATIC_AUTOREFRESH = DEBUG

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"debug_off": {"()": "django.utils.log.RequireDebugFalse"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler"},
        # Django's own console handler logs only with DEBUG on; this one covers DEBUG off, so an
        # operator sees every 5xx (with its traceback) on stderr either way, and only once.
        "errors": {"class": "logging.StreamHandler", "level": "ERROR", "filters": ["debug_off"]},
    },
    "loggers": {
        "rewind": {"handlers": ["console"], "level": env_str("REWIND_LOG_LEVEL", "WARNING")},
        "django.request": {"handlers": ["errors"], "level": "ERROR"},
    },
}

# Under /api/ a refused CSRF check is answered as JSON like every other API error.
CSRF_FAILURE_VIEW = "runs.api.csrf_failure"

# --- Rewind -------------------------------------------------------------------------------

# Pipelines by name → dotted path of a ``runs.engine.apps.specs.Pipeline``. The demo is registered
# exactly like a user's own app; REWIND_PIPELINES adds more without editing this file. The
# benchmark's apps (loop, relay, nine) are registered by rewind_bench and the tests
# (runs.bench.pipelines.register), never here: an installation lists only its own pipelines.
REWIND_PIPELINES = {
    "research": "runs.pipelines.research.pipeline",
    **env_pairs("REWIND_PIPELINES"),
}
# Outcomes of registered pipelines without editing them (a Burr app's): a JSON object, inline or
# in a file, {"pipeline": [{"name": …, "path": "step.leaf" | "state.key", "check": {kind: arg}}]};
# checked by the system check rewind.E003 (runs.system_checks), a name here wins over the code's.
REWIND_OUTCOMES = env_json_object("REWIND_OUTCOMES")
REWIND_DEFAULT_PIPELINE = env_str("REWIND_DEFAULT_PIPELINE", "research")
REWIND_ARTIFACT_DIR = Path(env_str("REWIND_ARTIFACT_DIR") or BASE_DIR / "artifacts")
REWIND_DATA_DIR = Path(env_str("REWIND_DATA_DIR") or BASE_DIR / "data")
# A tool argument that names a data file must be a regular file inside REWIND_DATA_DIR of at
# most this many bytes (runs.engine.apps.domains.DataFile).
REWIND_DATA_FILE_MAX_BYTES = env_int(
    "REWIND_DATA_FILE_MAX_BYTES", 64 * 1024 * 1024, minimum=1, maximum=2**40
)

# Provider endpoint. Unset base URL → the embedded offline simulator.
REWIND_LLM_PRESET = env_str("REWIND_LLM_PRESET")
REWIND_LLM_BASE_URL = env_str("REWIND_LLM_BASE_URL")
REWIND_LLM_MODEL = env_str("REWIND_LLM_MODEL")
REWIND_LLM_TEMPERATURE = env_float("REWIND_LLM_TEMPERATURE", 0.0, minimum=0.0, maximum=2.0)
REWIND_LLM_TIMEOUT = env_float("REWIND_LLM_TIMEOUT", 60.0, minimum=0.1, maximum=3600.0)
# 429 and 5xx answers are retried this many times, waiting BACKOFF, 2×BACKOFF, … seconds.
REWIND_LLM_RETRIES = env_int("REWIND_LLM_RETRIES", 2, minimum=0, maximum=10)
REWIND_LLM_BACKOFF = env_float("REWIND_LLM_BACKOFF", 0.5, minimum=0.0, maximum=60.0)
# The judge: a model asked through the provider above (and its cache) to decide the text
# leaves the noise rule calls uncertain (runs.engine.judging). Empty, the default: no judge.
REWIND_JUDGE_MODEL = env_str("REWIND_JUDGE_MODEL").strip()
# A running run whose heartbeat is older than this is taken for dead and marked interrupted.
REWIND_RUN_LEASE_SECONDS = env_int("REWIND_RUN_LEASE_SECONDS", 30, minimum=2, maximum=86400)
# A step that runs longer than this fails, naming it, and the worker goes on to the next run
# (the step's thread is abandoned: runs.engine.execution.watch). Per pipeline:
# REWIND_STEP_TIMEOUTS=name=seconds,… or a Rewind Pipeline's own ``step_timeout``.
REWIND_STEP_TIMEOUT = env_float("REWIND_STEP_TIMEOUT", 300.0, minimum=0.1, maximum=86400.0)
REWIND_STEP_TIMEOUTS = env_seconds("REWIND_STEP_TIMEOUTS", minimum=0.1, maximum=86400.0)
# A queue worker whose abandoned step is still running stops after that run (its supervisor
# starts a fresh one): the step's thread cannot be stopped, and would keep the CPU.
REWIND_RECYCLE_WORKERS = env_bool("REWIND_RECYCLE_WORKERS", True)
# How long a worker told to stop (a step it gave up on still runs, or a shutdown) has to exit
# before its supervisor kills it: an app's own SIGTERM handler cannot keep it (workers.py).
REWIND_WORKER_GRACE_SECONDS = env_float(
    "REWIND_WORKER_GRACE_SECONDS", 5.0, minimum=0.1, maximum=3600.0
)
# The key is read from the environment when a call is made and never stored in settings
# that could be dumped; see runs.engine.providers.config.
# A run that takes this many steps without halting fails (a looping graph needs a halt).
REWIND_MAX_STEPS = env_int("REWIND_MAX_STEPS", 1000, minimum=1, maximum=1_000_000)
# Replays are hermetic: a connection the capture did not answer is refused while a step is
# answered from the cache. True lets every replay reach the network (as --allow-network does).
REWIND_ALLOW_NETWORK = env_bool("REWIND_ALLOW_NETWORK", False)


def _telemetry_destinations(name: str) -> dict[str, str]:
    """``NAME=statsd=udp:127.0.0.1:8125,logs=tcp:logs.internal:5140,syslog=unix:/dev/log`` →
    ``{label: destination}``; an entry without ``label=`` is labelled with its address."""
    shape = re.compile(r"(?:(?:tcp|udp):)?(?:\[[0-9A-Fa-f:.]+\]|[^\s:\[\]]+):\d{1,5}|unix:\S+")
    declared: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in os.environ.get(name, "").split(","))):
        label, _, destination = item.partition("=") if "=" in item else ("", "", item)
        destination, label = destination.strip(), label.strip() or destination.strip()
        port = destination.rpartition(":")[2]
        if not shape.fullmatch(destination) or (
            not destination.startswith("unix:") and not 0 < int(port) < 65536
        ):
            raise ImproperlyConfigured(
                f"{name} entries must look like label=[tcp:|udp:]host:port or label=unix:/path, "
                f"got {item!r}"
            )
        declared[label] = destination
    return declared


# Observability is not an effect: what a step sends to these destinations (a log shipper's
# handler, statsd, an OTLP collector) passes a replay, even a hermetic one, without changing its
# verdict, and each step lists it on the run ("telemetry passed: udp 127.0.0.1:8125 (statsd)").
# Any other destination stays refused (runs.engine.calls.capture.guard).
REWIND_TELEMETRY_DESTINATIONS = _telemetry_destinations("REWIND_TELEMETRY_DESTINATIONS")
# What a Burr step's code reads from the clock and randomness (datetime.now, uuid4, random, secrets,
# os.urandom) is recorded by line and given back to its replays (runs.engine.calls.capture.values).
# False: neither recorded nor replayed — such a step is named non-deterministic when it differs.
REWIND_REPLAY_VALUES = env_bool("REWIND_REPLAY_VALUES", True)
# How many days of runs to keep (runs.engine.retention): rewind_prune without --older-than removes
# the lineages whose every run is older. Unset: rewind_prune needs --older-than; nothing is
# removed by itself (schedule rewind_prune, e.g. daily from cron, to keep history bounded).
REWIND_RETENTION_DAYS = (
    env_float("REWIND_RETENTION_DAYS", 0.0, minimum=0.0, maximum=36_500.0) or None
)
# Where the dashboard is reached (https://rewind.example.com): links written outside it — the
# diff of each failing run in rewind_regress's JUnit file — start with it. Unset: no links.
REWIND_BASE_URL = env_str("REWIND_BASE_URL").rstrip("/")
# Live-update streams (server-sent events) open at once, per user and in all (runs.live.slots): a
# stream over either is refused with 429 and its page polls instead. Each open stream reads the
# run's marker ten times a second (SQLite) or holds a database connection (PostgreSQL). Four
# per user: a browser keeps six connections to a host over HTTP/1.1 (what uvicorn speaks), and
# each stream holds one, so six tabs of running runs would leave none to load a page.
REWIND_STREAMS_PER_USER = env_int("REWIND_STREAMS_PER_USER", 4, minimum=1, maximum=1000)
REWIND_STREAMS_TOTAL = env_int("REWIND_STREAMS_TOTAL", 200, minimum=1, maximum=10_000)
REWIND_OVERRIDE_MAX_BYTES = int(
    env_float("REWIND_OVERRIDE_MAX_BYTES", 65536, minimum=16, maximum=10_000_000)
)
# OpenTelemetry export (runs.engine.telemetry): every finished run is sent as a trace to
# <REWIND_OTLP_ENDPOINT>/v1/traces (OTLP/HTTP, protobuf). Unset: nothing is exported. Prompt and
# completion text go out only with REWIND_OTLP_CONTENT=1; a credential never does.
REWIND_OTLP_ENDPOINT = env_collector_url("REWIND_OTLP_ENDPOINT")
REWIND_OTLP_CONTENT = env_bool("REWIND_OTLP_CONTENT", False)
