"""ember: a PyTorch-compatible tensor and autograd library on NumPy (and CuPy).

Write `import ember as torch` and PyTorch-style code runs unchanged.
"""
from . import _dtype
from ._device import device
from ._dtype import (bfloat16, bool, double, dtype, finfo, float, float16, float32, float64,
                     get_default_dtype, half, iinfo, int, int8, int16, int32, int64, long,
                     promote_types, result_type, set_default_dtype, short, uint8, can_cast)
from ._size import Size
from ._tensor_str import set_printoptions
from ._tensor import Tensor
from . import autograd
from .autograd import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                       no_grad, set_grad_enabled)
from .ops.conversion import *  # noqa: F401,F403
from .ops.creation import *  # noqa: F401,F403
from .ops.indexing import *  # noqa: F401,F403
from .ops.joining import *  # noqa: F401,F403
from .ops.linalg import *  # noqa: F401,F403
from .ops.nn_ops import *  # noqa: F401,F403
from .ops.pointwise import *  # noqa: F401,F403
from .ops.random import *  # noqa: F401,F403
from .ops.reduction import *  # noqa: F401,F403
from .ops.views import *  # noqa: F401,F403
from . import cuda, linalg, return_types
from . import amp, backends, distributed, jit, onnx
from .jit import compile  # noqa: A004
from ._tensor_types import *  # noqa: F401,F403
from ._settings import *  # noqa: F401,F403
from .amp import autocast
from .amp.autocast_mode import (get_autocast_dtype, is_autocast_cache_enabled,  # noqa: F401
                                is_autocast_enabled, set_autocast_cache_enabled,
                                set_autocast_dtype, set_autocast_enabled)
from . import nn, optim, utils
from .serialization import *  # noqa: F401,F403
from .autograd import functional as _autograd_functional  # needs the ops above

__version__ = "0.1.0"

# linalg11
from .ops.linalg_decomp import pinverse, torch_qr as qr, torch_svd as svd  # noqa: E402,F401
from .ops.linalg_functions import (matrix_exp, matrix_power,  # noqa: E402,F401
                                   torch_cross as cross)
from .ops.linalg_lu import lu_unpack  # noqa: E402,F401
from .ops.linalg_solve import (cholesky_inverse, cholesky_solve, det, inverse,  # noqa: E402,F401
                               logdet, torch_cholesky as cholesky, torch_slogdet as slogdet,
                               triangular_solve)

# ops11
from .ops.combinatorics import *  # noqa: F401,F403
from .ops.searching import *  # noqa: F401,F403
from .ops.special import digamma, i0, i0_, lgamma, mvlgamma, polygamma, sinc, sinc_  # noqa: F401
from .ops.differences import *  # noqa: F401,F403
from .ops.quantile import *  # noqa: F401,F403
from .ops.windows import *  # noqa: F401,F403
from . import special  # noqa: E402

# doors: every ember.* function PyTorch's argument parser checks raises its TypeErrors
# (one wrapper per function, applied here, where the names are exported)
# (out= goes through ops/_out.call, except where the op writes its own out)
from . import _arguments, _signatures  # noqa: E402
from .ops import _out  # noqa: E402
_arguments.wire(globals(), _signatures.FUNCTIONS, _out.call,
                ("gather", "index_select", "masked_select", "nonzero"))
del _out
