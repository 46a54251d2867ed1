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

# linalg11
__all__ += ["linalg_inv_ex", "linalg_slogdet", "slogdet", "linalg_solve_ex",
            "linalg_cholesky_ex", "linalg_qr", "qr", "linalg_svd", "svd", "linalg_eigh",
            "linalg_lstsq", "linalg_lu_factor", "linalg_lu_factor_ex", "linalg_lu", "lu_unpack",
            "triangular_solve"]
linalg_inv_ex = _structseq("linalg_inv_ex", ("inverse", "info"))
linalg_slogdet = _structseq("linalg_slogdet", ("sign", "logabsdet"))
slogdet = _structseq("slogdet", ("sign", "logabsdet"))
linalg_solve_ex = _structseq("linalg_solve_ex", ("result", "info"))
linalg_cholesky_ex = _structseq("linalg_cholesky_ex", ("L", "info"))
linalg_qr = _structseq("linalg_qr", ("Q", "R"))
qr = _structseq("qr", ("Q", "R"))
linalg_svd = _structseq("linalg_svd", ("U", "S", "Vh"))
svd = _structseq("svd", ("U", "S", "V"))
linalg_eigh = _structseq("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_lstsq = _structseq("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
linalg_lu_factor = _structseq("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _structseq("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_lu = _structseq("linalg_lu", ("P", "L", "U"))
lu_unpack = _structseq("lu_unpack", ("P", "L", "U"))
triangular_solve = _structseq("triangular_solve", ("solution", "cloned_coefficient"))
_lu_with_info = _structseq("_lu_with_info", ("LU", "pivots", "info"))  # torch.lu(get_infos=True)

# ops11
histogram = _structseq("histogram", ("hist", "bin_edges"))
__all__ += ["histogram"]

# ops12
frexp = _structseq("frexp", ("mantissa", "exponent"))
histogramdd = _structseq("histogramdd", ("hist", "bin_edges"))
__all__ += ["frexp", "histogramdd"]

__all__ += ["geqrf"]
geqrf = _structseq("geqrf", ("a", "tau"))
