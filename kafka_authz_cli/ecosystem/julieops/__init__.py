"""JulieOps topologies, read only: ``reader`` reads topology files and directories (its EA4xx codes),
``topology`` is the model JulieOps' parser builds from them, ``acl_provider`` the bindings its default
ACL provider creates for it, ``builder_config`` JulieOps' settings (``--option``) that change them."""
