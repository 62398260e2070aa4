"""Streams and events: ``ember.cuda.Stream``/``Event`` over CuPy's.

Every kernel and copy goes to CuPy's current stream of its device; ``stream(s)`` makes
``s`` current for a block, so work queued inside runs on it. Events order streams
(``s.wait_event(e)``) and time them (``e.elapsed_time(f)``, milliseconds).
"""

from __future__ import annotations

from typing import Any

__all__ = ["CUDAStream", "CUDAEvent", "current_stream", "default_stream", "stream"]


def _cp() -> Any:
    from ember_cuda._runtime import cupy

    return cupy()


def _index(device: Any) -> int:
    if device is None:
        return int(_cp().cuda.runtime.getDevice())
    if isinstance(device, int):
        return device
    return int(getattr(device, "index", None) or 0)


class CUDAStream:
    """A CUDA stream (PyTorch's ``torch.cuda.Stream``).

    Args:
        device: the device index or ``ember.device`` (default: the current device).
        priority: lower is more urgent (CUDA's convention); 0 is the default.
    """

    def __init__(self, device: Any = None, priority: int = 0, *, _stream: Any = None):
        cp = _cp()
        self.device_index = _index(device)
        if _stream is not None:
            self._s = _stream
        else:
            with cp.cuda.Device(self.device_index):
                self._s = cp.cuda.Stream(non_blocking=True, priority=priority or None)

    @property
    def cuda_stream(self) -> int:
        """The raw ``cudaStream_t`` (0 for the legacy default stream)."""
        return int(self._s.ptr)

    @property
    def device(self) -> Any:
        import ember

        return ember.device("cuda", self.device_index)

    def synchronize(self) -> None:
        self._s.synchronize()

    def query(self) -> bool:
        return bool(self._s.done)

    def wait_event(self, event: CUDAEvent) -> None:
        self._s.wait_event(event._e)

    def wait_stream(self, other: CUDAStream) -> None:
        self.wait_event(other.record_event())

    def record_event(self, event: CUDAEvent | None = None) -> CUDAEvent:
        event = event or CUDAEvent()
        event.record(self)
        return event

    def __enter__(self) -> CUDAStream:
        self._ctx = _cp().cuda.Device(self.device_index)
        self._ctx.__enter__()
        self._s.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._s.__exit__(*exc)
        self._ctx.__exit__(*exc)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CUDAStream) and other.cuda_stream == self.cuda_stream

    def __hash__(self) -> int:
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self) -> str:
        return (
            f"<ember.cuda.Stream device=cuda:{self.device_index} "
            f"cuda_stream=0x{self.cuda_stream:x}>"
        )


class CUDAEvent:
    """A CUDA event (PyTorch's ``torch.cuda.Event``)."""

    def __init__(
        self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
    ):
        self._e = _cp().cuda.Event(
            block=blocking, disable_timing=not enable_timing, interprocess=interprocess
        )

    def record(self, stream: CUDAStream | None = None) -> None:
        self._e.record(None if stream is None else stream._s)

    def wait(self, stream: CUDAStream | None = None) -> None:
        (stream or current_stream()).wait_event(self)

    def query(self) -> bool:
        return bool(self._e.done)

    def synchronize(self) -> None:
        self._e.synchronize()

    def elapsed_time(self, end_event: CUDAEvent) -> float:
        """Milliseconds between this event and ``end_event`` (both recorded, timing enabled)."""
        return float(_cp().cuda.get_elapsed_time(self._e, end_event._e))

    def __repr__(self) -> str:
        return f"<ember.cuda.Event {'done' if self.query() else 'pending'}>"


def current_stream(device: Any = None) -> CUDAStream:
    cp = _cp()
    i = _index(device)
    with cp.cuda.Device(i):
        return CUDAStream(i, _stream=cp.cuda.get_current_stream())


def default_stream(device: Any = None) -> CUDAStream:
    cp = _cp()
    return CUDAStream(_index(device), _stream=cp.cuda.Stream.null)


class stream:  # noqa: N801 - PyTorch's name
    """Context manager making ``s`` the current stream (``None``: no change)."""

    def __init__(self, s: CUDAStream | None):
        self.s = s

    def __enter__(self) -> CUDAStream | None:
        if self.s is not None:
            self.s.__enter__()
        return self.s

    def __exit__(self, *exc: Any) -> None:
        if self.s is not None:
            self.s.__exit__(*exc)
