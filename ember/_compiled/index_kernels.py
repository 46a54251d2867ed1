"""Rows of a gradient added into a table by index, one after another (see the package
docstring): embedding's weight gradient.

PyTorch's CPU embedding backward is an `index_add_`: each index's row of the gradient is
added into that row of the zeroed table, in input order. ops.nn_linear does the same
additions in the same order with one `ufunc.at` over the flattened table, which must
first build a position for every element and then pays NumPy's per-element dispatch;
this loop does them directly, so the bits are the same. Callers check the indices are
within the table first (the loop does not).
"""
import numba

from ._common import OPTIONS

__all__ = ["index_add_rows"]

_SIGNATURES = [f"void({real}[:, ::1], {index}[::1], {real}[:, ::1])"
               for real in ("float32", "float64") for index in ("int64", "int32")]


def _index_add_rows(table, indices, rows):
    width = table.shape[1]
    for i in range(indices.size):
        target = table[indices[i]]
        source = rows[i]
        for j in range(width):
            target[j] += source[j]


index_add_rows = numba.njit(_SIGNATURES, boundscheck=False, **OPTIONS)(_index_add_rows)
