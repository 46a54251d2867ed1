"""A differential fuzzer: the same call in ember and in torch, outcomes compared.

- `inputs`: argument specs (library-neutral descriptions of tensors, scalars, dtypes)
  and the hypothesis strategies that draw them, driven by parameter names.
- `catalog`: which names are fuzzed (torch's public API intersected with ember's),
  how each is called, its parameters, and the known-mismatch list.
- `compare`: runs a case in both libraries, compares outcomes and checks ember's
  invariants; the tolerances and message relaxations are documented there.
"""
