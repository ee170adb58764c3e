"""Chart sections in the workbench, in a real browser (docs/workbench.md "Charts").

Debian's Chromium driven by Playwright for Python (harness.py). Run by
`tests/e2e/workbench.rs` (`history_charts_work_in_a_real_browser`), which starts
the service on 2023-10-28 (MEDIAOPS_NOW) with the real Bilibili feed of
2023-10-26 and 2023-10-27 and a sample account of eight days, and passes:

    charts_test.py BASE_URL KEY SAMPLE_ACCOUNT OUT_DIR SCREENSHOT

SCREENSHOT is where the sample account's growth chart is saved (the image in
docs/images/). Prints one line per test and a summary; exits 1 when a test
failed.
"""

import os
import sys

from playwright.sync_api import expect

from harness import TIMEOUT_MS, run

BASE, KEY, SAMPLE_ACCOUNT, OUT, SCREENSHOT = sys.argv[1:6]
ACCOUNT_SERIES = ["粉丝数", "获赞数", "作品数"]


def sign_in(page):
    page.goto(BASE + "/")
    page.get_by_label("API Key").fill(KEY)
    page.get_by_role("button", name="登录").click()
    expect(page.locator("#balance")).to_be_visible()


def drawn_chart(page, points, labels):
    """The drawn chart on the page: its point count, one canvas, its legend."""
    chart = page.locator(".result-section[data-kind=chart] .chart")
    expect(chart).to_have_attribute("data-drawn", "true", timeout=TIMEOUT_MS)
    expect(chart).to_have_attribute("data-points", str(points))
    expect(chart).to_have_attribute("data-series", str(len(labels)))
    expect(chart.locator("canvas")).to_have_count(1)
    legend = chart.locator(".u-legend .u-series .u-label").all_inner_texts()
    assert legend == ["日期"] + labels, legend
    box = chart.locator("canvas").bounding_box()
    assert box and box["width"] > 200 and box["height"] > 100, box
    return chart


def call(page, key, fill):
    page.goto(f"{BASE}/#/op/{key}")
    expect(page.locator("form.op-form")).to_be_visible()
    fill(page)
    page.locator("form.op-form button[type=submit]").click()


def test_a_result_row_links_to_the_accounts_chart(page):
    sign_in(page)
    call(page, "videosite.search-user", lambda p: p.locator("[name=keyword]").fill("木鱼水心"))
    link = page.locator(".result-section[data-kind=collection] a.account-link").first
    expect(link).to_be_visible(timeout=TIMEOUT_MS)
    assert link.get_attribute("href") == "#/account/videosite/927587", link.get_attribute("href")
    link.click()
    expect(page.locator("h1")).to_have_text("木鱼水心 · 账号走势", timeout=TIMEOUT_MS)
    drawn_chart(page, 2, ACCOUNT_SERIES)
    rows = page.locator(".result-section[data-kind=collection] tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("2023-10-26")
    expect(rows.first).to_contain_text("11,386,533")


def test_the_sample_accounts_growth_chart(page):
    sign_in(page)
    page.goto(f"{BASE}/#/account/lifestyle/{SAMPLE_ACCOUNT}")
    expect(page.locator("h1")).to_have_text("示例账号（测试数据） · 账号走势", timeout=TIMEOUT_MS)
    drawn_chart(page, 8, ACCOUNT_SERIES)
    # A shorter window redraws with fewer days.
    page.select_option("#account-days", "7")
    drawn_chart(page, 7, ACCOUNT_SERIES)
    page.select_option("#account-days", "30")
    chart = drawn_chart(page, 8, ACCOUNT_SERIES)
    chart.hover()
    page.locator("main").screenshot(path=SCREENSHOT)


def test_the_history_operations_draw_their_charts(page):
    sign_in(page)

    def work(p):
        p.select_option("select[name=platform]", "videosite")
        p.locator("[name=workId]").fill("BV1cM41197ui")

    call(page, "history.work-history", work)
    drawn_chart(page, 2, ["点赞数", "评论数", "分享数", "播放数", "阅读数"])
    call(page, "history.hot-title-rank", lambda p: p.locator("[name=title]").fill("示例热点（测试数据）"))
    drawn_chart(page, 3, ["当日最高排名", "当日最后排名"])
    # A bad window is refused on its field, nothing drawn.
    call(page, "history.hot-title-rank", lambda p: (p.locator("[name=title]").fill("示例热点（测试数据）"),
                                                    p.locator("[name=days]").fill("400")))
    expect(page.locator(".error-box")).to_be_visible(timeout=TIMEOUT_MS)
    expect(page.locator(".result-section[data-kind=chart]")).to_have_count(0)
    page.screenshot(path=os.path.join(OUT, "hot-title-rank-400.png"), full_page=True)


TESTS = [value for name, value in list(globals().items()) if name.startswith("test_")]

if __name__ == "__main__":
    run("charts", TESTS, OUT, timezone_id="UTC")
