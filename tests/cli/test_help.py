"""`--help` everywhere: every option and argument explained, with a metavar a person reads (TEXT,
PATH, [json|csv]), every flag by its full name, nothing cut or broken at 80 columns or in a pipe."""

import re

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app, command_tree

# A metavar: an upper-case word (TEXT, PATH, HOST:PORT, USERS_CSV) or a choice list ([json|csv]).
METAVAR = re.compile(r"^(?:[A-Z][A-Z0-9_:=./-]*|\[[a-z0-9][a-z0-9._/-]*(?:\|[a-z0-9][a-z0-9._/-]*)*\])$")
PYTHON_TYPES = re.compile(r"<(?:str|int|float|bool|path|list|tuple|class|datetime)\b|\blist\[|INTEGER RANGE|FLOAT RANGE")


ALL = list(command_tree())
IDS = [path for path, _, _ in ALL]


def test_the_tree_is_complete():
    assert len(ALL) > 30
    assert {"authz scram create-user", "authz cluster apply", "authz lint", "authz config decode-password"} <= set(IDS)


@pytest.mark.parametrize("path,command,ctx", ALL, ids=IDS)
def test_every_option_and_argument_has_help_and_a_sensible_metavar(path, command, ctx):
    assert (command.help or command.short_help or "").strip(), f"{path}: no help"
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        name = "/".join(param.opts)
        assert (getattr(param, "help", None) or "").strip(), f"{path} {name}: no help"
        takes_value = param.param_type_name == "argument" or not getattr(param, "is_flag", False)
        if takes_value:
            assert param.metavar and METAVAR.match(param.metavar), f"{path} {name}: metavar {param.metavar!r}"
        else:
            assert not param.metavar, f"{path} {name}: a flag with a metavar"


@pytest.mark.parametrize("path,command,ctx", ALL, ids=IDS)
def test_help_at_80_columns_shows_every_flag_whole_and_nothing_cut(path, command, ctx):
    args = path.split()[1:] + ["--help"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == 0, result.output
    text = result.output
    assert "\x1b" not in text and "╭" not in text
    assert text.count("…") == (command.help or "").count("…"), "help cut with …"  # (diff's help quotes one)
    assert not PYTHON_TYPES.search(text), PYTHON_TYPES.search(text)
    assert text.startswith(f"Usage: {path} ")
    tokens = set(re.split(r"[\s,/]+", text))
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        for opt in list(param.opts) + list(getattr(param, "secondary_opts", [])):
            if param.param_type_name == "option":
                assert opt in tokens, f"{path}: {opt} not shown whole"
        if param.metavar:
            assert param.metavar in text
    for line in text.splitlines():
        # Wrapped at 80 columns: only a single word longer than the line may run past it.
        if len(line) > 80:
            assert len(line.split()) <= 2 and len(line.split()[-1]) > 40, line
    for word in re.findall(r"\S+", text):
        assert not word.endswith("-") or word in ("-", "--"), f"{path}: a name broken at a hyphen: {word!r}"


def test_help_lists_exit_codes_for_every_command():
    for path, command, ctx in ALL:
        if hasattr(command, "list_commands") and path != "authz":
            continue  # a group: its commands list theirs
        assert "Exit codes:" in (command.help or "") or "Exit codes:" in (command.epilog or ""), path


def test_usage_names_arguments_as_click_does():
    result = CliRunner().invoke(app, ["convert"])
    assert result.exit_code == 2
    # A usage error is one line (cli/usage_errors.py); the usage line is --help's.
    assert result.output == "authz: error: Missing argument 'SOURCE'. (see authz convert --help)\n"
    result = CliRunner().invoke(app, ["convert", "--help"])
    assert "Usage: authz convert [OPTIONS] SOURCE" in result.output
    result = CliRunner().invoke(app, ["lint", "--help"])
    assert "Usage: authz lint [OPTIONS] [PATHS]..." in result.output


# Declared once in cli/options.py. The `config` commands read other things from --broker-config, and
# encode-password's password is a line of the stdin it shares with the encoder secret: theirs are their own.
SHARED = ("--super-users", "--allow-everyone-if-no-acl-found", "--broker-config", "--command-config", "--timeout",
          "--listener", "--host", "--types", "--index", "--password-stdin", "--password-file")
OWN = {"--broker-config": ("authz config resolve", "authz config encode-password", "authz config decode-password"),
       "--password-stdin": ("authz config encode-password",)}


@pytest.mark.parametrize("flag", SHARED)
def test_an_option_several_commands_share_says_the_same_everywhere(flag):
    helps = {}
    for path, command, ctx in ALL:
        for param in command.get_params(ctx):
            if flag in param.opts and path not in OWN.get(flag, ()):
                helps.setdefault(param.help, []).append(path)
    assert len(helps) == 1 and len(next(iter(helps.values()))) >= 3, helps
