"""The dispatcher: operator schema, operator registry, dispatch, and the ``ember.ops`` namespace."""
