"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.

List-like containers key their members "0", "1", ... in order; deleting an
item renumbers the rest so keys stay contiguous, as in PyTorch.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ember.core.tensor import Tensor
from ember.nn.modules.module import Module, _addindent
from ember.nn.parameter import Parameter

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _index(idx: int, n: int) -> int:
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n


class _ListLike(Module):
    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._modules.values())

    def _renumber(self, items: list[Module]) -> None:
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m

    def __getitem__(self, idx: Any) -> Any:
        items = list(self._modules.values())
        if isinstance(idx, slice):
            return (
                type(self)(*items[idx]) if isinstance(self, Sequential) else ModuleList(items[idx])
            )
        return items[_index(int(idx), len(items))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(idx, len(self))), module)

    def __delitem__(self, idx: Any) -> None:
        items = list(self._modules.values())
        del items[idx if isinstance(idx, slice) else _index(idx, len(items))]
        self._renumber(items)

    def append(self, module: Module) -> Any:
        """Add ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Any:
        """Add each module of ``modules`` at the end; returns ``self``."""
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``, renumbering those after it."""
        items = list(self._modules.values())
        items.insert(index, module)
        self._renumber(items)

    def pop(self, key: int = -1) -> Module:
        """Remove the module at ``key`` (default: the last one) and return it."""
        m = self[key]
        del self[key]
        return m  # type: ignore[no-any-return]


class Sequential(_ListLike):
    """A chain of modules, each applied to the output of the one before.

    ``Sequential(m1, m2)`` names the children ``"0"``, ``"1"``;
    ``Sequential(OrderedDict(name=module, ...))`` keeps the given names. Indexing returns a
    child, slicing a new ``Sequential``; ``append``, ``extend``, ``insert``, ``pop`` and
    ``del`` edit it in place and renumber the children.

    Examples:
        >>> import ember
        >>> net = ember.nn.Sequential(ember.nn.Linear(2, 3), ember.nn.ReLU())
        >>> len(net), type(net[0]).__name__, len(net[:1])
        (2, 'Linear', 1)
        >>> net(ember.ones(4, 2)).shape
        ember.Size([4, 3])
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for k, m in args[0].items():
                self.add_module(k, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(int(idx), len(self))]

    def __add__(self, other: Sequential) -> Sequential:
        return Sequential(*self, *other)

    def forward(self, input: Any) -> Any:
        """Pass ``input`` through each child in order and return the last output."""
        for m in self:
            input = m(input)
        return input


class ModuleList(_ListLike):
    """A list of modules that registers each as a child, so its parameters are the model's.

    Use it when ``forward`` calls the layers itself (a plain Python list would hide their
    parameters from ``parameters()``, ``to`` and ``state_dict``). It supports indexing,
    slicing, ``len``, iteration, ``append``, ``extend``, ``insert``, ``pop``, ``+`` and ``+=``.

    Args:
        modules: an iterable of modules to add. Default: ``None`` (empty).

    Examples:
        >>> import ember
        >>> layers = ember.nn.ModuleList([ember.nn.Linear(2, 2) for _ in range(3)])
        >>> len(layers), len(list(layers.parameters()))
        (3, 6)
        >>> layers.append(ember.nn.ReLU())[-1]
        ReLU()
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)  # type: ignore[no-any-return]

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return ModuleList([*self, *other])

    def __repr__(self) -> str:
        # Consecutive identical children print once, as "(0-2): 3 x Linear(...)".
        reprs = [repr(m) for m in self]
        if not reprs:
            return "ModuleList()"
        lines = []
        start = 0
        for i in range(1, len(reprs) + 1):
            if i == len(reprs) or reprs[i] != reprs[start]:
                body = _addindent(reprs[start], 2)
                if i - start == 1:
                    lines.append(f"({start}): {body}")
                else:
                    lines.append(f"({start}-{i - 1}): {i - start} x {body}")
                start = i
        return "ModuleList(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of modules that registers each as a child under its key.

    It supports ``d[key]``, ``d[key] = module``, ``del``, ``in``, ``len``, iteration over
    the keys, ``keys``, ``values``, ``items``, ``update``, ``pop`` and ``clear``.

    Args:
        modules: a mapping (or iterable of pairs) from names to modules. Default: ``None``.

    Examples:
        >>> import ember
        >>> heads = ember.nn.ModuleDict(
        ...     {"cls": ember.nn.Linear(4, 3), "box": ember.nn.Linear(4, 2)})
        >>> list(heads.keys())
        ['cls', 'box']
        >>> heads["box"](ember.ones(1, 4)).shape
        ember.Size([1, 2])
    """

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]  # type: ignore[return-value]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module from the dict."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove the module under ``key`` and return it."""
        m = self[key]
        del self[key]
        return m

    def keys(self) -> Any:
        """Return a view of the keys, in insertion order."""
        return self._modules.keys()

    def items(self) -> Any:
        """Return a view of the ``(key, module)`` pairs, in insertion order."""
        return self._modules.items()

    def values(self) -> Any:
        """Return a view of the modules, in insertion order."""
        return self._modules.values()

    def update(self, modules: Any) -> None:
        """Add or replace modules from a mapping or an iterable of ``(key, module)`` pairs."""
        items = modules.items() if isinstance(modules, Mapping) else modules
        for k, m in items:
            self[k] = m


def _param_line(p: Tensor) -> str:
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    size = "x".join(str(s) for s in p.shape)
    dev = "" if p.device.type == "cpu" else f" ({p.device})"
    return f"{kind} containing: [{p.dtype} of size {size}{dev}]"


def _as_param(v: Any) -> Any:
    return Parameter(v) if isinstance(v, Tensor) and not isinstance(v, Parameter) else v


class ParameterList(Module):
    """A list of parameters registered under ``"0"``, ``"1"``, ... so the module owns them.

    A plain tensor added to it is wrapped in a ``Parameter``.

    Args:
        values: an iterable of tensors or parameters to add. Default: ``None`` (empty).

    Examples:
        >>> import ember
        >>> ps = ember.nn.ParameterList([ember.zeros(2), ember.zeros(3)])
        >>> len(ps), type(ps[0]).__name__, [n for n, _ in ps.named_parameters()]
        (2, 'Parameter', ['0', '1'])
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, idx: int) -> Any:
        return getattr(self, str(_index(idx, self._size)))

    def __setitem__(self, idx: int, value: Any) -> None:
        setattr(self, str(_index(idx, self._size)), _as_param(value))

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(self._size))

    def append(self, value: Any) -> ParameterList:
        """Add ``value`` at the end (a tensor becomes a ``Parameter``); returns ``self``."""
        self._size += 1
        setattr(self, str(self._size - 1), _as_param(value))
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Add each value of ``values`` at the end; returns ``self``."""
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        """Describe each parameter on its own line: kind, dtype and size."""
        return "\n".join(f"({i}): {_param_line(p)}" for i, p in enumerate(self))


class ParameterDict(Module):
    """An ordered dict of parameters registered under their keys so the module owns them.

    A plain tensor stored in it is wrapped in a ``Parameter``. It supports ``d[key]``,
    assignment, ``del``, ``in``, ``len``, iteration over the keys, ``keys``, ``values``,
    ``items`` and ``update``.

    Args:
        parameters: a mapping (or iterable of pairs) from names to tensors. Default: ``None``.

    Examples:
        >>> import ember
        >>> pd = ember.nn.ParameterDict({"scale": ember.ones(2)})
        >>> pd["shift"] = ember.zeros(2)
        >>> list(pd.keys()), type(pd["shift"]).__name__
        (['scale', 'shift'], 'Parameter')
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, key, _as_param(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self) -> Any:
        """Return a view of the keys, in insertion order."""
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        """Iterate over the ``(key, parameter)`` pairs, in insertion order."""
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        """Iterate over the parameters, in insertion order."""
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        """Add or replace parameters from a mapping or an iterable of ``(key, tensor)`` pairs."""
        items = parameters.items() if isinstance(parameters, Mapping) else parameters
        for k, v in items:
            self[k] = v

    def extra_repr(self) -> str:
        """Describe each parameter on its own line: key, kind, dtype and size."""
        return "\n".join(f"({k}): {_param_line(p)}" for k, p in self.items())
