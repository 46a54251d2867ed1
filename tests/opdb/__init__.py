"""The op catalog: one OpInfo per op, collected from one module per op family.

An entry buys, through tests/test_ops.py: values, dtype and shape against torch,
gradients and grad_fn names against torch, a float64 finite-difference gradcheck,
and the same on non-contiguous inputs. Each family module defines `OPS`, a list
of OpInfo.

`op(lib, *args, **kwargs)` is called with `lib` = ember or torch and the sample's
tensors built in that library, so one lambda serves both:
    OpInfo("add", lambda lib, x, y: lib.add(x, y, alpha=2), samples=binary_samples)
"""
import dataclasses
from typing import Callable

import numpy as np

FLOAT_DTYPES = ("float32", "float64")
ALL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
              "float64")


@dataclasses.dataclass
class Sample:
    """Arguments for one call: NumPy arrays become tensors, anything else passes as is."""
    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)
    name: str = ""


@dataclasses.dataclass
class OpInfo:
    name: str
    op: Callable
    samples: Callable                 # samples(rng, dtype) -> iterable of Sample
    dtypes: tuple = FLOAT_DTYPES      # dtypes the forward comparison runs in
    differentiable: bool = True
    grad_fn: bool = True              # compare grad_fn names with torch
    gradgrad: bool = True             # second derivatives through the recorded backward
    atol: float = None                # None: oracle.TOLERANCES for the compared dtype
    rtol: float = None
    grad_atol: float = None           # gradients are compared in float64
    grad_rtol: float = None
    noncontiguous: bool = True
    skip: dict = dataclasses.field(default_factory=dict)   # test name -> reason

    def __repr__(self):
        return self.name


def door(of, name, op):
    """A second door (Tensor method, ember function, alias) into the op entry `of` checks.

    It reuses `of`'s samples and tolerances, so values, dtypes, non-contiguous inputs,
    gradients and grad_fn names are compared against torch through this door too; the
    finite-difference checks measure the op, not the door, and stay with `of`."""
    same = f"same op as {of.name}, gradchecked there"
    return dataclasses.replace(of, name=name, op=op,
                               skip={**of.skip, "gradcheck": same, "gradgradcheck": same})


def doors(ops, table):
    """Door entries for `ops` from {existing entry name: [(door name, op), ...]}."""
    by_name = {op.name: op for op in ops}
    return [door(by_name[of], name, op) for of, entries in table.items() for name, op in entries]


def random_array(rng, shape, dtype, low=-3.0, high=3.0):
    """A NumPy array of `dtype` with values PyTorch and NumPy treat alike."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype == "uint8":
        return rng.integers(0, 10, size=shape).astype(np.uint8)
    if dtype.startswith("int"):
        return rng.integers(int(low) - 2, int(high) + 3, size=shape).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)


def _collect():
    from . import (conversion, indexing, joining, linalg, nn_activation, nn_conv,  # noqa: F401
                   nn_more, nn_norm_loss, nn_ops, ops_more, pointwise, reduction, views)
    from . import nn_more2, ops_more2, ops_more3  # noqa: F401
    ops = []
    for module in (pointwise, reduction, views, joining, indexing, linalg, nn_ops, conversion,
                   nn_activation, nn_conv, nn_norm_loss, nn_more, ops_more, ops_more2, nn_more2,
                   ops_more3):
        ops.extend(getattr(module, "OPS", []))
    return ops


ALL_OPS = None


def all_ops():
    global ALL_OPS
    if ALL_OPS is None:
        ALL_OPS = _collect()
    return ALL_OPS
