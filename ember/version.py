"""`ember.version`: the build facts scripts read (`torch.version.cuda is None` means a
CPU build).

`__version__` is the PyTorch release whose behaviour ember reproduces, as a
`TorchVersion`, so version gates in scripts (`torch.__version__ >= "2.0"`) take the paths
written for it; ember's own release number is `ember_version`.
"""
from .torch_version import TorchVersion

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

__version__ = TorchVersion("2.13.0+cpu")
ember_version = "0.1.0"
debug = False
cuda = None
git_version = "Unknown"
hip = None
rocm = None
xpu = None
