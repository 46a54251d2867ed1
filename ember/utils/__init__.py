"""ember.utils: data loading and file formats."""
from . import data
