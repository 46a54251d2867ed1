"""Tensor collectives over MPI: all_reduce, broadcast, gathers, scatters, all_to_all.

Each call hands MPI the NumPy array behind the CPU tensor (no pickling): a contiguous
tensor is communicated in place, a strided one through a contiguous copy written back
when the operation finishes. Every call starts a nonblocking MPI operation and returns a
Work (async_op=True) or waits on it politely (see `_mpi.wait`). Ranks named by src/dst
are global ranks, as in torch; outsiders of a group get torch's warning and None.
"""
from .. import _backend, _errors
from .._dtype import is_floating
from . import distributed_c10d as c10d
from .distributed_c10d import ReduceOp

__all__ = ["all_gather", "all_gather_into_tensor", "all_reduce", "all_to_all",
           "all_to_all_single", "barrier", "broadcast", "gather", "reduce", "reduce_scatter",
           "reduce_scatter_tensor", "scatter"]

_np = _backend.numpy
_OP_NAMES = {ReduceOp.SUM: "sum", ReduceOp.AVG: "avg", ReduceOp.PRODUCT: "product",
             ReduceOp.MIN: "min", ReduceOp.MAX: "max", ReduceOp.BAND: "band",
             ReduceOp.BOR: "bor", ReduceOp.BXOR: "bxor"}
# Dtypes MPI has no type for (half, bfloat16) are reduced as float32 and cast back.
_MPI_REDUCIBLE = set("bBhHiIlLqQfdgFD?")


def array_of(tensor):
    """The array behind a CPU tensor, shared, whatever its dtype.

    Tensor.numpy() refuses bfloat16 (as torch's does); the engine needs the memory itself,
    so it reads the tensor's array directly, the one place outside the Tensor that does.
    """
    return tensor._data


class _Buffer:
    """The contiguous array MPI reads and writes for one tensor, and how to write it back."""

    def __init__(self, tensor, copy_in=True):
        self.tensor = tensor
        self.target = array_of(tensor)
        array = self.target
        self.copied = not array.flags.c_contiguous
        if self.copied:
            array = _np.ascontiguousarray(array) if copy_in else _np.empty(array.shape,
                                                                          array.dtype)
        self.array = array

    def reducible(self):
        """The array as a type MPI can reduce (float32 for half and bfloat16)."""
        if self.array.dtype.char in _MPI_REDUCIBLE:
            return self.array
        self.upcast = self.array.astype(_np.float32)
        return self.upcast

    def raw(self):
        """The array as MPI can move it byte for byte, whatever its dtype."""
        if self.array.dtype.char in _MPI_REDUCIBLE:
            return self.array
        return self.array.reshape(-1).view(_np.uint8)

    def write_back(self):
        upcast = getattr(self, "upcast", None)
        if upcast is not None:
            self.array[...] = upcast.astype(self.array.dtype)
        if self.copied:
            _np.copyto(self.target, self.array)


def _finish(pg, requests, finish, async_op, nbytes=0):
    work = c10d.Work(pg, requests, finish, nbytes=nbytes)
    if async_op:
        return work
    work.wait()
    return None


def _start(pg, start, finish, async_op, nbytes):
    """Run `start()` (which issues the nonblocking MPI call) as a Work or to completion."""
    if async_op:
        return c10d.Work(pg, start(), finish, nbytes=nbytes)
    pg.run(start, nbytes)
    if finish is not None:
        finish()
    return None


def _mpi_op(op, tensor, options):
    """The MPI op for a ReduceOp, with torch's errors for what gloo cannot reduce."""
    kind = op.op if isinstance(op, ReduceOp) else op
    name = _OP_NAMES.get(kind)
    if name is None:
        if isinstance(op, ReduceOp):
            raise RuntimeError(f"Cannot use ReduceOp.{getattr(kind, 'name', kind)} with Gloo")
        # torch converts a bare RedOpType to a ReduceOp implicitly except PREMUL_SUM (which
        # needs its factor), and its binding then refuses the argument.
        raise TypeError(
            f"(): incompatible function arguments. The following argument types are "
            f"supported:\n    1. (self: ember._C._distributed_c10d.{options}, arg0: "
            f"ember._C._distributed_c10d.ReduceOp) -> None\n\nInvoked with: "
            f"<ember.distributed.distributed_c10d.{options} object at {hex(id(tensor))}>, "
            f"{op!r}")
    dtype = array_of(tensor).dtype
    if name == "avg" and not is_floating(dtype):
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_errors._scalar_type_name(tensor.dtype)}")
    return name, c10d._engine().op_for(name, dtype.char == "?")


def _member(group, name):
    pg = c10d.resolve(group)
    return pg if c10d.is_member(pg, name) else None


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce `tensor` across the group; every rank ends with the result, in place."""
    pg = _member(group, "all_reduce")
    if pg is None:
        return None
    name, mpi_op = _mpi_op(op, tensor, "AllreduceOptions")
    buffer = _Buffer(tensor)
    data = buffer.reducible()
    size = pg.size()

    def finish():
        if name == "avg":
            _np.divide(data, size, out=data)
        buffer.write_back()

    in_place = c10d._engine().MPI.IN_PLACE
    return _start(pg, lambda: [pg._comm.Iallreduce(in_place, data, mpi_op)], finish, async_op,
                  data.nbytes)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce into `tensor` on rank `dst`; other ranks' tensors are left as they were."""
    pg = _member(group, "reduce")
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "dst")
    name, mpi_op = _mpi_op(op, tensor, "ReduceOptions")
    buffer = _Buffer(tensor)
    data = buffer.reducible()
    comm = pg._comm
    mine = comm.Get_rank() == root
    if mine:
        request = comm.Ireduce(c10d._engine().MPI.IN_PLACE, data, mpi_op, root=root)
    else:
        request = comm.Ireduce(data, None, mpi_op, root=root)

    def finish():
        if mine:
            if name == "avg":
                _np.divide(data, pg.size(), out=data)
            buffer.write_back()

    return _finish(pg, [request], finish, async_op)


def _root(pg, rank, group_rank, what):
    """The group rank of a src/dst given as a global rank or a group rank."""
    if group_rank is not None:
        root = group_rank
    elif rank is None:
        root = 0
    else:
        root = c10d.group_rank_of(pg, rank, what)
    if not 0 <= root < pg.size():
        raise RuntimeError(f"Invalid root rank: {root}")
    return root


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy `tensor` from rank `src` into every other rank's tensor, in place."""
    pg = _member(group, "broadcast")
    if pg is None:
        return None
    root = _root(pg, src, group_src, "src")
    buffer = _Buffer(tensor)
    data = buffer.raw()
    return _start(pg, lambda: [pg._comm.Ibcast(data, root=root)], buffer.write_back, async_op,
                  data.nbytes)


def _check_list(tensors, tensor, size, what):
    if len(tensors) != size:
        raise RuntimeError(f"ProcessGroupGloo::{what}: invalid output tensor list at index 0 "
                           f"(expected length {size}, got {len(tensors)})")
    for t in tensors:
        if t.dtype != tensor.dtype:
            raise ValueError(f"Invalid usage of tensors with different dtypesFound "
                             f"{tensor.dtype} and  {t.dtype}")
    for index, t in enumerate(tensors):
        if t.shape != tensor.shape:
            raise RuntimeError(f"ProcessGroupGloo::{what}: invalid tensor size at index "
                               f"{index} (expected ({', '.join(map(str, tensor.shape))}), got "
                               f"({', '.join(map(str, t.shape))}))")


def _write_rows(stacked, tensors):
    for row, t in zip(stacked, tensors):
        _np.copyto(array_of(t), row)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's `tensor`, into `tensor_list[r]` for each rank r."""
    pg = _member(group, "all_gather")
    if pg is None:
        return None
    _check_list(tensor_list, tensor, pg.size(), "allgather")
    send = _Buffer(tensor).raw()
    stacked = _np.empty((pg.size(),) + send.shape, send.dtype)
    request = pg._comm.Iallgather(send, stacked)
    return _finish(pg, [request], lambda: _write_rows(stacked.view(array_of(tensor).dtype)
                                                  .reshape((pg.size(),) + tuple(tensor.shape)),
                                                  tensor_list), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's input laid end to end along dim 0 of `output_tensor` (or stacked)."""
    pg = _member(group, "all_gather_into_tensor")
    if pg is None:
        return None
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError("output tensor size must be equal to world_size times input tensor "
                         "size")
    if output_tensor.dtype != input_tensor.dtype:
        raise ValueError("output tensor must have the same type as input tensor")
    out = _Buffer(output_tensor, copy_in=False)
    request = pg._comm.Iallgather(_Buffer(input_tensor).raw(), out.raw())
    return _finish(pg, [request], out.write_back, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce `input` across ranks and keep this rank's slice of dim 0 in `output`."""
    pg = _member(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    if input.numel() != output.numel() * pg.size():
        raise ValueError("input tensor must be the same size as output size times world size")
    name, mpi_op = _mpi_op(op, output, "ReduceScatterOptions")
    source = _Buffer(input).reducible()
    out = _Buffer(output, copy_in=False)
    data = out.reducible()
    request = pg._comm.Ireduce_scatter_block(source, data, mpi_op)

    def finish():
        if name == "avg":
            _np.divide(data, pg.size(), out=data)
        out.write_back()

    return _finish(pg, [request], finish, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce `input_list[r]` across ranks into rank r's `output`."""
    pg = _member(group, "reduce_scatter")
    if pg is None:
        return None
    _check_list(input_list, output, pg.size(), "reduce_scatter")
    name, mpi_op = _mpi_op(op, output, "ReduceScatterOptions")
    source = _np.stack([_Buffer(t).reducible() for t in input_list])
    out = _Buffer(output, copy_in=False)
    data = out.reducible()
    if source.dtype != data.dtype:
        source = source.astype(data.dtype)
    request = pg._comm.Ireduce_scatter_block(source, data, mpi_op)

    def finish():
        if name == "avg":
            _np.divide(data, pg.size(), out=data)
        out.write_back()

    return _finish(pg, [request], finish, async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Every rank's `tensor` into `gather_list` on rank `dst`."""
    pg = _member(group, "gather")
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "dst")
    mine = pg._comm.Get_rank() == root
    if mine and not gather_list:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if not mine and gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    send = _Buffer(tensor).raw()
    stacked = None
    if mine:
        _check_list(gather_list, tensor, pg.size(), "gather")
        stacked = _np.empty((pg.size(),) + send.shape, send.dtype)
    request = pg._comm.Igather(send, stacked, root=root)

    def finish():
        if mine:
            shape = (pg.size(),) + tuple(tensor.shape)
            _write_rows(stacked.view(array_of(tensor).dtype).reshape(shape), gather_list)

    return _finish(pg, [request], finish, async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """`scatter_list[r]` of rank `src` into rank r's `tensor`."""
    pg = _member(group, "scatter")
    if pg is None:
        return None
    root = _root(pg, src, group_src, "src")
    mine = pg._comm.Get_rank() == root
    if mine and not scatter_list:
        raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    if not mine and scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    out = _Buffer(tensor, copy_in=False)
    source = None
    if mine:
        _check_list(scatter_list, tensor, pg.size(), "scatter")
        source = _np.stack([_Buffer(t).array for t in scatter_list])
        source = source if source.dtype.char in _MPI_REDUCIBLE else source.view(_np.uint8)
    request = pg._comm.Iscatter(source, out.raw(), root=root)
    return _finish(pg, [request], out.write_back, async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """Rank r's slice i of `input` (along dim 0) becomes rank i's slice r of `output`."""
    pg = _member(group, "all_to_all_single")
    if pg is None:
        return None
    size = pg.size()
    source = _Buffer(input).raw()
    out = _Buffer(output, copy_in=False)
    target = out.raw()
    row_in = source.size // max(input.shape[0], 1) if input.dim() else source.size
    row_out = target.size // max(output.shape[0], 1) if output.dim() else target.size
    if not output_split_sizes and not input_split_sizes:
        if input.shape[0] % size or output.shape[0] % size:
            raise ValueError("Tensor's dim 0 does not divide equally across group size")
        request = pg._comm.Ialltoall(source, target)
    else:
        in_counts = [n * row_in for n in (input_split_sizes or [input.shape[0] // size] * size)]
        out_counts = [n * row_out for n in (output_split_sizes or
                                            [output.shape[0] // size] * size)]
        in_displs = [sum(in_counts[:i]) for i in range(size)]
        out_displs = [sum(out_counts[:i]) for i in range(size)]
        request = pg._comm.Ialltoallv([source.reshape(-1), (in_counts, in_displs)],
                                      [target.reshape(-1), (out_counts, out_displs)])
    return _finish(pg, [request], out.write_back, async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Rank r's `input_tensor_list[i]` becomes rank i's `output_tensor_list[r]`."""
    pg = _member(group, "all_to_all")
    if pg is None:
        return None
    sources = [_Buffer(t).raw().reshape(-1) for t in input_tensor_list]
    outs = [_Buffer(t, copy_in=False) for t in output_tensor_list]
    targets = [o.raw().reshape(-1) for o in outs]
    send = _np.concatenate(sources)
    receive = _np.empty(sum(t.size for t in targets), send.dtype)
    in_counts = [s.size for s in sources]
    out_counts = [t.size for t in targets]
    in_displs = [sum(in_counts[:i]) for i in range(len(in_counts))]
    out_displs = [sum(out_counts[:i]) for i in range(len(out_counts))]
    request = pg._comm.Ialltoallv([send, (in_counts, in_displs)],
                                  [receive, (out_counts, out_displs)])

    def finish():
        for out, target, start, count in zip(outs, targets, out_displs, out_counts):
            target[...] = receive[start:start + count]
            out.write_back()

    return _finish(pg, [request], finish, async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of the group has reached this call."""
    pg = _member(group, "barrier")
    if pg is None:
        return None
    return _finish(pg, [pg._comm.Ibarrier()], None, async_op)
