"""The console in headless Chromium, in a deployment configuration (an https public URL, a console
user): signing in, a short link's whole life (created, found, its QR code decoded with zbarimg, its
clicks seen, disabled, deleted), a failed mail sent again after the relay relents, an account
disabled and mailed, a cross-site form refused; then axe-core on every console page in light and
dark. Everything but axe runs with JavaScript off: the console has no script to need."""

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

        driver.find_element("css selector", f"form[action='/__/console/links/{suffix}/delete'] input[name=confirm]").click()
        submit(driver, f"/__/console/links/{suffix}/delete")
        assert f"Deleted /{suffix}" in driver.page_source
        assert status_of(base, f"/{suffix}") == 404
    finally:
        driver.quit()


def test_a_failed_mail_is_shown_with_the_relays_answer_and_sent_after_retry(server, relay):
    base = server.base
    address = f"refused-{int(time.time() * 1000)}@example.com"
    relay._reject = frozenset([address])
    api(base, "/identitytoolkit.googleapis.com/v1/accounts:signUp", {"email": address, "password": "first password"})
    request = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v1/projects/demo-linkdomain/accounts:sendOobCode",
                                     data=json.dumps({"requestType": "PASSWORD_RESET", "email": address}).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {ADMIN_KEY}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
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
        relay._reject = frozenset()
        delivered = len(relay.messages)
        submit(driver, row.find_element("css selector", "form[action$='/retry']").get_attribute("action").split(base, 1)[-1])
        assert "will be sent again" in driver.page_source
        relay.wait_for(delivered + 1)
        assert any(address in message.rcpt_tos for message in relay.messages[delivered:])
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


def test_console_pages_have_no_accessibility_violations_in_light_and_dark(server):
    """axe-core's WCAG A and AA rules on every console page, at desktop and phone width (the README's screenshots come from scripts/screenshots)."""
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
        pages = {"overview": "/__/console", "links": "/__/console/links", "link": link_page, "mail": "/__/console/mail?state=sent", "mail, failed": "/__/console/mail?state=failed",
                 "mail, waiting": "/__/console/mail?state=queued", "accounts, found": f"/__/console/accounts?q={user['localId']}",
                 "accounts": "/__/console/accounts", "account": f"/__/console/accounts/{user['localId']}",
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
