"""YAML as the writers write it: a scalar that reads back as exactly the text it was given.

Shared by every writer of a YAML-based format (Strimzi KafkaUsers, KSM YAML, kafka-gitops state files,
Jikkou resources); ``yamlnodes`` is the reading side.
"""

from __future__ import annotations

import re

_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./-]*")
#: YAML 1.1 words a plain scalar would turn into something else than a string
_SPECIAL = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}
#: escaped in a double-quoted scalar: what YAML cannot print, and its line breaks (NEL, LS, PS), which a
#: quoted scalar would fold into spaces
_UNPRINTABLE = re.compile("[^\t\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def quote(text: str) -> str:
    """A YAML scalar that reads back as exactly ``text`` (plain when that is unambiguous)."""
    if _PLAIN.fullmatch(text) and text.lower() not in _SPECIAL:
        return text
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    body = _UNPRINTABLE.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", body)
    return f'"{body}"'
