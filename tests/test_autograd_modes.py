"""inference_mode and anomaly detection, with PyTorch's errors."""
import warnings

import pytest

import ember


def test_inference_mode_errors_match_torch(torch):
    def run(lib):
        with lib.inference_mode():
            a = lib.ones(2)
            assert lib.is_inference_mode_enabled() and not lib.is_grad_enabled()
        assert a.is_inference() and not lib.ones(2).is_inference()
        w = lib.ones(2, requires_grad=True)
        messages = []
        for action in (lambda: (w * a).sum(), lambda: a.add_(1), lambda: a.requires_grad_()):
            with pytest.raises(RuntimeError) as info:
                action()
            messages.append(str(info.value))
        assert (w + a).requires_grad  # add saves nothing, so it is allowed
        return messages
    assert run(ember) == [m.replace("torch.", "ember.") for m in run(torch)]


def test_inference_mode_as_decorator_and_disabled():
    @ember.inference_mode()
    def make():
        return ember.ones(2)
    assert make().is_inference()
    with ember.inference_mode(False):
        assert not ember.ones(1).is_inference()


def test_anomaly_detection_names_the_forward_op(torch):
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                x = lib.tensor([0.0], requires_grad=True)
                y = x.sqrt() * 0
                with pytest.raises(RuntimeError) as info:
                    y.sum().backward()
        texts = [str(w.message) for w in caught]
        assert any("Error detected in SqrtBackward0" in t for t in texts), texts
        assert any("test_autograd_modes.py" in t for t in texts), texts
        return str(info.value)
    assert run(ember) == run(torch)


def test_set_detect_anomaly_toggles():
    ember.autograd.set_detect_anomaly(True)
    try:
        assert ember.autograd.is_anomaly_enabled()
    finally:
        ember.autograd.set_detect_anomaly(False)
    assert not ember.autograd.is_anomaly_enabled()
