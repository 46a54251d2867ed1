"""Sampling, pooling and selection ops at special values (NaN, inf, ties, -0.0), against torch.

tests/grad_specials.py sweeps the catalog; these pin, value by value, the cases it found
where ember differed: the same NaN positions, the same infinities, the same sign of zero.
"""
import numpy as np
import pytest

import ember

INF, NAN = np.inf, np.nan


def assert_exact(got, expected, rtol=1e-12, path="output"):
    """NaN where torch has NaN, the same infinities and signs of zero, values within rtol."""
    got = np.asarray(got.detach().numpy() if hasattr(got, "detach") else got)
    expected = np.asarray(expected.detach().numpy() if hasattr(expected, "detach")
                          else expected)
    assert got.shape == expected.shape, f"{path}: shape {got.shape} != {expected.shape}"
    if got.dtype.kind != "f":
        np.testing.assert_array_equal(got, expected, err_msg=path)
        return
    # beside values of order 1, a sum that cancels to 1e-17 is rounding noise in either library
    finite = np.abs(expected[np.isfinite(expected)])
    atol = rtol * finite.max() if finite.size else 0.0
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=path)
    zero = (got == 0) & (expected == 0)
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(expected[zero]),
                                  err_msg=f"{path}: sign of zero")


def _run(lib, function, arrays, grad_seed=1, **kwargs):
    """Forward and every input gradient under a fixed random upstream."""
    inputs = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    out = function(lib)(*inputs, **kwargs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    diffable = [o for o in outs if o.requires_grad]
    upstream = np.random.default_rng(grad_seed)
    lib.autograd.backward(diffable, [lib.tensor(upstream.standard_normal(tuple(o.shape)),
                                                dtype=o.dtype) for o in diffable])
    return outs + [t.grad for t in inputs if t.requires_grad]


def _compare(torch, function, arrays, **kwargs):
    got = _run(ember, function, arrays, **kwargs)
    expected = _run(torch, function, arrays, **kwargs)
    for k, (a, b) in enumerate(zip(got, expected)):
        assert_exact(a, b, path=f"result {k}")


# ---------------------------------------------------------------- grid_sample
def _grid_cases():
    """(volumetric, mode, padding, grid special, input special), leaving out the cases where
    torch 2.13 itself crashes (2-D bilinear / bicubic whose padded coordinate is NaN: a NaN
    grid point with border or reflection padding, an inf one reflected) or scatters garbage
    (bicubic with a padded inf), or whose 3-D backward scatters where its forward did not
    read (a NaN coordinate after padding: the forward clips it, the backward drops it)."""
    for volumetric in (False, True):
        for mode in ("bilinear", "nearest") + (() if volumetric else ("bicubic",)):
            for padding in ("zeros", "border", "reflection"):
                for grid_value, input_value in [(NAN, None), (INF, None), (-INF, None),
                                                (1e300, None), (0.5, INF), (0.5, NAN)]:
                    padded = padding != "zeros" and not volumetric and mode != "nearest"
                    if volumetric and padding != "zeros" and (np.isnan(grid_value) or (
                            padding == "reflection" and not np.isfinite(grid_value))):
                        continue
                    if padded and (np.isnan(grid_value) or (
                            (mode == "bicubic" or padding == "reflection")
                            and not np.isfinite(grid_value))):
                        continue
                    yield volumetric, mode, padding, grid_value, input_value


@pytest.mark.parametrize("volumetric,mode,padding,grid_value,input_value", list(_grid_cases()))
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_non_finite(torch, volumetric, mode, padding, grid_value, input_value,
                                align_corners):
    """A NaN or inf grid point no longer crashes (IndexError); an inf pixel outside a point's
    taps no longer turns its output into NaN (masked reads, not a multiplication by 0)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 2, 2, 3, 4) if volumetric else (1, 2, 3, 4))
    if input_value is not None:
        x.reshape(-1)[::3] = input_value
    depth = [0.1] if volumetric else []
    grid = np.array([[grid_value, 0.2] + depth, [0.2, grid_value] + depth,
                     [0.3, 0.2] + depth, [0.99, -0.6] + depth])
    grid = grid.reshape((1, 1, 1, 4, 3) if volumetric else (1, 1, 4, 2))
    _compare(torch, lambda lib: lib.nn.functional.grid_sample, [x, grid], mode=mode,
             padding_mode=padding, align_corners=align_corners)


# ---------------------------------------------------------------- bilinear
@pytest.mark.parametrize("position", [0, 1, 2])
@pytest.mark.parametrize("special", [INF, -INF, NAN, 0.0])
def test_bilinear_pairs_like_trilinear(torch, position, special):
    """input1 meets the weight before input2 (and in the backward the upstream gradient comes
    last), so one inf gives inf, not inf - inf = NaN, where PyTorch's does."""
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((3, 4)), rng.standard_normal((3, 5)),
              rng.standard_normal((2, 4, 5)), rng.standard_normal(2)]
    arrays[position].reshape(-1)[::3] = special
    _compare(torch, lambda lib: lib.nn.functional.bilinear, arrays)


# ---------------------------------------------------------------- pooling
@pytest.mark.parametrize("n,output_size", [(1, 2), (1, 4), (2, 2), (2, (3, 2)), (3, (1, 2, 2)),
                                            (3, 2)])
def test_adaptive_max_pool_takes_the_last_nan(torch, n, output_size):
    """A window with several NaNs reports its last (PyTorch's scan keeps taking NaNs), and the
    gradient goes there; without NaNs the first maximum wins."""
    shape = {1: (2, 1, 7), 2: (1, 2, 6, 5), 3: (1, 1, 2, 6, 5)}[n]
    x = np.random.default_rng(3).standard_normal(shape)
    x.reshape(-1)[::3] = NAN
    x.reshape(-1)[1::7] = 9.0           # ties among non-NaN maxima
    pool = f"adaptive_max_pool{n}d"
    _compare(torch, lambda lib: getattr(lib.nn.functional, pool), [x], output_size=output_size,
             return_indices=True)


# ---------------------------------------------------------------- indexed reductions
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("where", ["self", "source", "both"])
def test_index_reduce_prod_with_zeros(torch, include_self, where):
    """prod's gradient is PyTorch's exclusive product: an untouched zero of self gets the
    upstream gradient back (it was 0), a single zero factor the product of the others, and
    repeated zeros +-0 with PyTorch's signs."""
    rng = np.random.default_rng(4)
    x = rng.uniform(0.5, 2.0, (4, 2)) * rng.choice([-1, 1], (4, 2))
    source = rng.uniform(0.5, 2.0, (5, 2)) * rng.choice([-1, 1], (5, 2))
    if where in ("self", "both"):
        x[[0, 2, 3]] = [[0.0, -0.0], [-0.0, 0.0], [0.0, 1.0]]
    if where in ("source", "both"):
        source[[0, 1, 3]] = [[0.0, 2.0], [-0.0, -0.0], [0.0, 1.0]]
    index = np.array([0, 1, 0, 0, 1])
    _compare(torch, lambda lib: lambda x, index, source: x.index_reduce(
        0, index, source, "prod", include_self=include_self), [x, index, source])
    _compare(torch, lambda lib: lambda x, index, source: x.scatter_reduce(
        0, index, source, "prod", include_self=include_self),
        [x, np.broadcast_to(index[:, None], (5, 2)).copy(), source])
