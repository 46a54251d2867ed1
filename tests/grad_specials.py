"""Gradients at special values, ember against torch, for every differentiable catalog op.

    python tests/grad_specials.py [--dtype float64] [--only NAME ...]

The catalog's samples are ordinary numbers, where every gradient formula agrees with its
textbook form. Learners' programs meet the edges: a ReLU at exactly 0, sqrt(0), a max
with ties, log of 0, an inf in a loss. This takes each differentiable entry of
tests/opdb, puts special values into its float inputs (0, -0.0, +-1, +-inf, nan, ties,
the tiny and the huge) and compares, value by value, the forward result and every input
gradient: the same nan positions, the same infinities, the same sign of zero, and the
other values within a few ulps. It prints one line per mismatching (op, variant, output).

tests/test_grad_specials.py runs the same comparison in CI with its own KNOWN list.
"""
import argparse
import faulthandler
import sys
import warnings

import os

import numpy as np

# run as a script, sys.path[0] is tests/: put this checkout's ember first
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ember  # noqa: E402

SPECIALS = {
    "zeros": [0.0, -0.0],
    "infs": [np.inf, -np.inf, 1.0, -2.0],
    "nans": [np.nan, 0.5, -1.5],
    "ones": [1.0, -1.0, 0.0],
    "ties": None,                     # every element equal to the first
    "extremes": [1e300, -1e300, 1e-300, -1e-300, 1e-320],
}


def variants(array):
    """(name, array) pairs: `array` with special values cycled through its elements."""
    for name, values in SPECIALS.items():
        out = np.array(array, dtype=array.dtype, copy=True)
        if not out.size:
            return
        flat = out.reshape(-1)
        if values is None:
            flat[:] = flat[0]
        else:
            pattern = np.array(values, dtype=np.float64).astype(out.dtype)
            flat[::2] = np.resize(pattern, flat[::2].size)   # keep half the sample's values
        yield name, out


def _tensors(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)
    elif hasattr(value, "grad_fn"):
        yield value


def _outcome(lib, op, sample, torch_mod):
    """(outputs as float64 arrays or an error name, input grads) for one library."""
    from oracle import tensors_in, to_lib
    args = to_lib(lib, sample.args, True)
    kwargs = {k: to_lib(lib, v) for k, v in sample.kwargs.items()}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = op.op(lib, *args, **kwargs)
            outs = [o for o in _tensors(out)]
            diffable = [o for o in outs if o.requires_grad]
            if diffable:
                # a fixed random upstream: with ones, a normalization's input gradient
                # is zero in exact arithmetic and only rounding noise is left to compare
                upstream = np.random.default_rng(7)
                grads = [lib.tensor(upstream.standard_normal(tuple(o.shape)), dtype=o.dtype)
                         for o in diffable]
                lib.autograd.backward(diffable, grads)
    except Exception as error:  # noqa: BLE001 - compared by type below
        return type(error).__name__, None
    values = [np.asarray(o.detach().numpy(), dtype=np.float64) if o.dtype.is_floating_point
              else o.numpy() for o in outs]
    grads = [None if t.grad is None else _array_of(t.grad) for t in tensors_in(args)]
    return values, grads


def _array_of(grad):
    """A gradient as float64 values (torch's ZeroTensor gradients have no storage)."""
    if getattr(grad, "_is_zerotensor", lambda: False)():
        return np.zeros(tuple(grad.shape))
    return grad.numpy().astype(np.float64)


def _differ(a, b, rtol):
    """Why two float64 arrays differ, or None."""
    if a.shape != b.shape:
        return f"shape {a.shape} vs {b.shape}"
    if a.dtype.kind != "f":
        return None if np.array_equal(a, b) else "values"
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if (nan_a != nan_b).any():
        i = np.flatnonzero(nan_a != nan_b)[0]
        return f"nan at {i}: ember {a.reshape(-1)[i]!r} torch {b.reshape(-1)[i]!r}"
    keep = ~nan_a
    a, b = a[keep], b[keep]
    inf = np.isinf(a) | np.isinf(b)
    if (a[inf] != b[inf]).any():
        i = np.flatnonzero(inf)[np.flatnonzero(a[inf] != b[inf])[0]]
        return f"inf: ember {a[i]!r} torch {b[i]!r}"
    zero = (a == 0) & (b == 0)
    if (np.signbit(a[zero]) != np.signbit(b[zero])).any():
        i = np.flatnonzero(zero)[np.flatnonzero(np.signbit(a[zero]) != np.signbit(b[zero]))[0]]
        return f"sign of zero at {i}: ember {a[i]!r} torch {b[i]!r}"
    finite = ~inf
    # relative to each value, and to the array's largest: a value that cancels to 1e-17
    # beside ones is rounding noise whichever library computes it
    largest = np.abs(b[finite]).max() if finite.any() else 0.0
    bad = np.abs(a[finite] - b[finite]) > rtol * (np.abs(b[finite]) + largest) + 1e-300
    if bad.any():
        i = np.flatnonzero(bad)[0]
        return f"value: ember {a[finite][i]!r} torch {b[finite][i]!r}"
    return None


def compare_op(op, torch_mod, dtype="float64", rtol=1e-9, samples=2):
    """Mismatch lines for one catalog entry."""
    lines = []
    rng = np.random.default_rng(0)
    for i, sample in enumerate(op.samples(rng, dtype)):
        if i >= samples:
            break
        positions = [k for k, a in enumerate(sample.args)
                     if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
        for k in positions:
            for name, special in variants(sample.args[k]):
                args = list(sample.args)
                args[k] = special
                case = type(sample)(tuple(args), sample.kwargs, sample.name)
                got = _outcome(ember, op, case, torch_mod)
                expected = _outcome(torch_mod, op, case, torch_mod)
                where = f"{op.name} sample {i} arg {k} {name}"
                if isinstance(got[0], str) or isinstance(expected[0], str):
                    if got[0] != expected[0] and not (isinstance(got[0], str) and
                                                      isinstance(expected[0], str)):
                        lines.append(f"{where}: raises ember {got[0]!r} torch {expected[0]!r}"
                                     if isinstance(got[0], str) or isinstance(expected[0], str)
                                     else where)
                    continue
                for j, (a, b) in enumerate(zip(got[0], expected[0])):
                    why = _differ(a, b, rtol)
                    if why:
                        lines.append(f"{where} output {j}: {why}")
                for j, (a, b) in enumerate(zip(got[1], expected[1])):
                    if (a is None) != (b is None):
                        lines.append(f"{where} grad {j}: None in one library")
                    elif a is not None:
                        why = _differ(a, b, rtol)
                        if why:
                            lines.append(f"{where} grad {j}: {why}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dtype", default="float64")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--start", default=None, help="skip the catalog's entries before this one")
    args = parser.parse_args(argv)
    sys.path.insert(0, __file__.rpartition("/")[0])
    import torch
    from opdb import all_ops
    started = args.start is None
    for op in all_ops():
        started = started or op.name == args.start
        if not started or not op.differentiable or (args.only and op.name not in args.only):
            continue
        # an op that hangs on special values shows up with its stack on stderr
        faulthandler.dump_traceback_later(60, exit=True)
        try:
            lines = compare_op(op, torch, args.dtype)
        except Exception as error:  # noqa: BLE001 - a harness problem, reported
            lines = [f"{op.name}: harness error {type(error).__name__}: {error}"]
        faulthandler.cancel_dump_traceback_later()
        for line in lines:
            print(line, flush=True)


if __name__ == "__main__":
    main()
