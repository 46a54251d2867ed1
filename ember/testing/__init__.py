"""`ember.testing`: comparing results (`assert_close`) and making test inputs
(`make_tensor`), as `torch.testing` offers them."""
import warnings

from .. import _dtype
from .._tensor import Tensor
from ..ops.creation import tensor as _tensor
from ._comparison import assert_close, default_tolerances
from ._creation import make_tensor

__all__ = ["assert_close", "make_tensor", "assert_allclose"]

# assert_allclose's looser defaults, (rtol, atol) per dtype
_ALLCLOSE_PRECISIONS = {_dtype.float16: (1e-3, 1e-3), _dtype.float32: (1e-4, 1e-5),
                        _dtype.float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The deprecated spelling: looser defaults, dtypes not checked, NaNs equal."""
    warnings.warn("`ember.testing.assert_allclose()` is deprecated since 1.12 and will be "
                  "removed in a future release. Please use `ember.testing.assert_close()` "
                  "instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = _tensor(actual)
    if not isinstance(expected, Tensor):
        expected = _tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected, dtype_precisions=_ALLCLOSE_PRECISIONS)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)

