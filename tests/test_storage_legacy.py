"""The storage classes against torch: UntypedStorage / TypedStorage / the legacy
FloatStorage & co., Tensor.storage() / untyped_storage() / storage_type(), tensors over
storages (tensor(storage), Tensor(storage), set_ with growth) and the deprecation
warning. Each case runs in both libraries; results compare by repr with `torch.` read as
`ember.`, errors by type and text."""
import pickle
import warnings

import pytest

import ember
from oracle import assert_same_outcome

STORAGE_CLASSES = ("FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage",
                   "LongStorage", "IntStorage", "ShortStorage", "CharStorage", "ByteStorage",
                   "BoolStorage")


def check(torch, call):  # the torch fixture skips without the oracle
    assert_same_outcome(call)


CASES = {
    "float_list": lambda lib: lib.FloatStorage([1, 2, 3]),
    "float_tolist": lambda lib: lib.FloatStorage([1.5, 2, 3]).tolist(),
    "empty": lambda lib: lib.FloatStorage(),
    "sized": lambda lib: (lambda s: (s.size(), len(s), s.nbytes(), s.element_size(), s.dtype,
                                     s.device))(lib.FloatStorage(5)),
    "long_list": lambda lib: lib.LongStorage([1, 2, 3]),
    "long_from_floats": lambda lib: lib.LongStorage([1.5]),
    "nested": lambda lib: lib.FloatStorage([[1, 2]]),
    "bool": lambda lib: lib.BoolStorage([True, False]),
    "half": lambda lib: lib.HalfStorage([1.5]),
    "bfloat16": lambda lib: lib.BFloat16Storage([1.5]),
    "byte": lambda lib: lib.ByteStorage([1, 255]),
    "char": lambda lib: lib.CharStorage([1, -1]),
    "short_int": lambda lib: (lib.ShortStorage([1, -1]), lib.IntStorage([1, -1])),
    "bad_str": lambda lib: lib.FloatStorage("x"),
    "bad_float": lambda lib: lib.FloatStorage(2.5),
    "typed_default": lambda lib: lib.TypedStorage(),
    "typed_list": lambda lib: lib.TypedStorage([1, 2], dtype=lib.int64),
    "typed_sized": lambda lib: len(lib.TypedStorage(2, dtype=lib.int32, device="cpu")),
    "typed_wrap": lambda lib: lib.TypedStorage(wrap_storage=lib.UntypedStorage([0, 0, 128, 63]),
                                               dtype=lib.float32).tolist(),
    "typed_wrap_short": lambda lib: lib.TypedStorage(
        wrap_storage=lib.UntypedStorage([0, 0, 128]), dtype=lib.float32).tolist(),
    "typed_bad": lambda lib: lib.TypedStorage("a", dtype=lib.float32),
    "untyped_bytes": lambda lib: lib.UntypedStorage([1, 2, 300]),
    "untyped_empty": lambda lib: lib.UntypedStorage(),
    "untyped_sized": lambda lib: lib.UntypedStorage(4).nbytes(),
    "untyped_float": lambda lib: lib.UntypedStorage([1.5]),
    "untyped_iter": lambda lib: list(lib.UntypedStorage([1, 2])),
    "untyped_device": lambda lib: (lib.UntypedStorage(2).device, lib.UntypedStorage(2).is_cuda,
                                   lib.UntypedStorage(2).get_device()),
    "getitem": lambda lib: (lib.FloatStorage([1., 2.])[1], lib.FloatStorage([1., 2.])[-1]),
    "getitem_slice": lambda lib: lib.FloatStorage([1., 2., 3.])[1:],
    "getitem_oob": lambda lib: lib.FloatStorage([1., 2., 3.])[3],
    "untyped_getitem_oob": lambda lib: lib.UntypedStorage([1, 2])[2],
    "setitem": lambda lib: (lambda s: (s.__setitem__(0, 7), s.tolist()))(lib.FloatStorage([1., 2.])),
    "setitem_cast": lambda lib: (lambda s: (s.__setitem__(0, -1.5), s.__setitem__(1, 7),
                                            s.tolist()))(lib.LongStorage([1, 2])),
    "setitem_oob": lambda lib: lib.FloatStorage([1., 2., 3.]).__setitem__(3, 1),
    "untyped_setitem": lambda lib: (lambda u: (u.__setitem__(0, 300), u.tolist()))(
        lib.UntypedStorage([1, 2])),
    "fill_": lambda lib: lib.LongStorage([1, 2]).fill_(7).tolist(),
    "copy_": lambda lib: lib.FloatStorage(2).copy_(lib.FloatStorage([3., 4.])).tolist(),
    "copy_mismatch": lambda lib: lib.FloatStorage(2).copy_(lib.LongStorage([3, 4])),
    "clone": lambda lib: lib.FloatStorage([3., 4.]).clone().tolist(),
    "resize_": lambda lib: (lambda s: (s.resize_(4), s.size(), s.tolist()[:2]))(
        lib.FloatStorage([1., 2.])),
    "untyped_resize_": lambda lib: (lambda s: (s.resize_(4).nbytes(), s.tolist()[:2]))(
        lib.UntypedStorage([1, 2])),
    "conversions": lambda lib: (lib.DoubleStorage([1.5]).half(), lib.DoubleStorage([1.5]).int(),
                                lib.LongStorage([1, 2]).float(), lib.FloatStorage([0., 2.]).bool()),
    "untyped_of_typed": lambda lib: lib.DoubleStorage([1.5]).untyped(),
    "type": lambda lib: (lib.DoubleStorage([1.]).type(), lib.FloatStorage([1.]).pickle_storage_type()),
    "from_buffer": lambda lib: (lib.FloatStorage.from_buffer(b"\x3f\x80\x00\x00", "big").tolist(),
                                lib.IntStorage.from_buffer(b"\x01\x00\x00\x00\x02\x00\x00\x00",
                                                           "little").tolist()),
    "shared": lambda lib: (lambda s: (s.is_shared(), s.share_memory_().is_shared()))(
        lib.FloatStorage([1.])),
    "pinned_cpu_len": lambda lib: (lib.FloatStorage([1.]).is_pinned(), bool(lib.FloatStorage(0)),
                                   list(lib.FloatStorage([1., 2.])), lib.FloatStorage([1.]).cpu()),
    "pickle": lambda lib: pickle.loads(pickle.dumps(lib.FloatStorage([1., 2.]))).tolist(),
    "isinstance": lambda lib: (isinstance(lib.FloatStorage([1.]), lib.TypedStorage),
                               isinstance(lib.FloatStorage([1.]), lib.FloatStorage),
                               isinstance(lib.zeros(2).storage(), lib.FloatStorage),
                               isinstance(lib.zeros(2).storage(), lib.DoubleStorage),
                               isinstance(lib.zeros(2).storage(), lib.UntypedStorage),
                               isinstance(lib.zeros(2).untyped_storage(), lib.StorageBase),
                               isinstance(lib.TypedStorage(2, dtype=lib.float64),
                                          lib.DoubleStorage),
                               issubclass(lib.FloatStorage, lib.TypedStorage)),
    "classes": lambda lib: (lib.FloatStorage, lib.FloatStorage.dtype, lib.Storage,
                            lib.storage.TypedStorage, lib.storage.UntypedStorage),
    "is_storage": lambda lib: (lib.is_storage(lib.zeros(2).storage()),
                               lib.is_storage(lib.zeros(2).untyped_storage()),
                               lib.is_storage(lib.zeros(2))),
    "tensor_storage": lambda lib: lib.arange(3.).storage(),
    "tensor_storage_of_view": lambda lib: (lib.arange(4.)[1:].storage().tolist(),
                                           lib.arange(4.)[1:].storage().size()),
    "untyped_storage": lambda lib: lib.tensor([1], dtype=lib.int16).untyped_storage(),
    "storage_dtypes": lambda lib: (lib.tensor([1, 2], dtype=lib.uint16).storage(),
                                   lib.tensor([1.5], dtype=lib.bfloat16).storage()),
    "data_ptr": lambda lib: (lambda t: (t.storage().data_ptr() == t.data_ptr()
                                        == t.untyped_storage().data_ptr(),
                                        t[1:].storage().data_ptr() == t.data_ptr()))(lib.zeros(3)),
    "write_through": lambda lib: (lambda t: (t.storage().__setitem__(0, 5.0),
                                             t.untyped_storage()[4], t))(lib.zeros(2)),
    "untyped_fill_through": lambda lib: (lambda t: (t.untyped_storage().fill_(0), t))(lib.ones(2)),
    "storage_type": lambda lib: tuple(lib.zeros(1, dtype=getattr(lib, d)).storage_type() for d in
                                      ("float32", "float64", "float16", "bfloat16", "int64",
                                       "int32", "int16", "int8", "uint8", "bool", "uint16",
                                       "uint32", "uint64")),
    "share_through_tensor": lambda lib: (lambda t: (t.untyped_storage().share_memory_().is_shared()))(
        lib.zeros(2)),
    # tensors over storages
    "tensor_of_storage": lambda lib: lib.tensor(lib.FloatStorage([1., 2., 3.])),
    "tensor_of_storage_shares": lambda lib: (lambda f: lib.tensor(f).data_ptr() == f.data_ptr())(
        lib.FloatStorage([1., 2., 3.])),
    "tensor_of_storage_dtype": lambda lib: lib.tensor(lib.FloatStorage([1.]), dtype=lib.float64),
    "tensor_of_long_storage": lambda lib: lib.tensor(lib.LongStorage([1, 2])),
    "tensor_of_long_storage_long": lambda lib: lib.tensor(lib.LongStorage([1, 2]),
                                                          dtype=lib.long),
    "legacy_of_storage": lambda lib: (lambda f: (lib.Tensor(f), lib.Tensor(f).data_ptr() ==
                                                 f.data_ptr(), lib.FloatTensor(f)))(
        lib.FloatStorage([1., 2., 3.])),
    "legacy_long_of_float": lambda lib: lib.LongTensor(lib.FloatStorage([1.])),
    "legacy_of_long": lambda lib: lib.Tensor(lib.LongStorage([4])),
    "legacy_long_of_long": lambda lib: lib.LongTensor(lib.LongStorage([4])),
    "legacy_writes_through": lambda lib: (lambda f: (lib.Tensor(f).__setitem__(0, 9), f.tolist()))(
        lib.FloatStorage([1., 2.])),
    "set_": lambda lib: lib.empty(0).set_(lib.FloatStorage([1., 2., 3., 4.]), 1, (2,), (1,)),
    "set_whole": lambda lib: lib.empty(0).set_(lib.FloatStorage([1., 2., 3.])),
    "set_untyped": lambda lib: lib.empty(0).set_(lib.zeros(3).untyped_storage()),
    "set_untyped_offset": lambda lib: lib.zeros(0).set_(
        lib.tensor([1., 2., 3.]).untyped_storage(), 1, (2,)),
    "set_shares": lambda lib: (lambda f: lib.zeros(3).set_(f).data_ptr() == f.data_ptr())(
        lib.FloatStorage([1., 2., 3.])),
    "set_wrong_dtype": lambda lib: lib.empty(0).set_(lib.LongStorage([1, 2, 3, 4]), 1, (2,), (1,)),
    "set_wrong_dtype_long": lambda lib: lib.zeros(0, dtype=lib.long).set_(lib.FloatStorage([1.])),
    "set_grows_untyped": lambda lib: (lambda u: (lib.zeros(0).set_(u, 0, (3,)).shape,
                                                 u.nbytes()))(lib.UntypedStorage(4)),
    "set_grows_typed": lambda lib: (lambda s: (lib.empty(0).set_(s, 2, (3,), (1,)).shape, s.size(),
                                               s.tolist()[:2]))(lib.FloatStorage([1., 2.])),
    "set_grows_tensor_storage": lambda lib: (lambda t: (
        lib.empty(0).set_(t.storage(), 0, (5,), (1,)).shape, t.storage().size(), t))(
        lib.tensor([1., 2.])),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_storages_as_torch(torch, case):
    check(torch, CASES[case])


@pytest.mark.parametrize("name", STORAGE_CLASSES)
def test_each_legacy_class(torch, name):
    check(torch, lambda lib: (getattr(lib, name), getattr(lib, name).dtype,
                              getattr(lib, name)([1, 0]).tolist(), getattr(lib, name)(3).size(),
                              getattr(lib, name)([1]).type()))


def test_the_deprecation_warning_fires_once_with_torchs_text(torch):
    """Once per process in both libraries: which call warns first depends on the test order,
    so each library's flag is reset, the warning caught, and the text compared."""
    from ember import _storage
    texts = {}
    for lib, reset in ((torch, lambda: setattr(torch.storage._warn_typed_storage_removal,
                                               "has_warned", False)),
                       (ember, lambda: _storage._warned_typed.__setitem__(0, False))):
        reset()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.zeros(2).storage()
            lib.FloatStorage(2)
            lib.zeros(2).untyped_storage()
        texts[lib.__name__] = [(w.category, str(w.message)) for w in caught]
    assert len(texts["torch"]) == 1
    assert texts["ember"] == texts["torch"]
