"""What the workbench's browser scripts share: Debian's Chromium launched by
Playwright for Python, one fresh context per test, a screenshot of each
failing test, one line per test and a summary (`<name>: N passed, M failed`);
exits 1 when a test failed."""

import os
import sys
import traceback

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("MEDIAOPS_TEST_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 20_000


def run(name, tests, out, **context_options):
    """Runs each of `tests` (functions of a page); failing ones leave `FAILED-<test>.png` in `out`."""
    os.makedirs(out, exist_ok=True)
    failed = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for test in tests:
            context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN", **context_options)
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            try:
                test(page)
                assert not errors, f"script errors: {errors}"
                print(f"ok   {test.__name__}")
            except Exception:
                failed += 1
                shot = os.path.join(out, f"FAILED-{test.__name__}.png")
                page.screenshot(path=shot, full_page=True)
                print(f"FAIL {test.__name__} (screenshot {shot})")
                traceback.print_exc()
            finally:
                context.close()
        browser.close()
    print(f"{name}: {len(tests) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
