"""The console in headless Chromium, in a deployment configuration (an https public URL, a console
user): signing in, a short link's whole life (created, found, its QR code decoded with zbarimg, its
clicks seen, disabled, deleted, and Back after the delete asking for the page again), its copy
buttons, a failed mail sent again after the relay relents (the overview's relay line saying so, and
the account's page listing the mail), an account disabled and mailed, the Association page's claims
read from the served file, a cross-site form refused; then axe-core on every console page in light
and dark. The console has a script of its own, /__/console/console.js (under `script-src 'self'`),
which only adds copy buttons and asks again for a page the browser brings back from its
back/forward cache; every page works without it, so most flows here run with JavaScript off, and
the copy buttons and Back after a delete run both ways. The development console (no sign-in, its
doctor findings marked as expected there) is in test_console_operator.py."""

import http.client
import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from conftest import BINARY, Server, chromium, click_and_wait_for_next_page, page_heading

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Mail"))
from mailtest import running_relay  # noqa: E402

API_KEY = "console-client-key"
ADMIN_KEY = "console-admin-key-0123456789abcdef0123456"
PASSWORD = "correct horse battery staple"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"


def password_hash():
    done = subprocess.run([str(BINARY), "console", "hash-password"], input=PASSWORD + "\n", capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture(scope="module")
def relay(tmp_path_factory):
    with running_relay(tmp_path_factory.mktemp("ca")) as relay:
        yield relay


@pytest.fixture(scope="module")
def server(tmp_path_factory, relay):
    user, secret = relay.auth
    server = Server(tmp_path_factory.mktemp("console"), "console", {
        "publicBaseURL": "https://links.example.com",
        "backend": {"apiKeys": [API_KEY], "adminKeys": [ADMIN_KEY]},
        "console": {"users": [{"name": "ops", "passwordHash": password_hash()}]},
        "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app", "appStoreID": "1234567890"}]},
        "android": {"apps": [{"packageName": "com.example.app", "fingerprints": ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"]}]},
        "authorizedDomains": ["example.com"],
        "branding": {"appName": "Example"},
        "mail": {"smtpURL": f"smtp://{user}:{secret}@127.0.0.1:{relay.port}", "from": "noreply@example.com",
                 "trustedCertificatesPath": str(relay.ca), "retryInitialSeconds": 1, "timeoutSeconds": 5},
        "limits": {"requestsPerMinute": 1000000, "burst": 1000000},
    })
    yield server
    server.stop()


def api(base, path, body):
    request = urllib.request.Request(f"{base}{path}?key={API_KEY}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def status_of(base, path, agent=DESKTOP):
    """The status a visitor gets, redirects not followed."""
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    connection.request("GET", path, headers={"User-Agent": agent})
    response = connection.getresponse()
    response.read()
    return response.status


def sign_in(driver, base):
    driver.get(f"{base}/__/console")
    assert driver.current_url.endswith("/__/console/sign-in")
    driver.find_element("id", "name").send_keys("ops")
    driver.find_element("id", "password").send_keys(PASSWORD)
    submit(driver, "/__/console/sign-in")
    assert page_heading(driver) == "Overview"


def submit(driver, action):
    """Clicks the submit button of the form posting to `action`, and waits for the next page."""
    click_and_wait_for_next_page(driver, driver.find_element("css selector", f"form[method=post][action='{action}'] button[type=submit]"))


def download(driver, base, path):
    """`path` fetched with the browser's session cookie."""
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in driver.get_cookies())
    request = urllib.request.Request(base + path, headers={"Cookie": cookie})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.read()


def wait_until(driver, condition, timeout=30, message=""):
    """Waits (generously) until `condition(driver)` is true, and returns what it returned."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.2, ignored_exceptions=(WebDriverException,)).until(condition, message)


def create_link(driver, base, long_link):
    """Makes a short link with the console's form; its suffix."""
    driver.get(f"{base}/__/console/links")
    driver.find_element("id", "link").send_keys(long_link)
    submit(driver, "/__/console/links")
    match = re.search(r"/__/console/links/([A-Za-z0-9]+)", driver.current_url)
    assert match, driver.current_url
    return match.group(1)


def relay_line(driver, base):
    """The overview's `Mail relay` section: (the class of the paragraph right after its heading, its text)."""
    driver.get(f"{base}/__/console")
    paragraph = driver.find_element("xpath", "//h2[normalize-space()='Mail relay']/following-sibling::*[1]")
    assert paragraph.tag_name == "p", paragraph.get_attribute("outerHTML")
    return paragraph.get_attribute("class"), " ".join(paragraph.text.split())


def account_mails(driver):
    """The current account page's `Mails to this address` section: its table's rows as {column: cell}
    (none if it has no table) and the paragraph after it."""
    heading = driver.find_element("xpath", "//h2[normalize-space()='Mails to this address']")
    following = heading.find_element("xpath", "following-sibling::*[1]")
    if following.tag_name != "table":
        return [], following.text
    # Read as text content: in a narrow window the column headings are there for screen readers only.
    def text(cell):
        return " ".join(cell.get_attribute("textContent").split())
    columns = [text(cell) for cell in following.find_elements("css selector", "thead th")]
    rows = [dict(zip(columns, [text(cell) for cell in row.find_elements("css selector", "td")]))
            for row in following.find_elements("css selector", "tbody tr")]
    return rows, following.find_element("xpath", "following-sibling::*[1]").text


def clipboard(driver):
    """What the page's clipboard holds (Chromium headless keeps one of its own)."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "navigator.clipboard.readText().then(done, error => done('clipboard unreadable: ' + error));")


def check_copy_button(driver, button, short_link, javascript):
    """A copy button for `short_link`: hidden without JavaScript; with it shown, and a click puts the
    short link on the clipboard and says so in the status the script adds right after it."""
    assert button.get_attribute("data-copy") == short_link
    assert button.get_attribute("type") == "button" and "copy" in button.get_attribute("class").split()
    if not javascript:
        assert button.get_attribute("hidden") is not None and not button.is_displayed(), button.get_attribute("outerHTML")
        # No script ran: nothing was added after the button.
        assert not button.find_elements("xpath", "following-sibling::*[1][self::span][@role='status']")
        return
    wait_until(driver, lambda d: button.is_displayed(), message="the copy button stayed hidden with JavaScript on")
    status = button.find_element("xpath", "following-sibling::*[1]")
    assert status.tag_name == "span" and status.get_attribute("role") == "status" and status.text == ""
    # Something else on the clipboard first, so only the click can put the short link there.
    wrote = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "navigator.clipboard.writeText('nothing copied yet').then(() => done(true), error => done(String(error)));")
    assert wrote is True, wrote
    assert clipboard(driver) == "nothing copied yet"
    # The status is cleared again after a few seconds: what it said is recorded as it changes.
    driver.execute_script(
        "const button = arguments[0], status = arguments[1]; window.__copyStatus = [];"
        "new MutationObserver(() => window.__copyStatus.push([status.textContent, button.classList.contains('copied')]))"
        ".observe(status, {childList: true, characterData: true, subtree: true});", button, status)
    button.click()
    wait_until(driver, lambda d: clipboard(d) == short_link, message=f"the clipboard never held {short_link}")
    said = wait_until(driver, lambda d: d.execute_script("return window.__copyStatus.length ? window.__copyStatus : null"))
    assert said[0] == ["Copied to the clipboard", True], said


def test_signed_out_requests_go_to_sign_in_and_a_wrong_password_is_refused(server):
    driver = chromium(DESKTOP)
    try:
        for path in ["/__/console", "/__/console/links", "/__/console/mail", "/__/console/accounts"]:
            driver.get(server.base + path)
            assert driver.current_url.endswith("/__/console/sign-in"), path
        driver.find_element("id", "name").send_keys("ops")
        driver.find_element("id", "password").send_keys("not the password")
        submit(driver, "/__/console/sign-in")
        assert "do not match" in driver.page_source
        assert not driver.get_cookies()
    finally:
        driver.quit()


@pytest.mark.parametrize("javascript", [False, True], ids=["javascript off", "javascript on"])
def test_a_short_link_from_creation_to_deletion(server, tmp_path, javascript):
    base = server.base
    driver = chromium(DESKTOP, javascript=javascript)
    try:
        sign_in(driver, base)
        driver.get(f"{base}/__/console/links")
        driver.find_element("id", "link").send_keys("https://example.com/product/42")
        submit(driver, "/__/console/links")
        match = re.search(r"/__/console/links/([A-Za-z0-9]+)", driver.current_url)
        assert match, driver.current_url
        suffix = match.group(1)
        assert f"Created https://links.example.com/{suffix}" in driver.page_source

        # Found by search.
        driver.get(f"{base}/__/console/links?q={suffix}")
        assert f"/__/console/links/{suffix}" in driver.page_source

        # Its QR code is the short link.
        status, png = download(driver, base, f"/__/console/links/{suffix}/qr.png")
        assert status == 200
        image = tmp_path / "qr.png"
        image.write_bytes(png)
        decoded = subprocess.run(["zbarimg", "--raw", "-q", str(image)], capture_output=True, text=True, check=True).stdout.strip()
        assert decoded == f"https://links.example.com/{suffix}"

        # Clicks show once it is visited.
        for _ in range(3):
            assert status_of(base, f"/{suffix}") == 302
        driver.get(f"{base}/__/console/links/{suffix}")
        # In plain words: three clicks, each followed by the website (a computer's redirect), no enum names.
        table = driver.find_element("css selector", ".chart-table").text
        assert "Went to the website" in table and " 3 0 0 3 0" in table and "CLICK" not in table
        totals = driver.find_element("css selector", ".chart .totals").text
        assert "Clicks 3" in " ".join(totals.split())
        by_platform = driver.find_element("css selector", ".by-platform").text
        assert "3" in by_platform

        submit(driver, f"/__/console/links/{suffix}/disable")
        assert "is disabled" in driver.page_source
        assert status_of(base, f"/{suffix}") == 404
        submit(driver, f"/__/console/links/{suffix}/enable")
        assert status_of(base, f"/{suffix}") == 302

        if javascript:
            # A page the browser brings back from its back/forward cache (pageshow with `persisted`)
            # is asked for again: the script reloads it. Chromium keeps no-store pages out of that
            # cache, so the event is dispatched here as the browser would.
            driver.execute_script("window.__linkdomainOldPage = true;"
                                  "window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}));")
            wait_until(driver, lambda d: d.execute_script(
                "return window.__linkdomainOldPage !== true && document.readyState === 'complete'"
                " && performance.getEntriesByType('navigation')[0].type === 'reload'"),
                message="a page shown again from the back/forward cache was not reloaded")
            assert page_heading(driver) == f"Short link /{suffix}"

        driver.find_element("css selector", f"form[action='/__/console/links/{suffix}/delete'] input[name=confirm]").click()
        submit(driver, f"/__/console/links/{suffix}/delete")
        assert f"Deleted /{suffix}" in driver.page_source
        assert status_of(base, f"/{suffix}") == 404

        # Back, to the link's page as it was before the delete: it is asked for again (no-store, and
        # the script), so it says the link is gone instead of offering its buttons.
        driver.back()
        wait_until(driver, lambda d: d.execute_script("return document.readyState === 'complete'")
                   and f"/__/console/links/{suffix}" in d.current_url and page_heading(d) is not None)
        assert page_heading(driver) != f"Short link /{suffix}"
        assert "There is nothing here." in driver.find_element("css selector", "main").text
        for change in ["delete", "disable", "enable"]:
            assert not driver.find_elements("css selector", f"form[action='/__/console/links/{suffix}/{change}']"), change
    finally:
        driver.quit()


@pytest.mark.parametrize("javascript", [False, True], ids=["javascript off", "javascript on"])
def test_copy_buttons_copy_the_short_link_with_javascript_and_stay_hidden_without(server, javascript):
    base = server.base
    driver = chromium(DESKTOP, javascript=javascript)
    try:
        if javascript:
            driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        sign_in(driver, base)
        suffix = create_link(driver, base, f"https://example.com/copy/{int(javascript)}")
        short_link = f"https://links.example.com/{suffix}"

        # The link's page: the short link as text, its button beside it.
        driver.get(f"{base}/__/console/links/{suffix}")
        link = driver.find_element("css selector", f"main a[href='{short_link}']")
        assert link.is_displayed() and link.text == short_link
        check_copy_button(driver, link.find_element("xpath", "following-sibling::button[1]"), short_link, javascript)

        # The listing: a button in the link's row copies that row's short link.
        driver.get(f"{base}/__/console/links?q={suffix}")
        row = next(row for row in driver.find_elements("css selector", "table.listing tbody tr")
                   if row.find_elements("css selector", f"a[href='/__/console/links/{suffix}']"))
        assert f"/{suffix}" in row.text
        buttons = row.find_elements("css selector", "button.copy")
        assert len(buttons) == 1
        check_copy_button(driver, buttons[0], short_link, javascript)
    finally:
        driver.quit()


def send_reset(base, address):
    """Asks for a password-reset mail to `address` with the admin API."""
    request = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v1/projects/demo-linkdomain/accounts:sendOobCode",
                                     data=json.dumps({"requestType": "PASSWORD_RESET", "email": address}).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {ADMIN_KEY}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200


def test_a_failed_mail_is_shown_with_the_relays_answer_and_sent_after_retry(server, relay):
    base = server.base
    address = f"refused-{int(time.time() * 1000)}@example.com"
    relay._reject = frozenset([address])
    user = api(base, "/identitytoolkit.googleapis.com/v1/accounts:signUp", {"email": address, "password": "first password"})
    send_reset(base, address)
    relay.wait_for_attempts(1)
    driver = chromium(DESKTOP)
    try:
        sign_in(driver, base)
        masked = address[0] + "•••@example.com"
        for _ in range(50):
            driver.get(f"{base}/__/console/mail?state=failed")
            if masked in driver.page_source:
                break
            time.sleep(0.2)
        row = next(row for row in driver.find_elements("css selector", "table.listing tbody tr") if masked in row.text)
        assert "550" in row.text and address not in driver.page_source
        retry = row.find_element("css selector", "form[action$='/retry']").get_attribute("action").split(base, 1)[-1]

        # While the relay refuses, and no mail has been sent since, the overview says so with its answer.
        state, text = relay_line(driver, base)
        assert state == "relay-failing", (state, text)
        assert re.fullmatch(r"Not delivering: mails queued since .+ UTC were not taken\. The relay's last answer: .*\b550 5\.1\.1\b.*", text), text
        assert address not in driver.page_source
        # The account's page lists the failed mail with the relay's answer, and leads to every mail to it.
        driver.get(f"{base}/__/console/accounts/{user['localId']}")
        rows, after = account_mails(driver)
        assert len(rows) == 1, rows
        assert rows[0]["State"] == "Failed" and "550 5.1.1" in rows[0]["Relay's last answer"] and rows[0]["Queued"], rows
        assert after == "Every mail to this address"

        relay._reject = frozenset()
        delivered = len(relay.messages)
        driver.get(f"{base}/__/console/mail?state=failed")
        submit(driver, retry)
        assert "will be sent again" in driver.page_source
        relay.wait_for(delivered + 1)
        assert any(address in message.rcpt_tos for message in relay.messages[delivered:])

        # Sent: the overview says the relay delivers (the server records the send once the relay has answered).
        state, text = wait_until(driver, lambda d: (line := relay_line(d, base))[0] == "relay-ok" and line,
                                 message="the overview never said the relay delivers")
        assert re.fullmatch(r"Delivering: the last mail was sent .+ UTC\.", text), text
    finally:
        driver.quit()


def test_an_account_found_disabled_and_mailed(server, relay):
    base = server.base
    address = f"account-{int(time.time() * 1000)}@example.com"
    user = api(base, "/identitytoolkit.googleapis.com/v1/accounts:signUp", {"email": address, "password": "first password"})
    driver = chromium(DESKTOP)
    try:
        sign_in(driver, base)
        driver.get(f"{base}/__/console/accounts?q={urllib.parse.quote(address)}")
        driver.get(f"{base}/__/console/accounts/{user['localId']}")
        page = f"/__/console/accounts/{user['localId']}"
        # Nothing mailed to it yet.
        assert account_mails(driver) == ([], "No mail to this address is in the queue.")
        assert not driver.find_elements("link text", "Every mail to this address")
        submit(driver, f"{page}/disable")
        assert "cannot sign in" in driver.page_source
        try:
            api(base, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", {"email": address, "password": "first password"})
            pytest.fail("a disabled account signed in")
        except urllib.error.HTTPError as error:
            assert "USER_DISABLED" in error.read().decode()
        delivered = len(relay.messages)
        submit(driver, f"{page}/send-reset")
        assert "on its way" in driver.page_source
        relay.wait_for(delivered + 1)
        assert any(address in message.rcpt_tos for message in relay.messages[delivered:])

        # Its page lists the mail, sent, and leads to every mail to the address.
        def sent_rows(d):
            d.get(f"{base}{page}")
            rows, _ = account_mails(d)
            return rows if rows and rows[0]["State"] == "Sent" else None
        rows = wait_until(driver, sent_rows, message="the account's page never listed its mail as sent")
        assert len(rows) == 1, rows
        assert list(rows[0]) == ["Kind", "State", "Queued", "Next attempt", "Relay's last answer"], rows
        assert rows[0]["Kind"] == "reset-password" and re.search(r"\d{4}-\d\d-\d\d", rows[0]["Queued"]), rows
        assert rows[0]["Next attempt"] == "" and rows[0]["Relay's last answer"] == "", rows
        every = driver.find_element("link text", "Every mail to this address")
        target = urllib.parse.urlsplit(every.get_attribute("href"))
        assert target.path == "/__/console/mail" and urllib.parse.parse_qs(target.query) == {"to": [address]}, target
        click_and_wait_for_next_page(driver, every)
        found = [row.text for row in driver.find_elements("css selector", "table.listing tbody tr")]
        assert len(found) == 1 and address in found[0] and "reset-password" in found[0] and "Sent" in found[0], found

        # The same mails the overview counts as sent: the relay delivers.
        state, text = relay_line(driver, base)
        assert state == "relay-ok" and text.startswith("Delivering: the last mail was sent "), (state, text)
    finally:
        driver.quit()


def apple_claims(served):
    """What a served apple-app-site-association claims for each app, read as iOS reads it: each
    detail's components (`NOT ` before an excluded one), or its older `paths`; then `webcredentials`
    and `appclips` where they list the app."""
    claims = {}
    for detail in served.get("applinks", {}).get("details", []):
        components = detail.get("components")
        if components is not None:
            assert all(set(component) <= {"/", "exclude", "comment"} for component in components), components
            patterns = [("NOT " if component.get("exclude") else "") + component.get("/", "*") for component in components]
        else:
            patterns = detail.get("paths", [])
        for app in detail.get("appIDs") or [detail["appID"]]:
            claims.setdefault(app, []).extend(patterns or ["(no paths)"])
    for section in ["webcredentials", "appclips"]:
        for app in served.get(section, {}).get("apps", []):
            claims.setdefault(app, []).append(section)
    return {app: ", ".join(patterns) for app, patterns in claims.items()}


def test_the_association_page_says_what_the_served_apple_file_claims(server):
    with urllib.request.urlopen(server.base + "/.well-known/apple-app-site-association", timeout=10) as response:
        served = json.load(response)
    expected = apple_claims(served)
    assert expected == {"ABCDE12345.com.example.app": "/__/auth/links*, /__/auth/action*"}, expected
    driver = chromium(DESKTOP)
    try:
        sign_in(driver, server.base)
        driver.get(f"{server.base}/__/console/association")
        table = driver.find_element("xpath", "//table[thead/tr/th[normalize-space()='Opens']]")
        assert [" ".join(th.get_attribute("textContent").split()) for th in table.find_elements("css selector", "thead th")] == ["App", "Opens"]
        shown = {row.find_element("css selector", "td code").text: row.find_elements("css selector", "td")[1].text
                 for row in table.find_elements("css selector", "tbody tr")}
        assert shown == expected, (shown, expected)
    finally:
        driver.quit()


def test_a_form_posted_from_another_site_is_refused(server, tmp_path):
    """A page on another origin (localhost is another site than 127.0.0.1) posts the create form."""
    attacker = tmp_path / "attack.html"
    attacker.write_text(f"""<!doctype html><form method="post" action="{server.base}/__/console/links">
        <input name="link" value="https://evil.example.net/"><button type="submit">go</button></form>""")
    import http.server
    import threading
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(tmp_path), **k)  # noqa: E731
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    driver = chromium(DESKTOP)
    try:
        sign_in(driver, server.base)
        driver.get(f"http://localhost:{site.server_address[1]}/attack.html")
        click_and_wait_for_next_page(driver, driver.find_element("css selector", "button"))
        assert "came from another site" in driver.page_source
        driver.get(f"{server.base}/__/console/links?q=evil.example.net")
        assert "No short links match" in driver.page_source
    finally:
        driver.quit()
        site.shutdown()


def violations(driver, name):
    """axe-core's WCAG A and AA violations on the current page, one line each."""
    from axe_selenium_python import Axe

    Axe(driver).inject()
    driver.set_script_timeout(60)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}}).then(done);")
    return [f"{name}: {violation['id']}: {[node['html'] for node in violation['nodes']][:3]}" for violation in result["violations"]]


def test_console_pages_have_no_accessibility_violations_in_light_and_dark(server, relay):
    """axe-core's WCAG A and AA rules on every console page, at desktop and phone width (the README's screenshots come from scripts/screenshots),
    with JavaScript on: the copy buttons shown, the overview's relay line saying the relay refuses (its warning colour), an
    account's page with a failed mail and one with none."""
    base = server.base
    driver = chromium(DESKTOP, javascript=True)
    driver.set_window_size(1280, 900)
    try:
        sign_in(driver, base)
        driver.get(f"{base}/__/console/links")
        driver.find_element("id", "link").send_keys("https://example.com/spring-sale")
        submit(driver, "/__/console/links")
        link_page = urllib.parse.urlsplit(driver.current_url).path
        suffix = link_page.rsplit("/", 1)[1]
        for _ in range(4):
            status_of(base, f"/{suffix}")
        user = api(base, "/identitytoolkit.googleapis.com/v1/accounts:signUp", {"email": f"axe-{int(time.time() * 1000)}@example.com",
                                                                                "password": "first password"})
        # An account with a mail the relay refused: its page lists it with the relay's answer, and
        # the overview says the relay is not delivering (nothing is sent after it in this module).
        refused = f"axe-refused-{int(time.time() * 1000)}@example.com"
        mailed = api(base, "/identitytoolkit.googleapis.com/v1/accounts:signUp", {"email": refused, "password": "first password"})
        relay._reject = frozenset([refused])
        try:
            send_reset(base, refused)

            def failed_row(d):
                d.get(f"{base}/__/console/accounts/{mailed['localId']}")
                rows, _ = account_mails(d)
                return bool(rows) and rows[0]["State"] == "Failed"
            wait_until(driver, failed_row, message="the refused mail never showed as failed on its account's page")
        finally:
            relay._reject = frozenset()
        assert relay_line(driver, base)[0] == "relay-failing"
        pages = {"overview": "/__/console", "links": "/__/console/links", "link": link_page, "mail": "/__/console/mail?state=sent", "mail, failed": "/__/console/mail?state=failed",
                 "mail, waiting": "/__/console/mail?state=queued", "accounts, found": f"/__/console/accounts?q={user['localId']}",
                 "accounts": "/__/console/accounts", "account": f"/__/console/accounts/{user['localId']}",
                 "account, mailed": f"/__/console/accounts/{mailed['localId']}",
                 "association": "/__/console/association", "not found": "/__/console/links/zzzzzz"}
        failures = []
        signed_out = chromium(DESKTOP, javascript=True)
        try:
            for scheme in ["light", "dark"]:
                signed_out.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                signed_out.get(f"{base}/__/console/sign-in")
                failures += violations(signed_out, f"sign-in ({scheme})")
        finally:
            signed_out.quit()
        pages["mail, to an address"] = "/__/console/mail?to=example.com"
        # A desktop window, then a phone's (320 CSS pixels): there the tables stack into cards and
        # nothing may be wider than the screen.
        for width, height in [(1280, 900), (320, 720)]:
            driver.set_window_size(width, height)
            for scheme in ["light", "dark"]:
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                for name, path in pages.items():
                    driver.get(base + path)
                    if name in ("link", "links"):
                        # The script has shown the copy buttons axe is to check.
                        wait_until(driver, lambda d: any(button.is_displayed() for button in d.find_elements("css selector", "button.copy")),
                                   message=f"no copy button shown on {name} ({scheme}, {width} px)")
                    failures += violations(driver, f"{name} ({scheme}, {width} px)")
                    if width < 400:
                        wide = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
                        if wide > 1:
                            failures.append(f"{name} ({scheme}, {width} px): {wide} px wider than the screen")
        assert not failures, "\n".join(failures)
    finally:
        driver.quit()


def test_the_console_answers_are_never_cached_or_indexed(server):
    response = urllib.request.urlopen(server.base + "/__/console/sign-in", timeout=10)
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["X-Robots-Tag"] == "noindex, nofollow"
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    # Its one script comes from the console itself (no inline script), as the policy allows.
    page = response.read().decode()
    assert re.findall(r"<script\b[^>]*>", page) == ['<script src="/__/console/console.js" defer>'], re.findall(r"<script\b[^>]*>", page)
    with urllib.request.urlopen(server.base + "/__/console/console.js", timeout=10) as script:
        assert script.status == 200 and script.headers["Content-Type"].startswith("text/javascript")
        assert b"data-copy" in script.read()


def test_every_change_above_wrote_an_audit_line_and_none_holds_a_secret(server):
    """Runs after the flows above, on the same server: who did what to which object."""
    lines = [line for line in server.output().splitlines() if ": audit " in line]
    fields = [dict(part.split("=", 1) for part in line.split(": audit ", 1)[1].split() if "=" in part) for line in lines]
    actions = {(entry.get("actor"), entry.get("action")) for entry in fields}
    for action in ["console.signIn", "shortLink.create", "shortLink.disable", "shortLink.enable", "shortLink.delete", "mail.retry",
                   "account.disable", "account.send-reset"]:
        assert ("ops", action) in actions, (action, lines)
    assert all(entry.get("object") for entry in fields)
    for line in lines:
        assert "@" not in line and PASSWORD not in line and "oobCode" not in line and "https://" not in line, line
    # A refused sign-in is a notice without the name tried or the password.
    assert "console sign-in refused" in server.output() and "not the password" not in server.output()
