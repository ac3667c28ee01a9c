"""Path template matching, against a hand-written case table (grammar of google/api/http.proto)."""

from __future__ import annotations

import pytest
from evald.gateway.template import PathTemplate

LOCATION = "/v1beta1/{location=projects/*/locations/*}:evaluateInstances"

MATCHES = [
    # (template, URL path, expected bindings or None for no match)
    (
        LOCATION,
        "/v1beta1/projects/p/locations/us-central1:evaluateInstances",
        {"location": "projects/p/locations/us-central1"},
    ),
    # The google-genai SDKs put a slash before the colon.
    (
        LOCATION,
        "/v1beta1/projects/p/locations/l/:evaluateInstances",
        {"location": "projects/p/locations/l"},
    ),
    (LOCATION, "/v1beta1/projects/p/locations/l:evaluateDataset", None),
    (LOCATION, "/v1beta1/projects/p/locations/l", None),
    (LOCATION, "/v1beta1/projects/p:evaluateInstances", None),
    (LOCATION, "/v1beta1/projects/p/locations/l/x:evaluateInstances", None),
    (LOCATION, "/v1/projects/p/locations/l:evaluateInstances", None),
    (LOCATION, "/v1beta1/projects//locations/l:evaluateInstances", None),
    (LOCATION, "/v1beta1/projects/p/regions/l:evaluateInstances", None),
    (
        LOCATION,
        "/v1beta1/projects/my%20p/locations/l:evaluateInstances",
        {"location": "projects/my p/locations/l"},
    ),
    # An encoded slash stays encoded in a multi-segment variable.
    (
        LOCATION,
        "/v1beta1/projects/a%2Fb/locations/l:evaluateInstances",
        {"location": "projects/a%2Fb/locations/l"},
    ),
    ("/v1beta1:evaluateInstances", "/v1beta1:evaluateInstances", {}),
    ("/v1beta1:evaluateInstances", "/v1beta1/:evaluateInstances", {}),
    ("/v1beta1:evaluateInstances", "/v1beta1", None),
    ("/v1beta1:evaluateInstances", "/v1:evaluateInstances", None),
    ("/v1beta1:evaluateInstances", "/v1beta1/x:evaluateInstances", None),
    # {var} is {var=*}: one segment, and a single-segment value is fully decoded.
    ("/v1/things/{name}", "/v1/things/abc", {"name": "abc"}),
    ("/v1/things/{name}", "/v1/things/a%2Fb", {"name": "a/b"}),
    ("/v1/things/{name}", "/v1/things/a/b", None),
    ("/v1/things/{name}", "/v1/things/", None),
    ("/v1/*/x", "/v1/anything/x", {}),
    ("/v1/*/x", "/v1/x", None),
    ("/v1/**", "/v1/a/b/c", {}),
    ("/v1/**", "/v1", {}),
    ("/v1/{rest=**}", "/v1/a/b/c", {"rest": "a/b/c"}),
    ("/v1/{rest=**}", "/v1/a", {"rest": "a"}),
    (
        "/v1/{name=shelves/*}/books/{book.id}",
        "/v1/shelves/s1/books/b2",
        {"name": "shelves/s1", "book.id": "b2"},
    ),
    ("/v1/{name=shelves/*}:get", "/v1/shelves/s1:get", {"name": "shelves/s1"}),
    ("/v1/{name=shelves/*}:get", "/v1/shelves/s1", None),
    ("/v1/things", "/v1/things", {}),
    ("/v1/things", "/v1/things/", None),
    ("/v1/things", "/v1/Things", None),
]


@pytest.mark.parametrize(("template", "path", "expected"), MATCHES)
def test_match(template: str, path: str, expected: dict[str, str] | None) -> None:
    assert PathTemplate.parse(template).match(path) == expected


BAD_TEMPLATES = [
    "v1/things",  # no leading slash
    "/v1/{name",  # unclosed variable
    "/v1/name}",
    "/v1/{a/{b}}",  # nested variables
    "/v1/**/x",  # '**' not last
    "/v1//x",  # empty segment
    "/v1/{}",  # no variable name
    "/v1/{a}/{a}",  # bound twice
    "/v1:",  # empty verb
    "/v1/{1x}",
]


@pytest.mark.parametrize("template", BAD_TEMPLATES)
def test_bad_templates_are_rejected(template: str) -> None:
    with pytest.raises(ValueError, match="'"):
        PathTemplate.parse(template)


def test_parsed_shape() -> None:
    parsed = PathTemplate.parse(LOCATION)
    assert parsed.verb == "evaluateInstances"
    assert [v.field_path for v in parsed.variables] == ["location"]
    assert (parsed.variables[0].start, parsed.variables[0].end) == (1, 5)
    assert len(parsed.segments) == 5
