"""ember.nn.functional: thin doors into the ops in ember/ops/ (PyTorch's torch.nn.functional)."""
from ..ops.conv import *  # noqa: F401,F403
from ..ops.losses import *  # noqa: F401,F403
from ..ops.nn_activation import *  # noqa: F401,F403
from ..ops.nn_linear import *  # noqa: F401,F403
from ..ops.nn_resize import *  # noqa: F401,F403
from ..ops.normalization import *  # noqa: F401,F403
from ..ops.pooling import *  # noqa: F401,F403
# nn11
from ..ops.unfold import *  # noqa: F401,F403
from ..ops.losses_more import *  # noqa: F401,F403
from ..ops.unpool import *  # noqa: F401,F403
from ..ops.nn_random import *  # noqa: F401,F403
from ..ops.grid_sample import *  # noqa: F401,F403
# nn12
from ..ops.normalization_more import rms_norm  # noqa: F401
from ..ops.pooling_more import *  # noqa: F401,F403
from ..ops.distance_more import pdist  # noqa: F401
from ..ops.embedding_bag import embedding_bag  # noqa: F401
from ..ops.ctc import ctc_loss  # noqa: F401
from ..ops.conv_tbc import conv_tbc  # noqa: F401  (last11a)
from ..ops.attention import scaled_dot_product_attention  # noqa: F401
from ..ops.attention_mha import multi_head_attention_forward  # noqa: F401

# The nn.functional names that are C++ functions in PyTorch (F.conv2d is torch.conv2d) get
# its argument parser's TypeErrors through one wrapper each, applied here.
from .. import _arguments, _signatures  # noqa: E402
_arguments.wire(globals(), _signatures.NN_FUNCTIONAL)
# ... and the names that are Python in PyTorch get its wrong-type errors in its order
from .. import _arguments_python  # noqa: E402
_arguments_python.wire(globals(), _arguments_python.FUNCTIONAL_STEPS)
from . import grad  # noqa: E402,F401  (last11a: PyTorch's F.grad is the module nn.grad)
from ..ops.linear_cross_entropy import linear_cross_entropy  # noqa: E402,F401  (last11a)
