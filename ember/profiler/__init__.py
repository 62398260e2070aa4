"""``ember.profiler``: PyTorch's ``torch.profiler`` (``profile``, ``record_function``,
``schedule``, ``ProfilerActivity``, ``tensorboard_trace_handler``).

The scheduled profiler lives in ``ember.profiler.profiler``; what it records (host
wall-clock ranges of ``record_function`` blocks and of operator calls, observed through the
dispatcher's ``Tracer`` key) and the result types (``EventList``, ``FunctionEvent``) are
``ember.autograd.profiler``'s, as in torch, where ``torch.profiler`` builds on
``torch.autograd.profiler``.

Layer: the PyTorch API band (docs/architecture.md); imports ``ember.autograd``.

Examples:
    >>> import ember
    >>> from ember.profiler import profile, record_function, ProfilerActivity
    >>> with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    ...     with record_function("model_inference"):
    ...         _ = ember.ones(4, 4) @ ember.ones(4, 4)
    >>> table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=5)
    >>> "model_inference" in table and "Self CPU time total" in table
    True
"""

from ember.autograd.profiler import record_function
from ember.profiler.profiler import (
    ProfilerAction,
    ProfilerActivity,
    kineto_available,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = [
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
    "ProfilerAction",
    "ProfilerActivity",
    "kineto_available",
    "record_function",
]
