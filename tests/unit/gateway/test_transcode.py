"""JSON bodies to request messages and back: spellings, enums, unknown fields, error paths."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from evald.errors import InvalidArgument
from evald.gateway import transcode
from evald.gateway.routes import Route, default_routes
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m


def route(version: str = "v1beta1", verb: str = "evaluateInstances") -> Route:
    (found,) = [
        r
        for r in default_routes()
        if r.template.source == f"/{version}/{{location=projects/*/locations/*}}:{verb}"
    ]
    return found


def parse(body: Any, bindings: dict[str, str] | None = None) -> Any:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return transcode.parse_request(route(), raw, bindings or {})


def test_camel_and_snake_case_mixed_at_any_depth() -> None:
    # The shape the google-genai SDK posts: camelCase on top, snake_case nested.
    message = parse(
        {
            "rougeInput": {
                "metric_spec": {"rouge_type": "rougeLsum", "useStemmer": True},
                "instances": [{"prediction": "a", "reference": ""}],
            }
        }
    )
    assert message.rouge_input.metric_spec.rouge_type == "rougeLsum"
    assert message.rouge_input.metric_spec.use_stemmer is True
    assert message.rouge_input.instances[0].HasField("reference")


@pytest.mark.parametrize("version", [2, "COMET_22_SRC_REF"])
def test_enums_as_integers_or_names(version: Any) -> None:
    message = parse({"cometInput": {"metricSpec": {"version": version}}})
    assert message.comet_input.metric_spec.version == m.CometSpec.COMET_22_SRC_REF


def test_unknown_fields_are_ignored_and_logged_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    body = {
        "allowCrossRegionModel": True,
        "exactMatchInput": {"instances": [{"prediction": "a", "reference": "a", "extra": 1}]},
    }
    with caplog.at_level(logging.DEBUG, logger="evald.gateway.transcode"):
        message = parse(body)
    assert message.exact_match_input.instances[0].prediction == "a"
    (record,) = [r for r in caplog.records if r.getMessage() == "ignored unknown request fields"]
    assert record.fields["unknown"] == [  # type: ignore[attr-defined]
        "allowCrossRegionModel",
        "exactMatchInput.instances[0].extra",
    ]


def test_unknown_enum_names_are_ignored_like_unknown_fields() -> None:
    # json_format's behaviour with ignore_unknown_fields: newer clients may send newer values.
    message = parse({"cometInput": {"metricSpec": {"version": "COMET_99"}}})
    assert message.comet_input.metric_spec.version == 0


def test_path_variables_fill_the_request() -> None:
    message = parse({"location": "ignored"}, {"location": "projects/p/locations/l"})
    assert message.location == "projects/p/locations/l"


def test_empty_body_is_an_empty_request() -> None:
    assert parse(b"") == m.EvaluateInstancesRequest()


BAD_BODIES = [
    # (body, field path of the violation, words in its description)
    (b"{not json", "", "not valid JSON"),
    (b"\xff\xfe", "", "not valid JSON"),
    (b"[1, 2]", "", "JSON object, got an array"),
    (b'"text"', "", "JSON object, got a string"),
    (
        {"bleuInput": {"instances": [{"prediction": 5}]}},
        "bleu_input.instances[0].prediction",
        "int",
    ),
    ({"bleuInput": {"instances": [1]}}, "bleu_input.instances[0]", "JSON object, got a number"),
    ({"bleuInput": {"instances": {"a": 1}}}, "bleu_input.instances", "JSON array, got an object"),
    ({"bleuInput": "x"}, "bleu_input", "JSON object, got a string"),
    (
        {"bleuInput": {"metricSpec": {"useEffectiveOrder": "yes"}}},
        "bleu_input.metric_spec.use_effective_order",
        "true or false",
    ),
    ({"exactMatchInput": {}, "bleuInput": {}}, "metric_inputs", "only one member"),
    ({"exact_match_input": {}, "exactMatchInput": {}}, "exact_match_input", "given twice"),
    ({"location": 5}, "location", "int"),
    (
        {"rougeInput": {"metricSpec": {"rougeType": ["rougeL"]}}},
        "rouge_input.metric_spec.rouge_type",
        "",
    ),
]


@pytest.mark.parametrize(("body", "field", "words"), BAD_BODIES)
def test_bad_bodies_name_the_field(body: Any, field: str, words: str) -> None:
    with pytest.raises(InvalidArgument) as raised:
        parse(body)
    (violation,) = raised.value.violations
    assert violation.field == field
    assert words in violation.description


def test_deep_nesting_is_a_bad_request_not_a_crash() -> None:
    deep = b'{"bleuInput": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises(InvalidArgument):
        parse(deep)


ALT_QUERIES = [
    ("", False),
    ("$alt=json;enum-encoding=int", True),
    ("$alt=json%3Benum-encoding%3Dint", True),
    ("alt=json;enum-encoding=int", True),
    ("%24alt=json;enum-encoding=int", True),
    ("$alt=json", False),
    ("$alt=json;enum-encoding=name", False),
    ("key=abc&$alt=json;enum-encoding=int&x", True),
    ("other=1", False),
]


@pytest.mark.parametrize(("query", "int_enums"), ALT_QUERIES)
def test_alt_parameter(query: str, int_enums: bool) -> None:
    assert transcode.wants_int_enums(query) is int_enums


def test_alt_other_than_json_is_rejected() -> None:
    with pytest.raises(InvalidArgument, match="only JSON"):
        transcode.wants_int_enums("$alt=proto")


def test_zero_scores_are_rendered() -> None:
    # score is proto3 `optional`: set to 0.0 it must still appear (the SDKs need it).
    response = m.EvaluateInstancesResponse()
    response.exact_match_results.exact_match_metric_values.add(score=0.0)
    response.exact_match_results.exact_match_metric_values.add()
    rendered = json.loads(transcode.render(response))
    assert rendered == {"exactMatchResults": {"exactMatchMetricValues": [{"score": 0.0}, {}]}}


@pytest.mark.parametrize(("int_enums", "expected"), [(False, "CANDIDATE"), (True, 2)])
def test_enum_encoding_of_responses(int_enums: bool, expected: Any) -> None:
    response = m.EvaluateInstancesResponse()
    response.pairwise_metric_result.pairwise_choice = m.CANDIDATE
    rendered = json.loads(transcode.render(response, int_enums=int_enums))
    assert rendered["pairwiseMetricResult"]["pairwiseChoice"] == expected


def test_rendering_is_camel_case_utf8() -> None:
    response = m.EvaluateInstancesResponse()
    response.pointwise_metric_result.explanation = "très bien"
    assert transcode.render(response) == (
        '{"pointwiseMetricResult":{"explanation":"très bien"}}'.encode()
    )


def list_operations_route() -> Route:
    (found,) = [
        r
        for r in default_routes()
        if r.rpc.endswith("/ListOperations") and r.template.source.startswith("/v1beta1/")
    ]
    return found


QUERIES = [
    # (query string, expected ListOperationsRequest fields)
    ("pageSize=5&pageToken=abc", {"page_size": 5, "page_token": "abc"}),
    ("page_size=7&filter=done%3Dtrue", {"page_size": 7, "filter": "done=true"}),
    ("$alt=json;enum-encoding=int&pageSize=2", {"page_size": 2}),
    ("unknownParam=1&pageSize=3", {"page_size": 3}),
    ("", {}),
]


@pytest.mark.parametrize(("query", "expected"), QUERIES)
def test_query_parameters_fill_fields_of_bodyless_rules(query: str, expected: Any) -> None:
    bindings = {"name": "projects/p/locations/l"}
    message: Any = transcode.parse_request(list_operations_route(), b"", bindings, query)
    assert message.name == "projects/p/locations/l"
    for field, value in expected.items():
        assert getattr(message, field) == value
    assert {f.name for f, _ in message.ListFields()} == {"name", *expected}


def test_query_parameters_are_ignored_when_the_body_is_the_request() -> None:
    message: Any = transcode.parse_request(route(), b"{}", {}, "location=projects/x/locations/y")
    assert message.location == ""


def test_bad_query_value_names_the_field() -> None:
    with pytest.raises(InvalidArgument) as raised:
        transcode.parse_request(list_operations_route(), b"", {}, "pageSize=lots")
    assert raised.value.violations[0].field == "page_size"
