"""``DataParallel``: PyTorch's single-process data-parallel wrapper, on one device.

PyTorch's ``DataParallel`` scatters a batch over several CUDA devices, replicates the
module, and gathers the outputs; with no accelerator it simply calls the module. ember
runs the wrapped module on the device its parameters are on, so a script written for
``nn.DataParallel(model)`` trains identically. What scripts rely on is kept: the wrapped
module is ``.module``, its parameters and buffers appear under the ``module.`` prefix
in ``state_dict`` and ``named_parameters``, and ``device_ids``/``output_device``/``dim``
are recorded.
"""

from __future__ import annotations

import warnings
from typing import Any

from ember.nn.modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wrap ``module`` as ``torch.nn.DataParallel`` does; the forward runs ``module``.

    Note:
        ember runs the module on one device: the batch is not split over ``device_ids``
        (several ids warn), so it only keeps PyTorch scripts and their state-dict keys
        (``module.`` prefixes) working. Use ``ember.nn.parallel.DistributedDataParallel``
        for data parallelism.

    Args:
        module: the module to wrap.
        device_ids: accepted for compatibility. Default: ``None``.
        output_device: accepted for compatibility. Default: ``None``.
        dim: the batch dim, accepted for compatibility. Default: ``0``.

    Examples:
        >>> import ember
        >>> net = ember.nn.DataParallel(ember.nn.Linear(3, 2))
        >>> sorted(net.state_dict())
        ['module.bias', 'module.weight']
        >>> net(ember.ones(4, 3)).shape
        ember.Size([4, 2])
    """

    def __init__(
        self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0
    ) -> None:
        super().__init__()
        self.module = module
        self.dim = dim
        self.device_ids = [] if device_ids is None else list(device_ids)
        self.output_device = output_device
        if len({str(d) for d in self.device_ids}) > 1:
            warnings.warn(
                "ember's DataParallel runs the module on one device; the batch is not split "
                f"over device_ids={self.device_ids}",
                UserWarning,
                stacklevel=2,
            )

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)


def data_parallel(
    module: Module,
    inputs: Any,
    device_ids: Any = None,
    output_device: Any = None,
    dim: int = 0,
    module_kwargs: Any = None,
) -> Any:
    """The functional form: ``module(*inputs, **module_kwargs)`` on the module's device."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,)
    return module(*inputs, **(module_kwargs or {}))
