"""The device conformance suite: every OpInfo x dtype x sample on one device.

Run it against any installed device with one command::

    pytest --pyargs ember.testing.conformance --ember-device=NAME [--ember-ops=add*,sum*]

Inputs are built on the CPU and moved with ``.to(device)``; results are compared
on the host with ``assert_close`` against numpy references. An operator the device
has no kernel for (the dispatcher's NotImplementedError) or a dtype missing from
its ``Capabilities.dtypes`` is reported as "not implemented", not as a failure;
the terminal summary prints an operator x dtype table. Without ``--ember-device``
the pytest plugin (``ember.testing.conformance.plugin``) changes nothing.
"""

from __future__ import annotations

from ember.testing.conformance._runner import NotImplementedOnDevice, check_case, run_sample

__all__ = ["NotImplementedOnDevice", "check_case", "run_sample"]
