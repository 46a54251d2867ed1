"""Catalog entries for ember/ops/joining.py."""
from . import ALL_DTYPES, OpInfo, Sample, random_array


def _lists(*cases, mixed=False):
    """samples(rng, dtype): a list of tensors of the given shapes, plus extra positional args.

    With `mixed`, the second tensor is float64 so that inputs promote (and its
    gradient must come back in each input's own dtype).
    """
    def samples(rng, dtype):
        for shapes, *args in cases:
            tensors = [random_array(rng, s, dtype) for s in shapes]
            if mixed and len(tensors) > 1:
                tensors[1] = tensors[1].astype("float64")
            yield Sample((tensors, *args), name=f"{shapes} {args}")
    return samples


_CAT = [([(2, 3), (1, 3)],), ([(2, 3), (2, 1)], 1), ([(2, 3), (2, 3), (2, 2)], -1), ([(3,)],),
        ([(0,), (2, 3)],), ([(2, 3), (0,), (2, 3)], 1), ([(0, 3), (2, 3)],), ([(0,), (0,)],)]
_STACK = [([(2, 3), (2, 3)],), ([(2, 3), (2, 3)], -1), ([(3,), (3,), (3,)], 1), ([(), ()],),
          ([(0, 2), (0, 2)], 1)]
_MANY = [([(2, 3), (2, 3)],), ([(3,), (3,)],), ([(), ()],), ([(2,), (2, 3)],), ([(2, 3, 2)],),
         ([(2, 0), (2, 1)],)]

OPS = [
    OpInfo("cat", lambda lib, ts, *a: lib.cat(ts, *a), _lists(*_CAT), dtypes=ALL_DTYPES),
    OpInfo("cat_promotes", lambda lib, ts, *a: lib.cat(ts, *a), _lists(*_CAT[:3], mixed=True),
           dtypes=("float32", "int64", "bool")),
    OpInfo("concat", lambda lib, ts: lib.concat(ts, dim=1), _lists(([(2, 3), (2, 1)],))),
    OpInfo("concatenate", lambda lib, ts: lib.concatenate(ts, axis=1),
           _lists(([(2, 3), (2, 1)],))),
    OpInfo("stack", lambda lib, ts, *a: lib.stack(ts, *a), _lists(*_STACK), dtypes=ALL_DTYPES),
    OpInfo("stack_promotes", lambda lib, ts, *a: lib.stack(ts, *a),
           _lists(*_STACK[:2], mixed=True), dtypes=("float32", "int64", "bool")),
    OpInfo("hstack", lambda lib, ts: lib.hstack(ts), _lists(*_MANY[:3], ([(2, 1), (2, 3)],)),
           dtypes=ALL_DTYPES),
    OpInfo("vstack", lambda lib, ts: lib.vstack(ts), _lists(*_MANY[:3], _MANY[4],
                                                           ([(3,), (2, 3)],)),
           dtypes=ALL_DTYPES),
    OpInfo("row_stack", lambda lib, ts: lib.row_stack(ts), _lists(([(3,), (2, 3)],))),
    OpInfo("dstack", lambda lib, ts: lib.dstack(ts),
           _lists(([(2, 3), (2, 3)],), ([(3,), (3,)],), ([(), ()],), ([(2, 3, 1), (2, 3)],)),
           dtypes=ALL_DTYPES),
    OpInfo("column_stack", lambda lib, ts: lib.column_stack(ts),
           _lists(([(2, 3), (2,)],), ([(3,), (3,)],), ([(), ()],), ([(2, 1), (2, 0)],)),
           dtypes=ALL_DTYPES),
]
