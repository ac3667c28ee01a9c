import datetime

from evald_proto.aiplatform.v1 import tool_pb2 as _tool_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Content(_message.Message):
    __slots__ = ("role", "parts")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    role: str
    parts: _containers.RepeatedCompositeFieldContainer[Part]
    def __init__(self, role: _Optional[str] = ..., parts: _Optional[_Iterable[_Union[Part, _Mapping]]] = ...) -> None: ...

class Part(_message.Message):
    __slots__ = ("text", "inline_data", "file_data", "function_call", "function_response", "executable_code", "code_execution_result", "thought", "thought_signature", "video_metadata", "media_resolution")
    class MediaResolution(_message.Message):
        __slots__ = ("level",)
        class Level(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            MEDIA_RESOLUTION_UNSPECIFIED: _ClassVar[Part.MediaResolution.Level]
            MEDIA_RESOLUTION_LOW: _ClassVar[Part.MediaResolution.Level]
            MEDIA_RESOLUTION_MEDIUM: _ClassVar[Part.MediaResolution.Level]
            MEDIA_RESOLUTION_HIGH: _ClassVar[Part.MediaResolution.Level]
            MEDIA_RESOLUTION_ULTRA_HIGH: _ClassVar[Part.MediaResolution.Level]
        MEDIA_RESOLUTION_UNSPECIFIED: Part.MediaResolution.Level
        MEDIA_RESOLUTION_LOW: Part.MediaResolution.Level
        MEDIA_RESOLUTION_MEDIUM: Part.MediaResolution.Level
        MEDIA_RESOLUTION_HIGH: Part.MediaResolution.Level
        MEDIA_RESOLUTION_ULTRA_HIGH: Part.MediaResolution.Level
        LEVEL_FIELD_NUMBER: _ClassVar[int]
        level: Part.MediaResolution.Level
        def __init__(self, level: _Optional[_Union[Part.MediaResolution.Level, str]] = ...) -> None: ...
    TEXT_FIELD_NUMBER: _ClassVar[int]
    INLINE_DATA_FIELD_NUMBER: _ClassVar[int]
    FILE_DATA_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_CALL_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    EXECUTABLE_CODE_FIELD_NUMBER: _ClassVar[int]
    CODE_EXECUTION_RESULT_FIELD_NUMBER: _ClassVar[int]
    THOUGHT_FIELD_NUMBER: _ClassVar[int]
    THOUGHT_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    VIDEO_METADATA_FIELD_NUMBER: _ClassVar[int]
    MEDIA_RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    text: str
    inline_data: Blob
    file_data: FileData
    function_call: _tool_pb2.FunctionCall
    function_response: _tool_pb2.FunctionResponse
    executable_code: _tool_pb2.ExecutableCode
    code_execution_result: _tool_pb2.CodeExecutionResult
    thought: bool
    thought_signature: bytes
    video_metadata: VideoMetadata
    media_resolution: Part.MediaResolution
    def __init__(self, text: _Optional[str] = ..., inline_data: _Optional[_Union[Blob, _Mapping]] = ..., file_data: _Optional[_Union[FileData, _Mapping]] = ..., function_call: _Optional[_Union[_tool_pb2.FunctionCall, _Mapping]] = ..., function_response: _Optional[_Union[_tool_pb2.FunctionResponse, _Mapping]] = ..., executable_code: _Optional[_Union[_tool_pb2.ExecutableCode, _Mapping]] = ..., code_execution_result: _Optional[_Union[_tool_pb2.CodeExecutionResult, _Mapping]] = ..., thought: _Optional[bool] = ..., thought_signature: _Optional[bytes] = ..., video_metadata: _Optional[_Union[VideoMetadata, _Mapping]] = ..., media_resolution: _Optional[_Union[Part.MediaResolution, _Mapping]] = ...) -> None: ...

class Blob(_message.Message):
    __slots__ = ("mime_type", "data")
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    mime_type: str
    data: bytes
    def __init__(self, mime_type: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class FileData(_message.Message):
    __slots__ = ("mime_type", "file_uri")
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    FILE_URI_FIELD_NUMBER: _ClassVar[int]
    mime_type: str
    file_uri: str
    def __init__(self, mime_type: _Optional[str] = ..., file_uri: _Optional[str] = ...) -> None: ...

class VideoMetadata(_message.Message):
    __slots__ = ("start_offset", "end_offset", "fps")
    START_OFFSET_FIELD_NUMBER: _ClassVar[int]
    END_OFFSET_FIELD_NUMBER: _ClassVar[int]
    FPS_FIELD_NUMBER: _ClassVar[int]
    start_offset: _duration_pb2.Duration
    end_offset: _duration_pb2.Duration
    fps: float
    def __init__(self, start_offset: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., end_offset: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., fps: _Optional[float] = ...) -> None: ...
