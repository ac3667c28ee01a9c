from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FunctionCall(_message.Message):
    __slots__ = ("name", "args", "partial_args", "will_continue")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_ARGS_FIELD_NUMBER: _ClassVar[int]
    WILL_CONTINUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    args: _struct_pb2.Struct
    partial_args: _containers.RepeatedCompositeFieldContainer[PartialArg]
    will_continue: bool
    def __init__(self, name: _Optional[str] = ..., args: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., partial_args: _Optional[_Iterable[_Union[PartialArg, _Mapping]]] = ..., will_continue: _Optional[bool] = ...) -> None: ...

class PartialArg(_message.Message):
    __slots__ = ("null_value", "number_value", "string_value", "bool_value", "json_path", "will_continue")
    NULL_VALUE_FIELD_NUMBER: _ClassVar[int]
    NUMBER_VALUE_FIELD_NUMBER: _ClassVar[int]
    STRING_VALUE_FIELD_NUMBER: _ClassVar[int]
    BOOL_VALUE_FIELD_NUMBER: _ClassVar[int]
    JSON_PATH_FIELD_NUMBER: _ClassVar[int]
    WILL_CONTINUE_FIELD_NUMBER: _ClassVar[int]
    null_value: _struct_pb2.NullValue
    number_value: float
    string_value: str
    bool_value: bool
    json_path: str
    will_continue: bool
    def __init__(self, null_value: _Optional[_Union[_struct_pb2.NullValue, str]] = ..., number_value: _Optional[float] = ..., string_value: _Optional[str] = ..., bool_value: _Optional[bool] = ..., json_path: _Optional[str] = ..., will_continue: _Optional[bool] = ...) -> None: ...

class FunctionResponsePart(_message.Message):
    __slots__ = ("inline_data", "file_data")
    INLINE_DATA_FIELD_NUMBER: _ClassVar[int]
    FILE_DATA_FIELD_NUMBER: _ClassVar[int]
    inline_data: FunctionResponseBlob
    file_data: FunctionResponseFileData
    def __init__(self, inline_data: _Optional[_Union[FunctionResponseBlob, _Mapping]] = ..., file_data: _Optional[_Union[FunctionResponseFileData, _Mapping]] = ...) -> None: ...

class FunctionResponseBlob(_message.Message):
    __slots__ = ("mime_type", "data", "display_name")
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    mime_type: str
    data: bytes
    display_name: str
    def __init__(self, mime_type: _Optional[str] = ..., data: _Optional[bytes] = ..., display_name: _Optional[str] = ...) -> None: ...

class FunctionResponseFileData(_message.Message):
    __slots__ = ("mime_type", "file_uri", "display_name")
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    FILE_URI_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    mime_type: str
    file_uri: str
    display_name: str
    def __init__(self, mime_type: _Optional[str] = ..., file_uri: _Optional[str] = ..., display_name: _Optional[str] = ...) -> None: ...

class FunctionResponse(_message.Message):
    __slots__ = ("name", "response", "parts")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    response: _struct_pb2.Struct
    parts: _containers.RepeatedCompositeFieldContainer[FunctionResponsePart]
    def __init__(self, name: _Optional[str] = ..., response: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., parts: _Optional[_Iterable[_Union[FunctionResponsePart, _Mapping]]] = ...) -> None: ...

class ExecutableCode(_message.Message):
    __slots__ = ("language", "code")
    class Language(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        LANGUAGE_UNSPECIFIED: _ClassVar[ExecutableCode.Language]
        PYTHON: _ClassVar[ExecutableCode.Language]
    LANGUAGE_UNSPECIFIED: ExecutableCode.Language
    PYTHON: ExecutableCode.Language
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    language: ExecutableCode.Language
    code: str
    def __init__(self, language: _Optional[_Union[ExecutableCode.Language, str]] = ..., code: _Optional[str] = ...) -> None: ...

class CodeExecutionResult(_message.Message):
    __slots__ = ("outcome", "output")
    class Outcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        OUTCOME_UNSPECIFIED: _ClassVar[CodeExecutionResult.Outcome]
        OUTCOME_OK: _ClassVar[CodeExecutionResult.Outcome]
        OUTCOME_FAILED: _ClassVar[CodeExecutionResult.Outcome]
        OUTCOME_DEADLINE_EXCEEDED: _ClassVar[CodeExecutionResult.Outcome]
    OUTCOME_UNSPECIFIED: CodeExecutionResult.Outcome
    OUTCOME_OK: CodeExecutionResult.Outcome
    OUTCOME_FAILED: CodeExecutionResult.Outcome
    OUTCOME_DEADLINE_EXCEEDED: CodeExecutionResult.Outcome
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    outcome: CodeExecutionResult.Outcome
    output: str
    def __init__(self, outcome: _Optional[_Union[CodeExecutionResult.Outcome, str]] = ..., output: _Optional[str] = ...) -> None: ...
