"""ember.nn.utils: gradient clipping, parameter vectors, layer fusion and functional_call."""
from . import clip_grad, convert_parameters, fusion, stateless, weight_norm as _wn  # noqa: F401
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                        get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, \
    fuse_linear_bn_weights
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "vector_to_parameters", "fuse_conv_bn_eval",
           "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights", "weight_norm",
           "remove_weight_norm"]

# nn12
from . import parametrizations, parametrize  # noqa: E402,F401
from .init import skip_init  # noqa: E402,F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402,F401

__all__ += ["parametrizations", "parametrize", "skip_init", "spectral_norm",
            "remove_spectral_norm"]

# rnnutils
from . import rnn  # noqa: E402,F401
