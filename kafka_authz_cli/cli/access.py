"""`authz access`: who can do what (the default subcommand, `show`), and `authz access unused`: the
group (cli/access_group.py) and its subcommands, each in its own module."""

from kafka_authz_cli.cli import access_show, access_unused  # noqa: F401  (registered on import)
from kafka_authz_cli.cli.access_group import access_app  # noqa: F401
