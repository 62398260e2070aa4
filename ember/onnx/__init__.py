"""``ember.onnx``: the names of PyTorch's ``torch.onnx`` that scripts import, without an exporter.

Owns what a training script touches at import or in a branch it may not take:
``is_in_onnx_export()`` (always False: ember never runs a model for export), PyTorch's enums
``TrainingMode`` and ``OperatorExportTypes``, and ``export``/``dynamo_export``, which raise
``OnnxExporterError`` (a ``RuntimeError``, and a ``NotImplementedError``) saying what to do
instead: save the model's ``state_dict`` with ``ember.save`` (PyTorch reads the file) and
export from PyTorch.

Must always hold: importing this package costs nothing and changes nothing; no function here
writes a file.

Examples:
    >>> import ember.onnx
    >>> ember.onnx.is_in_onnx_export()
    False
"""

from __future__ import annotations

import enum
from typing import Any

__all__ = [
    "export",
    "dynamo_export",
    "is_in_onnx_export",
    "register_custom_op_symbolic",
    "unregister_custom_op_symbolic",
    "OnnxExporterError",
    "TrainingMode",
    "OperatorExportTypes",
]

_HOW = (
    "ember does not export ONNX yet. Save the weights instead, "
    "ember.save(model.state_dict(), 'model.pt') (the file is PyTorch's format), then in "
    "PyTorch build the same model, model.load_state_dict(torch.load('model.pt')), and call "
    "torch.onnx.export there."
)


class OnnxExporterError(NotImplementedError):
    """ONNX export is not available in ember (a RuntimeError, as PyTorch's export errors)."""


class TrainingMode(enum.IntEnum):
    """PyTorch's ``torch.onnx.TrainingMode``: the mode a model is exported in."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    """PyTorch's ``torch.onnx.OperatorExportTypes``."""

    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


def export(model: Any, args: Any = (), f: Any = None, *unused: Any, **kwargs: Any) -> Any:
    """PyTorch's ``torch.onnx.export``: raises ``OnnxExporterError`` with what to do instead.

    Examples:
        >>> import ember, ember.onnx
        >>> try:
        ...     ember.onnx.export(ember.nn.Linear(2, 1), (ember.zeros(1, 2),), "m.onnx")
        ... except RuntimeError as e:
        ...     print(str(e)[:36])
        ember does not export ONNX yet. Save
    """
    raise OnnxExporterError(_HOW)


def dynamo_export(model: Any, *args: Any, **kwargs: Any) -> Any:
    """PyTorch's ``torch.onnx.dynamo_export``: raises ``OnnxExporterError`` like ``export``."""
    raise OnnxExporterError(_HOW)


def register_custom_op_symbolic(symbolic_name: str, symbolic_fn: Any, opset_version: int) -> None:
    """PyTorch's symbolic registration: raises ``OnnxExporterError`` (no exporter to extend)."""
    raise OnnxExporterError(_HOW)


def unregister_custom_op_symbolic(symbolic_name: str, opset_version: int) -> None:
    """The inverse of ``register_custom_op_symbolic``: raises ``OnnxExporterError``."""
    raise OnnxExporterError(_HOW)


def is_in_onnx_export() -> bool:
    """Whether an ONNX export is tracing the model now: never, in ember."""
    return False
