"""DistributedDataParallel: one model replica per process, gradients averaged over MPI.

At construction rank 0's parameters and buffers are broadcast to every rank, so all
replicas start equal. Gradients are averaged in buckets, as torch's reducer does: the
trainable parameters in reverse registration order (roughly the order backward reaches
them), cut into buckets of `bucket_cap_mb` (the first one 1 MiB, so communication starts
early). A post-accumulate-grad hook on every parameter copies its gradient into its
bucket; when a bucket is full its nonblocking all-reduce starts, while backward goes on
computing the earlier layers' gradients. Buckets start strictly in order, so every rank
issues the same sequence of MPI collectives. A float32/float64 bucket is summed in place
(MPI_Iallreduce on its array); when the last bucket has started, the reducer waits for all
of them and writes sum / world size straight into `.grad`, one pass per gradient. With
`gradient_as_bucket_view=True` the gradients are views into the buckets, as in torch: no
copy out, and no copy in while `.grad` is kept (zero_grad(set_to_none=False)).

`find_unused_parameters=True` walks the autograd graph after forward: parameters it does
not reach are ready at once (contributing zeros), and a parameter no rank used keeps its
`.grad` (None stays None), as in torch.
"""
from contextlib import contextmanager

from ... import _backend
from ... import distributed as _dist
from ...distributed.collectives import array_of
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...ops import creation
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_np = _backend.numpy
_FIRST_BUCKET_BYTES = 1024 * 1024
_PRIOR_ITERATION = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss. \n"
    "If you already have done the above, then the distributed data parallel module wasn't "
    "able to locate the output tensors in the return value of your module's `forward` "
    "function. Please include the loss function and the structure of the return value of "
    "`forward` of your module when reporting this issue (e.g. list, dict, iterable).\n"
    "Parameter indices which did not receive grad for rank {rank}: {indices}\n In addition, "
    "you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to "
    "print out information about which particular parameters did not receive gradient on "
    "this rank as part of this error")


class _Bucket:
    """Parameters whose gradients travel in one flat all-reduce."""

    def __init__(self, params, dtype):
        self.params = params
        self.offsets = []
        total = 0
        for p in params:
            self.offsets.append(total)
            total += p.numel()
        self.flat = creation.zeros(total, dtype=dtype)
        # Each parameter's place in the flat buffer, as an ember view and as the NumPy
        # array behind it: gradients are copied in and out array to array, which costs a
        # fraction of a Tensor copy_ call on this per-parameter, per-step path.
        self.slots = [self.flat[o:o + p.numel()].view(p.shape)
                      for o, p in zip(self.offsets, params)]
        self.arrays = [array_of(slot) for slot in self.slots]
        self.array = array_of(self.flat)
        # MPI sums float32/float64 in place; other dtypes go through all_reduce's casts.
        self.summable = self.array.dtype.char in "fd"
        self.pending = len(params)
        self.work = None


def _buckets(params, cap_bytes):
    """Reverse order, split by dtype and by size (first bucket 1 MiB), as torch cuts them."""
    buckets, open_ = [], {}
    for p in reversed(params):
        current = open_.setdefault(p.dtype, [[], 0])
        current[0].append(p)
        current[1] += p.numel() * p.element_size()
        limit = _FIRST_BUCKET_BYTES if not buckets else cap_bytes
        if current[1] >= limit:
            buckets.append(_Bucket(current[0], p.dtype))
            del open_[p.dtype]
    for members, _ in open_.values():
        buckets.append(_Bucket(members, members[0].dtype))
    return buckets


class _Reducer:
    """Launches each bucket's all-reduce as it fills, and waits for them all at the end."""

    def __init__(self, params, group, cap_bytes, find_unused, as_view=False):
        self.params = params
        self.group = group
        self.as_view = as_view
        self.find_unused = find_unused
        self.buckets = _buckets(params, cap_bytes)
        self.where = {}
        for b, bucket in enumerate(self.buckets):
            for i, p in enumerate(bucket.params):
                self.where[id(p)] = (b, i)
        self.armed = False
        self.hooked = False
        self.used = None
        for p in params:
            p.register_post_accumulate_grad_hook(self._grad_ready)

    def prepare(self, outputs):
        """Called after each synchronised forward: expect one gradient per parameter."""
        if self.armed and self.hooked:
            # Some gradients arrived but not all: torch refuses to start a new iteration.
            missing = [i for i, p in enumerate(self.params) if id(p) not in self.ready]
            raise RuntimeError(_PRIOR_ITERATION.format(
                rank=_dist.get_rank(self.group), indices=" ".join(map(str, missing))))
        self.armed = True
        self.hooked = False
        self.next_bucket = 0
        self.ready = set()
        for bucket in self.buckets:
            bucket.pending = len(bucket.params)
            bucket.work = None
        if self.find_unused:
            reached = _reached_parameters(outputs)
            self.used = [id(p) in reached for p in self.params]
            for p, used in zip(self.params, self.used):
                if not used:
                    self._mark(p)

    def _grad_ready(self, param):
        if self.armed and id(param) not in self.ready:
            self.hooked = True
            self._mark(param)

    def _mark(self, param):
        self.ready.add(id(param))
        b, i = self.where[id(param)]
        bucket = self.buckets[b]
        grad = param.grad
        if grad is None:
            bucket.arrays[i][...] = 0
        elif grad is not bucket.slots[i]:    # a bucket view already holds its gradient
            bucket.arrays[i][...] = array_of(grad)
        bucket.pending -= 1
        # Start buckets strictly in order so every rank issues the same collectives.
        while self.next_bucket < len(self.buckets) and \
                self.buckets[self.next_bucket].pending == 0:
            current = self.buckets[self.next_bucket]
            if current.summable:
                # A sum straight on the bucket's array; the average is taken on the way
                # back into `.grad` (one pass over the gradients instead of two).
                current.work = self.group.start_sum(current.array)
            else:
                current.work = _dist.all_reduce(current.flat, op=_dist.ReduceOp.AVG,
                                                group=self.group, async_op=True)
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets):
            self._finalize()

    def _finalize(self):
        self.armed = False
        size = self.group.size()
        summed = [b.work for b in self.buckets if b.summable]
        self.group.wait(summed, sum(b.array.nbytes for b in self.buckets if b.summable))
        for bucket in self.buckets:
            if not bucket.summable:
                bucket.work.wait()
        anywhere = None
        if self.find_unused:
            counts = creation.tensor([1 if u else 0 for u in self.used], dtype=None)
            _dist.all_reduce(counts, group=self.group)
            anywhere = {id(p): bool(c) for p, c in zip(self.params, counts.tolist())}
        with no_grad():
            for bucket in self.buckets:
                scale = size if bucket.summable else 1
                for i, p in enumerate(bucket.params):
                    if anywhere is not None and not anywhere[id(p)]:
                        continue
                    slot, array = bucket.slots[i], bucket.arrays[i]
                    grad = p.grad
                    if self.as_view:
                        _np.divide(array, scale, out=array)
                        if grad is not slot:
                            p.grad = slot
                    elif grad is None:
                        p.grad = grad = creation.empty_like(slot)
                        _np.divide(array, scale, out=array_of(grad))
                    elif grad.requires_grad or not grad.is_contiguous():
                        _np.divide(array, scale, out=array)
                        grad.copy_(slot)
                    else:
                        _np.divide(array, scale, out=array_of(grad))


def _reached_parameters(outputs):
    """ids of the leaves the autograd graph of `outputs` reaches."""
    stack = [t.grad_fn for t in _tensors(outputs) if t.grad_fn is not None]
    seen, reached = set(), set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            reached.add(id(variable))
        stack.extend(child for child, _ in node.next_functions)
    return reached


def _tensors(value):
    if hasattr(value, "grad_fn"):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)


class DistributedDataParallel(Module):
    """Wraps `module` so that backward averages its gradients over the process group."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, **kwargs):
        super().__init__()
        if process_group and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        group = process_group
        if group is None:
            group = _dist.distributed_c10d.default_group()
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.process_group = group
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self._sync_from_rank0(list(module.parameters()) + list(module.buffers()))
        self.reducer = _Reducer(params, group, self.bucket_bytes_cap, find_unused_parameters,
                                gradient_as_bucket_view)

    def _sync_from_rank0(self, tensors):
        """Broadcast tensors from the group's rank 0, coalesced into one buffer per dtype."""
        by_dtype = {}
        for t in tensors:
            by_dtype.setdefault(t.dtype, []).append(t)
        src = _dist.get_global_rank(self.process_group, 0)
        with no_grad():
            for dtype, group in by_dtype.items():
                flat = creation.zeros(sum(t.numel() for t in group), dtype=dtype)
                offset = 0
                for t in group:
                    flat[offset:offset + t.numel()].copy_(t.reshape(-1))
                    offset += t.numel()
                _dist.broadcast(flat, src=src, group=self.process_group)
                offset = 0
                for t in group:
                    t.copy_(flat[offset:offset + t.numel()].view(t.shape))
                    offset += t.numel()

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers and self.require_forward_param_sync:
            buffers = list(self.module.buffers())
            if buffers:
                self._sync_from_rank0(buffers)
        output = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self.reducer.prepare(output)
        return output

    @contextmanager
    def no_sync(self):
        """Skip gradient averaging inside the block: gradients accumulate locally and are
        averaged, with what follows, by the first backward after it."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous
