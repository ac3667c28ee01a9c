from evald_proto.aiplatform.v1beta1 import operation_pb2 as _operation_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.longrunning import operations_pb2 as _operations_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EvaluateDatasetOperationMetadata(_message.Message):
    __slots__ = ("generic_metadata", "progress")
    GENERIC_METADATA_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    generic_metadata: _operation_pb2.GenericOperationMetadata
    progress: DatasetJobProgress
    def __init__(self, generic_metadata: _Optional[_Union[_operation_pb2.GenericOperationMetadata, _Mapping]] = ..., progress: _Optional[_Union[DatasetJobProgress, _Mapping]] = ...) -> None: ...

class DatasetJobProgress(_message.Message):
    __slots__ = ("state", "rows_total", "rows_done", "rows_failed")
    STATE_FIELD_NUMBER: _ClassVar[int]
    ROWS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    ROWS_DONE_FIELD_NUMBER: _ClassVar[int]
    ROWS_FAILED_FIELD_NUMBER: _ClassVar[int]
    state: str
    rows_total: int
    rows_done: int
    rows_failed: int
    def __init__(self, state: _Optional[str] = ..., rows_total: _Optional[int] = ..., rows_done: _Optional[int] = ..., rows_failed: _Optional[int] = ...) -> None: ...
