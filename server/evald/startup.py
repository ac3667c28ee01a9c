"""Start-up checks of ``evald serve`` and ``evald gateway``: every file and directory the settings
name, and the judge configuration, before anything listens.

Without them a bad setting surfaces late and far from its cause: an invalid judge config as
FAILED_PRECONDITION on the first judge call of a server that reported itself serving, an
unwritable data dir as a ``sqlite3`` traceback. Each check raises :class:`StartupError`, one
line naming the setting by its flag and variable; the CLI prints it and exits 2.
"""

from __future__ import annotations

import os
import ssl
import tempfile
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from evald.config import ENV_PREFIX, Settings
from evald.database import mask_url
from evald.errors import EvalError
from evald.judges.config import ConfigError
from evald.judges.config import load as load_judges
from evald.ops.auth import read_keys_file


class StartupError(ValueError):
    """A setting the server cannot start with; the message names the setting."""


def setting_name(name: str) -> str:
    """``--data-dir (EVALD_DATA_DIR)``: how a user sets the setting ``name``."""
    return f"--{name.replace('_', '-')} ({ENV_PREFIX}{name.upper()})"


def check_server(settings: Settings, env: Mapping[str, str] | None = None) -> None:
    """Everything ``evald serve`` reads at start or at its first calls; StartupError."""
    env = os.environ if env is None else env
    check_tls(settings)
    if settings.engine == "ray":
        from evald.jobs import ray_engine

        try:
            ray_engine.require()
        except EvalError as exc:
            raise StartupError(exc.message) from None
    if settings.tls_client_ca is not None:
        check_ca("tls_client_ca", settings.tls_client_ca)
    if settings.auth_keys_file is not None:
        try:
            read_keys_file(settings.auth_keys_file)
        except ValueError as exc:
            raise StartupError(f"{setting_name('auth_keys_file')}: {exc}") from None
    if settings.database_url is not None:
        check_database(settings.database_url)
    data = settings.data_root()
    where = setting_name("data_dir")
    if settings.data_dir is None:
        where = f"the default data dir (set {where})"
    writable_dir(where, data)
    for file in sorted(data.glob("*.sqlite3")):
        # A database left by another user (e.g. a run as root) is as fatal as an unwritable dir.
        if not os.access(file, os.R_OK | os.W_OK):
            raise StartupError(f"{where} {data}: {file.name} is not readable and writable")
    dataset = setting_name("dataset_root")
    if settings.dataset_root is None:
        dataset = f"the dataset root (set {dataset})"
    directory(dataset, settings.dataset_dir(), writable=False)
    output = setting_name("output_root")
    if settings.output_root is None:
        output = f"the output root (set {output})"
    writable_dir(output, settings.output_dir())
    if settings.models_dir is not None:
        directory(setting_name("models_dir"), settings.models_dir, writable=False, create=False)
    if settings.hf_datasets_dir is not None:
        directory(
            setting_name("hf_datasets_dir"), settings.hf_datasets_dir, writable=False, create=False
        )
    check_judges(settings, env)


def check_database(url: str) -> None:
    """The PostgreSQL driver is installed and the database answers (the URL is shown with its
    password masked)."""
    where = f"{setting_name('database_url')} {mask_url(url)}"
    try:
        import psycopg
        import psycopg_pool  # noqa: F401 (the pool the stores use)
    except ImportError:
        raise StartupError(
            f"{where}: PostgreSQL support is not installed; pip install 'evald[postgres]'"
        ) from None
    try:
        with psycopg.connect(url, connect_timeout=10) as connection:
            connection.execute("SELECT 1")
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        password = urlsplit(url).password
        if password:  # never shown, even if a driver message quoted it
            reason = reason.replace(password, "***")
        raise StartupError(f"{where}: cannot connect: {reason}") from None


def check_gateway(settings: Settings, root_certificates: Path | None) -> None:
    """Everything ``evald gateway`` reads at start; StartupError."""
    check_tls(settings)
    if root_certificates is not None:
        check_ca("grpc_root_certs", root_certificates, "--grpc-root-certs")


def check_judges(settings: Settings, env: Mapping[str, str]) -> None:
    """The judge configuration parses, every judge validates, its key variables are set and
    its answer cache can be written."""
    if settings.judge_config is not None:
        source = f"{setting_name('judge_config')} {settings.judge_config}"
    elif env.get("EVALD_JUDGE_BACKEND", "").strip():
        source = "the judge defined by EVALD_JUDGE_BACKEND & co."
    else:
        source = f"the [judges] table of --config ({ENV_PREFIX}CONFIG) {settings.config}"
    try:
        config = load_judges(settings.judge_config, settings.judges, env)
    except ConfigError as exc:
        text = str(exc)
        if settings.judge_config is not None:
            # read_table's messages name the file already
            text = text.replace(f" {settings.judge_config}", "")
        raise StartupError(f"{source}: {text}") from None
    if config is not None and config.cache_enabled:
        writable_dir(
            "the judge cache dir (set [cache] path in the judge config, or EVALD_JUDGE_CACHE "
            "to a path or off)",
            config.cache_path.parent,
        )


def check_tls(settings: Settings) -> None:
    """The certificate and key load, and belong together."""
    if settings.tls_cert is None or settings.tls_key is None:
        return
    pem("tls_cert", settings.tls_cert, "CERTIFICATE")
    key = pem("tls_key", settings.tls_key, "PRIVATE KEY")
    if b"ENCRYPTED" in key:
        raise StartupError(
            f"{setting_name('tls_key')} {settings.tls_key}: the key is encrypted; "
            "gRPC needs it unencrypted"
        )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        # A password callback: OpenSSL would otherwise prompt on the terminal for one.
        context.load_cert_chain(settings.tls_cert, settings.tls_key, password=lambda: b"")
    except ssl.SSLError as exc:
        if "KEY_VALUES_MISMATCH" in str(exc):
            raise StartupError(
                f"{setting_name('tls_key')} {settings.tls_key} is not the key of "
                f"{setting_name('tls_cert')} {settings.tls_cert}"
            ) from None
        raise StartupError(
            f"{setting_name('tls_cert')} {settings.tls_cert} / {setting_name('tls_key')} "
            f"{settings.tls_key}: cannot be loaded ({exc.reason or exc})"
        ) from None


def check_ca(name: str, path: Path, flag: str = "") -> None:
    """PEM CA certificates that load."""
    shown = flag or setting_name(name)
    pem(name, path, "CERTIFICATE", shown)
    try:
        ssl.create_default_context(cafile=str(path))
    except ssl.SSLError as exc:
        raise StartupError(f"{shown} {path}: cannot be loaded ({exc.reason or exc})") from None


def pem(name: str, path: Path, kind: str, shown: str = "") -> bytes:
    """The bytes of a readable PEM file holding a ``kind`` block."""
    shown = shown or setting_name(name)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StartupError(f"{shown} {path}: cannot read it ({exc.strerror})") from None
    if f"{kind}-----".encode() not in data:
        raise StartupError(f"{shown} {path}: not a PEM {kind.lower()}")
    return data


def directory(where: str, path: Path, *, writable: bool, create: bool = True) -> None:
    """``path`` is a directory (made if ``create``) that can be read, and written if
    ``writable``."""
    if path.exists() and not path.is_dir():
        raise StartupError(f"{where} {path}: not a directory")
    try:
        if create:
            path.mkdir(parents=True, exist_ok=True)
        elif not path.exists():
            raise StartupError(f"{where} {path}: no such directory")
    except OSError as exc:
        raise StartupError(f"{where} {path}: cannot create it ({exc.strerror})") from None
    if not path.is_dir():
        raise StartupError(f"{where} {path}: not a directory")
    if not os.access(path, os.R_OK | os.X_OK):
        raise StartupError(f"{where} {path}: not readable")
    if not writable:
        return
    try:
        # Writing a file is the test that counts (ACLs, quotas, mounts): it is what SQLite does.
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise StartupError(f"{where} {path}: not writable ({exc.strerror})") from None


def writable_dir(where: str, path: Path) -> None:
    """``path`` is a directory (made if missing) this process can write."""
    directory(where, path, writable=True)
