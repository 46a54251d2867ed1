"""Point-to-point messages (send/recv, isend/irecv) and the object collectives.

Tensors travel as their NumPy buffers; Python objects are pickled, their byte lengths
exchanged first so every rank can size its receive buffer, then the bytes moved with the
vector variants of the MPI collectives (Iallgatherv, Igatherv, Ibcast).
"""
import pickle

from .. import _backend
from . import distributed_c10d as c10d
from .collectives import _Buffer

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "irecv", "isend",
           "recv", "scatter_object_list", "send"]

_np = _backend.numpy
_TAG = 0


def _peer(pg, rank, group_rank, what):
    if group_rank is not None:
        peer = group_rank
    else:
        peer = c10d.group_rank_of(pg, rank, what)
    if peer == pg.rank():
        raise ValueError(f"Invalid {what} rank: {what} rank should not be the same as the "
                         "rank of the current process.")
    return peer


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Start sending `tensor` to rank `dst`; returns a Work to wait on."""
    pg = c10d.resolve(group)
    if not c10d.is_member(pg, "isend"):
        return None
    peer = _peer(pg, dst, group_dst, "destination")
    data = _Buffer(tensor).raw()
    return c10d.Work(pg, [pg._comm.Isend(data, dest=peer, tag=tag)])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Start receiving into `tensor` from `src` (any rank when None)."""
    pg = c10d.resolve(group)
    if not c10d.is_member(pg, "irecv"):
        return None
    engine = c10d._engine()
    peer = engine.MPI.ANY_SOURCE if src is None and group_src is None else \
        _peer(pg, src, group_src, "source")
    out = _Buffer(tensor, copy_in=False)
    status = engine.MPI.Status()
    request = pg._comm.Irecv(out.raw(), source=peer, tag=tag)

    def source():
        return pg._ranks[status.Get_source()] if peer == engine.MPI.ANY_SOURCE else \
            pg._ranks[peer]

    work = c10d.Work(pg, [_StatusRequest(request, status)], out.write_back, source)
    return work


class _StatusRequest:
    """An MPI request whose completion status is kept (to learn an any-source sender)."""

    def __init__(self, request, status):
        self.request = request
        self.status = status

    def Test(self):
        return self.request.Test(self.status)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into `tensor`; returns the sender's global rank, as torch does."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work.source_rank()


def _pickled(obj):
    return _np.frombuffer(pickle.dumps(obj), dtype=_np.uint8)


def _wait(pg, request):
    pg.wait([request])


def all_gather_object(object_list, obj, group=None):
    """Every rank's `obj` into `object_list[r]`."""
    pg = c10d.resolve(group)
    if not c10d.is_member(pg, "all_gather_object"):
        return None
    data = _pickled(obj)
    sizes = _np.empty(pg.size(), _np.int64)
    _wait(pg, pg._comm.Iallgather(_np.array([data.size], _np.int64), sizes))
    received = _np.empty(int(sizes.sum()), _np.uint8)
    offsets = _np.concatenate([[0], _np.cumsum(sizes)[:-1]])
    _wait(pg, pg._comm.Iallgatherv(data, [received, (sizes.tolist(), offsets.tolist())]))
    for r in range(pg.size()):
        object_list[r] = pickle.loads(received[offsets[r]:offsets[r] + sizes[r]].tobytes())


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Every rank's `obj` into `object_gather_list` on rank `dst`."""
    pg = c10d.resolve(group)
    if not c10d.is_member(pg, "gather_object"):
        return None
    root = group_dst if group_dst is not None else c10d.group_rank_of(pg, dst or 0, "dst")
    mine = pg.rank() == root
    data = _pickled(obj)
    sizes = _np.empty(pg.size(), _np.int64) if mine else None
    _wait(pg, pg._comm.Igather(_np.array([data.size], _np.int64), sizes, root=root))
    if not mine:
        _wait(pg, pg._comm.Igatherv(data, None, root=root))
        return None
    received = _np.empty(int(sizes.sum()), _np.uint8)
    offsets = _np.concatenate([[0], _np.cumsum(sizes)[:-1]])
    _wait(pg, pg._comm.Igatherv(data, [received, (sizes.tolist(), offsets.tolist())], root=root))
    for r in range(pg.size()):
        object_gather_list[r] = pickle.loads(received[offsets[r]:offsets[r] + sizes[r]].tobytes())


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Rank `src`'s objects into every rank's `object_list`, in place."""
    pg = c10d.resolve(group)
    if not c10d.is_member(pg, "broadcast_object_list"):
        return None
    root = group_src if group_src is not None else c10d.group_rank_of(pg, src or 0, "src")
    mine = pg.rank() == root
    data = _pickled(list(object_list)) if mine else None
    size = _np.array([data.size if mine else 0], _np.int64)
    _wait(pg, pg._comm.Ibcast(size, root=root))
    if not mine:
        data = _np.empty(int(size[0]), _np.uint8)
    _wait(pg, pg._comm.Ibcast(data, root=root))
    if not mine:
        object_list[:] = pickle.loads(data.tobytes())


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    """`scatter_object_input_list[r]` of rank `src` into rank r's output_list[0]."""
    pg = c10d.resolve(group)
    if not c10d.is_member(pg, "scatter_object_list"):
        return None
    everything = [None]
    root = group_src if group_src is not None else c10d.group_rank_of(pg, src or 0, "src")
    if pg.rank() == root:
        everything = [list(scatter_object_input_list)]
    broadcast_object_list(everything, group_src=root, group=pg)
    scatter_object_output_list[0] = everything[0][pg.rank()]
