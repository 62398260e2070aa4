"""The dispatcher: operator schema, registry, dispatch, ``ember.ops``, ``out=``, grad mode.

Owns the schema parser (``schema``), the operator registry and dispatch with its
per-operator kernel caches (``registry``), the ``ember.ops`` namespace (``namespace``),
the ``out=`` machinery (``out``), grad mode, which is the thread-local dispatch mask
(``grad_mode``), and the run-time table of device backends (``devices``).

May import: ``ember.core``. The plugin layer installs the device loader
(``devices.install_plugin_loader``) and the operator library its drivers and
decompositions, through registration (Note [Registration points]).
"""
