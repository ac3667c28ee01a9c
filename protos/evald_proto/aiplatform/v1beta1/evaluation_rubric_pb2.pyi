from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Rubric(_message.Message):
    __slots__ = ("rubric_id", "content", "type_", "importance")
    class Importance(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        IMPORTANCE_UNSPECIFIED: _ClassVar[Rubric.Importance]
        HIGH: _ClassVar[Rubric.Importance]
        MEDIUM: _ClassVar[Rubric.Importance]
        LOW: _ClassVar[Rubric.Importance]
    IMPORTANCE_UNSPECIFIED: Rubric.Importance
    HIGH: Rubric.Importance
    MEDIUM: Rubric.Importance
    LOW: Rubric.Importance
    class Content(_message.Message):
        __slots__ = ("property",)
        class Property(_message.Message):
            __slots__ = ("description",)
            DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
            description: str
            def __init__(self, description: _Optional[str] = ...) -> None: ...
        PROPERTY_FIELD_NUMBER: _ClassVar[int]
        property: Rubric.Content.Property
        def __init__(self, property: _Optional[_Union[Rubric.Content.Property, _Mapping]] = ...) -> None: ...
    RUBRIC_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    TYPE__FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    rubric_id: str
    content: Rubric.Content
    type_: str
    importance: Rubric.Importance
    def __init__(self, rubric_id: _Optional[str] = ..., content: _Optional[_Union[Rubric.Content, _Mapping]] = ..., type_: _Optional[str] = ..., importance: _Optional[_Union[Rubric.Importance, str]] = ...) -> None: ...

class RubricGroup(_message.Message):
    __slots__ = ("group_id", "display_name", "rubrics")
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    RUBRICS_FIELD_NUMBER: _ClassVar[int]
    group_id: str
    display_name: str
    rubrics: _containers.RepeatedCompositeFieldContainer[Rubric]
    def __init__(self, group_id: _Optional[str] = ..., display_name: _Optional[str] = ..., rubrics: _Optional[_Iterable[_Union[Rubric, _Mapping]]] = ...) -> None: ...

class RubricVerdict(_message.Message):
    __slots__ = ("evaluated_rubric", "verdict", "reasoning")
    EVALUATED_RUBRIC_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    evaluated_rubric: Rubric
    verdict: bool
    reasoning: str
    def __init__(self, evaluated_rubric: _Optional[_Union[Rubric, _Mapping]] = ..., verdict: _Optional[bool] = ..., reasoning: _Optional[str] = ...) -> None: ...
