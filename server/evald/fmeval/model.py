"""The model under test of an FMEval algorithm, over evald's model targets.

``generate`` sends a prompt to the endpoint's chat completions (a chat URL, or a Gemini
endpoint: the prompt is one user message) or completions (any other URL). ``log_probability``
asks an OpenAI-compatible completions endpoint to echo the text with its log-probabilities
(``echo``, ``logprobs``: vLLM and other servers that support prompt log-probabilities) and sums
those of the text's tokens; the first token has none (nothing precedes it) and counts as 0.

Outputs are cached under ``cache_scope`` (a job's id), with the number of times the same
prompt was asked before in the key: a check that asks a prompt twice (is the model
deterministic?) gets two answers, and a resumed job gets the answers it had.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from evald.errors import FailedPrecondition, Unavailable
from evald.targets import Endpoint, Generation, TargetError, Targets
from evald.targets.base import safe_url


class TargetModel:
    """An FMEval ``Model`` (:class:`evald.fmeval.algorithms.base.Model`) over one endpoint."""

    def __init__(
        self,
        targets: Targets,
        endpoint: Endpoint,
        params: Mapping[str, Any] | None = None,
        *,
        cache_scope: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> None:
        self.targets = targets
        self.endpoint = endpoint
        self.params = dict(params or {})
        self.cache_scope = cache_scope
        self.timeout = timeout
        self.max_retries = max_retries
        self._asked: dict[tuple[str, str], int] = {}
        self._lock = asyncio.Lock()

    def describe(self) -> str:
        """``model m at URL`` for error messages (no credentials)."""
        return f"model {self.endpoint.model_id} at {safe_url(self.endpoint.url or 'Gemini')}"

    @property
    def chat(self) -> bool:
        """Whether prompts go to a chat API."""
        url = self.endpoint.url.rstrip("/")
        return self.endpoint.format == "gemini" or url.endswith("/chat/completions")

    async def generate(self, prompt: str) -> str:
        """The model's output text for ``prompt``."""
        if self.chat:
            messages = ({"role": "user", "content": prompt},)
            generation = Generation("chat", messages=messages, params=self.params)
        else:
            generation = Generation("completion", prompt=prompt, params=self.params)
        output = await self._ask("generate", prompt, generation)
        return str(output.text)

    async def log_probability(self, text: str) -> float:
        """The sum of the log-probabilities of ``text``'s tokens, by the model."""
        if self.endpoint.format == "gemini":
            raise FailedPrecondition(
                f"the target {self.describe()} cannot give prompt log-probabilities (Gemini "
                "has none): prompt stereotyping needs an OpenAI-compatible completions "
                "endpoint that echoes the prompt's log-probabilities, such as vLLM"
            )
        params = {**self.params, "echo": True, "logprobs": 1, "max_tokens": 1, "temperature": 0}
        output = await self._ask(
            "logprob", text, Generation("completion", prompt=text, params=params)
        )
        found = _prompt_logprob(output.response, len(text))
        if found is None:
            raise FailedPrecondition(
                f"the target {self.describe()} gave no prompt log-probabilities (completions "
                "with echo and logprobs): prompt stereotyping needs a server that does, such "
                "as vLLM"
            )
        return found

    async def _ask(self, what: str, text: str, generation: Generation) -> Any:
        sample = 0
        if what == "generate":  # log-probabilities are asked at temperature 0: never sampled
            async with self._lock:
                sample = self._asked.get((what, text), 0)
                self._asked[(what, text)] = sample + 1
        scope = None if self.cache_scope is None else f"{self.cache_scope}#{sample}"
        try:
            return await self.targets.generate(
                self.endpoint,
                generation,
                timeout=self.timeout,
                max_retries=self.max_retries,
                use_cache=scope is not None,
                scope=scope or "",
            )
        except TargetError as exc:
            raise Unavailable(f"the model call failed: {exc.reason}") from None


def _prompt_logprob(response: Mapping[str, Any], length: int) -> float | None:
    """The summed log-probabilities of the echoed prompt's tokens (those starting within its
    first ``length`` characters) in a completions answer; None without them."""
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        return None
    logprobs = choices[0].get("logprobs")
    if not isinstance(logprobs, Mapping):
        return None
    values = logprobs.get("token_logprobs")
    offsets = logprobs.get("text_offset")
    if not isinstance(values, list) or not values:
        return None
    if not isinstance(offsets, list) or len(offsets) != len(values):
        return None
    total = 0.0
    for value, offset in zip(values, offsets, strict=True):
        if not isinstance(offset, int) or offset >= length:
            continue  # a generated token, after the echoed prompt
        if isinstance(value, int | float) and not isinstance(value, bool):
            total += float(value)
    return total
