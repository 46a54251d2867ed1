"""Catalog entries for ember/ops/indexing.py."""
OPS = []
