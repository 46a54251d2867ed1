"""Catalog entries for ember/ops/reduction.py."""
OPS = []
