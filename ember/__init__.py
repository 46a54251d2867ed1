"""ember: a PyTorch-compatible tensor and autograd library on NumPy (and CuPy).

Write `import ember as torch` and PyTorch-style code runs unchanged.
"""
from . import _dtype
from ._device import device
from ._dtype import (bfloat16, bool, double, dtype, finfo, float, float16, float32, float64,
                     get_default_dtype, half, iinfo, int, int8, int16, int32, int64, long,
                     promote_types, result_type, set_default_dtype, short, uint8, can_cast,
                     uint16, uint32, uint64)
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
                                set_autocast_dtype, set_autocast_enabled,
                                autocast_increment_nesting, autocast_decrement_nesting,
                                clear_autocast_cache, is_autocast_cpu_enabled,
                                set_autocast_cpu_enabled, get_autocast_cpu_dtype,
                                set_autocast_cpu_dtype, get_autocast_gpu_dtype,
                                set_autocast_gpu_dtype, is_autocast_ipu_enabled,
                                set_autocast_ipu_enabled, get_autocast_ipu_dtype,
                                set_autocast_ipu_dtype, is_autocast_xla_enabled,
                                set_autocast_xla_enabled, get_autocast_xla_dtype,
                                set_autocast_xla_dtype)
from . import nn, optim, utils
from .serialization import *  # noqa: F401,F403
from .autograd import functional as _autograd_functional  # needs the ops above

from . import version, torch_version  # noqa: E402
from .version import __version__  # noqa: E402,F401

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

# func12
from . import func, functional  # noqa: E402
from .func import vmap  # noqa: E402,F401
from .autograd import forward_ad as _forward_ad  # noqa: E402,F401
from . import profiler  # noqa: E402,F401  (and ember.autograd.profiler)

# distA
from . import distributions  # noqa: E402
from .ops.random_samplers import (_dirichlet_grad, _sample_dirichlet,  # noqa: E402,F401
                                  _standard_gamma, _standard_gamma_grad, binomial, poisson)

# ops12
from .ops.nn_doors import *  # noqa: F401,F403
from .ops.conv import (conv1d, conv2d, conv3d, conv_transpose1d,  # noqa: E402,F401
                       conv_transpose2d, conv_transpose3d)
from .ops.nn_activation import celu_, hardshrink, prelu, selu_, threshold_  # noqa: E402,F401
from .ops.nn_random import rrelu_  # noqa: E402,F401
from .ops.nn_linear import bilinear, cosine_similarity, pairwise_distance  # noqa: E402,F401
from .ops.unfold import (channel_shuffle, native_channel_shuffle,  # noqa: E402,F401
                         pixel_shuffle, pixel_unshuffle)
from .ops.pooling_adaptive import adaptive_avg_pool1d  # noqa: E402,F401
from .ops.linalg_products import *  # noqa: F401,F403
from .ops.pointwise_more import *  # noqa: F401,F403
from .ops.sorting_more import *  # noqa: F401,F403
from .ops.index_reduce import *  # noqa: F401,F403
from .ops.slicing_more import *  # noqa: F401,F403
from .ops.queries import *  # noqa: F401,F403

# nn12
from .ops.normalization_more import _weight_norm, norm_except_dim, rms_norm  # noqa: E402,F401
from .ops.distance_more import pdist  # noqa: E402,F401
from .ops.ctc import torch_ctc_loss as ctc_loss  # noqa: E402,F401
from .ops.embedding_bag import torch_embedding_bag as embedding_bag  # noqa: E402,F401

# xfails10
from ._layout import *  # noqa: F401,F403,E402
from ._memory_format import *  # noqa: F401,F403,E402  (surf11a)

# ops13
from .ops.view_copies import *  # noqa: F401,F403
from .ops.creation_more import *  # noqa: F401,F403
from .ops.index_more import *  # noqa: F401,F403
from .ops.tensor_memory import *  # noqa: F401,F403
from .ops.gradient import *  # noqa: F401,F403
from .ops.histogramdd import *  # noqa: F401,F403

# rnnutils
from .ops.packing import _pack_padded_sequence, _pad_packed_sequence  # noqa: E402,F401
from . import _C  # noqa: E402,F401  (torch._C._nn.pad_sequence's path)
# surface11
from .ops.real_parts import *  # noqa: F401,F403,E402
from .ops.legacy_ops import *  # noqa: F401,F403,E402
from .ops.removed_ops import *  # noqa: F401,F403,E402
from .ops.householder import *  # noqa: F401,F403,E402
from .ops.slice_inverse import *  # noqa: F401,F403,E402
from .ops.native_ops import *  # noqa: F401,F403,E402
from ._symbolic import *  # noqa: F401,F403,E402
from ._build_info import *  # noqa: F401,F403,E402

from .ops.conv_tbc import conv_tbc  # noqa: E402,F401
from .ops.hash_tensor import hash_tensor  # noqa: E402,F401
from . import storage  # noqa: E402,F401  (ember.storage.TypedStorage, as torch.storage)
from ._storage import StorageBase, TypedStorage, UntypedStorage  # noqa: E402,F401
from ._storage_legacy import (BFloat16Storage, BoolStorage, ByteStorage,  # noqa: E402,F401
                              CharStorage, DoubleStorage, FloatStorage, HalfStorage,
                              IntStorage, LongStorage, ShortStorage, Storage)
from .ops.recurrent import gru, lstm, rnn_relu, rnn_tanh  # noqa: E402,F401  (rnn)
from .ops.recurrent_cells import gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell  # noqa: E402,F401

# surf11c
from .ops.segment_reduce import segment_reduce  # noqa: E402,F401
from .ops.embedding_renorm import embedding_renorm_  # noqa: E402,F401
from .ops.cpu_missing_kernels import *  # noqa: F401,F403,E402
from ._mapped_file import from_file  # noqa: E402,F401
from ._dlpack import to_dlpack  # noqa: E402,F401
from .utils import dlpack as _utils_dlpack  # noqa: E402,F401  (ember.utils.dlpack)
from . import quasirandom  # noqa: E402,F401
from .ops.lowrank import pca_lowrank, svd_lowrank  # noqa: E402,F401
from .ops.lobpcg import lobpcg  # noqa: E402,F401
from . import masked  # noqa: E402,F401
from .ops.sobol import (_sobol_engine_draw, _sobol_engine_ff_,  # noqa: E402,F401
                        _sobol_engine_initialize_state_, _sobol_engine_scramble_)
# surf11a: the modules and constants scripts touch on a CPU machine
from . import random, cpu, accelerator, testing  # noqa: E402,F401
from ._device_module import get_device_module  # noqa: E402,F401
from ._stream import Event, Stream  # noqa: E402,F401
from .cuda import AcceleratorError, OutOfMemoryError  # noqa: E402,F401
from . import compiler  # noqa: E402,F401
from ._default_type import set_default_tensor_type  # noqa: E402,F401
from ._control_flow import cond, while_loop  # noqa: E402,F401
from ._future import Future, fork, wait  # noqa: E402,F401
from . import _lazy  # noqa: E402
__getattr__ = _lazy.module_getattr  # hub, multiprocessing on first use; deprecated has_*

# doors: every ember.* function PyTorch's argument parser checks raises its TypeErrors
# (one wrapper per function, applied here, where the names are exported)
# (out= goes through ops/_out.call, except where the op writes its own out)
from . import _arguments, _signatures  # noqa: E402
from .ops import _out  # noqa: E402
_arguments.wire(globals(), _signatures.FUNCTIONS, _out.call,
                ("gather", "index_select", "masked_select", "nonzero", "hash_tensor"))
_out.wire_where(globals())
from . import _arguments_python  # noqa: E402  (functions that are Python in PyTorch)
_arguments_python.wire(globals(), _arguments_python.STEPS)
_arguments.wire(globals(), ("ctc_loss",))  # a C++ function, its signatures in _arguments
_arguments_python.wire_methods(Tensor)
del _out
