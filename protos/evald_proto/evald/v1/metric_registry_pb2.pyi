import datetime

from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as _evaluation_service_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListPredefinedMetricsRequest(_message.Message):
    __slots__ = ("family",)
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    family: str
    def __init__(self, family: _Optional[str] = ...) -> None: ...

class PredefinedMetricParameter(_message.Message):
    __slots__ = ("name", "kind", "description", "default_json", "choices")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_JSON_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: str
    description: str
    default_json: str
    choices: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[str] = ..., description: _Optional[str] = ..., default_json: _Optional[str] = ..., choices: _Optional[_Iterable[str]] = ...) -> None: ...

class PredefinedMetric(_message.Message):
    __slots__ = ("name", "family", "definition", "score_range", "needs_judge", "parameters")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    SCORE_RANGE_FIELD_NUMBER: _ClassVar[int]
    NEEDS_JUDGE_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    name: str
    family: str
    definition: str
    score_range: str
    needs_judge: bool
    parameters: _containers.RepeatedCompositeFieldContainer[PredefinedMetricParameter]
    def __init__(self, name: _Optional[str] = ..., family: _Optional[str] = ..., definition: _Optional[str] = ..., score_range: _Optional[str] = ..., needs_judge: _Optional[bool] = ..., parameters: _Optional[_Iterable[_Union[PredefinedMetricParameter, _Mapping]]] = ...) -> None: ...

class ListPredefinedMetricsResponse(_message.Message):
    __slots__ = ("metrics",)
    METRICS_FIELD_NUMBER: _ClassVar[int]
    metrics: _containers.RepeatedCompositeFieldContainer[PredefinedMetric]
    def __init__(self, metrics: _Optional[_Iterable[_Union[PredefinedMetric, _Mapping]]] = ...) -> None: ...

class EvaluationMetric(_message.Message):
    __slots__ = ("name", "display_name", "description", "metric", "create_time")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    METRIC_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    name: str
    display_name: str
    description: str
    metric: _evaluation_service_pb2.Metric
    create_time: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[str] = ..., display_name: _Optional[str] = ..., description: _Optional[str] = ..., metric: _Optional[_Union[_evaluation_service_pb2.Metric, _Mapping]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreateEvaluationMetricRequest(_message.Message):
    __slots__ = ("parent", "display_name", "description", "metric", "evaluation_metric_id")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    METRIC_FIELD_NUMBER: _ClassVar[int]
    EVALUATION_METRIC_ID_FIELD_NUMBER: _ClassVar[int]
    parent: str
    display_name: str
    description: str
    metric: _evaluation_service_pb2.Metric
    evaluation_metric_id: str
    def __init__(self, parent: _Optional[str] = ..., display_name: _Optional[str] = ..., description: _Optional[str] = ..., metric: _Optional[_Union[_evaluation_service_pb2.Metric, _Mapping]] = ..., evaluation_metric_id: _Optional[str] = ...) -> None: ...

class GetEvaluationMetricRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ListEvaluationMetricsRequest(_message.Message):
    __slots__ = ("parent", "page_size", "page_token")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    parent: str
    page_size: int
    page_token: str
    def __init__(self, parent: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListEvaluationMetricsResponse(_message.Message):
    __slots__ = ("evaluation_metrics", "next_page_token")
    EVALUATION_METRICS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    evaluation_metrics: _containers.RepeatedCompositeFieldContainer[EvaluationMetric]
    next_page_token: str
    def __init__(self, evaluation_metrics: _Optional[_Iterable[_Union[EvaluationMetric, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class DeleteEvaluationMetricRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...
