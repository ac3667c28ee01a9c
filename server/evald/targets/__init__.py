"""Model targets: the model under test that a job calls to generate the outputs it scores."""

from evald.judges.retry import RetryPolicy
from evald.targets.base import Endpoint, Generation, Output, TargetError
from evald.targets.runtime import Targets

__all__ = ["Endpoint", "Generation", "Output", "RetryPolicy", "TargetError", "Targets"]
