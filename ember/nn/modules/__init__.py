"""All nn.Module classes, one file per family (as torch/nn/modules)."""
from .module import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .lazy import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
# nn11
from .fold import *  # noqa: F401,F403
from .loss_more import *  # noqa: F401,F403
from .pooling_more import *  # noqa: F401,F403
from .activation_more import *  # noqa: F401,F403
from .normalization_more import *  # noqa: F401,F403  (nn12)
from .pooling_more2 import *  # noqa: F401,F403  (nn12)
from .sparse_more import *  # noqa: F401,F403  (nn12)
from .loss_more2 import *  # noqa: F401,F403  (nn12)
from .rnn import *  # noqa: F401,F403  (rnn)
from .transformer import *  # noqa: F401,F403  (transformer)
from .loss_more3 import *  # noqa: F401,F403  (last11a)
from .batchnorm_sync import *  # noqa: F401,F403  (last11a)
