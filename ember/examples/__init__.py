"""Runnable demos: `python -m ember.examples.digits` trains a small CNN on handwritten digits."""
