"""What authz relies on in Typer's public API, checked so that a Typer release that changes it fails
here, by name, rather than as a subtly different --help or a slower start (pyproject pins the range).
"""

import typer
from typer.core import TyperArgument, TyperOption
from typer.main import get_command_from_info, get_command_name, get_group_from_info

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.lazy import default_metavar, polish


def test_typer_parameters_build_their_coercion_through_get_runtime_param():
    # cli/lazy.py defers it (an unset option must not import pydantic: `authz --help` stays fast)
    for cls in (TyperOption, TyperArgument):
        assert callable(getattr(cls, "get_runtime_param", None)), \
            f"typer {typer.__version__}: {cls.__name__}.get_runtime_param() is gone; see cli/lazy.py _defer_coercion"


def test_typer_leaves_the_metavar_to_authz_and_describes_each_type():
    from typer.main import get_command

    command = get_command(app)
    option = next(p for p in command.params if p.name == "version")
    assert hasattr(option, "type_descriptor"), f"typer {typer.__version__}: parameters lost type_descriptor"
    import kafka_authz_cli.cli.whatif  # noqa: F401  (registers whatif, whose options have ranges and paths)

    whatif = polish(get_command(app)).get_command(None, "whatif")
    metavars = {p.name: p.metavar for p in whatif.params}
    assert metavars["partition_bytes"] == "INTEGER", f"typer {typer.__version__} sets its own metavars"
    assert metavars["proposed"] == "PATH" and default_metavar(next(p for p in whatif.params if p.name == "fmt")) \
        == "[table|json|jsonl]"


def test_the_command_building_functions_authz_uses_exist():
    assert callable(get_command_from_info) and callable(get_group_from_info) and callable(get_command_name)
    assert typer.Context.formatter_class is not None  # cli/lazy.py's HelpFormatter extends it
