"""The ``prompts`` setting of the judge config and the published templates it selects.

The expected template texts come from the installed SDK itself (:mod:`tests.published`), so no
published text is written here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from evald.judges import prompt_sets
from evald.judges.config import ConfigError, load

from tests.published import sdk_templates

GEMINI = {"backend": "gemini", "model": "gemini-2.5-flash", "api_key_env": "K"}
ENV = {"K": "secret-value", "XDG_CACHE_HOME": "/c"}


@pytest.fixture
def no_sdk(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """google-cloud-aiplatform as if it were not installed (and nothing loaded before)."""

    def find_spec() -> None:
        return None

    prompt_sets.vertex_sdk_templates.cache_clear()
    monkeypatch.setattr(prompt_sets, "find_vertexai", find_spec)
    yield
    prompt_sets.vertex_sdk_templates.cache_clear()


def test_default_is_evald() -> None:
    config = load(None, {"g": GEMINI}, ENV)
    assert config is not None
    assert config.prompts == "evald"


@pytest.mark.parametrize("value", ["evald", "vertex-sdk", " Vertex-SDK "])
def test_file_table_and_environment(tmp_path: Path, value: str) -> None:
    path = tmp_path / "judges.json"
    path.write_text(json.dumps({"prompts": value, "judges": {"g": GEMINI}}), encoding="utf-8")
    expected = value.strip().lower()
    from_file = load(path, None, ENV)
    from_table = load(None, {"prompts": value, "g": GEMINI}, ENV)
    from_env = load(None, {"g": GEMINI}, {**ENV, "EVALD_JUDGE_PROMPTS": value})
    assert from_file is not None
    assert from_table is not None
    assert from_env is not None
    assert (from_file.prompts, from_table.prompts, from_env.prompts) == (expected,) * 3
    assert "prompts" not in from_table.judges  # a shared key, not a judge


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    path = tmp_path / "judges.json"
    path.write_text(json.dumps({"prompts": "vertex-sdk", "judges": {"g": GEMINI}}))
    config = load(path, None, {**ENV, "EVALD_JUDGE_PROMPTS": "evald"})
    assert config is not None
    assert config.prompts == "evald"


@pytest.mark.parametrize("value", ["vertex", "", 1, ["evald"]])
def test_unknown_prompt_set_is_a_config_error(value: object) -> None:
    with pytest.raises(ConfigError, match=r"prompts must be one of \['evald', 'vertex-sdk'\]"):
        load(None, {"prompts": value, "g": GEMINI}, ENV)


def test_unknown_prompt_set_in_the_environment_names_the_variable() -> None:
    with pytest.raises(ConfigError, match=r"^EVALD_JUDGE_PROMPTS must be one of"):
        load(None, {"g": GEMINI}, {**ENV, "EVALD_JUDGE_PROMPTS": "google"})


@pytest.mark.usefixtures("no_sdk")
def test_vertex_sdk_without_the_sdk_names_the_extra() -> None:
    with pytest.raises(ConfigError, match=r"pip install 'evald\[vertex-sdk-prompts\]'"):
        load(None, {"prompts": "vertex-sdk", "g": GEMINI}, ENV)
    config = load(None, {"prompts": "evald", "g": GEMINI}, ENV)  # the default needs nothing
    assert config is not None


def test_templates_are_the_installed_sdks() -> None:
    assert prompt_sets.vertex_sdk_templates() == sdk_templates()


def test_templates_with_other_placeholders_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A future SDK whose templates need variables evald does not fill is a config error, not
    a prompt with a literal ``{history}`` in it."""
    module = tmp_path / prompt_sets.MODULE
    module.parent.mkdir(parents=True)
    module.write_text(
        "\n".join(
            f"{c} = '{{prompt}} {{history}} {{response}}'" for c in prompt_sets.TEMPLATES.values()
        )
    )
    monkeypatch.setattr(prompt_sets, "_module_path", lambda: module)
    prompt_sets.vertex_sdk_templates.cache_clear()
    try:
        with pytest.raises(ConfigError, match=r"placeholders \['history', 'prompt', 'response'\]"):
            prompt_sets.vertex_sdk_templates()
    finally:
        prompt_sets.vertex_sdk_templates.cache_clear()


USER_PROMPTS = [
    ({}, ""),
    ({"instruction": "Greet."}, "Greet."),
    ({"context": "Some text."}, "Some text."),
    ({"instruction": "Summarise.", "context": "Some text."}, "Summarise.\n\nContext:\nSome text."),
    (
        {"instruction": "Q?", "context": "C.", "reference": "R."},
        "Q?\n\nContext:\nC.\n\nReference:\nR.",
    ),
]


@pytest.mark.parametrize(("fields", "expected"), USER_PROMPTS)
def test_user_prompt(fields: dict[str, str], expected: str) -> None:
    assert prompt_sets.user_prompt({"prediction": "P", **fields}) == expected


def test_fill_is_one_pass() -> None:
    template = '{prompt}|{response}|{other}|{"score": 1}'
    values = {"prompt": "{response}", "response": "R"}
    assert prompt_sets.fill(template, values) == '{response}|R|{other}|{"score": 1}'
