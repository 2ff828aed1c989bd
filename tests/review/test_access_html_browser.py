"""The HTML report of `authz access` in a real headless browser: Debian's chromium driven by Playwright's
Python API through ``executable_path`` (only Playwright's driver is installed, from pip; `make test`
installs chromium with apt-get when it is missing). Never skipped: without chromium or Playwright the
tests fail and say what is missing.

Each test loads a page written by ``render`` from a document built here, watches the console, page
errors and every request, and reads the matrix back from the DOM."""

import os
import shutil
import time
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from kafka_authz_cli.review.access_html import render
from tests.review.access_html_docs import (
    EVIL_ORIGIN,
    EVIL_PRINCIPAL,
    EVIL_TOPIC,
    KNOWN_CELLS,
    QUOTED_TOPIC,
    evil_doc,
    known_doc,
    large_doc,
)

#: The matrix as the user sees it: row headers, column headers (their title: "TYPE name"), and the
#: operations of every non-empty cell keyed by [principal, column].
READ_MATRIX = """() => {
  const cols = [...document.querySelectorAll('#matrix thead th.col')].map(t => t.title);
  const rows = [...document.querySelectorAll('#matrix tbody th .name')].map(t => t.textContent);
  const counts = [...document.querySelectorAll('#matrix th .n')].map(t => t.textContent);
  const cells = [];
  document.querySelectorAll('#matrix tbody tr').forEach((tr, r) => {
    tr.querySelectorAll('td').forEach((td, c) => {
      const ops = [...td.querySelectorAll('.op')].map(s => s.dataset.op);
      if (ops.length) cells.push([rows[r], cols[c], ops]);
    });
  });
  return {rows, cols, cells, counts};
}"""


def chromium_path() -> str:
    path = os.environ.get("AUTHZ_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail("chromium is missing: the HTML report's browser test needs Debian's chromium "
                    "(`make test` installs it as root with apt-get install chromium; or set AUTHZ_CHROMIUM)")
    return path


@pytest.fixture(scope="module")
def chromium():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), headless=True)
        yield b
        b.close()


@pytest.fixture
def browser(chromium):
    """The browser, with every page a test opened closed after it."""
    before = set(chromium.contexts)
    yield chromium
    for context in set(chromium.contexts) - before:
        context.close()


class Loaded:
    """A page of the report with what it logged and requested."""

    def __init__(self, browser, path: Path):
        self.url = path.as_uri()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page = browser.new_page()
        self.page.set_default_timeout(15_000)
        self.page.on("console", lambda m: m.type in ("error", "warning") and self.errors.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("request", lambda r: self.requests.append(r.url))
        # Anything but the file itself is refused before it leaves the machine (and recorded above).
        self.page.route("**/*", lambda route: route.continue_() if route.request.url == self.url else route.abort())
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready='1']", state="attached")

    def matrix(self) -> dict:
        m = self.page.evaluate(READ_MATRIX)
        m["cells"] = {(p, c): ops for p, c, ops in m["cells"]}
        return m

    def redrawn(self, action) -> dict:
        """Do ``action`` and wait until the matrix is drawn again (filters are debounced)."""
        before = int(self.page.evaluate("document.body.dataset.draws"))
        action()
        self.page.wait_for_function("n => Number(document.body.dataset.draws) > n", arg=before)
        return self.matrix()


def load(browser, tmp_path, doc, name="report.html") -> Loaded:
    path = tmp_path / name
    path.write_text(render(doc), encoding="utf-8")
    return Loaded(browser, path)


def test_the_matrix_shows_the_known_cells_without_a_console_error_or_a_request(browser, tmp_path):
    r = load(browser, tmp_path, known_doc())
    m = r.matrix()
    assert m["cells"] == KNOWN_CELLS
    assert m["rows"] == ["User:*", "User:admin", "User:alice", "User:bob", "User:carol"]
    assert m["cols"] == ["GROUP app", "TOPIC orders", "TOPIC orders-eu-1"]
    assert m["counts"] == [" (1)", " (4)", " (1)"] + [" (1)", " (1)", " (2)", " (1)", " (1)"]  # columns, then rows
    assert "11 of 11 grants shown" in r.page.text_content("#counts")
    assert r.page.text_content("tbody tr:nth-child(4) td:nth-child(3)") == "WRITE@10.0.0.1DESCRIBE@10.0.0.1"
    assert r.errors == [] and r.requests == [r.url]


def test_typing_in_the_principal_filter_hides_the_other_rows(browser, tmp_path):
    r = load(browser, tmp_path, known_doc())
    m = r.redrawn(lambda: r.page.fill("#pfilter", "ALICE"))
    assert m["rows"] == ["User:alice"]
    assert m["cells"] == {k: v for k, v in KNOWN_CELLS.items() if k[0] == "User:alice"}
    m = r.redrawn(lambda: r.page.fill("#rfilter", "group:"))
    assert m["cells"] == {("User:alice", "GROUP app"): ["READ"]}
    r.redrawn(lambda: r.page.fill("#pfilter", ""))
    m = r.redrawn(lambda: r.page.fill("#rfilter", ""))
    assert m["cells"] == KNOWN_CELLS and r.errors == []


def test_an_operation_checkbox_hides_its_cells_and_rows_left_empty(browser, tmp_path):
    r = load(browser, tmp_path, known_doc())
    m = r.redrawn(lambda: r.page.uncheck("#ops input[data-op=READ]"))
    without_read = {k: [o for o in v if o != "READ"] for k, v in KNOWN_CELLS.items()}
    assert m["cells"] == {k: v for k, v in without_read.items() if v}
    m = r.redrawn(lambda: r.page.uncheck("#ops input[data-op=DESCRIBE]"))
    assert m["rows"] == ["User:admin", "User:bob"]  # nothing left for User:*, alice and carol
    assert m["cells"] == {("User:admin", "TOPIC orders"): ["ALTER"], ("User:bob", "TOPIC orders"): ["WRITE"]}
    assert m["counts"] == [" (2)", " (1)", " (1)"]
    assert "2 of 11 grants shown" in r.page.text_content("#counts")
    r.redrawn(lambda: r.page.check("#ops input[data-op=READ]"))
    m = r.redrawn(lambda: r.page.check("#ops input[data-op=DESCRIBE]"))
    assert m["cells"] == KNOWN_CELLS and r.errors == []


def test_hide_implied_keeps_operations_granted_by_their_own_acl(browser, tmp_path):
    r = load(browser, tmp_path, known_doc())
    m = r.redrawn(lambda: r.page.check("#implied"))
    assert m["cells"] == {**KNOWN_CELLS, ("User:alice", "TOPIC orders"): ["READ"], ("User:bob", "TOPIC orders"): ["WRITE"],
                          ("User:carol", "TOPIC orders-eu-1"): ["READ"]}


def test_widest_first_sorts_rows_and_columns_by_their_counts(browser, tmp_path):
    r = load(browser, tmp_path, known_doc())
    m = r.redrawn(lambda: r.page.check("#bycount"))
    assert m["rows"] == ["User:alice", "User:*", "User:admin", "User:bob", "User:carol"]  # alice: 2 resources
    assert m["cols"] == ["TOPIC orders", "GROUP app", "TOPIC orders-eu-1"]  # orders: 4 principals
    assert m["cells"] == KNOWN_CELLS
    m = r.redrawn(lambda: r.page.uncheck("#bycount"))
    assert m["rows"][:2] == ["User:*", "User:admin"]


def test_resources_as_rows_transposes_the_matrix_and_its_filters_still_apply(browser, tmp_path):
    r = load(browser, tmp_path, known_doc())
    assert not r.page.is_checked("#swap")  # a resource query: principals as rows
    m = r.redrawn(lambda: r.page.check("#swap"))
    assert m["rows"] == ["app", "orders", "orders-eu-1"]
    assert m["cols"] == ["User:*", "User:admin", "User:alice", "User:bob", "User:carol"]
    assert m["cells"] == {(res.split(" ", 1)[1], p): ops for (p, res), ops in KNOWN_CELLS.items()}
    assert m["counts"] == [" (1)", " (1)", " (2)", " (1)", " (1)", " (1)", " (4)", " (1)"]
    r.redrawn(lambda: r.page.uncheck("#ops input[data-op=DESCRIBE]"))
    m = r.redrawn(lambda: r.page.fill("#pfilter", "a"))  # alice, carol, admin
    assert m["cells"] == {("app", "User:alice"): ["READ"], ("orders", "User:alice"): ["READ"],
                          ("orders", "User:admin"): ["READ", "ALTER"], ("orders-eu-1", "User:carol"): ["READ"]}
    assert m["cols"] == ["User:admin", "User:alice", "User:carol"]
    assert r.page.text_content("#counts").startswith("Resources 1–3 of 3 shown (3 in all) · principals 1–3")
    r.page.locator("tbody tr:nth-child(2) td.has").first.click()
    assert r.page.text_content("#details h2") == "User:admin on TOPIC orders"
    assert r.errors == []


def test_hover_and_click_show_host_reason_deciding_acl_origin_and_except(browser, tmp_path):
    r = load(browser, tmp_path, known_doc())
    cell = r.page.locator("tbody tr:nth-child(1) td.has")
    cell.hover()
    title = cell.get_attribute("title")
    assert title == ("DESCRIBE from *: ACL for User:* \u2014 ALLOW User:* DESCRIBE TOPIC:LITERAL:orders from * "
                     "[acls.csv:4]; except User:mallory, User:eve from 10.0.0.9")
    cell.click()
    rows = r.page.eval_on_selector_all("#details tr", "trs => trs.map(tr => [...tr.cells].map(c => c.textContent))")
    assert rows == [["operation", "", "host", "allowed by", "deciding ACL", "origin", "except (DENY)"],
                    ["DESCRIBE", "", "*", "ACL for User:*", "ALLOW User:* DESCRIBE TOPIC:LITERAL:orders from *",
                     "acls.csv:4", "User:mallory, User:eve from 10.0.0.9"]]
    assert r.page.text_content("#details h2") == "User:* on TOPIC orders"
    r.page.locator("tbody tr:nth-child(2) td.has").click()  # super user: no ACL decides
    assert r.page.eval_on_selector_all("#details tr td:nth-child(4)", "tds => tds.map(t => t.textContent)") == [
        "super user"] * 3
    assert r.errors == []


def test_hostile_names_render_as_text_and_run_nothing(browser, tmp_path):
    r = load(browser, tmp_path, evil_doc())
    m = r.matrix()  # the access of one principal: resources as rows
    assert m["rows"] == [EVIL_TOPIC, QUOTED_TOPIC]
    assert m["cols"] == [EVIL_PRINCIPAL, "User:alice"]
    m = r.redrawn(lambda: r.page.uncheck("#swap"))
    assert m["rows"] == [EVIL_PRINCIPAL, "User:alice"]
    assert m["cols"] == [f"TOPIC {EVIL_TOPIC}", f"TOPIC {QUOTED_TOPIC}"]
    r.page.locator("tbody tr:nth-child(1) td.has").click()
    assert EVIL_ORIGIN in r.page.text_content("#details")
    r.page.locator("tbody tr:nth-child(2) td.has").hover()
    assert r.page.evaluate("window.__pwned") is None
    assert r.page.evaluate("document.querySelectorAll('img, svg, b, i').length") == 0
    assert r.page.evaluate("document.scripts.length") == 2
    assert r.page.title() == "Access of " + EVIL_PRINCIPAL
    assert r.errors == [] and r.requests == [r.url]


def test_the_checks_above_can_fail(browser, tmp_path):
    """Controls: a page that injects markup sets the flag, and one that loads an image is seen requesting it."""
    path = tmp_path / "control.html"
    path.write_text(f'<body data-ready="1">{EVIL_PRINCIPAL}<img src="http://authz.invalid/x.png"></body>')
    r = Loaded(browser, path)
    r.page.wait_for_function("() => window.__pwned === 1")
    assert "http://authz.invalid/x.png" in r.requests


def test_a_thousand_principals_by_a_thousand_resources_stays_usable(browser, tmp_path):
    t0 = time.perf_counter()
    load(browser, tmp_path, large_doc(100, 100), "small.html")
    t1 = time.perf_counter()
    r = load(browser, tmp_path, large_doc(1000, 1000), "large.html")
    t2 = time.perf_counter()
    m = r.matrix()
    assert len(m["rows"]) == 100 and len(m["cols"]) == 40  # one page of the matrix in the DOM, not a million cells
    assert r.page.evaluate("document.querySelectorAll('td').length") == 4000
    assert "of 1001 shown (1001 in all)" in r.page.text_content("#counts")
    m = r.redrawn(lambda: r.page.click("#nrow"))
    assert m["rows"][0] == "User:svc-00099"
    t3 = time.perf_counter()
    m = r.redrawn(lambda: r.page.fill("#pfilter", "svc-00999"))
    t4 = time.perf_counter()
    assert m["rows"] == ["User:svc-00999"] and len(m["cells"]) == 20
    print(f"\naccess html in chromium: 1000 x 1000 (41,000 grants) written and loaded in {t2 - t1:.2f}s "
          f"({(t2 - t1) / (t1 - t0):.1f}x the 100 x 100), a filter redrawn in {t4 - t3:.2f}s")
    assert t2 - t1 < 20 and t4 - t3 < 5
    m = r.redrawn(lambda: r.page.check("#swap"))
    assert len(m["rows"]) == 20 and m["cols"] == ["User:svc-00999"] and len(m["cells"]) == 20
    assert r.errors == [] and r.requests == [r.url]


def test_the_report_authz_access_writes_shows_what_its_json_says(browser, tmp_path):
    """End to end: the command's own HTML for a real ACL file, read back from the browser, holds exactly
    the cells its --format json lists (principal x resource -> operations)."""
    import json

    from typer.testing import CliRunner

    from kafka_authz_cli.cli.app import app

    acls = Path(__file__).parents[2] / "examples" / "whatif" / "proposed.json"
    runner = CliRunner()
    html_path = tmp_path / "access.html"
    made = runner.invoke(app, ["access", str(acls), "--resource-prefix", "orders", "--format", "html",
                               "-o", str(html_path)])
    assert made.exit_code == 0, made.output
    doc = json.loads(runner.invoke(app, ["access", str(acls), "--resource-prefix", "orders", "--format",
                                         "json"]).stdout)
    expected: dict = {}
    for e in doc["access"]:
        expected.setdefault((e["principal"], f"{e['resource_type']} {e['resource_name']}"), set()).add(e["operation"])
    assert expected, "the example grants something on orders*"
    page = Loaded(browser, html_path)
    got = {k: set(v) for k, v in page.matrix()["cells"].items()}
    assert got == expected and page.errors == [] and page.requests == [page.url]


def test_a_class_in_words_is_shown_whole_in_its_header(browser, tmp_path):
    """Two merged classes whose words differ only at the end (`--resource-prefix orders`) are told
    apart on the page: no header is clipped, as a row or as a column."""
    from kafka_authz_cli.services.access import AccessOptions, run_access

    examples = Path(__file__).resolve().parents[2] / "examples" / "whatif" / "proposed.json"
    doc = run_access(AccessOptions(str(examples), resource_prefix="orders")).document()
    r = load(browser, tmp_path, doc)
    clipped = """() => [...document.querySelectorAll('#matrix thead th.col, #matrix tbody th')]
        .filter(t => t.scrollHeight > t.clientHeight + 1 || t.scrollWidth > t.clientWidth + 1)
        .map(t => t.textContent)"""
    heads = r.page.evaluate("() => [...document.querySelectorAll('#matrix thead th.col')].map(t => t.textContent)")
    assert any("except `orders-audit`" in h for h in heads) and any(h.startswith("topic every topic starting with `orders-` (")
                                                                     for h in heads), heads
    assert r.page.evaluate(clipped) == []
    r.redrawn(lambda: r.page.check("#swap"))
    assert r.page.evaluate(clipped) == [] and r.errors == []
