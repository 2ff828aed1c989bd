"""The HTML report of `authz access`, read as text: self-contained, escaped, and its packed data holds
exactly the document's entries. The page in a real browser: test_access_html_browser.py."""

import base64
import hashlib
import json
import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli.review import render_access_html
from kafka_authz_cli.review.access_html import ENTRY_FIELDS, REASON_LABELS, acl_text, pack, render
from tests.review.access_html_docs import (
    EVIL_ORIGIN,
    EVIL_PRINCIPAL,
    EVIL_TOPIC,
    QUOTED_TOPIC,
    acl,
    doc,
    entry,
    evil_doc,
    known_doc,
    large_doc,
)


def payload(page: str) -> dict:
    block = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1)
    return json.loads(block)


def unpack(data: dict) -> list[tuple]:
    """The entries back from the packed tables, in a comparable form."""
    w = len(ENTRY_FIELDS)
    out = []
    for i in range(0, len(data["entries"]), w):
        p, r, o, h, implied, via, exc = data["entries"][i:i + w]
        out.append((data["principals"][p], tuple(data["resources"][r]), data["operations"][o], data["hosts"][h],
                    bool(implied), tuple(data["vias"][via]), tuple(tuple(x) for x in data["excepts"][exc])))
    return out


def expected(d: dict) -> list[tuple]:
    return [(e["principal"], (e["resource_type"], e["resource_name"]), e["operation"], e["host"], e["implied"],
             (e["via"]["reason"], acl_text(e["via"]["acl"]) if e["via"]["acl"] else "", e["via"]["origin"] or ""),
             tuple((x["principal"], x["host"]) for x in e["except"]))
            for e in d["access"]]


def test_the_face_exports_render():
    assert render_access_html is render


def test_the_page_is_one_file_with_no_address_to_fetch_and_a_policy_that_allows_only_its_own_script():
    page = render(known_doc())
    assert not re.search(r"https?:|//[a-z]|\bsrc=|\bhref=|@import|url\(", page, re.I)
    scripts = re.findall(r"<script(?: [^>]*)?>(.*?)</script>", page, re.S)
    assert len(scripts) == 2  # the data block and the code
    digest = base64.b64encode(hashlib.sha256(scripts[1].encode()).digest()).decode()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp and "unsafe-inline'; img" in csp


def test_hostile_names_never_reach_the_markup_and_come_back_exactly_from_the_data():
    d = evil_doc()
    page = render(d, title=EVIL_PRINCIPAL)
    for raw in (EVIL_PRINCIPAL, EVIL_TOPIC, EVIL_ORIGIN, "<img", "<svg", "<b>", "<i>"):
        assert raw not in page
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert "<title>User:&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;</title>" in page
    assert sorted(unpack(payload(page))) == sorted(expected(d))
    assert QUOTED_TOPIC in payload(page)["resources"][0] + payload(page)["resources"][1]


def test_a_name_that_cannot_be_encoded_does_not_stop_the_report():
    bad = "User:caf\udce9"  # a lone surrogate, as a mis-decoded file can give
    page = render(doc([entry(bad, "READ", name="t\udcff")]), title=bad)
    page.encode("utf-8")  # writable as UTF-8
    assert payload(page)["principals"] == [bad]


def test_rows_are_contiguous_and_everyone_comes_first():
    data = pack(known_doc())
    assert data["principals"][0] == "User:*"
    w, starts = len(ENTRY_FIELDS), data["row_start"]
    for p in range(len(data["principals"])):
        rows = {data["entries"][i * w] for i in range(starts[p], starts[p + 1])}
        assert rows == {p}
    assert starts[-1] * w == len(data["entries"])
    assert data["operations"] == ["READ", "WRITE", "ALTER", "DESCRIBE"]  # Kafka's order, not the alphabet's
    assert data["reasons"] == REASON_LABELS


def test_an_empty_answer_is_a_page_that_says_so():
    page = render(doc([]))
    assert payload(page)["entries"] == [] and "0 grants" in page
    # The matrix has a column for each resource someone may access; the others reviewed are counted.
    assert "0 resources (and 1,000 that no one may access)" in render({"access": [], "resources": 1000})
    assert "0 resources." in render({"access": [], "resources": None})


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
entries = st.builds(
    lambda p, t, n, o, h, implied, reason, with_acl, origin, exc: entry(
        p, o, t, n, host=h, implied=implied, reason=reason, binding=acl(p, o, t, n, host=h) if with_acl else None,
        origin=origin, excepts=exc),
    st.sampled_from(["User:*", "User:a", "User:<b>", "Group:x"]) | names,
    st.sampled_from(["TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID"]), names,
    st.sampled_from(["READ", "WRITE", "DESCRIBE", "ALTER", "IDEMPOTENT_WRITE", "SOMETHING_NEW"]),
    st.sampled_from(["*", "10.0.0.1", "::1"]) | names, st.booleans(), st.sampled_from(sorted(REASON_LABELS)),
    st.booleans(), st.none() | names, st.lists(st.tuples(names, names), max_size=2))


@settings(max_examples=100)
@given(st.lists(entries, max_size=25))
def test_the_packed_data_holds_exactly_the_entries_of_the_document(access):
    d = doc(access)
    assert sorted(unpack(payload(render(d)))) == sorted(expected(d))


def test_a_thousand_principals_by_a_thousand_resources_renders_fast_into_a_file_of_a_few_megabytes():
    small, large = large_doc(100, 100), large_doc(1000, 1000)
    t0 = time.perf_counter()
    render(small)
    t1 = time.perf_counter()
    page = render(large)
    t2 = time.perf_counter()
    n = len(large["access"])
    size = len(page.encode("utf-8"))
    json_size = len(json.dumps(large).encode())
    print(f"\naccess html: {n} entries (1000 x 1000) in {t2 - t1:.2f}s ({(t2 - t1) / (t1 - t0):.1f}x the 100 x 100's "
          f"{len(small['access'])}); {size / 1e6:.1f} MB = {size / n:.0f} bytes/entry, "
          f"{size / json_size:.2f} of its JSON")
    assert n == 41_000
    assert size < json_size / 4 and size / n < 100
    assert t2 - t1 < 10
