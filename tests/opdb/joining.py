"""Catalog entries for ember/ops/joining.py."""
OPS = []
