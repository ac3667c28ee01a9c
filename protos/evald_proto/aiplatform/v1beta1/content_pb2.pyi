import datetime

from evald_proto.aiplatform.v1beta1 import openapi_pb2 as _openapi_pb2
from evald_proto.aiplatform.v1beta1 import tool_pb2 as _tool_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
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
    __slots__ = ("text", "inline_data", "file_data", "function_call", "function_response", "executable_code", "code_execution_result", "video_metadata", "thought", "thought_signature")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    INLINE_DATA_FIELD_NUMBER: _ClassVar[int]
    FILE_DATA_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_CALL_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    EXECUTABLE_CODE_FIELD_NUMBER: _ClassVar[int]
    CODE_EXECUTION_RESULT_FIELD_NUMBER: _ClassVar[int]
    VIDEO_METADATA_FIELD_NUMBER: _ClassVar[int]
    THOUGHT_FIELD_NUMBER: _ClassVar[int]
    THOUGHT_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    text: str
    inline_data: Blob
    file_data: FileData
    function_call: _tool_pb2.FunctionCall
    function_response: _tool_pb2.FunctionResponse
    executable_code: _tool_pb2.ExecutableCode
    code_execution_result: _tool_pb2.CodeExecutionResult
    video_metadata: VideoMetadata
    thought: bool
    thought_signature: bytes
    def __init__(self, text: _Optional[str] = ..., inline_data: _Optional[_Union[Blob, _Mapping]] = ..., file_data: _Optional[_Union[FileData, _Mapping]] = ..., function_call: _Optional[_Union[_tool_pb2.FunctionCall, _Mapping]] = ..., function_response: _Optional[_Union[_tool_pb2.FunctionResponse, _Mapping]] = ..., executable_code: _Optional[_Union[_tool_pb2.ExecutableCode, _Mapping]] = ..., code_execution_result: _Optional[_Union[_tool_pb2.CodeExecutionResult, _Mapping]] = ..., video_metadata: _Optional[_Union[VideoMetadata, _Mapping]] = ..., thought: _Optional[bool] = ..., thought_signature: _Optional[bytes] = ...) -> None: ...

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
    __slots__ = ("start_offset", "end_offset")
    START_OFFSET_FIELD_NUMBER: _ClassVar[int]
    END_OFFSET_FIELD_NUMBER: _ClassVar[int]
    start_offset: _duration_pb2.Duration
    end_offset: _duration_pb2.Duration
    def __init__(self, start_offset: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., end_offset: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class PrebuiltVoiceConfig(_message.Message):
    __slots__ = ("voice_name",)
    VOICE_NAME_FIELD_NUMBER: _ClassVar[int]
    voice_name: str
    def __init__(self, voice_name: _Optional[str] = ...) -> None: ...

class ReplicatedVoiceConfig(_message.Message):
    __slots__ = ("mime_type", "voice_sample_audio")
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    VOICE_SAMPLE_AUDIO_FIELD_NUMBER: _ClassVar[int]
    mime_type: str
    voice_sample_audio: bytes
    def __init__(self, mime_type: _Optional[str] = ..., voice_sample_audio: _Optional[bytes] = ...) -> None: ...

class VoiceConfig(_message.Message):
    __slots__ = ("prebuilt_voice_config", "replicated_voice_config")
    PREBUILT_VOICE_CONFIG_FIELD_NUMBER: _ClassVar[int]
    REPLICATED_VOICE_CONFIG_FIELD_NUMBER: _ClassVar[int]
    prebuilt_voice_config: PrebuiltVoiceConfig
    replicated_voice_config: ReplicatedVoiceConfig
    def __init__(self, prebuilt_voice_config: _Optional[_Union[PrebuiltVoiceConfig, _Mapping]] = ..., replicated_voice_config: _Optional[_Union[ReplicatedVoiceConfig, _Mapping]] = ...) -> None: ...

class SpeakerVoiceConfig(_message.Message):
    __slots__ = ("speaker", "voice_config")
    SPEAKER_FIELD_NUMBER: _ClassVar[int]
    VOICE_CONFIG_FIELD_NUMBER: _ClassVar[int]
    speaker: str
    voice_config: VoiceConfig
    def __init__(self, speaker: _Optional[str] = ..., voice_config: _Optional[_Union[VoiceConfig, _Mapping]] = ...) -> None: ...

class MultiSpeakerVoiceConfig(_message.Message):
    __slots__ = ("speaker_voice_configs",)
    SPEAKER_VOICE_CONFIGS_FIELD_NUMBER: _ClassVar[int]
    speaker_voice_configs: _containers.RepeatedCompositeFieldContainer[SpeakerVoiceConfig]
    def __init__(self, speaker_voice_configs: _Optional[_Iterable[_Union[SpeakerVoiceConfig, _Mapping]]] = ...) -> None: ...

class SpeechConfig(_message.Message):
    __slots__ = ("voice_config", "language_code", "multi_speaker_voice_config")
    VOICE_CONFIG_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_CODE_FIELD_NUMBER: _ClassVar[int]
    MULTI_SPEAKER_VOICE_CONFIG_FIELD_NUMBER: _ClassVar[int]
    voice_config: VoiceConfig
    language_code: str
    multi_speaker_voice_config: MultiSpeakerVoiceConfig
    def __init__(self, voice_config: _Optional[_Union[VoiceConfig, _Mapping]] = ..., language_code: _Optional[str] = ..., multi_speaker_voice_config: _Optional[_Union[MultiSpeakerVoiceConfig, _Mapping]] = ...) -> None: ...

class ImageConfig(_message.Message):
    __slots__ = ("aspect_ratio",)
    ASPECT_RATIO_FIELD_NUMBER: _ClassVar[int]
    aspect_ratio: str
    def __init__(self, aspect_ratio: _Optional[str] = ...) -> None: ...

class GenerationConfig(_message.Message):
    __slots__ = ("temperature", "top_p", "top_k", "candidate_count", "max_output_tokens", "stop_sequences", "response_logprobs", "logprobs", "presence_penalty", "frequency_penalty", "seed", "response_mime_type", "response_schema", "response_json_schema", "routing_config", "audio_timestamp", "response_modalities", "media_resolution", "speech_config", "thinking_config", "model_config", "image_config")
    class Modality(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        MODALITY_UNSPECIFIED: _ClassVar[GenerationConfig.Modality]
        TEXT: _ClassVar[GenerationConfig.Modality]
        IMAGE: _ClassVar[GenerationConfig.Modality]
        AUDIO: _ClassVar[GenerationConfig.Modality]
    MODALITY_UNSPECIFIED: GenerationConfig.Modality
    TEXT: GenerationConfig.Modality
    IMAGE: GenerationConfig.Modality
    AUDIO: GenerationConfig.Modality
    class MediaResolution(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        MEDIA_RESOLUTION_UNSPECIFIED: _ClassVar[GenerationConfig.MediaResolution]
        MEDIA_RESOLUTION_LOW: _ClassVar[GenerationConfig.MediaResolution]
        MEDIA_RESOLUTION_MEDIUM: _ClassVar[GenerationConfig.MediaResolution]
        MEDIA_RESOLUTION_HIGH: _ClassVar[GenerationConfig.MediaResolution]
    MEDIA_RESOLUTION_UNSPECIFIED: GenerationConfig.MediaResolution
    MEDIA_RESOLUTION_LOW: GenerationConfig.MediaResolution
    MEDIA_RESOLUTION_MEDIUM: GenerationConfig.MediaResolution
    MEDIA_RESOLUTION_HIGH: GenerationConfig.MediaResolution
    class RoutingConfig(_message.Message):
        __slots__ = ("auto_mode", "manual_mode")
        class AutoRoutingMode(_message.Message):
            __slots__ = ("model_routing_preference",)
            class ModelRoutingPreference(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
                __slots__ = ()
                UNKNOWN: _ClassVar[GenerationConfig.RoutingConfig.AutoRoutingMode.ModelRoutingPreference]
                PRIORITIZE_QUALITY: _ClassVar[GenerationConfig.RoutingConfig.AutoRoutingMode.ModelRoutingPreference]
                BALANCED: _ClassVar[GenerationConfig.RoutingConfig.AutoRoutingMode.ModelRoutingPreference]
                PRIORITIZE_COST: _ClassVar[GenerationConfig.RoutingConfig.AutoRoutingMode.ModelRoutingPreference]
            UNKNOWN: GenerationConfig.RoutingConfig.AutoRoutingMode.ModelRoutingPreference
            PRIORITIZE_QUALITY: GenerationConfig.RoutingConfig.AutoRoutingMode.ModelRoutingPreference
            BALANCED: GenerationConfig.RoutingConfig.AutoRoutingMode.ModelRoutingPreference
            PRIORITIZE_COST: GenerationConfig.RoutingConfig.AutoRoutingMode.ModelRoutingPreference
            MODEL_ROUTING_PREFERENCE_FIELD_NUMBER: _ClassVar[int]
            model_routing_preference: GenerationConfig.RoutingConfig.AutoRoutingMode.ModelRoutingPreference
            def __init__(self, model_routing_preference: _Optional[_Union[GenerationConfig.RoutingConfig.AutoRoutingMode.ModelRoutingPreference, str]] = ...) -> None: ...
        class ManualRoutingMode(_message.Message):
            __slots__ = ("model_name",)
            MODEL_NAME_FIELD_NUMBER: _ClassVar[int]
            model_name: str
            def __init__(self, model_name: _Optional[str] = ...) -> None: ...
        AUTO_MODE_FIELD_NUMBER: _ClassVar[int]
        MANUAL_MODE_FIELD_NUMBER: _ClassVar[int]
        auto_mode: GenerationConfig.RoutingConfig.AutoRoutingMode
        manual_mode: GenerationConfig.RoutingConfig.ManualRoutingMode
        def __init__(self, auto_mode: _Optional[_Union[GenerationConfig.RoutingConfig.AutoRoutingMode, _Mapping]] = ..., manual_mode: _Optional[_Union[GenerationConfig.RoutingConfig.ManualRoutingMode, _Mapping]] = ...) -> None: ...
    class ThinkingConfig(_message.Message):
        __slots__ = ("include_thoughts", "thinking_budget")
        INCLUDE_THOUGHTS_FIELD_NUMBER: _ClassVar[int]
        THINKING_BUDGET_FIELD_NUMBER: _ClassVar[int]
        include_thoughts: bool
        thinking_budget: int
        def __init__(self, include_thoughts: _Optional[bool] = ..., thinking_budget: _Optional[int] = ...) -> None: ...
    class ModelConfig(_message.Message):
        __slots__ = ("feature_selection_preference",)
        class FeatureSelectionPreference(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            FEATURE_SELECTION_PREFERENCE_UNSPECIFIED: _ClassVar[GenerationConfig.ModelConfig.FeatureSelectionPreference]
            PRIORITIZE_QUALITY: _ClassVar[GenerationConfig.ModelConfig.FeatureSelectionPreference]
            BALANCED: _ClassVar[GenerationConfig.ModelConfig.FeatureSelectionPreference]
            PRIORITIZE_COST: _ClassVar[GenerationConfig.ModelConfig.FeatureSelectionPreference]
        FEATURE_SELECTION_PREFERENCE_UNSPECIFIED: GenerationConfig.ModelConfig.FeatureSelectionPreference
        PRIORITIZE_QUALITY: GenerationConfig.ModelConfig.FeatureSelectionPreference
        BALANCED: GenerationConfig.ModelConfig.FeatureSelectionPreference
        PRIORITIZE_COST: GenerationConfig.ModelConfig.FeatureSelectionPreference
        FEATURE_SELECTION_PREFERENCE_FIELD_NUMBER: _ClassVar[int]
        feature_selection_preference: GenerationConfig.ModelConfig.FeatureSelectionPreference
        def __init__(self, feature_selection_preference: _Optional[_Union[GenerationConfig.ModelConfig.FeatureSelectionPreference, str]] = ...) -> None: ...
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    TOP_P_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_COUNT_FIELD_NUMBER: _ClassVar[int]
    MAX_OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    STOP_SEQUENCES_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_LOGPROBS_FIELD_NUMBER: _ClassVar[int]
    LOGPROBS_FIELD_NUMBER: _ClassVar[int]
    PRESENCE_PENALTY_FIELD_NUMBER: _ClassVar[int]
    FREQUENCY_PENALTY_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_JSON_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    ROUTING_CONFIG_FIELD_NUMBER: _ClassVar[int]
    AUDIO_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_MODALITIES_FIELD_NUMBER: _ClassVar[int]
    MEDIA_RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    SPEECH_CONFIG_FIELD_NUMBER: _ClassVar[int]
    THINKING_CONFIG_FIELD_NUMBER: _ClassVar[int]
    MODEL_CONFIG_FIELD_NUMBER: _ClassVar[int]
    IMAGE_CONFIG_FIELD_NUMBER: _ClassVar[int]
    temperature: float
    top_p: float
    top_k: float
    candidate_count: int
    max_output_tokens: int
    stop_sequences: _containers.RepeatedScalarFieldContainer[str]
    response_logprobs: bool
    logprobs: int
    presence_penalty: float
    frequency_penalty: float
    seed: int
    response_mime_type: str
    response_schema: _openapi_pb2.Schema
    response_json_schema: _struct_pb2.Value
    routing_config: GenerationConfig.RoutingConfig
    audio_timestamp: bool
    response_modalities: _containers.RepeatedScalarFieldContainer[GenerationConfig.Modality]
    media_resolution: GenerationConfig.MediaResolution
    speech_config: SpeechConfig
    thinking_config: GenerationConfig.ThinkingConfig
    model_config: GenerationConfig.ModelConfig
    image_config: ImageConfig
    def __init__(self, temperature: _Optional[float] = ..., top_p: _Optional[float] = ..., top_k: _Optional[float] = ..., candidate_count: _Optional[int] = ..., max_output_tokens: _Optional[int] = ..., stop_sequences: _Optional[_Iterable[str]] = ..., response_logprobs: _Optional[bool] = ..., logprobs: _Optional[int] = ..., presence_penalty: _Optional[float] = ..., frequency_penalty: _Optional[float] = ..., seed: _Optional[int] = ..., response_mime_type: _Optional[str] = ..., response_schema: _Optional[_Union[_openapi_pb2.Schema, _Mapping]] = ..., response_json_schema: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., routing_config: _Optional[_Union[GenerationConfig.RoutingConfig, _Mapping]] = ..., audio_timestamp: _Optional[bool] = ..., response_modalities: _Optional[_Iterable[_Union[GenerationConfig.Modality, str]]] = ..., media_resolution: _Optional[_Union[GenerationConfig.MediaResolution, str]] = ..., speech_config: _Optional[_Union[SpeechConfig, _Mapping]] = ..., thinking_config: _Optional[_Union[GenerationConfig.ThinkingConfig, _Mapping]] = ..., model_config: _Optional[_Union[GenerationConfig.ModelConfig, _Mapping]] = ..., image_config: _Optional[_Union[ImageConfig, _Mapping]] = ...) -> None: ...
