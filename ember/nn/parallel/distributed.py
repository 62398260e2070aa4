"""``DistributedDataParallel``: one model replica per process, gradients averaged in buckets.

PyTorch's DDP, on ``ember.distributed``'s collectives:

* at construction the parameters and buffers of rank 0 are broadcast, so every replica
  starts equal;
* parameters are packed, in reverse registration order (about the order backward
  produces their gradients), into buckets of at most ``bucket_cap_mb`` (the first one
  1 MiB, so communication starts early); a bucket's gradients are averaged with an
  asynchronous ``all_reduce`` launched from the post-accumulate-grad hook of its last
  parameter, **while backward is still running**;
* the hook that launches the last bucket waits for every bucket and writes the
  averages back into ``.grad``, so when ``backward()`` returns -- before
  ``optimizer.step()`` can look -- every rank holds the same gradients;
* ``no_sync()`` skips the reduction (gradients accumulate locally; the next backward
  outside it reduces the sum; as in PyTorch, whether a backward reduces is decided by
  its forward); ``find_unused_parameters=True`` walks the autograd graph after each
  forward and counts the parameters it cannot reach as ready when backward starts, and
  a parameter no rank used keeps its ``.grad``; ``broadcast_buffers`` sends rank 0's
  buffers at each forward; ``state_dict`` keys carry the ``module.`` prefix;
* buckets are reduced in index order on every rank, whatever order they complete in
  (Note [Bucket order]): ranks whose graphs differ still pair the same buckets.

Must always hold: a backward that leaves a bucket unreduced (a parameter not used
without ``find_unused_parameters``) is reported at the next forward with PyTorch's
message, instead of deadlocking the ranks that did reduce it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import ember
from ember import distributed as dist
from ember.nn.modules.module import Module
from ember.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1 << 20


class _Bucket:
    def __init__(self, params: list[Any]) -> None:
        self.params = params
        self.numels = [p.numel() for p in params]
        total = sum(self.numels)
        self.flat = ember.zeros(total, dtype=params[0].dtype, device=params[0].device)
        self.ready: set[int] = set()
        self.work: Any = None

    def fill(self) -> None:
        at = 0
        with ember.no_grad():
            for p, n in zip(self.params, self.numels):
                seg = self.flat[at : at + n]
                if p.grad is None:
                    seg.zero_()
                else:
                    seg.copy_(p.grad.detach().reshape(-1))
                at += n

    def write_back(self, globally_used: dict[int, bool] | None) -> None:
        at = 0
        with ember.no_grad():
            for p, n in zip(self.params, self.numels):
                seg = self.flat[at : at + n].reshape(p.shape)
                at += n
                if globally_used is not None and not globally_used.get(id(p), True):
                    continue
                if p.grad is None:
                    p.grad = seg.clone()
                else:
                    p.grad.detach().copy_(seg)


class DistributedDataParallel(Module):
    """Wrap ``module`` so that ``backward()`` averages gradients over the process group.

    Examples:
        >>> import ember
        >>> ember.nn.parallel.DistributedDataParallel(ember.nn.Linear(2, 1))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: Default process group has not been initialized, ...
    """

    def __init__(
        self,
        module: Module,
        device_ids: Any = None,
        output_device: Any = None,
        dim: int = 0,
        broadcast_buffers: bool = True,
        process_group: Any = None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
        delay_all_reduce_named_params: Any = None,
        param_to_hook_all_reduce: Any = None,
        mixed_precision: Any = None,
        device_mesh: Any = None,
    ) -> None:
        super().__init__()
        group = dist.distributed_c10d.resolve_group(process_group)
        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * (1 << 20))
        self.__dict__["process_group"] = group
        self.__dict__["require_backward_grad_sync"] = True
        params = [p for p in module.parameters() if p.requires_grad]
        self.__dict__["_params"] = params
        self._sync_module_states()
        buckets = self._make_buckets(params)
        self.__dict__["_buckets"] = buckets
        self.__dict__["_bucket_of"] = {id(p): b for b in buckets for p in b.params}
        self.__dict__["_armed"] = False
        self.__dict__["_unused"] = []
        self.__dict__["_launched"] = 0
        self.__dict__["_used"] = {}
        self.__dict__["_hooks"] = [
            p.register_post_accumulate_grad_hook(self._on_grad) for p in params
        ]

    # -- construction ------------------------------------------------------------------

    def _sync_module_states(self) -> None:
        """Broadcast rank 0's parameters and buffers, one flat tensor per dtype."""
        self._broadcast_coalesced([*self.module.parameters(), *self.module.buffers()])

    def _broadcast_coalesced(self, tensors: list[Any]) -> None:
        pg = self.process_group
        if pg.size() == 1 or not tensors:
            return
        by_kind: dict[tuple[Any, Any], list[Any]] = {}
        for t in tensors:
            by_kind.setdefault((t.dtype, t.device), []).append(t)
        for group in by_kind.values():
            flat = parameters_to_vector(group).detach()
            dist.broadcast(flat, src=dist.get_global_rank(pg, 0), group=pg)
            vector_to_parameters(flat, group)

    def _make_buckets(self, params: list[Any]) -> list[_Bucket]:
        buckets: list[_Bucket] = []
        current: list[Any] = []
        size = 0
        cap = min(_FIRST_BUCKET_BYTES, self.bucket_bytes_cap)
        for p in reversed(params):
            nbytes = p.numel() * p.element_size()
            starts_new = current and (
                size + nbytes > cap or (p.dtype, p.device) != (current[0].dtype, current[0].device)
            )
            if starts_new:
                buckets.append(_Bucket(current))
                current, size, cap = [], 0, self.bucket_bytes_cap
            current.append(p)
            size += nbytes
        if current:
            buckets.append(_Bucket(current))
        return buckets

    # -- the reduction -----------------------------------------------------------------

    def _on_grad(self, param: Any) -> None:
        # Note [Bucket order]: buckets are all-reduced strictly in index order on every
        # rank (MPI pairs collectives by the order they are called), and only from
        # backward's hooks: a bucket that is complete early waits for the ones before it.
        if not self._armed:
            return
        if self._unused:
            unused, self.__dict__["_unused"] = self._unused, []
            for p in unused:
                self._bucket_of[id(p)].ready.add(id(p))
        self._used[id(param)] = True
        self._bucket_of[id(param)].ready.add(id(param))
        self._launch_ready()

    def _launch_ready(self) -> None:
        buckets = self._buckets
        while self._launched < len(buckets):
            b = buckets[self._launched]
            if len(b.ready) < len(b.params):
                return
            b.fill()
            b.work = dist.all_reduce(
                b.flat, op=dist.ReduceOp.AVG, group=self.process_group, async_op=True
            )
            self.__dict__["_launched"] = self._launched + 1
        self._finish_reduction()

    def _finish_reduction(self) -> None:
        globally_used = None
        if self.find_unused_parameters:
            usage = ember.tensor([1 if self._used.get(id(p)) else 0 for p in self._params])
            dist.all_reduce(usage, op=dist.ReduceOp.MAX, group=self.process_group)
            globally_used = {id(p): bool(u) for p, u in zip(self._params, usage.tolist())}
        for b in self._buckets:
            b.work.wait()
            b.write_back(globally_used)
        self._reset()

    def _prepare_for_backward(self, outputs: Any) -> None:
        """After a forward that backward will reduce: arm the hooks, find unused parameters."""
        self._reset()
        self.__dict__["_armed"] = True
        if self.find_unused_parameters:
            reached = _reachable_leaves(outputs)
            self.__dict__["_unused"] = [p for p in self._params if id(p) not in reached]

    # -- the module --------------------------------------------------------------------

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if self._launched or any(b.ready for b in self._buckets):
            unready = [
                i for i, p in enumerate(self._params) if id(p) not in self._bucket_of[id(p)].ready
            ]
            self._reset()
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting "
                "a new one. This error indicates that your module has parameters that were "
                "not used in producing loss. You can enable unused parameter detection by "
                "passing the keyword argument `find_unused_parameters=True` to "
                "`torch.nn.parallel.DistributedDataParallel`, and by making sure all "
                "`forward` function outputs participate in calculating loss. Parameter "
                f"indices which did not receive grad for rank {self.process_group.rank()}: "
                f"{' '.join(map(str, unready))}"
            )
        if self.broadcast_buffers:
            self._broadcast_coalesced(list(self.module.buffers()))
        out = self.module(*inputs, **kwargs)
        # whether the next backward reduces is decided here, at forward (PyTorch's rule:
        # a forward inside no_sync() leaves its backward unreduced wherever it runs)
        if ember.is_grad_enabled() and self.require_backward_grad_sync:
            if self.process_group.size() > 1:
                self._prepare_for_backward(out)
        else:
            self.__dict__["_armed"] = False
        return out

    def _reset(self) -> None:
        for b in self._buckets:
            if b.work is not None:
                with contextlib.suppress(Exception):
                    b.work.wait()
            b.work = None
            b.ready.clear()
        self.__dict__["_armed"] = False
        self.__dict__["_unused"] = []
        self.__dict__["_launched"] = 0
        self.__dict__["_used"] = {}

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Inside, backward accumulates gradients locally without reducing them."""
        old = self.require_backward_grad_sync
        self.__dict__["require_backward_grad_sync"] = False
        try:
            yield
        finally:
            self.__dict__["require_backward_grad_sync"] = old

    def __getstate__(self) -> Any:
        raise TypeError("DistributedDataParallel cannot be pickled; save .module instead")


def _reachable_leaves(outputs: Any) -> set[int]:
    """ids of the leaf tensors the autograd graph of ``outputs`` reaches."""
    roots: list[Any] = []

    def collect(o: Any) -> None:
        if isinstance(o, ember.Tensor):
            if o.grad_fn is not None:
                roots.append(o.grad_fn)
        elif isinstance(o, list | tuple):
            for x in o:
                collect(x)
        elif isinstance(o, dict):
            for x in o.values():
                collect(x)

    collect(outputs)
    seen: set[int] = set()
    leaves: set[int] = set()
    stack = roots
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, "variable", None)
        if var is not None:
            leaves.add(id(var))
        for nxt, _ in getattr(node, "next_functions", ()):
            stack.append(nxt)
    return leaves
