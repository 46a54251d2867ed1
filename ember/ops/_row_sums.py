"""Sums along the rows and down the columns of a 2-D array, the fast way on each backend.

NumPy's own reduction along a short contiguous axis is its slowest case (about 20x
slower than BLAS's gemv on attention scores), so on NumPy a row sum is a matrix-vector
product with ones, and so is a column sum of a small array. Past GEMV_LIMIT elements
OpenBLAS splits a gemv over its threads, which on a busy machine wait far longer than
the sum takes: row sums then go through gemv in pieces of at most that size, each on
one thread, and column sums through NumPy's reduce down axis 0 (its fast case: a
vector add per row).
"""
from .._backend import numpy as _numpy

__all__ = ["GEMV_LIMIT", "row_sums", "column_sums"]

GEMV_LIMIT = 1 << 18   # attention scores of a small GPT (16x4x64x64) fit in one gemv


def row_sums(xp, rows):
    """Each row of the 2-D `rows` summed: shape (rows,)."""
    count, length = rows.shape
    if xp is not _numpy or length < 2:
        return rows.sum(axis=1)
    ones = xp.ones(length, rows.dtype)
    if rows.size <= GEMV_LIMIT:
        return rows @ ones
    out = xp.empty(count, rows.dtype)
    step = max(1, GEMV_LIMIT // length)
    for start in range(0, count, step):
        xp.matmul(rows[start:start + step], ones, out=out[start:start + step])
    return out


def column_sums(xp, rows):
    """Each column of the 2-D `rows` summed: shape (columns,)."""
    if xp is not _numpy or rows.size > GEMV_LIMIT:
        return rows.sum(axis=0)
    return xp.ones(rows.shape[0], rows.dtype) @ rows
