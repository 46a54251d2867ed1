"""Catalog entries for ember/ops/views.py (with slicing.py and rearrange.py)."""
from . import ALL_DTYPES, OpInfo, Sample, doors, random_array


def _shaped(*cases):
    """samples(rng, dtype) yielding one tensor of each shape, plus extra positional args."""
    def samples(rng, dtype):
        for shape, *args in cases:
            yield Sample((random_array(rng, shape, dtype), *args), name=f"{shape} {args}")
    return samples


def _op(name, fn, cases, **kwargs):
    kwargs.setdefault("dtypes", ALL_DTYPES)
    return OpInfo(name, fn, _shaped(*cases), **kwargs)


OPS = [
    _op("view", lambda lib, x, *s: x.view(*s),
        [((2, 3), 3, 2), ((2, 3), -1), ((), 1), ((4,), 2, 1, 2), ((0, 3), 3, 0, 2),
         ((2, 1, 3), (3, 2))]),
    OpInfo("view_as", lambda lib, x, y: x.view_as(y),
           lambda rng, dtype: [Sample((random_array(rng, (2, 3), dtype),
                                       random_array(rng, (3, 2), dtype)))],
           dtypes=ALL_DTYPES),
    _op("reshape", lambda lib, x, s: lib.reshape(x, s),
        [((2, 3), (3, 2)), ((2, 3), (-1,)), ((), ()), ((), (1, 1)), ((0, 4), (2, 0, 5)),
         ((2, 2, 3), (4, 3))]),
    _op("reshape_transposed", lambda lib, x, s: x.mT.reshape(s),
        [((2, 3), (6,)), ((2, 3), (3, 2)), ((2, 3), (3, 1, 2)), ((3, 1), (3,))]),
    _op("flatten", lambda lib, x, *a: lib.flatten(x, *a),
        [((2, 3, 2),), ((2, 3, 2), 1), ((2, 3, 2), 0, -2), ((),), ((2, 0, 3), 1, 2)]),
    _op("flatten_transposed", lambda lib, x: x.mT.flatten(), [((2, 3),), ((3, 1),)]),
    _op("ravel", lambda lib, x: lib.ravel(x), [((2, 3),), ((),), ((0, 2),)]),
    _op("ravel_transposed", lambda lib, x: x.mT.ravel(), [((2, 3),)]),
    _op("unflatten", lambda lib, x, d, s: lib.unflatten(x, d, s),
        [((2, 6), 1, (2, 3)), ((6,), 0, (-1, 2)), ((2, 6), -1, (3, 1, 2)), ((0, 4), 1, (2, 2))]),
    _op("expand", lambda lib, x, *s: x.expand(*s),
        [((1, 3), 2, 3), ((3,), 2, -1), ((), 2, 2), ((2, 1), -1, 0), ((1,), 1)]),
    _op("broadcast_to", lambda lib, x, s: lib.broadcast_to(x, s),
        [((1, 3), (2, 3)), ((), (2,)), ((3, 1), (2, 3, 2))]),
    OpInfo("broadcast_tensors", lambda lib, *xs: lib.broadcast_tensors(*xs),
           lambda rng, dtype: (Sample(tuple(random_array(rng, s, dtype) for s in shapes))
                               for shapes in [((2, 1), (3,)), ((1, 2), (3, 1)),
                                              ((), (2, 0, 1), (1, 3))]),
           dtypes=ALL_DTYPES),
    _op("atleast_1d", lambda lib, x: lib.atleast_1d(x), [((),)]),
    _op("atleast_2d", lambda lib, x: lib.atleast_2d(x), [((),), ((2,),)]),
    _op("atleast_3d", lambda lib, x: lib.atleast_3d(x),
        [((),), ((2,),), ((2, 3),)]),
    _op("transpose", lambda lib, x, a, b: lib.transpose(x, a, b),
        [((2, 3), 0, 1), ((2, 3, 2), -1, 0), ((), 0, -1), ((2, 3), 1, 1), ((0, 2), 0, 1)]),
    _op("swapaxes", lambda lib, x, a, b: lib.swapaxes(x, a, b), [((2, 3, 2), 0, 2)]),
    _op("t", lambda lib, x: lib.t(x), [((2, 3),), ((3,),), ((),)]),
    _op("T", lambda lib, x: x.T, [((2, 3),)]),
    _op("mT", lambda lib, x: x.mT, [((2, 3),), ((2, 2, 3),)]),
    _op("mH", lambda lib, x: x.mH, [((2, 3),), ((2, 2, 3),)]),
    _op("H", lambda lib, x: x.H, [((2, 3),)]),
    _op("adjoint", lambda lib, x: lib.adjoint(x), [((2, 2, 3),)]),
    _op("permute", lambda lib, x, d: lib.permute(x, d),
        [((2, 3, 2), (2, 0, 1)), ((2, 3), (-1, 0)), ((), ()), ((2, 0, 3), (1, 2, 0))]),
    _op("permute_varargs", lambda lib, x, *d: x.permute(*d), [((2, 3, 2), 1, 2, 0)]),
    _op("movedim", lambda lib, x, s, d: lib.movedim(x, s, d),
        [((2, 3, 2), 0, -1), ((2, 3, 2), (0, 1), (2, 0)), ((), 0, 0)]),
    _op("squeeze", lambda lib, x, *d: lib.squeeze(x, *d),
        [((2, 1, 3, 1),), ((2, 1, 3),), ((2, 1, 3), 1), ((2, 1, 3), 0), ((1, 2, 1), (0, -1)),
         ((),), ((), 0), ((1, 0, 1), -1)]),
    _op("unsqueeze", lambda lib, x, d: lib.unsqueeze(x, d),
        [((2, 3), 0), ((2, 3), 2), ((2, 3), -1), ((2, 3), -3), ((), 0), ((), -1), ((0,), 1)]),
    _op("narrow", lambda lib, x, d, s, n: lib.narrow(x, d, s, n),
        [((4, 3), 0, 1, 2), ((4, 3), -1, -2, 2), ((4, 3), 1, 3, 0), ((4,), 0, 0, 4)]),
    _op("select", lambda lib, x, d, i: lib.select(x, d, i),
        [((4, 3), 0, 1), ((4, 3), -1, -1), ((4,), 0, 2), ((2, 0), 0, 1)]),
    _op("unbind", lambda lib, x, *d: lib.unbind(x, *d),
        [((3, 2),), ((3, 2), 1), ((2, 2, 2), -1), ((0, 3),), ((3,),)]),
    _op("split", lambda lib, x, s, *d: lib.split(x, s, *d),
        [((5, 2), 2), ((5, 2), 1, 1), ((5, 2), [1, 4]), ((5, 2), (0, 2, 3)), ((4, 3), 5),
         ((0, 2), 0), ((3, 4), [2, 2], -1)]),
    _op("chunk", lambda lib, x, c, *d: lib.chunk(x, c, *d),
        [((5, 2), 2), ((6,), 4), ((2, 4), 2, 1), ((0, 2), 3), ((3,), 5)]),
    _op("tensor_split", lambda lib, x, s, *d: lib.tensor_split(x, s, *d),
        [((5, 2), 2), ((5, 2), 3), ((2, 5), (1, 3), 1), ((5,), [1, 6, 0]), ((5,), [-2])]),
    _op("diagonal", lambda lib, x, *a: lib.diagonal(x, *a),
        [((3, 3),), ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), 0, 2, 0), ((2, 3, 3), 0, -1, -2),
         ((3, 3), 5), ((2, 0),)]),
    _op("as_strided", lambda lib, x, s, st, *o: lib.as_strided(x, s, st, *o),
        [((3, 3), (2, 2), (1, 2)), ((3, 3), (2, 2), (3, 1), 1), ((6,), (3, 2), (1, 1)),
         ((4,), (2, 2), (0, 1)), ((2, 3), (0, 2), (1, 1))],
        noncontiguous=False),  # as_strided addresses the storage, which padding changes
    _op("as_strided_of_view", lambda lib, x: x.narrow(0, 1, 3).as_strided((2,), (2,)), [((4,),)],
        noncontiguous=False),
    _op("unfold", lambda lib, x, *a: x.unfold(*a),
        [((6,), 0, 2, 1), ((6,), 0, 3, 2), ((2, 5), 1, 2, 2), ((2, 5), 0, 2, 1), ((), 0, 1, 1),
         ((2, 3), 1, 0, 1)]),
    _op("repeat", lambda lib, x, *r: x.repeat(*r),
        [((2, 3), 2, 1), ((2,), 2, 3), ((), 3), ((), ()), ((2, 1), 1, 0), ((0, 2), 2, 2)]),
    _op("tile", lambda lib, x, r: lib.tile(x, r),
        [((2, 3), (2,)), ((2,), (2, 2)), ((), (2,)), ((2, 2), ())]),
    _op("flip", lambda lib, x, d: lib.flip(x, d),
        [((2, 3), (0,)), ((2, 3, 2), (-1, 0)), ((), (0,)), ((2, 3), ()), ((0, 2), (1,))]),
    _op("fliplr", lambda lib, x: lib.fliplr(x), [((2, 3),), ((2, 3, 2),)]),
    _op("flipud", lambda lib, x: lib.flipud(x), [((2, 3),), ((3,),)]),
    _op("roll", lambda lib, x, s, *d: lib.roll(x, s, *d),
        [((2, 3), 1), ((2, 3), -4, 1), ((2, 3), (1, 2), (0, 1)), ((), 2), ((0, 2), 1, 1)]),
    _op("rot90", lambda lib, x, *a: lib.rot90(x, *a),
        [((2, 3),), ((2, 3), 2), ((2, 3), -1), ((2, 3, 2), 3, (2, 0)), ((2, 3), 4),
         ((2, 3), 1, (1, 0))]),
]


def _pair_samples(*cases):
    """A tensor and a second tensor whose shape the op takes (expand_as, reshape_as)."""
    def samples(rng, dtype):
        for shape, other in cases:
            yield Sample((random_array(rng, shape, dtype), random_array(rng, other, dtype)),
                         name=f"{shape} as {other}")
    return samples


OPS += [
    OpInfo("expand_as", lambda lib, x, y: x.expand_as(y),
           _pair_samples(((1, 3), (2, 3)), ((), (2, 2)), ((2, 1), (3, 2, 4))), dtypes=ALL_DTYPES),
    OpInfo("reshape_as", lambda lib, x, y: x.reshape_as(y),
           _pair_samples(((2, 3), (3, 2)), ((), (1, 1)), ((2, 2, 3), (4, 3)), ((0, 2), (2, 0))),
           dtypes=ALL_DTYPES),
]
OPS += doors(OPS, {
    "broadcast_to": [("Tensor.broadcast_to", lambda lib, x, s: x.broadcast_to(s))],
    "swapaxes": [("Tensor.swapaxes", lambda lib, x, a, b: x.swapaxes(a, b)),
                 ("ember.swapdims", lambda lib, x, a, b: lib.swapdims(x, a, b)),
                 ("Tensor.swapdims", lambda lib, x, a, b: x.swapdims(a, b))],
    "movedim": [("ember.moveaxis", lambda lib, x, s, d: lib.moveaxis(x, s, d)),
                ("Tensor.moveaxis", lambda lib, x, s, d: x.moveaxis(s, d))],
})
