"""Layer 2: an application's calls through layer 1, and where it fails.

:func:`evaluate` sends each step's requests, in order, to the broker's handlers (``requests.handle``),
keeping the cluster's state between them (a topic created by a CreateTopics or an auto-creation exists
afterwards), and stops at the first request whose answer the client turns into an exception, or at an
answer that silently leaves out what the application needs. The exception is the one the Java client
surfaces for the error code at that call (``KafkaProducer``'s Sender and TransactionManager,
``ConsumerNetworkClient``, ``KafkaAdminClient``'s result futures), unwrapped from the Future.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kafka_authz_cli.apps.api_requests import handle
from kafka_authz_cli.apps.calls import Call, Caller, Check, Cluster, OnDeny
from kafka_authz_cli.apps.catalogue import Step, Workflow

#: Errors (the broker's code) -> the exception the Java client raises for it (Errors.exception()).
EXCEPTIONS = {
    "TOPIC_AUTHORIZATION_FAILED": "TopicAuthorizationException",
    "GROUP_AUTHORIZATION_FAILED": "GroupAuthorizationException",
    "TRANSACTIONAL_ID_AUTHORIZATION_FAILED": "TransactionalIdAuthorizationException",
    "CLUSTER_AUTHORIZATION_FAILED": "ClusterAuthorizationException",
    "DELEGATION_TOKEN_AUTHORIZATION_FAILED": "DelegationTokenAuthorizationException",
    "TOPIC_ALREADY_EXISTS": "TopicExistsException",
    "TOPIC_DELETION_DISABLED": "TopicDeletionDisabledException",
}
UNKNOWN_TOPIC = "UNKNOWN_TOPIC_OR_PARTITION"


@dataclass
class StepResult:
    step: Step
    calls: list[Call] = field(default_factory=list)
    exception: str | None = None
    silent: str | None = None
    #: failures the client only logs (a non-fatal step)
    warnings: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.exception is not None or self.silent is not None


@dataclass
class Verdict:
    kind: str
    principal: str
    host: str
    works: bool
    #: the simple name of the exception the application meets (None when it works or fails silently)
    exception: str | None
    #: the client call where it surfaces
    step: str | None
    #: the exception it arrives wrapped in (Streams: StreamsException), when there is one
    surfaced_as: str | None = None
    #: the Streams thread's phase, when relevant
    phase: str | None = None
    #: it does not work but nothing throws: what is missing from an answer
    silent: str | None = None
    #: the check that failed it (None when it works or the client refused its configuration)
    failing_check: Check | None = None
    failing_call: Call | None = None
    steps: list[StepResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def calls(self) -> list[tuple[Step, Call]]:
        return [(r.step, c) for r in self.steps for c in r.calls]


def _exception_for(step: Step, call: Call, error: str) -> str | None:
    """The exception the client surfaces at ``step`` for ``error`` in ``call``'s answer ("" when it
    surfaces none: the client waits or goes on)."""
    if error == UNKNOWN_TOPIC:
        return step.unknown_topic
    if call.request.api == "TxnOffsetCommit" and error == "TOPIC_AUTHORIZATION_FAILED":
        # TransactionManager.TxnOffsetCommitHandler has no branch for it: a fatal KafkaException.
        return "KafkaException"
    return EXCEPTIONS.get(error, f"{_camel(error)}Exception")


def _camel(error: str) -> str:
    return "".join(part.capitalize() for part in error.split("_"))


def _failing_check(call: Call) -> Check | None:
    """The denied check that made the call fail: the last one whose denial carries the call's error."""
    error = call.first_error()
    denied = [c for c in call.checks if not c.allowed and c.on_deny in (OnDeny.FAILS, OnDeny.RESOURCE)]
    for check in denied:
        if check.error == error:
            return check
    return denied[0] if denied else None


def evaluate(workflow: Workflow, cluster: Cluster, caller: Caller) -> Verdict:
    verdict = Verdict(workflow.kind, caller.principal, caller.host, True, None, None, notes=list(workflow.notes))
    if workflow.config_error is not None:
        step = workflow.steps[0]
        verdict.works, verdict.exception, verdict.step = False, workflow.config_error.exception, step.name
        verdict.silent = None
        verdict.notes.append(f"the client refuses its configuration: {workflow.config_error}")
        verdict.steps.append(StepResult(step, exception=workflow.config_error.exception))
        return verdict
    absent = set(cluster.absent_topics) | set(workflow.absent)
    for step in workflow.steps:
        result = StepResult(step)
        verdict.steps.append(result)
        for request in step.requests:
            call = handle(replace(cluster, absent_topics=frozenset(absent)), caller, request)
            result.calls.append(call)
            for topic in step.tolerate_absent:
                if call.resource_errors.get(topic) == UNKNOWN_TOPIC:
                    del call.resource_errors[topic]
                    call.notes.append(f"{topic} does not exist yet: this call creates it further on")
            _apply_creations(call, absent)
            for name, error in list(call.resource_errors.items()):
                if error in step.ignore_errors:
                    del call.resource_errors[name]
            outcome = _client_outcome(step, call)
            if outcome is None:
                continue
            exception, silent = outcome
            if not step.fatal:
                result.warnings.append(f"{request.api}: {call.first_error() or silent} (only logged; the "
                                       "application goes on)")
                continue
            result.exception, result.silent = exception, silent
            verdict.works = False
            verdict.exception, verdict.silent = exception, silent
            verdict.step, verdict.phase = step.name, step.phase or None
            verdict.surfaced_as = workflow.wrapper if exception else None
            verdict.failing_call = call
            verdict.failing_check = _failing_check(call)
            return verdict
        verdict.warnings.extend(result.warnings)
    return verdict


def _apply_creations(call: Call, absent: set[str]) -> None:
    if call.request.api == "CreateTopics":
        absent.difference_update(t for t in call.request.topics if t not in call.resource_errors)
    elif call.request.api == "Metadata":
        for note in call.notes:
            if note.startswith("auto-created"):
                absent.difference_update(t for t in call.request.topics if t not in call.resource_errors)


def _client_outcome(step: Step, call: Call) -> tuple[str | None, str | None] | None:
    """(exception, silent failure) when the client stops here, None when it goes on."""
    error = call.first_error()
    if error is not None:
        exception = _exception_for(step, call, error)
        if exception:
            return exception, None
        name = next((n for n, e in call.resource_errors.items() if e == error), "")
        if error == UNKNOWN_TOPIC:
            return None, (f"{step.name}() gets nothing: topic {name} does not exist (the client waits for it "
                          "and logs a warning)")
        return None, f"{step.name}() gets nothing: {error} for {name}"
    if call.filtered and call.request.api != "DescribeTransactions":
        what = "groups" if call.request.api == "ListGroups" else "topics"
        return None, (f"{step.name}() answers without the {what} {', '.join(call.filtered)} (left out silently: "
                      f"no error, no exception)")
    return None
