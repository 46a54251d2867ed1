"""ember.utils: data loading and file formats."""
from . import data
from . import checkpoint  # noqa: E402,F401  (func12)
