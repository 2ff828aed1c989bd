"""`authz app check|acls|list`: will an application work with these ACLs, and what exactly does it need?"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    ACLS_OPTION_HELP,
    LOSSY_OPTION,
    STRIMZI_API_VERSION_OPTION,
    STRIMZI_AUTHENTICATION_OPTION,
    STRIMZI_CLUSTER_OPTION,
    TERRAFORM_CONFLUENT_CLUSTER_OPTION,
    TERRAFORM_PROVIDER_OPTION,
    AclFormat,
    StrimziApiVersion,
    StrimziAuthentication,
    TableFormat,
    TerraformProvider,
    WriteFormat,
    acls_options,
    console,
    emit_rows,
    err_console,
    option_value,
    write_json,
    write_options,
    write_output,
)
from kafka_authz_cli.cli.options import (
    AllowEveryone,
    BrokerConfig,
    ClientHost,
    CommandConfig,
    Listener,
    SuperUsers,
    TableFormatOption,
)
from kafka_authz_cli.services.apps import (
    AppAcls,
    AppOptions,
    acls_document,
    app_acls,
    call_rows,
    check_app,
    check_document,
    list_apps,
)

app_app = typer.Typer(help="Applications, not requests: will this application (a producer, a consumer, a Streams "
                           "application, an admin tool...) work with these ACLs, and what exactly does it need?",
                      no_args_is_help=True)
app.add_typer(app_app, name="app", short_help="Will this application work with these ACLs, and what exactly does "
                                              "it need? Producers, consumers, Streams, admin tools.")

KIND_HELP = "The kind of application (`authz app list`): producer, consumer, share-consumer, consume-transform-produce, " \
            "streams, admin-create-topics, admin-describe-configs, admin-list-groups, ..."

APP_HELP = """The application is described by its kind, its names (--topic, --input/--output, --group) and
its own client configuration: --client-config is the application's .properties file (the keys the Java
client reads: enable.idempotence, acks, transactional.id, group.id, group.protocol, isolation.level,
application.id, processing.guarantee; consumer./producer. prefixes as Kafka Streams uses them), --config adds
or overrides single keys. Who it connects as: --principal, else the client configuration's sasl.jaas.config
username (PLAIN, SCRAM), or its certificate's DN (a PEM ssl.keystore.location) or Kerberos name mapped by
the --broker-config's ssl.principal.mapping.rules or auth_to_local rules. --broker-config also gives
super.users, allow.everyone.if.no.acl.found, auto.create.topics.enable and delete.topic.enable.

Each client call the application makes is expanded into the requests the Java client sends, in its order,
and each request is checked as Kafka's request handlers check it (KafkaApis, the group, share and
transaction coordinators, ControllerApis): which (operation, resource) pairs, which denials fail the request,
which fail one topic and which only leave something out of the answer. The application fails at the first
call whose answer the client turns into an exception. Kafka 3.0 to 4.1 (--kafka-version, default 4.1);
checked against the real Java clients of Kafka 4.1.1 (tests/live/test_apps_live.py)."""


def _options(kind, acls, acls_format, option, principal, host, topic, input_topic, output_topic, group, topic_absent,
             stateful, client_config, config, broker_config, kafka_version, super_users, allow_everyone,
             listener) -> AppOptions:
    return AppOptions(kind=kind, acls=acls, acls_format=option_value(acls_format), acls_options=acls_options(option),
                      principal=principal, host=host, topics=tuple(topic or ()), inputs=tuple(input_topic or ()),
                      outputs=tuple(output_topic or ()), groups=tuple(group or ()), topic_absent=topic_absent,
                      stateful=stateful, client_config=client_config, configs=tuple(config or ()),
                      broker_config=broker_config, kafka_version=kafka_version, super_users=super_users,
                      allow_everyone=allow_everyone, listener=listener)


PRINCIPAL_OPTION = typer.Option(None, "--principal", help="Who the application connects as, e.g. User:alice "
                                "(default: from --client-config).")
TOPIC_OPTION = typer.Option(None, "--topic", help="A topic the application uses (repeatable).")
INPUT_OPTION = typer.Option(None, "--input", help="The topic it reads (consume-transform-produce, streams).")
OUTPUT_OPTION = typer.Option(None, "--output", help="The topic it writes (consume-transform-produce, streams).")
GROUP_OPTION = typer.Option(None, "--group", help="A group the admin kinds look for (repeatable; default group.id).")
ABSENT_OPTION = typer.Option(False, "--topic-absent", help="The topics do not exist yet (auto-creation decides, "
                             "auto.create.topics.enable from --broker-config, Kafka's default true).")
STATEFUL_OPTION = typer.Option(False, "--stateful", help="streams: a topology with a repartition and a changelog topic.")
CLIENT_CONFIG_OPTION = typer.Option(None, "--client-config", help="The application's client .properties.")
CONFIG_OPTION = typer.Option(None, "--config", metavar="KEY=VALUE", help="A client config key (repeatable; wins "
                             "over --client-config).")
VERSION_OPTION = typer.Option(None, "--kafka-version", help="The Kafka release of the clients and brokers (3.0 to "
                              "4.1; default 4.1).")


@app_app.command("check", help=f"""Will this application work with these ACLs?

{APP_HELP}

Output: whether it works; if not, the exception the real client surfaces (its simple name, e.g.
GroupAuthorizationException), the client call where it surfaces (poll, send, initTransactions, ...), a
sentence saying why, every request with its checks, decisions and deciding ACLs, and the ACLs that would make it
work (`missing`; or the DENY that no ALLOW can override). --format json: works, exception, step, calls, missing.

Exit codes: 0 it works; 1 it does not; 2 usage or input error.""",
                 short_help="Will this application work with these ACLs? Where it fails, and what it needs.")
def check(
    acls: Path = typer.Argument(..., help="The ACL set (any format authz reads, or cluster:HOST:PORT)."),
    kind: str = typer.Argument(..., help=KIND_HELP),
    principal: Optional[str] = PRINCIPAL_OPTION,
    host: ClientHost = "127.0.0.1",
    topic: Optional[list[str]] = TOPIC_OPTION,
    input_topic: Optional[list[str]] = INPUT_OPTION,
    output_topic: Optional[list[str]] = OUTPUT_OPTION,
    group: Optional[list[str]] = GROUP_OPTION,
    topic_absent: bool = ABSENT_OPTION,
    stateful: bool = STATEFUL_OPTION,
    client_config: Optional[Path] = CLIENT_CONFIG_OPTION,
    config: Optional[list[str]] = CONFIG_OPTION,
    broker_config: BrokerConfig = None,
    kafka_version: Optional[str] = VERSION_OPTION,
    super_users: SuperUsers = None,
    allow_everyone: AllowEveryone = None,
    listener: Listener = None,
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Override format detection."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
    command_config: CommandConfig = None,
    fmt: TableFormatOption = TableFormat.table,
) -> None:
    options = _options(kind, acls, acls_format, option, principal, host, topic, input_topic, output_topic, group,
                       topic_absent, stateful, client_config, config, broker_config, kafka_version, super_users,
                       allow_everyone, listener)
    result = check_app(options, command_config)
    if fmt is TableFormat.table:
        from kafka_authz_cli.cli.apps_render import print_check

        print_check(result)
    elif fmt is TableFormat.json:
        write_json(check_document(result), None)
    else:
        emit_rows(call_rows(result), fmt)
    if not result.verdict.works:
        raise typer.Exit(1)


@app_app.command("acls", help=f"""The smallest ACL set this application needs, and the proof.

{APP_HELP}

The set is found by running the application: while it fails, the exact permission its failing check asks
for is granted (the broker's alternatives decide which: CREATE on the topic rather than on the cluster, the
WRITE it already needs rather than IDEMPOTENT_WRITE), then every ACL it works without is dropped. Names the
client makes up (Kafka Streams' internal topics and transactional ids) are PREFIXED on <application.id>-;
--prefixed grants every name of the application on a prefix (the team style). Written in --to's format
(-o FILE, else stdout); the proof follows (on stderr when the set goes to stdout): with the set the application
works, and without each of its ACLs it fails, with the exception and call. --format json: one object with the
ACLs, the text and the proof.

Exit codes: 0 the set works (the proof holds); 1 no ACL set makes it work (a refused configuration, a topic
that does not exist); 2 usage or input error.""",
                 short_help="The smallest ACL set an application needs, in any format, with the proof.")
def acls_command(
    kind: str = typer.Argument(..., help=KIND_HELP),
    to: WriteFormat = typer.Option(WriteFormat("kafka-acls"), "--to", help="Output format of the ACL set."),
    prefixed: bool = typer.Option(False, "--prefixed", help="PREFIXED ACLs on the application's names (team style)."),
    principal: Optional[str] = PRINCIPAL_OPTION,
    host: ClientHost = "127.0.0.1",
    topic: Optional[list[str]] = TOPIC_OPTION,
    input_topic: Optional[list[str]] = INPUT_OPTION,
    output_topic: Optional[list[str]] = OUTPUT_OPTION,
    group: Optional[list[str]] = GROUP_OPTION,
    topic_absent: bool = ABSENT_OPTION,
    stateful: bool = STATEFUL_OPTION,
    client_config: Optional[Path] = CLIENT_CONFIG_OPTION,
    config: Optional[list[str]] = CONFIG_OPTION,
    broker_config: BrokerConfig = None,
    kafka_version: Optional[str] = VERSION_OPTION,
    super_users: SuperUsers = None,
    allow_everyone: AllowEveryone = None,
    listener: Listener = None,
    strimzi_authentication: Optional[StrimziAuthentication] = STRIMZI_AUTHENTICATION_OPTION,
    strimzi_cluster: Optional[str] = STRIMZI_CLUSTER_OPTION,
    strimzi_api_version: Optional[StrimziApiVersion] = STRIMZI_API_VERSION_OPTION,
    terraform_provider: Optional[TerraformProvider] = TERRAFORM_PROVIDER_OPTION,
    terraform_confluent_cluster: Optional[str] = TERRAFORM_CONFLUENT_CLUSTER_OPTION,
    lossy: bool = LOSSY_OPTION,
    out: Optional[Path] = typer.Option(None, "-o", "--output-file", help="Write the ACL set here instead of stdout."),
    fmt: TableFormatOption = TableFormat.table,
) -> None:
    from kafka_authz_cli.cli.apps_render import print_proof
    from kafka_authz_cli.services.convert import write_acls

    result: AppAcls = app_acls(_options(kind, None, None, [], principal, host, topic, input_topic, output_topic, group,
                                        topic_absent, stateful, client_config, config, broker_config, kafka_version,
                                        super_users, allow_everyone, listener), prefixed=prefixed)
    options = write_options(strimzi_authentication, strimzi_cluster, strimzi_api_version, terraform_provider,
                            terraform_confluent_cluster, lossy)
    text = write_acls(result.acls, to.value, options) if result.acls else ""
    if fmt is TableFormat.json:
        write_json(acls_document(result, to.value, text), None)
    else:
        if text:
            write_output(text, out)
        print_proof(result, console if out is not None else err_console)
    if result.blocked is not None or not result.with_all.works:
        raise typer.Exit(1)


@app_app.command("list", help="""The catalogue: each kind of application, what it is, the client configuration keys
it reads, the Kafka releases it covers and how it was verified.

Exit codes: 0 ok; 2 usage error.""", short_help="The catalogue of application kinds.")
def list_command(fmt: TableFormatOption = TableFormat.table) -> None:
    rows = list_apps()
    if fmt is not TableFormat.table:
        emit_rows([{**r, "reads": " ".join(r["reads"])} if fmt is TableFormat.csv else r for r in rows], fmt)
        return
    from rich.table import Table

    table = Table(header_style="bold")
    for col in ("kind", "what", "reads", "kafka", "verified"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(r["kind"], escape(r["what"]), escape(", ".join(r["reads"]) or "-"), r["kafka_versions"],
                      escape(r["verified"]))
    console.print(table)
