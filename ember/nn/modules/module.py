"""``ember.nn.Module``: the base class of layers and models, with PyTorch's semantics.

A module owns three ordered registries: ``_parameters`` (name -> Parameter or
None), ``_buffers`` (name -> Tensor or None; names in
``_non_persistent_buffers_set`` stay out of ``state_dict``) and ``_modules``
(name -> Module or None). Attribute assignment routes values into them; a name
lives in at most one registry and never also in ``__dict__``. Traversals are
pre-order, deduplicated by identity, and name members ``prefix.child.name``.
State-dict loading lives in ``ember.nn.modules._state``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple, TypeVar

from ember.autograd.grad_mode import no_grad
from ember.core.dispatch_key import Autograd
from ember.core.tensor import Tensor
from ember.dispatcher.compiling import bump_epoch
from ember.nn.modules import _state
from ember.nn.modules._hooks import BackwardHook, RemovableHandle
from ember.nn.modules._module_shorthands import _ModuleShorthands
from ember.nn.parameter import _SLOTS, Buffer, Parameter

__all__ = ["Module"]

T = TypeVar("T", bound="Module")


class _IncompatibleKeys(NamedTuple):
    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, "
            f"unexpected_keys={self.unexpected_keys!r})"
        )


def _addindent(s: str, n: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


def _check_name(kind: str, name: Any, owner: Module, registry: dict[str, Any]) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(owner, name) and name not in registry:
        raise KeyError(f"attribute '{name}' already exists")


def _swap_data(param: Tensor, new: Tensor) -> None:
    """Point ``param`` at ``new``'s storage and metadata, keeping its identity (``p.data = x``)."""
    for name in _SLOTS:
        object.__setattr__(param, name, getattr(new, name))
    param._ks = (new._ks & ~Autograd.mask) | (Autograd.mask if param._requires_grad else 0)


class Module(_ModuleShorthands):
    """Base class for all neural network modules.

    Examples:
        >>> import ember
        >>> class Net(ember.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = ember.nn.Linear(3, 2)
        ...     def forward(self, x):
        ...         return self.fc(x).relu()
        >>> net = Net()
        >>> [n for n, _ in net.named_parameters()]
        ['fc.weight', 'fc.bias']
        >>> net
        Net(
          (fc): Linear(in_features=3, out_features=2, bias=True)
        )
    """

    _version: int = 1
    training: bool
    forward: Callable[..., Any]

    def __init__(self) -> None:
        s = object.__setattr__
        s(self, "training", True)
        s(self, "_parameters", OrderedDict())
        s(self, "_buffers", OrderedDict())
        s(self, "_non_persistent_buffers_set", set())
        s(self, "_modules", OrderedDict())
        s(self, "_forward_pre_hooks", OrderedDict())
        s(self, "_forward_pre_hooks_with_kwargs", set())
        s(self, "_forward_hooks", OrderedDict())
        s(self, "_forward_hooks_with_kwargs", set())
        s(self, "_backward_hooks", OrderedDict())

    def forward(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
        """Compute the module's output; every subclass overrides it.

        Call the module (``module(x)``) rather than ``forward`` itself: the call runs the
        registered forward pre-hooks, forward hooks and backward hooks around it.

        Raises:
            NotImplementedError: if a subclass does not define ``forward``.
        """
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # -- registration -------------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register ``tensor`` as a buffer named ``name``: state that is not a parameter.

        Buffers move with ``to``/``float``/``cpu`` and, when ``persistent`` (the default),
        are saved in ``state_dict``. A ``None`` buffer is registered but skipped.

        Args:
            name: the attribute name (no ``.``, not empty, not an existing attribute).
            tensor: the buffer, or ``None``.
            persistent: whether ``state_dict`` includes it. Default: ``True``.

        Raises:
            TypeError: if ``name`` is not a string or ``tensor`` is not a Tensor or ``None``.
            KeyError: if ``name`` is empty, contains ``.`` or names another attribute.

        Examples:
            >>> import ember
            >>> m = ember.nn.Module()
            >>> m.register_buffer("steps", ember.zeros(1))
            >>> m.register_buffer("cache", ember.zeros(1), persistent=False)
            >>> list(m.state_dict())
            ['steps']
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        if name in self._buffers:
            bump_epoch()
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` as a parameter named ``name`` (the same as ``self.name = param``).

        Args:
            name: the attribute name (no ``.``, not empty, not an existing attribute).
            param: a ``Parameter`` (a leaf tensor), or ``None``.

        Raises:
            TypeError: if ``param`` is neither a ``Parameter`` nor ``None``.
            ValueError: if ``param`` is not a leaf (it has a ``grad_fn``).

        Examples:
            >>> import ember
            >>> m = ember.nn.Module()
            >>> m.register_parameter("scale", ember.nn.Parameter(ember.ones(2)))
            >>> [name for name, _ in m.named_parameters()]
            ['scale']
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self, self._parameters)
        if name in self._parameters:
            bump_epoch()  # rebinding (new names cannot be in any compiled graph yet)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                "be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` as a child named ``name`` (the same as ``self.name = module``).

        ``register_module`` is the same method.

        Args:
            name: the attribute name (no ``.``, not empty, not an existing attribute).
            module: the child ``Module``, or ``None``.

        Raises:
            TypeError: if ``module`` is not a Module or ``None``, or ``name`` is not a string.
            KeyError: if ``name`` is empty, contains ``.`` or names another attribute.

        Examples:
            >>> import ember
            >>> m = ember.nn.Module()
            >>> m.add_module("fc", ember.nn.Linear(2, 2))
            >>> m.fc
            Linear(in_features=2, out_features=2, bias=True)
        """
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        if name in self._modules:
            bump_epoch()
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """Return the submodule at the dotted path ``target`` (``""`` is the module itself).

        Raises:
            AttributeError: if a step of the path names no child module.

        Examples:
            >>> import ember
            >>> net = ember.nn.Sequential(ember.nn.Sequential(ember.nn.Linear(2, 3)))
            >>> net.get_submodule("0.0")
            Linear(in_features=2, out_features=3, bias=True)
        """
        mod = self
        for item in target.split(".") if target else []:
            if item not in mod._modules:
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = mod._modules[item]
        return mod

    # -- attribute routing --------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for reg in ("_parameters", "_buffers", "_modules"):
            if reg in d and name in d[reg]:
                return d[reg][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _drop(self, name: str, *regs: str) -> None:
        self.__dict__.pop(name, None)
        for r in regs:
            if self.__dict__[r].pop(name, None) is not None:
                bump_epoch()
        if "_buffers" in regs:
            self._non_persistent_buffers_set.discard(name)

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._drop(name, "_buffers", "_modules")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if d.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._drop(name, "_parameters", "_buffers")
            if name in d["_modules"]:
                bump_epoch()
            d["_modules"][name] = value
        elif d.get("_modules") is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            d["_modules"][name] = value
            bump_epoch()
        elif isinstance(value, Buffer):
            self._drop(name, "_parameters", "_modules")
            self.register_buffer(name, value.data, value.persistent)
        elif d.get("_buffers") is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                    "(torch.Tensor or None expected)"
                )
            d["_buffers"][name] = value
            bump_epoch()
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for reg in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(reg, {}):
                del self.__dict__[reg][name]
                self._non_persistent_buffers_set.discard(name)
                bump_epoch()
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = list(super().__dir__())
        keys += list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    # -- traversal ----------------------------------------------------------------------------
    def named_modules(
        self, memo: set[Module] | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """Iterate over ``(name, module)`` for this module and every descendant, pre-order.

        The module itself comes first with the name ``prefix`` (``""``); a module reachable
        twice is yielded once unless ``remove_duplicate`` is ``False``.

        Examples:
            >>> import ember
            >>> net = ember.nn.Sequential(ember.nn.Linear(2, 3), ember.nn.ReLU())
            >>> [name for name, _ in net.named_modules()]
            ['', '0', '1']
        """
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, mod in self._modules.items():
            if mod is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from mod.named_modules(memo, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        """Iterate over this module and every descendant, pre-order (see ``named_modules``)."""
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """Iterate over ``(name, module)`` for the direct children, in registration order."""
        seen: set[Module] = set()
        for name, mod in self._modules.items():
            if mod is not None and mod not in seen:
                seen.add(mod)
                yield name, mod

    def children(self) -> Iterator[Module]:
        """Iterate over the direct children, in registration order."""
        for _, m in self.named_children():
            yield m

    def _named_members(
        self, registry: str, prefix: str, recurse: bool, remove_duplicate: bool
    ) -> Iterator[tuple[str, Any]]:
        memo: set[int] = set()
        mods = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else iter([(prefix, self)])
        )
        for mprefix, mod in mods:
            for k, v in mod.__dict__[registry].items():
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield mprefix + ("." if mprefix else "") + k, v

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """Iterate over ``(dotted name, parameter)`` pairs, descendants' included if ``recurse``.

        Args:
            prefix: prepended to every name. Default: ``""``.
            recurse: include the parameters of descendants. Default: ``True``.
            remove_duplicate: yield a parameter shared by several modules once. Default: ``True``.

        Examples:
            >>> import ember
            >>> net = ember.nn.Sequential(ember.nn.Linear(2, 3))
            >>> [(name, tuple(p.shape)) for name, p in net.named_parameters()]
            [('0.weight', (3, 2)), ('0.bias', (3,))]
        """
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Iterate over the parameters of this module and, if ``recurse``, its descendants.

        This is what optimizers take: ``ember.optim.SGD(model.parameters(), lr=0.1)``.

        Examples:
            >>> import ember
            >>> sum(p.numel() for p in ember.nn.Linear(2, 3).parameters())
            9
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """Iterate over ``(dotted name, buffer)`` pairs, descendants' included if ``recurse``.

        Examples:
            >>> import ember
            >>> [name for name, _ in ember.nn.BatchNorm1d(2).named_buffers()]
            ['running_mean', 'running_var', 'num_batches_tracked']
        """
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Iterate over the buffers of this module and, if ``recurse``, its descendants."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # -- modes and conversions ----------------------------------------------------------------
    def train(self: T, mode: bool = True) -> T:
        """Set training mode (``mode=True``) or evaluation mode on this module and its descendants.

        The mode changes what some layers do (``Dropout``, ``BatchNorm``); it does not turn
        gradient tracking on or off (use ``ember.no_grad`` for that). Returns ``self``.

        Raises:
            ValueError: if ``mode`` is not a bool.

        Examples:
            >>> import ember
            >>> net = ember.nn.Sequential(ember.nn.Dropout(0.5))
            >>> net.train().training, net[0].training
            (True, True)
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self: T) -> T:
        """Set evaluation mode on this module and its descendants (``train(False)``).

        Examples:
            >>> import ember
            >>> ember.nn.Dropout(0.5).eval().training
            False
        """
        return self.train(False)

    def requires_grad_(self: T, requires_grad: bool = True) -> T:
        """Set ``requires_grad`` on every parameter (for freezing layers); returns ``self``.

        Examples:
            >>> import ember
            >>> fc = ember.nn.Linear(2, 2).requires_grad_(False)
            >>> fc.weight.requires_grad
            False
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter.

        Args:
            set_to_none: set ``.grad`` to ``None`` (the default) instead of filling it with zeros.

        Examples:
            >>> import ember
            >>> fc = ember.nn.Linear(2, 1)
            >>> fc(ember.ones(1, 2)).sum().backward()
            >>> fc.zero_grad()
            >>> fc.weight.grad is None
            True
        """
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g = g.detach()
                    p.grad = g
                g.requires_grad_(False)
                g.zero_()

    def apply(self: T, fn: Callable[[Module], None]) -> T:
        """Call ``fn`` on every descendant and then on this module (post-order); returns ``self``.

        Typically used to initialise weights.

        Examples:
            >>> import ember
            >>> def init(m):
            ...     if isinstance(m, ember.nn.Linear):
            ...         ember.nn.init.zeros_(m.weight)
            >>> net = ember.nn.Sequential(ember.nn.Linear(2, 2)).apply(init)
            >>> net[0].weight.sum().item()
            0.0
        """
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self: T, fn: Callable[[Tensor], Tensor]) -> T:
        for m in self.children():
            m._apply(fn)
        with no_grad():
            for p in self._parameters.values():
                if p is None:
                    continue
                new = fn(p)
                if new is not p:
                    _swap_data(p, new)
                if p.grad is not None:
                    p.grad = fn(p.grad)
            for k, b in self._buffers.items():
                if b is not None:
                    self._buffers[k] = fn(b)
        return self

    def to(self: T, *args: Any, **kwargs: Any) -> T:
        """Move and/or cast the parameters and buffers in place; returns ``self``.

        Accepts ``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)`` (its device
        and dtype) and the keywords ``device``, ``dtype`` and ``non_blocking`` (ignored). A dtype
        applies to floating-point tensors only; integer buffers keep theirs. Parameters keep
        their identity, so an optimizer built before the call still holds them.

        Raises:
            TypeError: if the dtype is not a floating-point dtype.

        Examples:
            >>> import ember
            >>> fc = ember.nn.Linear(2, 2).to(ember.float64)
            >>> fc.weight.dtype
            ember.float64
        """
        from ember.core.device import device as device_cls
        from ember.core.dtype import dtype as dtype_cls

        dev = kwargs.pop("device", None)
        dtype = kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        for a in args:
            if isinstance(a, dtype_cls):
                dtype = a
            elif isinstance(a, Tensor):
                dev, dtype = a.device, a.dtype
            elif isinstance(a, (str, device_cls)):
                dev = a
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(
                f"nn.Module.to only accepts floating point or complex dtypes, but got "
                f"desired dtype={dtype}"
            )

        def convert(t: Tensor) -> Tensor:
            target = dtype if (dtype is not None and t.is_floating_point()) else None
            if target is None and dev is None:
                return t
            return t.to(device=dev, dtype=target)

        return self._apply(convert)

    def _cast_floats(self: T, dtype: Any) -> T:
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self: T) -> T:
        """Cast floating-point parameters and buffers to ``float32``; returns ``self``."""
        from ember.core.dtype import float32

        return self._cast_floats(float32)

    def double(self: T) -> T:
        """Cast floating-point parameters and buffers to ``float64``; returns ``self``.

        Examples:
            >>> import ember
            >>> ember.nn.Linear(2, 2).double().bias.dtype
            ember.float64
        """
        from ember.core.dtype import float64

        return self._cast_floats(float64)

    def half(self: T) -> T:
        """Cast floating-point parameters and buffers to ``float16``; returns ``self``."""
        from ember.core.dtype import float16

        return self._cast_floats(float16)

    def cpu(self: T) -> T:
        """Move every parameter and buffer to the CPU; returns ``self``."""
        return self.to("cpu")

    # -- state dict ---------------------------------------------------------------------------
    def _save_to_state_dict(
        self, destination: dict[str, Any], prefix: str, keep_vars: bool
    ) -> None:
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()

    def state_dict(
        self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False
    ) -> Any:
        """Return an ordered dict from dotted names to the parameters and persistent buffers.

        Values are detached (unless ``keep_vars``) and share storage with the module. The
        result carries ``_metadata`` (each module's version), as PyTorch's does, so it
        round-trips through ``load_state_dict`` and ``ember.save``.

        Args:
            destination: a mapping to fill instead of a new ``OrderedDict``.
            prefix: prepended to every key. Default: ``""``.
            keep_vars: keep the tensors attached to autograd. Default: ``False``.

        Examples:
            >>> import ember
            >>> list(ember.nn.Sequential(ember.nn.Linear(2, 3)).state_dict())
            ['0.weight', '0.bias']
        """
        if args:  # PyTorch's deprecated positional form (destination, prefix, keep_vars)
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        meta = getattr(destination, "_metadata", None)
        if meta is not None:
            meta[prefix[:-1]] = {"version": self._version}
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        return destination

    def _load_from_state_dict(
        self,
        state_dict: Mapping[str, Any],
        prefix: str,
        local_metadata: dict[str, Any],
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
        assign: bool = False,
    ) -> None:
        _state.load_local(self, state_dict, prefix, strict, missing_keys, unexpected_keys,
                          error_msgs, assign)  # fmt: skip

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copy parameters and buffers from ``state_dict`` into this module and its descendants.

        Args:
            state_dict: a mapping from dotted names to tensors, as ``state_dict()`` returns.
            strict: require the keys to match exactly. Default: ``True``.
            assign: replace the tensors by those of ``state_dict`` instead of copying into
                them. Default: ``False``.

        Returns:
            A named tuple ``(missing_keys, unexpected_keys)``.

        Raises:
            RuntimeError: listing every problem (missing or unexpected keys with ``strict``,
                shape mismatches).

        Examples:
            >>> import ember
            >>> a, b = ember.nn.Linear(2, 2), ember.nn.Linear(2, 2)
            >>> b.load_state_dict(a.state_dict())
            <All keys matched successfully>
            >>> ember.equal(a.weight, b.weight)
            True
        """
        missing, unexpected = _state.load(self, state_dict, strict, assign)
        return _IncompatibleKeys(missing, unexpected)

    # -- hooks --------------------------------------------------------------------------------
    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Register ``hook(module, args)`` to run before every ``forward`` call.

        The hook may return new positional arguments (a tuple, or one value). With
        ``with_kwargs=True`` it is called as ``hook(module, args, kwargs)`` and may return
        ``(args, kwargs)``. ``prepend`` runs it before the hooks already registered.

        Returns:
            A handle whose ``remove()`` unregisters the hook.

        Examples:
            >>> import ember
            >>> fc = ember.nn.Identity()
            >>> handle = fc.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
            >>> fc(ember.tensor([1.0])).tolist()
            [2.0]
            >>> handle.remove()
        """
        h = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[h.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(h.id)
        if prepend:
            self._forward_pre_hooks.move_to_end(h.id, last=False)
        return h

    def register_forward_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """Register ``hook(module, args, output)`` to run after every ``forward`` call.

        A hook that returns a value replaces the output. With ``with_kwargs=True`` it is
        called as ``hook(module, args, kwargs, output)``. ``prepend`` runs it before the hooks
        already registered.

        Returns:
            A handle whose ``remove()`` unregisters the hook.

        Note:
            ``always_call`` is accepted for compatibility; ember does not run hooks when
            ``forward`` raises.

        Examples:
            >>> import ember
            >>> shapes = []
            >>> fc = ember.nn.Linear(2, 3)
            >>> handle = fc.register_forward_hook(lambda m, args, out: shapes.append(out.shape))
            >>> _ = fc(ember.ones(4, 2))
            >>> shapes
            [ember.Size([4, 3])]
            >>> handle.remove()
        """
        h = RemovableHandle(self._forward_hooks)
        self._forward_hooks[h.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(h.id)
        if prepend:
            self._forward_hooks.move_to_end(h.id, last=False)
        return h

    def register_full_backward_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Register ``hook(module, grad_input, grad_output)`` to run in the module's backward.

        ``grad_input`` and ``grad_output`` are tuples with one entry per tensor input and
        output (``None`` where there is no gradient). A hook that returns a tuple replaces
        ``grad_input``.

        Returns:
            A handle whose ``remove()`` unregisters the hook.

        Examples:
            >>> import ember
            >>> seen = []
            >>> fc = ember.nn.Linear(2, 1)
            >>> h = fc.register_full_backward_hook(lambda m, gi, go: seen.append(go[0].shape))
            >>> fc(ember.ones(3, 2, requires_grad=True)).sum().backward()
            >>> seen
            [ember.Size([3, 1])]
        """
        h = RemovableHandle(self._backward_hooks)
        self._backward_hooks[h.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(h.id, last=False)
        return h

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks):
            return self.forward(*args, **kwargs)
        for hid, hook in list(self._forward_pre_hooks.items()):
            if hid in self._forward_pre_hooks_with_kwargs:
                r = hook(self, args, kwargs)
                if r is not None:
                    args, kwargs = r
            else:
                r = hook(self, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
        bw = (
            BackwardHook(self, list(self._backward_hooks.values()))
            if self._backward_hooks
            else None
        )
        if bw is not None:
            args = bw.setup_inputs(args)
        result = self.forward(*args, **kwargs)
        for hid, hook in list(self._forward_hooks.items()):
            if hid in self._forward_hooks_with_kwargs:
                r = hook(self, args, kwargs, result)
            else:
                r = hook(self, args, result)
            if r is not None:
                result = r
        if bw is not None:
            result = bw.setup_outputs(result)
        return result

    # -- printing -----------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """Return the text shown between the parentheses of the module's ``repr``.

        Override it to show a layer's configuration; the default is ``""``.

        Examples:
            >>> import ember
            >>> ember.nn.Linear(2, 3).extra_repr()
            'in_features=2, out_features=3, bias=True'
        """
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({k}): " + _addindent(repr(m), 2) for k, m in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                body = extra_lines[0]
            else:
                body = "\n  " + "\n  ".join(lines) + "\n"
        return self._get_name() + "(" + body + ")"
