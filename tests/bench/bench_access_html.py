"""The HTML report of `authz access` at three sizes (N principals x N resources, each principal granted 20
topics, DESCRIBE implied, User:* describing every topic) and one dense size (every principal on every
resource): render time, file size, and in chromium the time to the first drawn matrix and to a filter's
redraw. Ratios against the smallest size of the same run.

    python tests/bench/bench_access_html.py [--quick]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from timing import best_of  # noqa: E402

from kafka_authz_cli.review.access_html import render  # noqa: E402
from tests.review.access_html_docs import large_doc  # noqa: E402


def in_browser(browser, path: Path) -> tuple[float, float]:
    """Seconds to the first drawn matrix, and to the redraw after a principal filter."""
    page = browser.new_page()
    t0 = time.perf_counter()
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready='1']", state="attached", timeout=120_000)
    t1 = time.perf_counter()
    before = int(page.evaluate("document.body.dataset.draws"))
    page.fill("#pfilter", "svc-0000")
    page.wait_for_function("n => Number(document.body.dataset.draws) > n", arg=before, timeout=120_000)
    t2 = time.perf_counter()
    page.close()
    # The filter waits 120 ms for more typing before it redraws: not the page's work.
    return t1 - t0, t2 - t1 - 0.12


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sizes = [(100, 20), (300, 20), (1000, 20)] if not args.quick else [(30, 20), (100, 20), (300, 20)]
    sizes.append((300, 300) if not args.quick else (100, 100))
    browser = playwright = None
    chromium = shutil.which("chromium")
    if chromium:
        from playwright.sync_api import sync_playwright
        playwright = sync_playwright().start()
        browser = playwright.chromium.launch(executable_path=chromium)
    else:
        print("chromium is missing: render time and size only")
    base = None
    print(f"{'principals x resources':>24} {'grants':>9} {'render s':>9} {'MB':>6} {'B/grant':>8} {'load s':>7} "
          f"{'filter s':>8}  ratios vs the first row (grants, render, load)")
    with tempfile.TemporaryDirectory() as tmp:
        for n, per in sizes:
            doc = large_doc(n, n, per_principal=per)
            grants = len(doc["access"])
            secs = best_of(lambda: render(doc), repeat=3)
            page = render(doc)
            path = Path(tmp) / f"access-{n}-{per}.html"
            path.write_text(page, encoding="utf-8")
            size = path.stat().st_size
            load, redraw = in_browser(browser, path) if browser else (float("nan"), float("nan"))
            base = base or (grants, secs, load)
            label = f"{n} x {n}" + (" dense" if per >= n else "")
            print(f"{label:>24} {grants:>9,} {secs:>9.3f} {size / 1e6:>6.1f} {size / grants:>8.0f} {load:>7.2f} "
                  f"{redraw:>8.3f}  {grants / base[0]:.0f}x, {secs / base[1]:.1f}x, {load / base[2]:.1f}x", flush=True)
    if browser:
        browser.close()
        playwright.stop()


if __name__ == "__main__":
    main()
