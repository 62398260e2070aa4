"""View operators: new shape/stride/offset over the same storage, on any device.

These kernels are registered under Composite for every view operator in
``ops.yaml``; no device is involved, so a vendor never writes them. Each view
records ``_base`` (the tensor whose storage it shares) for autograd. Basic
indexing (ints, slices with steps, None, Ellipsis) is computed here in one pass
and produces a single ``as_strided`` view.
"""

from __future__ import annotations

from typing import Any

from ember.core import providers
from ember.core.dispatch_key import Autograd
from ember.core.tensor import Size, Tensor, _wrap_dim, contiguous_strides, make_tensor
from ember.dispatcher.grad_mode import is_grad_enabled
from ember.operators.drivers import _I64_MAX, check_numel

_AUTOGRAD = Autograd.mask

__all__ = ["view_of", "compute_view_stride", "getitem"]


def view_of(t: Tensor, shape: tuple[int, ...], stride: tuple[int, ...], offset: int) -> Tensor:
    v = make_tensor(t._storage, shape, stride, offset, t._dtype, t._device, t._ks)
    v._base = t if t._base is None else t._base
    return v


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def infer_size(shape: tuple[int, ...], numel: int, op: str = "view") -> tuple[int, ...]:
    """Resolve a single ``-1`` in a requested shape, with PyTorch's errors."""
    check_numel(shape, op)
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s}")
        else:
            known *= s
    if infer is not None:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:infer] + (numel // known,) + shape[infer + 1 :]
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def compute_view_stride(
    old_shape: tuple[int, ...], old_stride: tuple[int, ...], new_shape: tuple[int, ...]
) -> tuple[int, ...] | None:
    """Strides that view ``old`` as ``new_shape`` without copying, or None if impossible.

    Groups of old dims that are contiguous among themselves can be split or merged;
    a view fails when a new dim would span two such groups.
    """
    if _numel(old_shape) == 0 or not old_shape:
        return contiguous_strides(new_shape)
    new_stride = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1] if old_stride else 1
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (
            old_shape[tensor_d - 1] != 1
            and old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


# -- kernels (schema arguments, positionally) ---------------------------------------------------
def view(self: Tensor, size: tuple[int, ...]) -> Tensor:
    shape = infer_size(tuple(size), self.numel(), "view")
    st = compute_view_stride(self._shape, self._stride, shape)
    if st is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return view_of(self, shape, st, self._offset)


def reshape(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    size = infer_size(tuple(shape), self.numel(), "reshape")
    st = compute_view_stride(self._shape, self._stride, size)
    if st is not None:
        return view_of(self, size, st, self._offset)
    return view(self.contiguous(), size)


def as_strided(
    self: Tensor, size: tuple[int, ...], stride: tuple[int, ...], storage_offset: int | None = None
) -> Tensor:
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: {len(stride)} strides for {len(size)} dims"
        )
    if any(s < 0 for s in stride) or any(s < 0 for s in size):
        raise RuntimeError(
            f"as_strided: negative sizes or strides are not supported: "
            f"size={list(size)}, stride={list(stride)}"
        )
    check_numel(size, "as_strided")
    check_numel(stride, "as_strided")
    off = self._offset if storage_offset is None else storage_offset
    if off < 0:
        raise RuntimeError(f"as_strided: storage offset must be non-negative, got {off}")
    if _numel(size):
        end = off + sum((n - 1) * s for n, s in zip(size, stride)) + 1
        if end * self._dtype.itemsize > _I64_MAX:
            raise RuntimeError(
                f"Storage size calculation overflowed with sizes={list(size)} and "
                f"strides={list(stride)} (as_strided)"
            )
        cap = self._storage.nbytes // self._dtype.itemsize
        if end > cap:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off} "
                f"require {end * self._dtype.itemsize} bytes, but the storage has "
                f"{self._storage.nbytes}"
            )
    return view_of(self, size, stride, off)


def expand(self: Tensor, size: tuple[int, ...], implicit: bool = False) -> Tensor:
    size = tuple(size)
    check_numel(size, "expand")
    nd = len(self._shape)
    if len(size) < nd:
        raise RuntimeError(
            f"expand(torch.{_tname(self)}{{{list(self._shape)}}}, size={list(size)}): the number "
            f"of sizes provided ({len(size)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({nd})"
        )
    lead = len(size) - nd
    shape, stride = [], []
    for i, s in enumerate(size):
        if i < lead:
            if s < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                    "non-existing dimension"
                )
            shape.append(s)
            stride.append(0)
            continue
        cur, cst = self._shape[i - lead], self._stride[i - lead]
        if s == -1:
            s = cur
        if cur == s:
            shape.append(s)
            stride.append(cst)
        elif cur == 1:
            shape.append(s)
            stride.append(0)
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(size)}.  Tensor sizes: "
                f"{list(self._shape)}"
            )
    return view_of(self, tuple(shape), tuple(stride), self._offset)


def _tname(t: Tensor) -> str:
    from ember.core.tensor import _LEGACY_NAMES

    return _LEGACY_NAMES[t._dtype.name]


def permute(self: Tensor, dims: tuple[int, ...]) -> Tensor:
    n = len(self._shape)
    if len(dims) != n:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    wrapped = [_wrap_dim(d, n) for d in dims]
    if len(set(wrapped)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return view_of(
        self,
        tuple(self._shape[d] for d in wrapped),
        tuple(self._stride[d] for d in wrapped),
        self._offset,
    )


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    n = len(self._shape)
    if n == 0:
        _wrap_dim(dim0, 0), _wrap_dim(dim1, 0)
        return view_of(self, self._shape, self._stride, self._offset)
    a, b = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    shape, stride = list(self._shape), list(self._stride)
    shape[a], shape[b] = shape[b], shape[a]
    stride[a], stride[b] = stride[b], stride[a]
    return view_of(self, tuple(shape), tuple(stride), self._offset)


def t(self: Tensor) -> Tensor:
    n = len(self._shape)
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    return (
        transpose(self, 0, 1) if n == 2 else view_of(self, self._shape, self._stride, self._offset)
    )


def squeeze(self: Tensor) -> Tensor:
    keep = [i for i, s in enumerate(self._shape) if s != 1]
    return view_of(
        self,
        tuple(self._shape[i] for i in keep),
        tuple(self._stride[i] for i in keep),
        self._offset,
    )


def squeeze_dims(self: Tensor, dim: tuple[int, ...]) -> Tensor:
    n = len(self._shape)
    if n == 0:
        for d in dim:
            _wrap_dim(d, 0)
        return view_of(self, (), (), self._offset)
    drop = {_wrap_dim(d, n) for d in dim}
    keep = [i for i in range(n) if not (i in drop and self._shape[i] == 1)]
    return view_of(
        self,
        tuple(self._shape[i] for i in keep),
        tuple(self._stride[i] for i in keep),
        self._offset,
    )


def squeeze_dim(self: Tensor, dim: int) -> Tensor:
    return squeeze_dims(self, (dim,))


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    n = len(self._shape)
    d = _wrap_dim(dim, n + 1)
    shape, stride = list(self._shape), list(self._stride)
    new_stride = shape[d] * stride[d] if d < n else 1
    shape.insert(d, 1)
    stride.insert(d, new_stride)
    return view_of(self, tuple(shape), tuple(stride), self._offset)


def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    n = len(self._shape)
    s, e = _wrap_dim(start_dim, n), _wrap_dim(end_dim, n)
    if n == 0:
        return reshape(self, (1,))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return view_of(self, self._shape, self._stride, self._offset)
    shape = self._shape[:s] + (_numel(self._shape[s : e + 1]),) + self._shape[e + 1 :]
    return reshape(self, shape)


def unflatten(self: Tensor, dim: int, sizes: tuple[int, ...]) -> Tensor:
    n = len(self._shape)
    d = _wrap_dim(dim, n)
    sizes = infer_size(tuple(sizes), self._shape[d])
    return view(self, self._shape[:d] + sizes + self._shape[d + 1 :])


def narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    n = len(self._shape)
    if n == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, n)
    size = self._shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if not (0 <= start <= size) or length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    shape = list(self._shape)
    shape[d] = length
    return view_of(self, tuple(shape), self._stride, self._offset + start * self._stride[d])


def select(self: Tensor, dim: int, index: int) -> Tensor:
    n = len(self._shape)
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, n)
    size = self._shape[d]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
    if index < 0:
        index += size
    return view_of(
        self,
        self._shape[:d] + self._shape[d + 1 :],
        self._stride[:d] + self._stride[d + 1 :],
        self._offset + index * self._stride[d],
    )


def slice_(
    self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Tensor:
    n = len(self._shape)
    d = _wrap_dim(dim, n)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    b, e, _ = slice(start, end, step).indices(self._shape[d])
    length = max(0, (e - b + step - 1) // step)
    shape, stride = list(self._shape), list(self._stride)
    shape[d] = length
    stride[d] *= step
    return view_of(self, tuple(shape), tuple(stride), self._offset + b * self._stride[d])


def alias(self: Tensor) -> Tensor:
    return view_of(self, self._shape, self._stride, self._offset)


def detach(self: Tensor) -> Tensor:
    from ember.core.dispatch_key import Autograd

    v = make_tensor(
        self._storage,
        self._shape,
        self._stride,
        self._offset,
        self._dtype,
        self._device,
        self._ks & ~Autograd.mask,
    )
    return v


def view_dtype(self: Tensor, dtype: Any) -> Tensor:
    if dtype.itemsize != self._dtype.itemsize:
        raise RuntimeError(
            f"view(dtype): only views between dtypes of the same size are supported "
            f"({self._dtype.name} is {self._dtype.itemsize} bytes, {dtype.name} is "
            f"{dtype.itemsize})"
        )
    v = make_tensor(
        self._storage, self._shape, self._stride, self._offset, dtype, self._device, self._ks
    )
    v._base = self
    return v


def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    n = len(self._shape)
    a, b = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    off = self._offset
    if offset >= 0:
        length = max(0, min(self._shape[a], self._shape[b] - offset))
        off += offset * self._stride[b] if length else 0
    else:
        length = max(0, min(self._shape[a] + offset, self._shape[b]))
        off -= offset * self._stride[a] if length else 0
    keep = [i for i in range(n) if i not in (a, b)]
    shape = tuple(self._shape[i] for i in keep) + (length,)
    stride = tuple(self._stride[i] for i in keep) + (self._stride[a] + self._stride[b],)
    return view_of(self, shape, stride, off)


# -- basic indexing -------------------------------------------------------------------------------
def _seq_as_tuple(index: Any) -> bool:
    """PyTorch reads a short list that holds a sequence, tensor, slice, None or Ellipsis as a
    tuple of indices (``x[[[0, 1], [2, 3]]]`` is ``x[[0, 1], [2, 3]]``), like old numpy."""
    if not isinstance(index, list) or len(index) >= 32:
        return False
    return any(
        isinstance(i, (Tensor, list, tuple, slice))
        or i is None
        or i is Ellipsis
        or hasattr(i, "__array_interface__")
        for i in index
    )


def _ranges_as_lists(index: tuple[Any, ...]) -> tuple[Any, ...]:
    """A Python ``range`` indexes as the list of its values, as in PyTorch."""
    if any(isinstance(i, range) for i in index):
        return tuple(list(i) if isinstance(i, range) else i for i in index)
    return index


def getitem(self: Tensor, index: Any) -> Tensor:
    """``x[index]`` for ints, bools, slices, None and Ellipsis, as one view."""
    if _seq_as_tuple(index):
        index = tuple(index)
    if not isinstance(index, tuple):
        index = (index,)
    index = _ranges_as_lists(index)
    for i in index:
        if isinstance(i, (Tensor, list)) or hasattr(i, "__array_interface__"):
            from ember.dispatcher.namespace import ops

            view, idx = split_advanced(self, index)
            if idx is None:
                return view
            return ops.aten.index.Tensor(view, idx)  # type: ignore[no-any-return]
    n_real = sum(
        1 for i in index if i is not None and i is not Ellipsis and not isinstance(i, bool)
    )
    if sum(1 for i in index if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    nd = len(self._shape)
    if n_real > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    shape: list[int] = []
    stride: list[int] = []
    off = self._offset
    d = 0
    for item in index:
        if item is Ellipsis:
            k = nd - n_real
            shape.extend(self._shape[d : d + k])
            stride.extend(self._stride[d : d + k])
            d += k
        elif item is None or isinstance(item, bool):
            # None and True add a dim of size 1; False adds one of size 0 (an empty selection).
            shape.append(0 if item is False else 1)
            stride.append(self._stride[d] * self._shape[d] if d < nd else 1)
        elif isinstance(item, int) or hasattr(item, "__index__") and not isinstance(item, slice):
            i = int(item.__index__())
            size = self._shape[d]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
            off += (i + size if i < 0 else i) * self._stride[d]
            d += 1
        elif isinstance(item, slice):
            step = 1 if item.step is None else int(item.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            b, e, _ = item.indices(self._shape[d])
            length = max(0, (e - b + step - 1) // step)
            shape.append(length)
            stride.append(self._stride[d] * step)
            off += b * self._stride[d]
            d += 1
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                f"are valid indices (got {type(item).__name__})"
            )
    shape.extend(self._shape[d:])
    stride.extend(self._stride[d:])
    if self._ks & _AUTOGRAD:  # record history: one view operator
        res = _one_view(self, index, nd - n_real)
        if res is None:
            from ember.dispatcher.namespace import ops

            res = ops.aten.as_strided.default(self, tuple(shape), tuple(stride), off)
        return res
    return view_of(self, Size(shape), tuple(stride), off)


def _is_full(item: Any) -> bool:
    return item is Ellipsis or (
        isinstance(item, slice)
        and item.start is None
        and item.stop is None
        and item.step in (None, 1)
    )


def _one_view(self: Tensor, index: tuple[Any, ...], fill: int) -> Tensor | None:
    """The operator PyTorch records for ``x[index]`` when at most one item does anything
    (``x[i]``: select, ``x[:, a:b]``: slice, ``x[..., None]``: unsqueeze, ``x[...]``: alias);
    None for other (already validated) indices, which take one ``as_strided`` view. ``fill``
    is the number of dims an Ellipsis stands for."""
    from ember.dispatcher.namespace import ops

    busy = [k for k, item in enumerate(index) if not _is_full(item)]
    if len(index) == 1 and isinstance(index[0], slice):
        busy = [0]  # ``x[:]`` is a slice (``x[:, :]`` an alias), as in PyTorch
    if not busy:
        return ops.aten.alias.default(self)  # type: ignore[no-any-return]
    if len(busy) != 1 or isinstance(index[busy[0]], bool):
        return None
    item = index[busy[0]]
    d = sum(fill if i is Ellipsis else 1 for i in index[: busy[0]])
    if item is None:
        return ops.aten.unsqueeze.default(self, d)  # type: ignore[no-any-return]
    if isinstance(item, slice):
        step = 1 if item.step is None else int(item.step)
        b, e, _ = item.indices(self._shape[d])
        return ops.aten.slice.Tensor(self, d, b, max(b, e), step)  # type: ignore[no-any-return]
    return ops.aten.select.int(self, d, int(item.__index__()))  # type: ignore[no-any-return]


def setitem(self: Tensor, index: Any, value: Any) -> None:
    """``x[index] = value``: a copy/fill into a view, or ``index_put_`` for tensor indices.

    As in PyTorch, a tensor value must have ``x``'s dtype when tensor indices are used,
    except for the masked-fill form ``x[mask] = v`` with a one-element ``v``.
    """
    from ember.operators.drivers import scalar_tensor

    if (
        self._base is not None
        and (self._requires_grad or (isinstance(value, Tensor) and value._requires_grad))
        and is_grad_enabled()
    ):
        # Writing part of a view that takes part in autograd: do it as one in-place op on
        # the view itself, so the view's own history is rebased along with its base's
        # (Note [In-place on a view]); a write into a sub-view would leave this view's
        # history behind, as PyTorch's regenerated views do not.
        whole = self.clone()
        setitem(whole, index, value)
        self.copy_(whole)
        return

    if _seq_as_tuple(index):
        index = tuple(index)
    items = _ranges_as_lists(index if isinstance(index, tuple) else (index,))
    index = items
    if any(isinstance(i, (Tensor, list)) or hasattr(i, "__array_interface__") for i in items):
        view, idx = split_advanced(self, items)
        if idx is not None:
            from ember.dispatcher.namespace import ops

            if not isinstance(value, Tensor):
                v = scalar_tensor(value, self._dtype, self._device)
            elif value._dtype is not self._dtype and _is_mask(items) and value.numel() == 1:
                v = value.reshape(()).to(self._dtype)
            else:
                v = value
            ops.aten.index_put_.default(view, idx, v, False)
            return
        target = view
    else:
        target = getitem(self, index)
    if isinstance(value, Tensor):
        target.copy_(value)
    else:
        target.fill_(value)


def _is_mask(items: tuple[Any, ...]) -> bool:
    from ember.core import dtype as dt

    return len(items) == 1 and isinstance(items[0], Tensor) and items[0]._dtype is dt.bool_


def _as_index_tensor(i: Any, like: Tensor) -> Tensor:
    from ember.operators.factories import tensor

    t = (
        i
        if isinstance(i, Tensor)
        else tensor(i if not isinstance(i, list) or i else [], dtype=None)
    )
    if not isinstance(i, Tensor) and isinstance(i, list) and not i:
        from ember.core import dtype as dt

        t = t.to(dt.int64)
    return t if t._device is like._device else t.to(like._device)


def split_advanced(self: Tensor, index: tuple[Any, ...]) -> tuple[Tensor, list[Any] | None]:
    """Split ``x[index]`` into a basic view and the advanced indices over the view's dims.

    Ints, slices, None and Ellipsis are applied first as one view (so an int next
    to a tensor index is a ``select``, as in PyTorch); each tensor index becomes
    the entry for the view dim it lands on (a k-dim boolean mask covers k dims).
    """
    from ember.core import dtype as dt

    if len(index) == 1 and _seq_as_tuple(index[0]):
        index = tuple(index[0])
    items = [
        _as_index_tensor(i, self)
        if isinstance(i, (Tensor, list)) or hasattr(i, "__array_interface__")
        else i
        for i in index
    ]

    def consumed(i: Any) -> int:
        if i is None or i is Ellipsis or isinstance(i, bool):
            return 0
        if isinstance(i, Tensor) and i._dtype in (dt.bool_, dt.uint8):
            return i.ndim
        return 1

    n_real = sum(consumed(i) for i in items)
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_real > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
    basic: list[Any] = []
    marks: list[tuple[int, Tensor, int]] = []  # (position in basic, tensor, dims covered)
    for i in items:
        if i is Ellipsis:
            basic.extend([slice(None)] * (self.ndim - n_real))
        elif isinstance(i, Tensor):
            if i._dtype in (dt.bool_, dt.uint8) and i.ndim == 0:
                marks.append((len(basic), i, 0))
                basic.append(None)
            elif i._dtype in (dt.bool_, dt.uint8):
                marks.append((len(basic), i, i.ndim))
                basic.extend([slice(None)] * i.ndim)
            else:
                marks.append((len(basic), i, 1))
                basic.append(slice(None))
        else:
            basic.append(i)
    # x[idx] indexes x itself (PyTorch's graph has no view node before IndexBackward0)
    view = self if all(_is_full(b) for b in basic) else getitem(self, tuple(basic))
    # view dim of each basic entry
    vdim: list[int] = []
    d = 0
    for b in basic:
        vdim.append(d)
        if b is None or isinstance(b, slice):
            d += 1
    entries: dict[int, tuple[Tensor, int]] = {}
    for pos, t, k in marks:
        if k == 0:
            if not bool(t.item()):
                view = view.narrow(vdim[pos], 0, 0)
            continue
        entries[vdim[pos]] = (t, k)
    if not entries:
        return view, None
    idx: list[Any] = []
    d = 0
    last = max(entries)
    while d <= last:
        if d in entries:
            t, k = entries[d]
            idx.append(t)
            d += k
        else:
            idx.append(None)
            d += 1
    return view, idx


# Note [Registration points]
providers.getitem, providers.setitem = getitem, setitem
