"""Opens the service's /docs page in headless Chromium (docs/openapi.md).

Usage: render_docs.py <base URL> <screenshot path>

Prints one JSON line: the number of operation blocks Swagger UI rendered
(tag by tag),
the document title it shows, every URL the page requested, and the page's
errors. tests/e2e/openapi.rs checks them. Needs Debian's `chromium` (or
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
    # /docs opens with every tag collapsed (docs/openapi.md): open each tag in
    # turn, read its operations, and close it again.
    page.wait_for_selector(".opblock-tag", timeout=60_000)
    tags = page.locator(".opblock-tag").evaluate_all("els => els.map(e => e.getAttribute('data-tag'))")
    operation_ids = []
    for tag in tags:
        header = page.locator(f'.opblock-tag[data-tag="{tag}"]')
        header.click()
        section = page.locator(f'.opblock-tag-section:has(.opblock-tag[data-tag="{tag}"])')
        section.locator(".opblock").first.wait_for(timeout=30_000)
        operation_ids += section.locator(".opblock .opblock-summary-operation-id").all_inner_texts()
        if tag == tags[0]:
            page.screenshot(path=screenshot)
        header.click()
        page.wait_for_function("() => document.querySelectorAll('.opblock').length === 0", timeout=30_000)
    result = {
        "operations": len(operation_ids),
        "operation_ids": operation_ids,
        "tags": len(tags),
        "title": page.locator(".info .title").first.inner_text(),
        "requests": requests,
        "errors": errors,
    }
    browser.close()
print(json.dumps(result, ensure_ascii=False))
