"""Catalog entries for ember/ops/nn_ops.py."""
OPS = []
