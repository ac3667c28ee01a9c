"""The CSRF guard of the native APIs, case by case."""

from __future__ import annotations

import pytest
from aiohttp.test_utils import make_mocked_request
from evald.errors import PermissionDenied
from evald.ui import csrf
from evald.ui.access import require_admin

HOST = "127.0.0.1:8080"
ALLOWED = frozenset({"https://app.example"})

CASES = [
    # (method, headers, refused)
    ("GET", {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, False),
    ("POST", {"Content-Type": "application/json"}, False),  # an SDK, curl
    ("POST", {"Content-Type": "application/json; charset=utf-8"}, False),
    ("POST", {"Content-Type": "application/merge-patch+json"}, False),
    ("POST", {"Content-Type": "application/x-www-form-urlencoded"}, True),  # an HTML form
    ("POST", {"Content-Type": "text/plain"}, True),
    ("POST", {"Content-Type": "multipart/form-data; boundary=x"}, True),
    ("POST", {"Content-Type": "multipart/form-data; boundary=x", "x-evald-ui": "1"}, False),
    ("POST", {"Content-Length": "5"}, True),  # a body without a type
    ("POST", {}, False),  # no body at all (cancel)
    ("DELETE", {}, False),
    ("POST", {"Content-Type": "application/json", "Origin": f"http://{HOST}"}, False),
    ("POST", {"Content-Type": "application/json", "Origin": "https://evil.example"}, True),
    ("POST", {"Content-Type": "application/json", "Origin": "null"}, True),
    ("POST", {"Content-Type": "application/json", "Origin": "https://app.example"}, False),
    ("POST", {"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, True),
    ("POST", {"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, True),
    ("POST", {"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin"}, False),
    ("DELETE", {"Sec-Fetch-Site": "cross-site"}, True),
    (
        "PATCH",
        {"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site",
         "Origin": "https://app.example"},
        False,
    ),  # an allowed CORS origin
]  # fmt: skip


@pytest.mark.parametrize(("method", "headers", "refused"), CASES)
def test_refusal(method: str, headers: dict[str, str], refused: bool) -> None:
    request = make_mocked_request(method, "/v1/evald/runs", headers={"Host": HOST, **headers})
    assert (csrf.refusal(request, ALLOWED) is not None) == refused


class Keyed:
    def __init__(self, role: str) -> None:
        self.role = role


@pytest.mark.parametrize(
    ("principal", "allowed"),
    [(None, True), (object(), True), (Keyed("admin"), True), (Keyed("annotator"), False)],
)
def test_require_admin(principal: object, allowed: bool) -> None:
    if allowed:
        require_admin(principal)
    else:
        with pytest.raises(PermissionDenied, match="admin"):
            require_admin(principal)
