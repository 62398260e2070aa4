"""``library.impl(op, fn, "meta")`` registers for the Meta key that meta tensors carry."""

import ember
from ember import library
from ember.core import dispatch_key as dk


def test_meta_device_type_is_the_meta_key():
    assert library._key("meta") is dk.key_named("Meta") is library._key("Meta")
    lib = library.Library("ember_test_meta")
    calls = []
    try:
        lib.define("meta_probe(Tensor self) -> Tensor")

        def probe(x):
            calls.append(x.device.type)
            return ember.empty_like(x)

        lib.impl("meta_probe", probe, "meta")
        out = ember.ops.ember_test_meta.meta_probe(ember.ones(2, device="meta"))
        assert calls == ["meta"] and out.device.type == "meta"
    finally:
        lib.remove()
