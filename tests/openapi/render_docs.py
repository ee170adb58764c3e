"""Opens the service's /docs page in headless Chromium (docs/openapi.md).

Usage: render_docs.py <base URL> <screenshot path>

Prints one JSON line: the number of operation blocks Swagger UI rendered,
the document title it shows, every URL the page requested, and the page's
errors. tests/openapi.rs checks them. Needs Debian's `chromium` (or
$CHROMIUM) and Playwright for Python (`pip install playwright`); the
browser Playwright would download is not used. Exits 2 naming what is
missing.
"""

import json
import os
import shutil
import sys

base, screenshot = sys.argv[1].rstrip("/"), sys.argv[2]
chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    print("MISSING: no chromium on PATH (apt-get install -y chromium; .ci/run installs it)", file=sys.stderr)
    sys.exit(2)
try:
    from playwright.sync_api import sync_playwright
except ImportError:
    print("MISSING: Playwright for Python (pip install playwright; .ci/run installs it)", file=sys.stderr)
    sys.exit(2)

requests, errors = [], []
with sync_playwright() as playwright:
    browser = playwright.chromium.launch(
        executable_path=chromium,
        headless=True,
        args=[
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    )
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    page.on("request", lambda request: requests.append(request.url))
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on("console", lambda message: message.type == "error" and errors.append(f"console: {message.text}"))
    page.goto(f"{base}/docs", wait_until="networkidle")
    page.wait_for_selector(".opblock", timeout=60_000)
    # Swagger UI draws the tag groups one after another: wait until it has drawn
    # as many operation blocks as the document has operations (or 60 s pass;
    # the count below then tells how far it got).
    expected = page.evaluate(
        """async () => {
            const doc = await (await fetch(new URL("openapi.json", document.baseURI))).json();
            const methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
            return Object.values(doc.paths).reduce(
                (n, item) => n + Object.keys(item).filter((k) => methods.includes(k)).length, 0);
        }"""
    )
    try:
        page.wait_for_function(
            "n => document.querySelectorAll('.opblock').length >= n", arg=expected, timeout=60_000
        )
    except Exception as error:  # the assertion on the count reports it
        errors.append(f"timeout: {expected} operation blocks not drawn within 60 s: {error}")
    result = {
        "operations": page.locator(".opblock").count(),
        "operation_ids": page.locator(".opblock .opblock-summary-operation-id").all_inner_texts(),
        "title": page.locator(".info .title").first.inner_text(),
        "requests": requests,
        "errors": errors,
    }
    page.screenshot(path=screenshot)
    browser.close()
print(json.dumps(result, ensure_ascii=False))
