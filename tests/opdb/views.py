"""Catalog entries for ember/ops/views.py."""
OPS = []
