"""ember.nn: modules, parameters, layers, losses, functional and init (PyTorch's torch.nn)."""
from . import functional, init
from .modules import *  # noqa: F401,F403
from .parameter import *  # noqa: F401,F403
from . import parallel, utils  # noqa: E402 - they use the modules above
from .parallel import DataParallel  # noqa: E402
