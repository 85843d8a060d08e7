"""Pages decided by what the code knows (docs/design/code-aware-pages.md), as people meet them in
headless Chromium in en, ru and it: a sign-in an iPhone app asked for, opened on a computer, offers
the phone first (a QR code zbarimg reads back as the same link) and this computer second; a web
app's sign-in goes straight to the site; a used link ends at once on every device, a used sign-in
included, with "Send me a new link" that mails the same kind of link; no GET spends a code."""

import http.client
import json
import re
import subprocess
import tempfile
import urllib.parse
import urllib.request
import uuid

import pytest
from selenium.webdriver.common.by import By

from conftest import ROOT, Server, chromium, click_and_wait_for_next_page, free_port, page_heading

IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36"
GMAIL = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 GmailApp/6.0"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
DEVICES = {"iPhone": IPHONE, "Android": ANDROID, "Gmail": GMAIL, "desktop": DESKTOP}
LANGUAGES = ["en", "ru", "it"]
APP = "Acme Notes"


def strings(language):
    return json.loads((ROOT / "Public" / "locales" / f"{language}.json").read_text())


def text(language, key):
    return strings(language)[key].replace("{app}", APP)


@pytest.fixture(scope="module")
def server():
    port = free_port()
    server = Server(tempfile.mkdtemp(prefix="linkdomain-code-aware-"), "code-aware", {
        "server": {"port": port},
        "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app", "appStoreID": "1234567890"}]},
        "android": {"apps": [{"packageName": "com.example.app",
                              "fingerprints": ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"]}]},
        "pivotBaseURL": f"http://localhost:{port}",
        "authorizedDomains": ["127.0.0.1"],
        "branding": {"appName": APP},
    })
    yield server
    server.stop()


def api(base, operation, body, admin=True):
    path = f"projects/demo-linkdomain/{operation}" if admin else f"{operation}?key=k"
    headers = {"Content-Type": "application/json", **({"Authorization": "Bearer owner"} if admin else {})}
    request = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v1/{path}", data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def listed(base):
    with urllib.request.urlopen(f"{base}/emulator/v1/projects/demo-linkdomain/oobCodes") as response:
        return json.load(response)["oobCodes"]


def code_of(link):
    return re.search(r"oobCode(?:=|%3D)([A-Za-z0-9_-]+)", link).group(1)


def sign_in_link(base, language, email=None, **settings):
    """A sign-in link as the app's mail carries it, with `settings` as the ActionCodeSettings."""
    email = email or f"code-aware-{uuid.uuid4().hex[:8]}@example.com"
    body = {"requestType": "EMAIL_SIGNIN", "email": email, "returnOobLink": True,
            "continueUrl": f"{base}/__/demo/continue", **settings}
    link = api(base, "accounts:sendOobCode", body)["oobLink"]
    return email, link.replace("lang=en", f"lang={language}").replace("lang%3Den", f"lang%3D{language}")


def get(server, path, user_agent, accept_language=None):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {"User-Agent": user_agent, **({"Accept-Language": accept_language} if accept_language else {})}
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    return response.status, response.getheader("Location"), response.read().decode()


def path_of(link):
    parts = urllib.parse.urlsplit(link)
    return parts.path + "?" + parts.query


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_sign_in_an_app_asked_for_offers_the_phone_first_on_a_computer(server, language, tmp_path):
    _, link = sign_in_link(server.base, language, canHandleCodeInApp=True, iOSBundleId="com.example.app")
    driver = chromium(DESKTOP)
    try:
        driver.set_window_size(1000, 1300)
        driver.get(link)
        assert page_heading(driver) == text(language, "phone_title")
        # The QR code first, "Continue on this computer" second.
        main = driver.find_element(By.TAG_NAME, "main").get_attribute("innerHTML")
        assert main.index('class="qr"') < main.index(text(language, "continue_on_computer"))
        onward = driver.find_element(By.CSS_SELECTOR, "main a.button")
        assert onward.text == text(language, "continue_on_computer")
        href = onward.get_attribute("href")
        assert href.startswith(f"{server.base}/__/demo/continue?") and f"oobCode={code_of(link)}" in href and "mode=signIn" in href
        shot = tmp_path / "phone.png"
        driver.save_screenshot(str(shot))
        # "Continue on this computer" leads to the continue URL, a page this server answers in development.
        click_and_wait_for_next_page(driver, onward)
        assert page_heading(driver) == text(language, "demo_continue_title")
    finally:
        driver.quit()
    decoded = subprocess.run(["zbarimg", "--quiet", "--raw", str(shot)], capture_output=True, text=True)
    assert decoded.returncode == 0, decoded.stderr
    assert decoded.stdout.strip() == link
    # Looking spent nothing.
    assert code_of(link) in {code["oobCode"] for code in listed(server.base)}


def test_a_web_apps_sign_in_goes_straight_to_the_site_and_a_phone_is_offered_the_app(server):
    # `canHandleCodeInApp` alone (what a web app's sign-in sets) names no app: the record says so.
    _, web = sign_in_link(server.base, "en", canHandleCodeInApp=True)
    status, location, _ = get(server, path_of(web), DESKTOP)
    assert status == 303 and location.startswith(f"{server.base}/__/demo/continue?") and f"oobCode={code_of(web)}" in location
    _, app = sign_in_link(server.base, "en", canHandleCodeInApp=True, iOSBundleId="com.example.app")
    status, _, page = get(server, path_of(app), IPHONE)
    assert status == 200 and strings("en")["open_in_app"] in page and 'class="qr"' not in page
    assert {code_of(web), code_of(app)} <= {code["oobCode"] for code in listed(server.base)}


def spend_reset(base, language):
    email = f"code-aware-{uuid.uuid4().hex[:8]}@example.com"
    api(base, "accounts", {"email": email, "password": "password 1"})
    link = api(base, "accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": email, "returnOobLink": True,
                                              "continueUrl": f"{base}/__/demo/continue", "iOSBundleId": "com.example.app"})["oobLink"]
    api(base, "accounts:resetPassword", {"oobCode": code_of(link), "newPassword": "password 2"}, admin=False)
    return link.replace("lang=en", f"lang={language}").replace("lang%3Den", f"lang%3D{language}")


def spend_sign_in(base, language):
    email, link = sign_in_link(base, language, canHandleCodeInApp=True, iOSBundleId="com.example.app")
    api(base, "accounts:signInWithEmailLink", {"email": email, "oobCode": code_of(link)}, admin=False)
    return email, link


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_used_link_ends_at_once_on_every_device(server, language):
    reset = spend_reset(server.base, language)
    _, sign_in = spend_sign_in(server.base, language)
    failures = []
    for device, agent in DEVICES.items():
        driver = chromium(agent)
        try:
            for name, link in [("reset", reset), ("sign-in", sign_in)]:
                driver.get(link)
                heading = page_heading(driver)
                if heading != text(language, "error_invalid_title"):
                    failures.append(f"{name} on {device}: {heading!r}")
                buttons = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "form[action='/__/auth/new-link'] button[type=submit]")]
                if buttons != [text(language, "new_link_button")]:
                    failures.append(f"{name} on {device}: new-link buttons {buttons!r}")
        finally:
            driver.quit()
    assert not failures, "\n".join(failures)


def test_a_new_sign_in_link_is_the_same_kind_as_the_used_one(server):
    email, link = spend_sign_in(server.base, "en")
    driver = chromium(DESKTOP)
    try:
        driver.get(link)
        form = driver.find_element(By.CSS_SELECTOR, "form[action='/__/auth/new-link']")
        fields = {field.get_attribute("name"): field.get_attribute("value") for field in form.find_elements(By.CSS_SELECTOR, "input[type=hidden]")}
        assert fields["mode"] == "signIn" and fields["continueUrl"] == f"{server.base}/__/demo/continue" and fields["app"] == "1"
        form.find_element(By.ID, "new-link-email").send_keys(email)
        click_and_wait_for_next_page(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        assert page_heading(driver) == strings("en")["new_link_sent_title"]
    finally:
        driver.quit()
    # The mail goes out after the answer: wait for its code to be listed.
    import time
    for _ in range(100):
        new = [code for code in listed(server.base) if code["email"] == email and code["requestType"] == "EMAIL_SIGNIN"]
        if new:
            break
        time.sleep(0.1)
    assert len(new) == 1 and code_of(new[0]["oobLink"]) != code_of(link)
    # The app form again, with the same continue URL: a computer is offered the phone first.
    assert "/__/auth/links?link=" in new[0]["oobLink"]
    status, _, page = get(server, path_of(new[0]["oobLink"]), DESKTOP)
    assert status == 200 and strings("en")["phone_title"] in page


def test_accept_language_is_walked_in_order_and_the_links_language_comes_first(server):
    used = "/__/auth/action?apiKey=k&mode=resetPassword&oobCode=never-issued"
    status, _, page = get(server, used, DESKTOP, accept_language="sw,ru;q=0.9,it;q=0.8")
    assert status == 400 and strings("ru")["error_invalid_title"] in page
    status, _, page = get(server, used + "&lang=it", DESKTOP, accept_language="ru")
    assert strings("it")["error_invalid_title"] in page
    # A language the pages do not speak gives way to the visitor's.
    status, _, page = get(server, used + "&lang=sw", DESKTOP, accept_language="ru")
    assert strings("ru")["error_invalid_title"] in page
    # Firebase's regional tags reach the language by its fallbacks; Arabic runs right to left.
    status, _, page = get(server, used + "&lang=es-MX", DESKTOP)
    assert '<html lang="es-419" dir="ltr">' in page and strings("es-419")["error_invalid_title"] in page
    status, _, page = get(server, used, DESKTOP, accept_language="ar-EG,en;q=0.5")
    assert '<html lang="ar" dir="rtl">' in page and strings("ar")["error_invalid_title"] in page


def test_an_ending_without_a_home_url_says_the_page_may_be_closed(server):
    status, _, page = get(server, "/__/auth/new-link?lang=it", DESKTOP)
    assert status == 200 and strings("it")["close_page"] in page


@pytest.mark.parametrize("language", LANGUAGES)
def test_gmails_sign_in_page_has_one_copy_action(server, language):
    _, link = sign_in_link(server.base, language, canHandleCodeInApp=True, iOSBundleId="com.example.app")
    driver = chromium(GMAIL, javascript=True)
    try:
        driver.set_window_size(320, 700)
        driver.get(link)
        copies = [element for element in driver.find_elements(By.CSS_SELECTOR, "main [data-copy], main [data-copy-then]")
                  if element.is_displayed()]
        assert [element.text for element in copies] == [text(language, "copy_link")]
        assert text(language, "copy_and_get_app") not in driver.page_source
        # "Copy link" is above the fold at 320 px, and the store is still offered, as a plain link.
        assert copies[0].location["y"] + copies[0].size["height"] <= 700
        assert driver.find_elements(By.CSS_SELECTOR, "main a[href^='https://apps.apple.com/']")
    finally:
        driver.quit()


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_iphone_without_a_pivot_host_is_told_how_to_open_the_app(tmp_path, language):
    server = Server(tmp_path, "no-pivot", {
        "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app", "appStoreID": "1234567890"}]},
        "authorizedDomains": ["127.0.0.1"], "branding": {"appName": APP}})
    try:
        _, link = sign_in_link(server.base, language, canHandleCodeInApp=True, iOSBundleId="com.example.app")
        driver = chromium(IPHONE)
        try:
            driver.get(link)
            main = driver.find_element(By.TAG_NAME, "main").text
            assert text(language, "landing_no_pivot") in main and APP in main
            assert not driver.find_elements(By.LINK_TEXT, text(language, "open_in_app"))
        finally:
            driver.quit()
        # `check` says what would give this page an "Open in the app" button.
        path = tmp_path / "check.json"
        path.write_text(json.dumps({"apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app"}]}}))
        from conftest import BINARY
        checked = subprocess.run([str(BINARY), "check", "--config", str(path)], capture_output=True, text=True, timeout=60)
        assert "pivotBaseURL is not set" in checked.stdout + checked.stderr
    finally:
        server.stop()


def test_the_brand_colour_is_kept_and_readable_in_dark_mode(tmp_path):
    server = Server(tmp_path, "branded", {"branding": {"appName": APP, "accentColor": "#aa3300"}, "authorizedDomains": ["127.0.0.1"]})
    try:
        driver = chromium(DESKTOP)
        try:
            colours = {}
            for scheme in ["light", "dark"]:
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                driver.get(f"{server.base}/__/auth/new-link")
                colours[scheme] = driver.execute_script(
                    "return getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()")
            assert colours["light"] == "#aa3300"
            # A tint of the brand, not the stock blue of the unbranded sheet.
            assert colours["dark"] not in ("#aa3300", "#a8c7fa") and int(colours["dark"][1:3], 16) > int(colours["dark"][5:7], 16)
        finally:
            driver.quit()
    finally:
        server.stop()


def test_the_debug_page_speaks_the_consoles_words_with_the_real_targets(server):
    target = f"http://127.0.0.1:{server.port}/p/3"
    long = f"/?link={urllib.parse.quote(target, safe='')}&apn=com.example.app&ibi=com.example.app&st=Spring+sale"
    status, _, page = get(server, long + "&d=1", DESKTOP)
    assert status == 200
    for device in ["debug_device_iphone", "debug_device_android", "debug_device_desktop", "debug_device_crawler"]:
        assert f"<dt>{strings('en')[device]}</dt>" in page
    assert f"<dt>Computer</dt><dd>Straight to {target}</dd>" in page
    # The Android phone's real target: an intent for this very link (without d=1), not for "/".
    intent = re.search(r"<dt>Android phone</dt><dd>A preview page; then: Straight to (intent://[^<]+)</dd>", page)
    assert intent, page
    assert intent.group(1).split("#Intent;")[0].endswith(long.replace("&", "&amp;"))
    # The social title as read (+ a space), while the link itself is kept as written.
    assert "<dt>st</dt><dd>Spring sale</dd>" in page
