import datetime

from evald_proto.aiplatform.v1beta1 import content_pb2 as _content_pb2
from evald_proto.aiplatform.v1beta1 import tool_pb2 as _tool_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AgentData(_message.Message):
    __slots__ = ("agents", "turns")
    class AgentsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: AgentConfig
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[AgentConfig, _Mapping]] = ...) -> None: ...
    AGENTS_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    agents: _containers.MessageMap[str, AgentConfig]
    turns: _containers.RepeatedCompositeFieldContainer[ConversationTurn]
    def __init__(self, agents: _Optional[_Mapping[str, AgentConfig]] = ..., turns: _Optional[_Iterable[_Union[ConversationTurn, _Mapping]]] = ...) -> None: ...

class AgentConfig(_message.Message):
    __slots__ = ("agent_id", "agent_type", "description", "instruction", "tools", "sub_agents")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INSTRUCTION_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    SUB_AGENTS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    agent_type: str
    description: str
    instruction: str
    tools: _containers.RepeatedCompositeFieldContainer[_tool_pb2.Tool]
    sub_agents: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, agent_id: _Optional[str] = ..., agent_type: _Optional[str] = ..., description: _Optional[str] = ..., instruction: _Optional[str] = ..., tools: _Optional[_Iterable[_Union[_tool_pb2.Tool, _Mapping]]] = ..., sub_agents: _Optional[_Iterable[str]] = ...) -> None: ...

class ConversationTurn(_message.Message):
    __slots__ = ("turn_index", "turn_id", "events")
    TURN_INDEX_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    turn_index: int
    turn_id: str
    events: _containers.RepeatedCompositeFieldContainer[AgentEvent]
    def __init__(self, turn_index: _Optional[int] = ..., turn_id: _Optional[str] = ..., events: _Optional[_Iterable[_Union[AgentEvent, _Mapping]]] = ...) -> None: ...

class AgentEvent(_message.Message):
    __slots__ = ("author", "content", "event_time", "state_delta", "active_tools")
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    EVENT_TIME_FIELD_NUMBER: _ClassVar[int]
    STATE_DELTA_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_TOOLS_FIELD_NUMBER: _ClassVar[int]
    author: str
    content: _content_pb2.Content
    event_time: _timestamp_pb2.Timestamp
    state_delta: _struct_pb2.Struct
    active_tools: _containers.RepeatedCompositeFieldContainer[_tool_pb2.Tool]
    def __init__(self, author: _Optional[str] = ..., content: _Optional[_Union[_content_pb2.Content, _Mapping]] = ..., event_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., state_delta: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., active_tools: _Optional[_Iterable[_Union[_tool_pb2.Tool, _Mapping]]] = ...) -> None: ...
