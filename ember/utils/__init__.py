"""ember.utils: data loading and file formats."""
from . import data
from . import checkpoint  # noqa: E402,F401  (func12)
from .summary import summary  # noqa: E402,F401  (teach)
