"""Judge configuration: a TOML or JSON judge config file (``--judge-config``,
``EVALD_JUDGE_CONFIG``), the ``[judges]`` table of the server config file, or environment only.

File format (TOML shown; the JSON form has the same keys)::

    default_judge = "gemini"      # used when a request names no autorater_model
    timeout_seconds = 60          # per judge call (also capped by the request's deadline)
    sampling_count = 4            # samples when autorater_config.sampling_count is unset
    flip_enabled = true           # pairwise: flip half the samples when flip_enabled is unset
    prompts = "evald"             # prompt set of the predefined metrics, or "vertex-sdk"

    [retry]
    max_attempts = 4              # per sample, first attempt included
    initial_backoff_seconds = 0.5
    max_backoff_seconds = 8

    [cache]
    enabled = true
    path = "/var/cache/evald/judge.sqlite3"

    [judges.gemini]
    backend = "gemini"            # google-genai; or "openai" for any OpenAI-compatible server
    model = "gemini-2.5-flash"    # model called when the request names none
    models = ["gemini-2.5-*"]     # more request model names (globs) served, called as named
    api_key_env = "GEMINI_API_KEY"   # or api_key_file = "/run/secrets/gemini"
    media_types = ["image/*"]     # media its model reads (default: all its backend carries)

Without a file, ``EVALD_JUDGE_BACKEND`` / ``EVALD_JUDGE_MODEL`` / ``EVALD_JUDGE_BASE_URL`` /
``EVALD_JUDGE_API_KEY`` (or ``EVALD_JUDGE_API_KEY_FILE``) / ``EVALD_JUDGE_VERTEX`` /
``EVALD_JUDGE_PROJECT`` / ``EVALD_JUDGE_LOCATION`` define one judge named ``default``.
``EVALD_JUDGE_CACHE`` (a path, or ``off``), ``EVALD_JUDGE_TIMEOUT``,
``EVALD_JUDGE_MAX_ATTEMPTS``, ``EVALD_JUDGE_SAMPLING_COUNT``, ``EVALD_JUDGE_FLIP_ENABLED`` and
``EVALD_JUDGE_PROMPTS`` override the file. Keys never appear in the file itself.

``sampling_count`` and ``flip_enabled`` are what a request that leaves those
``autorater_config`` fields unset gets. Vertex AI documents 4 and true, evald's defaults too;
lowering them trades agreement with Vertex's score distribution for judge cost.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evald.judges import prompt_sets
from evald.judges.backends import backends
from evald.judges.retry import RetryPolicy
from evald.judges.spec import ConfigError, JudgeSpec, Secret, flag, short_model_name
from evald.tables import read_table

__all__ = [
    "ConfigError",
    "JudgeSpec",
    "JudgesConfig",
    "SamplingDefaults",
    "Secret",
    "load",
    "short_model_name",
]
HOW_TO_CONFIGURE = (
    "configure a judge: point --judge-config (EVALD_JUDGE_CONFIG) at a TOML/JSON judge config "
    "file, add a [judges] table to the server config file, or set EVALD_JUDGE_BACKEND "
    "(gemini|openai), EVALD_JUDGE_MODEL and EVALD_JUDGE_API_KEY (plus EVALD_JUDGE_BASE_URL for "
    "an OpenAI-compatible server) before starting evald"
)
_OFF = ("0", "false", "no", "off")


VERTEX_SAMPLING_COUNT = 4
"""``AutoraterConfig.sampling_count`` unset means 4 samples (the API reference)."""
VERTEX_FLIP_ENABLED = True
"""``AutoraterConfig.flip_enabled`` unset means true: half the pairwise samples are flipped."""


@dataclass(frozen=True)
class SamplingDefaults:
    """What an unset ``autorater_config`` field means on this server."""

    count: int = VERTEX_SAMPLING_COUNT
    flip: bool = VERTEX_FLIP_ENABLED


@dataclass(frozen=True)
class JudgesConfig:
    """All judges plus the settings shared by every judge call."""

    judges: Mapping[str, JudgeSpec]
    default_judge: str | None = None
    timeout: float = 60.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    cache_enabled: bool = True
    cache_path: Path = field(default_factory=lambda: default_cache_path(os.environ))
    sampling: SamplingDefaults = field(default_factory=SamplingDefaults)
    prompts: str = prompt_sets.EVALD
    """The prompt set of the predefined judge metrics (:mod:`evald.judges.prompt_sets`)."""

    def resolve(self, requested: str) -> tuple[JudgeSpec, str]:
        """The judge and model for a request's ``autorater_model`` ("" = the default judge).

        Raises LookupError naming the accepted models when nothing serves ``requested``.
        """
        if not requested.strip():
            if self.default_judge is None:
                raise LookupError("no default judge is configured")
            spec = self.judges[self.default_judge]
            return spec, spec.model
        short = short_model_name(requested)
        for spec in self.judges.values():
            if spec.serves(short):
                return spec, (spec.model if short == spec.name else short)
        accepted = sorted({n for s in self.judges.values() for n in (s.model, *s.models)})
        raise LookupError(f"no configured judge serves model '{short}'; accepted: {accepted}")


def default_cache_path(env: Mapping[str, str]) -> Path:
    """``$XDG_CACHE_HOME/evald/judge-cache.sqlite3`` (``~/.cache`` when unset)."""
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "evald" / "judge-cache.sqlite3"


def load(
    path: Path | None, table: Mapping[str, Any] | None, env: Mapping[str, str]
) -> JudgesConfig | None:
    """The judge configuration, or None if none is set. In order of precedence: the judge
    config file ``path``; one judge defined by ``EVALD_JUDGE_BACKEND`` & co. in ``env``; the
    server config file's ``[judges]`` table. ``EVALD_JUDGE_CACHE``, ``EVALD_JUDGE_TIMEOUT``,
    ``EVALD_JUDGE_MAX_ATTEMPTS`` and ``EVALD_JUDGE_PROMPTS`` override whichever is used."""
    if path is not None:
        raw, source = _read_file(path), str(path)
    elif env.get("EVALD_JUDGE_BACKEND", "").strip():
        raw, source = _from_env(env), "environment"
    elif table:
        raw, source = from_table(table), "[judges] table of the config file"
    else:
        return None
    return _build(raw, env, source=source)


SHARED_KEYS = (
    "default_judge",
    "timeout_seconds",
    "sampling_count",
    "flip_enabled",
    "prompts",
    "retry",
    "cache",
)
"""Keys of a ``[judges]`` table that are not judges."""


def from_table(table: Mapping[str, Any]) -> dict[str, Any]:
    """A judge config from the server config file's ``[judges]`` table, where every sub-table
    but ``retry`` and ``cache`` is one judge (``[judges.gemini]``)."""
    raw: dict[str, Any] = {key: table[key] for key in SHARED_KEYS if key in table}
    raw["judges"] = {name: entry for name, entry in table.items() if name not in SHARED_KEYS}
    return raw


def _read_file(path: Path) -> dict[str, Any]:
    try:
        return read_table(path, "judge config")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    judge: dict[str, Any] = {"backend": env["EVALD_JUDGE_BACKEND"].strip()}
    for key in ("model", "base_url", "project", "location", "api_version", "max_concurrency"):
        value = env.get(f"EVALD_JUDGE_{key.upper()}", "").strip()
        if value:
            judge[key] = value
    if env.get("EVALD_JUDGE_VERTEX", "").strip():
        judge["vertex"] = env["EVALD_JUDGE_VERTEX"].strip()
    if env.get("EVALD_JUDGE_API_KEY"):
        judge["api_key_env"] = "EVALD_JUDGE_API_KEY"
    elif env.get("EVALD_JUDGE_API_KEY_FILE"):
        judge["api_key_file"] = env["EVALD_JUDGE_API_KEY_FILE"]
    return {"default_judge": "default", "judges": {"default": judge}}


def _build(raw: Mapping[str, Any], env: Mapping[str, str], source: str) -> JudgesConfig:
    judges_raw = raw.get("judges")
    if not isinstance(judges_raw, dict) or not judges_raw:
        raise ConfigError(f"judge config ({source}) defines no [judges.<name>] table")
    judges = {name: _judge(name, entry, env) for name, entry in judges_raw.items()}
    default = raw.get("default_judge")
    if default is None and len(judges) == 1:
        default = next(iter(judges))
    if default is not None and default not in judges:
        raise ConfigError(f"default_judge '{default}' is not one of {sorted(judges)}")
    retry_raw = _table(raw, "retry")
    cache_raw = _table(raw, "cache")
    try:
        retry = RetryPolicy(
            max_attempts=int(
                env.get("EVALD_JUDGE_MAX_ATTEMPTS") or retry_raw.get("max_attempts", 4)
            ),
            initial_backoff=float(retry_raw.get("initial_backoff_seconds", 0.5)),
            max_backoff=float(retry_raw.get("max_backoff_seconds", 8.0)),
        )
        timeout = float(env.get("EVALD_JUDGE_TIMEOUT") or raw.get("timeout_seconds", 60.0))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"judge config ({source}): {exc}") from None
    if timeout <= 0:
        raise ConfigError("timeout_seconds must be positive")
    sampling = _sampling(raw, env, source)
    cache_enabled = flag(cache_raw.get("enabled", True), "cache.enabled")
    cache_path = Path(cache_raw["path"]) if cache_raw.get("path") else default_cache_path(env)
    override = env.get("EVALD_JUDGE_CACHE", "").strip()
    if override.lower() in _OFF:
        cache_enabled = False
    elif override:
        cache_enabled, cache_path = True, Path(override)
    prompts_env = env.get("EVALD_JUDGE_PROMPTS", "").strip()
    prompts = prompt_sets.check(
        prompts_env or raw.get("prompts", prompt_sets.EVALD),
        "EVALD_JUDGE_PROMPTS" if prompts_env else "prompts",
    )
    return JudgesConfig(
        judges=judges,
        default_judge=default,
        timeout=timeout,
        retry=retry,
        cache_enabled=cache_enabled,
        cache_path=cache_path.expanduser(),
        sampling=sampling,
        prompts=prompts,
    )


MAX_SAMPLES = 32
"""Most samples per judge verdict (``sampling_count``)."""


def _sampling(raw: Mapping[str, Any], env: Mapping[str, str], source: str) -> SamplingDefaults:
    count_raw = env.get("EVALD_JUDGE_SAMPLING_COUNT") or raw.get(
        "sampling_count", VERTEX_SAMPLING_COUNT
    )
    try:
        count = int(count_raw)
    except (TypeError, ValueError):
        raise ConfigError(
            f"judge config ({source}): sampling_count must be an integer, got {count_raw!r}"
        ) from None
    if not 1 <= count <= MAX_SAMPLES:
        raise ConfigError(f"sampling_count must be within 1..{MAX_SAMPLES}, got {count}")
    flip_raw = env.get("EVALD_JUDGE_FLIP_ENABLED") or raw.get("flip_enabled", VERTEX_FLIP_ENABLED)
    return SamplingDefaults(count, flag(flip_raw, "flip_enabled"))


def _table(raw: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = raw.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError(f"'{name}' must be a table")
    return value


COMMON_KEYS = frozenset(
    {
        "backend",
        "model",
        "models",
        "base_url",
        "api_key_env",
        "api_key_file",
        "api_version",
        "max_concurrency",
        "structured_output",
        "media_types",
    }
)
"""Keys every judge entry may have; a backend adds its own (``JudgeBackend.keys``)."""


def _judge(name: str, entry: Any, env: Mapping[str, str]) -> JudgeSpec:
    where = f"judges.{name}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a table")
    if "api_key" in entry:
        raise ConfigError(
            f"{where}.api_key: keys are not read from the config file; "
            "use api_key_env (an environment variable name) or api_key_file"
        )
    known = backends()
    backend = known.get(str(entry.get("backend", "")).lower())
    if backend is None:
        raise ConfigError(
            f"{where}.backend must be one of {sorted(known)}, got {entry.get('backend')!r}"
        )
    allowed = COMMON_KEYS | backend.keys
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise ConfigError(f"{where}: unknown keys {unknown}; known: {sorted(allowed)}")
    model = str(entry.get("model", "")).strip()
    if not model:
        raise ConfigError(f"{where}.model is required")
    models = entry.get("models", [])
    if not isinstance(models, list) or not all(isinstance(m, str) for m in models):
        raise ConfigError(f"{where}.models must be a list of model names")
    try:
        concurrency = int(entry.get("max_concurrency", 8))
    except (TypeError, ValueError):
        raise ConfigError(f"{where}.max_concurrency must be an integer") from None
    if concurrency < 1:
        raise ConfigError(f"{where}.max_concurrency must be at least 1")
    api_key = _secret(where, entry, env)
    media_types = entry.get("media_types")
    if media_types is not None and (
        not isinstance(media_types, list) or not all(isinstance(m, str) for m in media_types)
    ):
        raise ConfigError(f"{where}.media_types must be a list of MIME types (image/*), or []")
    return JudgeSpec(
        name=name,
        backend=backend.name,
        model=model,
        models=tuple(short_model_name(m) for m in models),
        base_url=str(entry["base_url"]).rstrip("/") if entry.get("base_url") else None,
        api_key=api_key,
        api_version=entry.get("api_version") or None,
        max_concurrency=concurrency,
        structured_output=flag(entry.get("structured_output", True), f"{where}.structured_output"),
        media_types=None if media_types is None else tuple(m.lower() for m in media_types),
        options=backend.options(where, entry, api_key),
    )


def _secret(where: str, entry: Mapping[str, Any], env: Mapping[str, str]) -> Secret | None:
    if entry.get("api_key_env"):
        var = str(entry["api_key_env"])
        value = env.get(var, "").strip()
        if not value:
            raise ConfigError(f"{where}.api_key_env names {var}, which is not set")
        return Secret(value)
    if entry.get("api_key_file"):
        path = Path(str(entry["api_key_file"])).expanduser()
        try:
            value = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"{where}.api_key_file {path}: {exc.strerror}") from None
        if not value:
            raise ConfigError(f"{where}.api_key_file {path} is empty")
        return Secret(value)
    return None
