"""yaml_text.quote, the scalar every YAML writer (Strimzi, KSM, kafka-gitops, Jikkou) writes a name with."""

from __future__ import annotations

import yaml
from hypothesis import given
from hypothesis import strategies as st

from kafka_authz_cli.ecosystem.yaml_text import quote


@given(st.text(max_size=20))
def test_quoted_scalars_read_back_as_themselves(text):
    assert yaml.safe_load(f"k: {quote(text)}\n") == {"k": text}
