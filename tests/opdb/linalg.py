"""Catalog entries for ember/ops/linalg.py."""
OPS = []
