from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class GcsSource(_message.Message):
    __slots__ = ("uris",)
    URIS_FIELD_NUMBER: _ClassVar[int]
    uris: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, uris: _Optional[_Iterable[str]] = ...) -> None: ...

class GcsDestination(_message.Message):
    __slots__ = ("output_uri_prefix",)
    OUTPUT_URI_PREFIX_FIELD_NUMBER: _ClassVar[int]
    output_uri_prefix: str
    def __init__(self, output_uri_prefix: _Optional[str] = ...) -> None: ...

class BigQuerySource(_message.Message):
    __slots__ = ("input_uri",)
    INPUT_URI_FIELD_NUMBER: _ClassVar[int]
    input_uri: str
    def __init__(self, input_uri: _Optional[str] = ...) -> None: ...
