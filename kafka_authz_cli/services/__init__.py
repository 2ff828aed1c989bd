"""Services: what each command does, as plain functions over plain values.

A command in ``cli/`` parses its options, calls one function here and renders what it returns. A
service reads its inputs (files, a live cluster through ``cluster/``, logs through ``whatif/``),
calls the domain packages and returns results; it never prints. What it has to say on the way goes
through ``logging`` (``warning`` records of the ``kafka_authz_cli`` loggers, which the CLI shows as
``warning:`` lines) and long work reports progress through a callback it is given.
"""
