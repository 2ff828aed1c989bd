"""SCRAM-SHA-256/512 exactly as Kafka computes, stores, parses and exchanges it.

``credential`` is the math (PBKDF2 and the keys, with Kafka's quirks: no SASLprep, "Empty key", U1
for one iteration), the credential Kafka stores (never the password) in its string and record
forms, ``kafka-storage format --add-scram`` arguments read and written as Kafka's ScramParser does,
and a whole client/server conversation as a transcript; ``records`` reads credential record files
(``UserScramCredentialRecord`` JSON), checked field by field.

Pure: no terminal, no network; nothing here prints, logs or puts a password in a message. Other
packages import what is listed here.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.scram.credential import (
        AddScramResult,
        ExchangeResult,
        KafkaScramClient,
        KafkaScramServer,
        ScramAuthError,
        ScramCredential,
        ScramError,
        ScramMechanism,
        TranscriptStep,
        add_scram_argument,
        add_scram_name_problem,
        b64,
        client_properties,
        exchange,
        new_nonce,
        new_salt,
        parse_add_scram,
        salted_password,
    )
    from kafka_authz_cli.scram.records import (
        MAX_ITERATIONS,
        StoredRecord,
        load_records,
        parse_records,
        record_from_json,
    )

__getattr__, __all__ = lazy_face(__name__, {
    # credential
    "AddScramResult": "credential", "ExchangeResult": "credential", "KafkaScramClient": "credential",
    "KafkaScramServer": "credential", "ScramAuthError": "credential", "ScramCredential": "credential",
    "ScramError": "credential", "ScramMechanism": "credential", "TranscriptStep": "credential",
    "add_scram_argument": "credential", "add_scram_name_problem": "credential", "b64": "credential",
    "client_properties": "credential", "exchange": "credential", 
    "new_nonce": "credential", "new_salt": "credential", "parse_add_scram": "credential",
    "salted_password": "credential",
    # records
    "MAX_ITERATIONS": "records", "StoredRecord": "records", "load_records": "records", "parse_records": "records",
    "record_from_json": "records",
})
