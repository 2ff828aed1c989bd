"""What authz relies on in Typer's public API, checked so that a Typer release that changes it fails
here, by name, rather than as a subtly different --help or a slower start (pyproject pins the range).
"""

import typer
from typer.core import TyperArgument, TyperOption
from typer.main import get_command_from_info, get_command_name, get_group_from_info

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.commands import polish
from kafka_authz_cli.cli.help_layout import default_metavar


def test_typer_parameters_build_their_coercion_through_get_runtime_param():
    # cli/deferred_coercion.py defers it (an unset option must not import pydantic: `authz --help` stays fast)
    for cls in (TyperOption, TyperArgument):
        assert callable(getattr(cls, "get_runtime_param", None)), \
            f"typer {typer.__version__}: {cls.__name__}.get_runtime_param() is gone; see cli/deferred_coercion.py"


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
    assert typer.Context.formatter_class is not None  # cli/help_layout.py's HelpFormatter extends it


def test_typer_shows_its_click_errors_through_their_show_method():
    # cli/usage_errors.py makes usage errors one line by giving the error a `show` of its own: Typer's click errors
    # must stay TyperExceptions with a `show`, and its main (rich_markup_mode None) must call it.
    from typer.main import get_command
    from typer.testing import CliRunner

    assert issubclass(typer.BadParameter, typer.TyperException) and callable(getattr(typer.BadParameter, "show"))
    assert app.rich_markup_mode is None
    try:
        get_command(app).main(["--no-such-option"], standalone_mode=False)
    except typer.TyperException as exc:
        assert callable(exc.show), f"typer {typer.__version__}: its click errors lost show()"
    else:
        raise AssertionError("an unknown option was not an error")
    assert CliRunner().invoke(app, ["--no-such-option"]).stderr.startswith("authz: error: No such option")


def test_a_sub_app_and_repeatable_options_as_authz_app_uses_them():
    # `authz app` is a Typer sub-app (app.add_typer) whose commands take Optional[list[str]] options that
    # repeat (--topic, --config KEY=VALUE) and two positional arguments (ACLS, KIND).
    from typer.main import get_command

    import kafka_authz_cli.cli.apps  # noqa: F401  (registers `authz app`)

    group = polish(get_command(app)).get_command(None, "app")
    assert sorted(group.list_commands(None)) == ["acls", "check", "list"], f"typer {typer.__version__}"
    check = group.get_command(None, "check")
    params = {p.name: p for p in check.params}
    assert [p.name for p in check.params if isinstance(p, TyperArgument)] == ["acls", "kind"]
    assert params["topic"].multiple and params["config"].multiple and params["config"].metavar == "KEY=VALUE"
    ctx = check.make_context("check", ["acls.json", "consumer", "--topic", "a", "--topic", "b", "--config", "x=1"])
    assert ctx.params["topic"] == ["a", "b"] and ctx.params["config"] == ["x=1"] and ctx.params["kind"] == "consumer"
