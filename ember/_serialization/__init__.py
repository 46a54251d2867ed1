"""The machinery behind `ember.save` / `ember.load` (PyTorch's checkpoint format).

- `names`: the torch global names a checkpoint's pickle refers to, and the ember
  objects (rebuild functions, dtypes, storage types) they stand for on loading.
- `pickler`: writes ember objects as torch's pickler would (tensors become
  persistent storage ids rebuilt through `torch._utils._rebuild_tensor_v2`).
- `unpickler`: the restricted `weights_only` unpickler, and the full one.
- `archive`: the zip container torch writes (64-byte aligned, uncompressed
  records) and reads.
- `loading`: storages read and placed as `map_location` says, for the zip format
  and the pre-1.6 (non-zip) one.

ember never imports torch: a pickle records names only.
"""
