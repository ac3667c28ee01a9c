"""The generated API modules evald serves, by API version.

One implementation serves both versions: v1 is a wire subset of v1beta1 (same names, numbers and
types for every v1 field), so v1 requests are parsed as v1beta1 messages and v1beta1 replies read
back correctly as v1 messages.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from evald_proto.aiplatform.v1 import evaluation_service_pb2 as v1
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as v1beta1
from evald_proto.evald.v1 import metric_registry_pb2 as registry
from evald_proto.evald.v1 import model_evaluation_pb2 as model_evaluation
from evald_proto.evald.v1 import operations_pb2 as operations

messages = v1beta1
"""The message module every handler uses (the superset version)."""

DEFAULT_LOCATION = "projects/evald/locations/local"
"""The location of a dataset job whose request names none (and the CLI's default)."""
LOCATION = re.compile(r"^projects/[^/]+/locations/[^/]+$")
"""A location resource name, ``projects/P/locations/L``: the parent of jobs and metrics."""
VERSIONS = {"v1beta1": v1beta1, "v1": v1}
SERVICE_NAMES = {
    version: module.DESCRIPTOR.services_by_name["EvaluationService"].full_name
    for version, module in VERSIONS.items()
}
SERVED_MODULES = (v1beta1, v1, registry, operations, model_evaluation)
"""Every generated module whose services evald serves: the HTTP routes and reflection read it."""
SERVED_SERVICE_NAMES = tuple(
    service.full_name
    for module in SERVED_MODULES
    for service in module.DESCRIPTOR.services_by_name.values()
)
REQUEST = v1beta1.DESCRIPTOR.message_types_by_name["EvaluateInstancesRequest"]
RESPONSE = v1beta1.DESCRIPTOR.message_types_by_name["EvaluateInstancesResponse"]
METRIC_INPUTS = REQUEST.oneofs_by_name["metric_inputs"]
EVALUATION_RESULTS = RESPONSE.oneofs_by_name["evaluation_results"]


@functools.cache
def has_field(descriptor: Any, name: str) -> bool:
    """Whether the message type ``descriptor`` has a field ``name`` (cached: a descriptor's
    ``fields_by_name`` is rebuilt on each access, a few microseconds on every call's path)."""
    return name in descriptor.fields_by_name
