"""Drive a running evald with the official GAPIC clients; print a JSON report of every check.

    python -m tests.official.official_client HOST:PORT  ->  {"checks": {id: {"ok", "detail"}}}

Runs in its own process: the official SDK and ``evald_proto`` cannot be imported together. The
clients get an insecure channel through ``EvaluationServiceGrpcTransport(channel=...)`` (they
open TLS otherwise); an interceptor on that channel records the metadata the SDK sends.
"""

from __future__ import annotations

import importlib
import json
import logging
import math
import struct
import sys
import traceback
from collections.abc import Callable
from typing import Any

import grpc
from google.api_core import exceptions
from google.rpc import error_details_pb2

from tests.official.cases import BOTH, CASES, LOCATION, Case, check_ids

Report = dict[str, dict[str, Any]]


def f32(value: float) -> float:
    """``value`` as it reads back after a trip through a proto ``float``."""
    return float(struct.unpack("f", struct.pack("f", value))[0])


def reference_scores(case: Case) -> list[float]:
    """Expected scores: hand-worked, or from sacrebleu / rouge-score called directly."""
    if case.expected is not None:
        return [float(x) for x in case.expected]
    if case.reference == "bleu":
        import sacrebleu

        # sacrebleu warns once per sentence when effective order is off; stderr stays readable.
        logging.getLogger("sacrebleu").setLevel(logging.ERROR)
        effective = bool(case.spec.get("use_effective_order", False))
        return [
            sacrebleu.sentence_bleu(
                i["prediction"], [i["reference"]], use_effective_order=effective
            ).score
            / 100
            for i in case.instances
        ]
    if case.reference == "rouge":
        from rouge_score.rouge_scorer import RougeScorer

        canonical = {"rougel": "rougeL", "rougelsum": "rougeLsum", "": "rougeL"}
        rouge_type = canonical.get(case.spec["rouge_type"], case.spec["rouge_type"])
        scorer = RougeScorer([rouge_type], use_stemmer=bool(case.spec.get("use_stemmer")))
        texts = case.split or [(i["prediction"], i["reference"]) for i in case.instances]
        return [
            scorer.score(target=ref, prediction=pred)[rouge_type].fmeasure for pred, ref in texts
        ]
    raise ValueError(f"{case.id}: no expected scores")


class Recorder(grpc.UnaryUnaryClientInterceptor):  # type: ignore[type-arg]
    """Keeps the metadata of every call made through the channel."""

    def __init__(self) -> None:
        self.metadata: list[list[tuple[str, str]]] = []

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        self.metadata.append([(k, str(v)) for k, v in (details.metadata or [])])
        return continuation(details, request)


def client_for(version: str, address: str) -> tuple[Any, Any, Recorder]:
    """The official module and a GAPIC client on an insecure, recorded channel."""
    module = importlib.import_module(f"google.cloud.aiplatform_{version}")
    transports = importlib.import_module(
        f"google.cloud.aiplatform_{version}.services.evaluation_service.transports.grpc"
    )
    recorder = Recorder()
    channel = grpc.intercept_channel(grpc.insecure_channel(address), recorder)
    transport = transports.EvaluationServiceGrpcTransport(channel=channel)
    return module, module.EvaluationServiceClient(transport=transport), recorder


def scores_of(module: Any, response: Any) -> tuple[str | None, list[float | None]]:
    """The result member set on a response and its scores (None where score is unset)."""
    pb = module.EvaluateInstancesResponse.pb(response)
    which = pb.WhichOneof("evaluation_results")
    if which is None:
        return None, []
    result = getattr(pb, which)
    (values_field,) = result.DESCRIPTOR.fields
    values = getattr(result, values_field.name)
    return which, [v.score if v.HasField("score") else None for v in values]


def check_case(module: Any, client: Any, case: Case) -> tuple[bool, str]:
    request = module.EvaluateInstancesRequest(
        location=LOCATION, **{case.member: {"metric_spec": case.spec, "instances": case.instances}}
    )
    response = client.evaluate_instances(request=request, timeout=30)
    which, got = scores_of(module, response)
    want = [f32(x) for x in reference_scores(case)]
    expected_field = case.member.removesuffix("_input") + "_results"
    ok = (
        which == expected_field
        and len(got) == len(want)
        and all(
            g is not None and math.isclose(g, w, rel_tol=1e-6, abs_tol=1e-7)
            for g, w in zip(got, want, strict=False)
        )
    )
    return ok, f"{which}: got {got}, expected {want}"


def check_invalid_argument(module: Any, client: Any) -> tuple[bool, str]:
    request = module.EvaluateInstancesRequest(
        location=LOCATION,
        exact_match_input={"metric_spec": {}, "instances": [{"prediction": "a"}]},
    )
    try:
        client.evaluate_instances(request=request, timeout=30)
    except exceptions.InvalidArgument as exc:
        fields = [
            v.field
            for d in exc.details
            if isinstance(d, error_details_pb2.BadRequest)
            for v in d.field_violations
        ]
        ok = fields[:1] == ["exact_match_input.instances[0].reference"]
        return ok, f"InvalidArgument({exc.message!r}) with violations {fields}"
    except exceptions.GoogleAPICallError as exc:
        return False, f"{type(exc).__name__}: {exc}"
    return False, "no error raised"


def expect_error(
    client: Any, request: Any, error: type[Exception], needle: str
) -> tuple[bool, str]:
    """The call raises ``error`` (an api_core exception) whose message contains ``needle``."""
    try:
        client.evaluate_instances(request=request, timeout=30)
    except exceptions.GoogleAPICallError as exc:
        ok = isinstance(exc, error) and needle in exc.message
        return ok, f"{type(exc).__name__}({exc.message!r})"
    return False, "no error raised"


def check_judge_without_judge(module: Any, client: Any) -> tuple[bool, str]:
    """A judge metric on a server with no judge configured: FAILED_PRECONDITION saying so."""
    request = module.EvaluateInstancesRequest(
        location=LOCATION,
        pointwise_metric_input={
            "metric_spec": {"metric_prompt_template": "Rate {response} from 1 to 5."},
            "instance": {"json_instance": json.dumps({"response": "fine"})},
        },
    )
    return expect_error(client, request, exceptions.FailedPrecondition, "judge")


def check_pending_not_implemented(module: Any, client: Any) -> tuple[bool, str]:
    """A model-backed metric whose model the server lacks (COMET): FAILED_PRECONDITION naming
    the model."""
    request = module.EvaluateInstancesRequest(
        location=LOCATION,
        comet_input={
            "metric_spec": {"version": 2, "source_language": "en", "target_language": "de"},
            "instance": {"prediction": "Hallo", "reference": "Hallo", "source": "Hello"},
        },
    )
    return expect_error(client, request, exceptions.FailedPrecondition, "wmt22-comet-da")


def check_rubrics_invalid_argument(module: Any, client: Any) -> tuple[bool, str]:
    """GenerateInstanceRubrics without contents: INVALID_ARGUMENT naming ``contents``."""
    request = module.GenerateInstanceRubricsRequest(
        location=LOCATION, rubric_generation_spec={"prompt_template": "Checks for {prompt}"}
    )
    try:
        client.generate_instance_rubrics(request=request, timeout=30)
    except exceptions.InvalidArgument as exc:
        fields = [
            v.field
            for d in exc.details
            if isinstance(d, error_details_pb2.BadRequest)
            for v in d.field_violations
        ]
        return fields[:1] == ["contents"], f"InvalidArgument({exc.message!r}) with {fields}"
    except exceptions.GoogleAPICallError as exc:
        return False, f"{type(exc).__name__}: {exc}"
    return False, "no error raised"


def check_rubrics_without_judge(module: Any, client: Any) -> tuple[bool, str]:
    """GenerateInstanceRubrics on a server with no judge configured: FAILED_PRECONDITION."""
    request = module.GenerateInstanceRubricsRequest(
        location=LOCATION,
        contents=[{"role": "user", "parts": [{"text": "Name three rivers of France."}]}],
        predefined_rubric_generation_spec={"metric_spec_name": "general_quality_v1"},
    )
    try:
        client.generate_instance_rubrics(request=request, timeout=30)
    except exceptions.GoogleAPICallError as exc:
        ok = isinstance(exc, exceptions.FailedPrecondition) and "judge" in exc.message
        return ok, f"{type(exc).__name__}({exc.message!r})"
    return False, "no error raised"


def check_routing_header(recorder: Recorder) -> tuple[bool, str]:
    """Every call carried the SDK's routing header for the location (and still succeeded)."""
    from urllib.parse import unquote

    headers = [dict(md).get("x-goog-request-params") for md in recorder.metadata]
    expected = f"location={LOCATION}"
    ok = bool(headers) and all(h is not None and unquote(h) == expected for h in headers)
    return ok, f"{len(headers)} calls; first header {headers[:1]}"


def guarded(
    report: Report, check_id: str, run: Callable[..., tuple[bool, str]], *args: Any
) -> None:
    """Record ``run(*args)``; an exception is a failed check, never the end of the run."""
    try:
        ok, detail = run(*args)
    except Exception as exc:  # one failing check must not hide the others
        ok, detail = False, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"
    report[check_id] = {"ok": ok, "detail": detail}


def main(address: str) -> Report:
    """Run every check of ``cases.check_ids()`` against the server at ``address``."""
    report: Report = {}
    for version in BOTH:
        module, client, recorder = client_for(version, address)
        for case in CASES:
            if version in case.versions:
                guarded(report, f"{case.id}-{version}", check_case, module, client, case)
        guarded(report, f"error/invalid_argument-{version}", check_invalid_argument, module, client)
        guarded(
            report,
            f"error/judge_without_judge-{version}",
            check_judge_without_judge,
            module,
            client,
        )
        guarded(
            report,
            f"error/pending_not_implemented-{version}",
            check_pending_not_implemented,
            module,
            client,
        )
        if version == "v1beta1":  # the public v1 API has no GenerateInstanceRubrics
            for name, check in (
                ("rubrics/invalid_argument", check_rubrics_invalid_argument),
                ("rubrics/without_judge", check_rubrics_without_judge),
            ):
                guarded(report, f"{name}-{version}", check, module, client)
        guarded(report, f"metadata/routing_header-{version}", check_routing_header, recorder)
    leaked = sorted(m for m in sys.modules if m.startswith("evald"))
    assert not leaked, f"the official run imported evald modules: {leaked}"
    assert sorted(report) == sorted(check_ids()), "report and cases.check_ids() disagree"
    return report


if __name__ == "__main__":
    from google.cloud.aiplatform import version as sdk

    checks = main(sys.argv[1])
    json.dump({"sdk": sdk.__version__, "checks": checks}, sys.stdout, indent=1)
