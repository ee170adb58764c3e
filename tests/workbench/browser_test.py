"""The workbench in a real browser (docs/workbench.md).

Debian's Chromium driven by Playwright for Python (launched with
`executable_path`; Playwright's own browser download is not used). Run by
`tests/e2e/workbench.rs`, which starts the service with the archived Bilibili
feed imported and passes:

    browser_test.py BASE_URL KEY POOR_KEY MARKDOWN_FILE OUT_DIR

KEY has plenty of points, POOR_KEY none. Every test saves a screenshot
under OUT_DIR when it fails; the run also saves the screenshots the README
and the closing note show. Prints one line per test and a summary; exits 1
when a test failed.
"""

import json
import os
import subprocess
import sys
import urllib.request

from playwright.sync_api import expect

from harness import TIMEOUT_MS, run

BASE, KEY, POOR_KEY, MARKDOWN_FILE, OUT = sys.argv[1:6]

# The element each descriptor control becomes (spec 2.4 `control`).
CONTROL_SELECTOR = {
    "text": "input[type=text]",
    "textarea": "textarea",
    "number": "input[type=number]",
    "url": "input[type=url]",
    "date": "input[type=date]",
}


def api(path, key=KEY):
    request = urllib.request.Request(BASE + path, headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def catalog():
    apis = api("/api/apis")["data"]["items"]
    skills = api("/api/skills")["data"]["items"]
    seen, ops = set(), []
    for entry in apis + skills:
        if entry["operationKey"] not in seen:
            seen.add(entry["operationKey"])
            ops.append(entry)
    return ops


def balance(key=KEY):
    return api("/api/account/balance", key)["data"]["points"]


def sign_in(page, key=KEY):
    page.goto(BASE + "/")
    page.get_by_label("API Key").fill(key)
    page.get_by_role("button", name="登录").click()
    expect(page.locator("#balance")).to_be_visible()


def control_of(field):
    """The selector a descriptor field's control must match."""
    options = field.get("options") or []
    if field["control"] == "select" and options:
        return "select"
    if field["control"] == "tags":
        return "[role=group] input[type=checkbox]" if options else "textarea"
    return CONTROL_SELECTOR.get(field["control"], "input[type=text]")


def test_sign_in_shows_account_and_balance(page):
    sign_in(page)
    expect(page.locator("#balance")).to_have_text(f"余额 {balance()} 点")
    expect(page.locator(".account-id")).to_contain_text("账户")
    expect(page.locator(".cards").first).to_be_visible()
    page.screenshot(path=os.path.join(OUT, "home.png"), full_page=True)


def test_the_chrome_speaks_chinese(page):
    # A wrong key: the sign-in error is Chinese, not the service's English.
    page.goto(BASE + "/")
    help_text = page.locator("#key-help")
    expect(help_text.locator("code")).to_have_text("mediaops keys create")
    assert "`" not in help_text.inner_text(), "help text shows code, not backticks"
    page.get_by_label("API Key").fill("mk_not_a_key_of_this_service")
    page.get_by_role("button", name="登录").click()
    error = page.locator("#key-error")
    expect(error).to_contain_text("API Key 无效")
    assert "unknown" not in error.inner_text() and "API key" not in error.inner_text(), error.inner_text()
    # Help texts of every form: no literal backticks.
    sign_in(page)
    for op in catalog():
        if any("`" in (f.get("help") or "") for f in op["inputUiSchema"]["fields"]):
            page.goto(f"{BASE}/#/op/{op['operationKey']}")
            expect(page.locator("h1")).to_have_text(op["title"])
            for node in page.locator("form.op-form .help").all():
                assert "`" not in node.inner_text(), (op["operationKey"], node.inner_text())


def test_home_groups_cards_and_disables_what_cannot_run(page):
    sign_in(page)
    ops = [o for o in catalog() if o.get("taskUi")]
    cards = page.locator(".groups .card")
    expect(cards).to_have_count(len(ops))
    blocked = [o for o in ops if o.get("availability") or o["execution"]["mode"] == "unavailable"]
    expect(page.locator(".groups .card.disabled")).to_have_count(len(blocked))
    for op in blocked:
        card = page.locator(f".card[data-operation='{op['operationKey']}']")
        expect(card.locator("a")).to_have_count(0)
        if op.get("availability", {}).get("note"):
            expect(card.locator(".disabled-note")).to_have_text(op["availability"]["note"])
    # Search: skills come from the service's search, with their match reasons.
    page.locator("#search").fill("热点")
    expect(page.locator(".search-status")).to_contain_text("找到")
    expect(page.locator(".reasons").first).to_contain_text("匹配")


def test_copy_as_curl_runs_the_same_call(page):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_in(page)
    page.goto(f"{BASE}/#/op/videosite.search-work")
    page.get_by_label("关键词").fill("史记")
    page.get_by_role("button", name="复制为 curl").click()
    expect(page.locator(".copied")).to_have_text("已复制")
    command = page.evaluate("navigator.clipboard.readText()")
    assert "$MEDIAOPS_KEY" in command and KEY not in command, command
    ran = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=30,
                         env={**os.environ, "MEDIAOPS_KEY": KEY})
    answer = json.loads(ran.stdout)
    assert answer["success"] and "史记" in answer["data"]["items"][0]["title"], ran.stdout
    page.get_by_role("button", name="复制为 grpcurl").click()
    command = page.evaluate("navigator.clipboard.readText()")
    assert command.endswith("mediaops.videosite.v1.VideositeService/SearchWork"), command
    assert "'{\"keyword\":\"史记\"}'" in command, command


def test_every_operation_form_matches_its_descriptor(page):
    sign_in(page)
    ops = catalog()
    checked = controls = 0
    for op in ops:
        page.goto(f"{BASE}/#/op/{op['operationKey']}")
        expect(page.locator("h1")).to_have_text(op["title"])
        fields = op["inputUiSchema"]["fields"]
        rendered = page.locator("form.op-form .field")
        expect(rendered).to_have_count(len(fields))
        for field in fields:
            node = page.locator(f"form.op-form .field[data-path='{field['path']}']")
            assert node.count() == 1, (op["operationKey"], field["path"])
            assert node.locator(control_of(field)).count() >= 1, (op["operationKey"], field)
            label = node.locator("label").first
            target = label.get_attribute("for")
            if target:  # bound label: the control with that id is in the field
                assert node.locator(f"#{target}").count() == 1, (op["operationKey"], field["path"])
            required = node.locator(".required").count() == 1
            assert required == bool(field.get("required")), (op["operationKey"], field["path"])
            if field.get("advanced"):
                assert node.locator("xpath=ancestor::details").count() == 1, (op["operationKey"], field["path"])
            controls += 1
        text = page.locator("main").inner_text()
        for leak in ("null", "undefined", "[object Object]", "NaN"):
            assert leak not in text, (op["operationKey"], leak)
        button = page.locator("form.op-form button[type=submit]")
        price = f"{op['unitPrice']} 点" if op["unitPrice"] > 0 else "免费"
        expect(button).to_contain_text(price)
        unavailable = bool(op.get("availability")) or op["execution"]["mode"] == "unavailable"
        assert button.is_disabled() == unavailable, op["operationKey"]
        checked += 1
    assert checked == len(ops) and checked > 0
    print(f"forms: {checked} operation forms checked, {controls} controls")


def test_search_work_renders_rows_and_charges_the_price(page):
    sign_in(page)
    op = next(o for o in catalog() if o["operationKey"] == "videosite.search-work")
    before = balance()
    page.goto(f"{BASE}/#/op/videosite.search-work")
    page.get_by_label("关键词").fill("史记")
    page.locator("form.op-form button[type=submit]").click()
    rows = page.locator(".result-section[data-kind=collection] tbody tr")
    expect(rows.first).to_be_visible(timeout=TIMEOUT_MS)
    expect(rows.first.locator("td.role-title")).to_contain_text("史记")
    expect(page.locator("#balance")).to_have_text(f"余额 {before - op['unitPrice']} 点")
    assert balance() == before - op["unitPrice"]
    # Table headers are the descriptor's labels (Chinese), each section has
    # one heading, and no heading repeats.
    table = next(s for s in op["outputUiSchema"]["sections"] if s["kind"] == "collection")
    headers = page.locator(".result-section[data-kind=collection] th").all_inner_texts()
    assert headers == [f["label"] for f in table["fields"]], headers
    assert all(not h.isascii() for h in headers), headers
    headings = page.locator(".output h2, .output h3").all_inner_texts()
    assert len(headings) == len(set(headings)) == len(op["outputUiSchema"]["sections"]) + 1, headings
    page.get_by_role("button", name="原始 JSON").click()
    expect(page.locator("pre.raw")).to_contain_text('"success": true')
    page.screenshot(path=os.path.join(OUT, "search-work.png"), full_page=True)


def test_a_running_task_is_polled_to_its_result(page):
    sign_in(page)
    page.goto(f"{BASE}/#/op/skills.ai-web-search")
    page.locator(".field[data-path=query] textarea, .field[data-path=query] input").fill("露营要带什么")
    page.locator("form.op-form button[type=submit]").click()
    expect(page.locator(".progress")).to_contain_text("运行中", timeout=TIMEOUT_MS)
    section = page.locator(".result-section[data-kind=fields]")
    expect(section).to_contain_text("露营要带什么", timeout=TIMEOUT_MS)
    expect(section.locator("dd.role-title")).to_contain_text("帐篷")
    expect(page.locator(".progress")).to_have_count(0)


def test_field_errors_land_on_their_field(page):
    sign_in(page)
    page.goto(f"{BASE}/#/op/videosite.search-work")
    page.locator("form.op-form button[type=submit]").click()
    field = page.locator(".field[data-path=keyword]")
    expect(field.locator(".field-error")).to_have_text("必填")
    expect(field.locator("input")).to_be_focused()
    # A server-side 400 names the field: a link the service does not take.
    page.goto(f"{BASE}/#/op/videosite.query-work")
    page.locator(".field[data-path=bvId] input").fill("https://b23.tv/x")
    page.locator("form.op-form button[type=submit]").click()
    expect(page.locator(".error-box")).to_contain_text("invalid_input", timeout=TIMEOUT_MS)
    expect(page.locator(".error-box strong")).to_contain_text("输入有误")
    expect(page.locator(".field[data-path=bvId] .field-error")).to_contain_text("输入有误")
    expect(page.locator(".field[data-path=bvId] input")).to_have_attribute("aria-invalid", "true")


def test_insufficient_points_show_price_and_balance(page):
    sign_in(page, POOR_KEY)
    page.goto(f"{BASE}/#/op/videosite.search-work")
    page.get_by_label("关键词").fill("史记")
    page.locator("form.op-form button[type=submit]").click()
    box = page.locator(".error-box")
    expect(box).to_contain_text("insufficient_points", timeout=TIMEOUT_MS)
    expect(box.locator("strong")).to_contain_text("点数不足")
    expect(box).to_contain_text("当前余额 0 点")
    assert balance(POOR_KEY) == 0


def test_editor_previews_with_two_themes(page):
    sign_in(page)
    page.goto(f"{BASE}/#/editor")
    theme = page.locator("#theme")
    expect(theme.locator("option")).not_to_have_count(0)
    with open(MARKDOWN_FILE, encoding="utf-8") as source:
        page.locator("#markdown").fill(source.read())
    frame = page.locator("iframe.preview")
    expect(frame).to_be_visible(timeout=TIMEOUT_MS)
    assert frame.get_attribute("sandbox") == "", "the preview runs with every sandbox restriction"
    first_theme = page.locator(".preview-holder").get_attribute("data-theme")
    first = frame.get_attribute("srcdoc")
    other = next(v for v in theme.locator("option").evaluate_all("os => os.map(o => o.value)") if v != first_theme)
    theme.select_option(other)
    expect(page.locator(".preview-holder")).to_have_attribute("data-theme", other, timeout=TIMEOUT_MS)
    second = page.locator("iframe.preview").get_attribute("srcdoc")
    assert first != second, "a second theme renders differently"
    assert page.frame_locator("iframe.preview").locator("h1, h2").count() > 0
    page.screenshot(path=os.path.join(OUT, "editor.png"), full_page=True)


def test_banned_words_are_marked(page):
    sign_in(page)
    page.goto(f"{BASE}/#/editor")
    page.locator("#markdown").fill("这是最好的产品，全网第一。")
    page.get_by_role("button", name="检查违禁词").click()
    marks = page.locator(".check-result .marked mark")
    expect(marks).to_have_count(2, timeout=TIMEOUT_MS)
    expect(marks.first).to_have_text("最好")


def test_charter_is_stored(page):
    sign_in(page)
    page.goto(f"{BASE}/#/charter")
    page.locator("#profile-id").fill("workbench")
    page.get_by_role("button", name="读取").click()
    form = page.locator("form.op-form")
    expect(form).to_be_visible()
    form.locator(".field[data-path='charter.version'] input").fill("1")
    form.locator(".field[data-path='charter.positioning.oneLiner'] input").fill("帮小团队做内容增长")
    form.locator(".field[data-path='charter.monetization.path'] select").select_option("membership")
    form.locator(".field[data-path='charter.monetization.practicalPaths'] input[value=consulting]").check()
    form.locator("button[type=submit]").click()
    expect(page.locator("p.ok")).to_contain_text("已保存", timeout=TIMEOUT_MS)
    stored = api("/api/ip-profile/workbench/charter")["data"]["charter"]
    assert stored["positioning"]["oneLiner"] == "帮小团队做内容增长"
    assert stored["monetization"]["path"] == "membership"
    assert stored["monetization"]["practicalPaths"] == ["consulting"]
    # A bad value comes back as an error on its field.
    form.locator(".field[data-path='charter.version'] input").fill("2")
    form.locator("button[type=submit]").click()
    expect(form.locator(".field[data-path='charter.version'] .field-error")).not_to_be_empty(timeout=TIMEOUT_MS)


def test_operation_pages_show_their_sources(page):
    # The 数据来源 line is the catalog's dataSources (the chain the core
    # built, as `mediaops sources` prints it); tests/e2e/workbench.rs maps
    # clipapp.user-works to a vendor file.
    sign_in(page)
    ops = {o["operationKey"]: o for o in catalog() if o.get("dataSources")}
    vendor = ops["clipapp.user-works"]["dataSources"]
    assert vendor["chain"] == ["store", "upstream:fakevendor"], vendor
    assert ops["videosite.search-work"]["dataSources"]["chain"] == ["store"], ops["videosite.search-work"]
    for key, shown in [("clipapp.user-works", "数据来源：内容库 → 数据厂商 fakevendor"),
                       ("videosite.search-work", "数据来源：内容库")]:
        page.goto(f"{BASE}/#/op/{key}")
        line = page.locator("p.op-sources")
        expect(line).to_have_attribute("data-chain", ",".join(ops[key]["dataSources"]["chain"]))
        expect(line).to_have_text(shown)
    page.screenshot(path=os.path.join(OUT, "operation-sources.png"), full_page=True)


def test_usage_lists_recent_calls(page):
    sign_in(page)
    page.goto(f"{BASE}/#/usage")
    rows = page.locator("table.usage tbody tr")
    expect(rows.first).to_be_visible(timeout=TIMEOUT_MS)
    expect(page.locator("table.usage")).to_contain_text("account.balance")


def test_narrow_screen_and_keyboard(page):
    page.set_viewport_size({"width": 375, "height": 800})
    sign_in(page)
    expect(page.locator(".cards").first).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page is {width}px wide at 375px"
    page.screenshot(path=os.path.join(OUT, "home-375.png"), full_page=True)
    page.goto(f"{BASE}/#/op/videosite.search-work")
    expect(page.locator("h1")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # Keyboard only: Tab reaches the keyword box, typing fills it, Enter
    # submits, and the focused control shows a visible outline.
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.name") == "keyword":
            break
    else:
        raise AssertionError("Tab never reached the keyword field")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none", "the focused field has no visible outline"
    page.keyboard.type("史记")
    page.keyboard.press("Enter")
    expect(page.locator(".result-section[data-kind=collection] tbody tr").first).to_be_visible(timeout=TIMEOUT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.screenshot(path=os.path.join(OUT, "search-work-375.png"), full_page=True)


TESTS = [value for name, value in list(globals().items()) if name.startswith("test_")]

if __name__ == "__main__":
    run("workbench", TESTS, OUT)
