"""Named tuples returned by ops such as max(dim) -- `ember.return_types.max(values, indices)`.

PyTorch returns "structseq" tuples: plain tuples (indexing, unpacking, `len`,
equality) whose fields are also attributes, printed one field per line:

    ember.return_types.max(
    values=tensor([3., 6.]),
    indices=tensor([2, 2]))
"""
import collections

__all__ = ["aminmax", "cummax", "cummin", "kthvalue", "max", "median", "min", "mode",
           "nanmedian", "sort", "topk"]


def _structseq(name, fields):
    """A tuple class named `ember.return_types.<name>` with PyTorch's repr and counters."""
    base = collections.namedtuple(name, fields, module=__name__)

    def __repr__(self):
        body = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"ember.return_types.{name}(\n{body})"

    namespace = {"__slots__": (), "__repr__": __repr__, "__str__": __repr__,
                 "n_fields": len(fields), "n_sequence_fields": len(fields),
                 "n_unnamed_fields": 0, "__doc__": base.__doc__}
    cls = type(name, (base,), namespace)
    cls.__module__ = __name__
    cls.__qualname__ = name
    return cls


_VALUES_INDICES = ("values", "indices")

max = _structseq("max", _VALUES_INDICES)
min = _structseq("min", _VALUES_INDICES)
aminmax = _structseq("aminmax", ("min", "max"))
cummax = _structseq("cummax", _VALUES_INDICES)
cummin = _structseq("cummin", _VALUES_INDICES)
median = _structseq("median", _VALUES_INDICES)
nanmedian = _structseq("nanmedian", _VALUES_INDICES)
mode = _structseq("mode", _VALUES_INDICES)
kthvalue = _structseq("kthvalue", _VALUES_INDICES)
sort = _structseq("sort", _VALUES_INDICES)
topk = _structseq("topk", _VALUES_INDICES)
# ops11
histogram = _structseq("histogram", ("hist", "bin_edges"))
__all__ += ["histogram"]
