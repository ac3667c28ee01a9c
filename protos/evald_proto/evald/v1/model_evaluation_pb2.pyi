from google.api import annotations_pb2 as _annotations_pb2
from google.longrunning import operations_pb2 as _operations_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EvaluateModelRequest(_message.Message):
    __slots__ = ("location", "algorithm", "config", "target", "dataset_uris", "data_config", "prompt_template", "generation_params", "output_uri_prefix")
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    DATASET_URIS_FIELD_NUMBER: _ClassVar[int]
    DATA_CONFIG_FIELD_NUMBER: _ClassVar[int]
    PROMPT_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    GENERATION_PARAMS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_URI_PREFIX_FIELD_NUMBER: _ClassVar[int]
    location: str
    algorithm: str
    config: _struct_pb2.Struct
    target: _struct_pb2.Struct
    dataset_uris: _containers.RepeatedScalarFieldContainer[str]
    data_config: _struct_pb2.Struct
    prompt_template: str
    generation_params: _struct_pb2.Struct
    output_uri_prefix: str
    def __init__(self, location: _Optional[str] = ..., algorithm: _Optional[str] = ..., config: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., target: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., dataset_uris: _Optional[_Iterable[str]] = ..., data_config: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., prompt_template: _Optional[str] = ..., generation_params: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., output_uri_prefix: _Optional[str] = ...) -> None: ...

class EvaluateModelResponse(_message.Message):
    __slots__ = ("aggregation", "output_directory")
    AGGREGATION_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    aggregation: _struct_pb2.Struct
    output_directory: str
    def __init__(self, aggregation: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., output_directory: _Optional[str] = ...) -> None: ...
