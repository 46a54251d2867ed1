"""ember.optim: optimizers and learning-rate schedulers (PyTorch's torch.optim)."""
from . import lr_scheduler
from .adadelta import *  # noqa: F401,F403
from .adagrad import *  # noqa: F401,F403
from .adam import *  # noqa: F401,F403
from .adamw import *  # noqa: F401,F403
from .optimizer import *  # noqa: F401,F403
from .rmsprop import *  # noqa: F401,F403
from .sgd import *  # noqa: F401,F403
# optim12
from . import swa_utils
from .adafactor import *  # noqa: F401,F403
from .adamax import *  # noqa: F401,F403
from .asgd import *  # noqa: F401,F403
from .lbfgs import *  # noqa: F401,F403
from .nadam import *  # noqa: F401,F403
from .radam import *  # noqa: F401,F403
from .rprop import *  # noqa: F401,F403
