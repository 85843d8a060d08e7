"""Every page state, as a mail recipient meets it in headless Chromium: per language (en, ru, it),
per device (iPhone Safari, Android Chrome, Gmail's own browser on an iPhone, a desktop), the page's
primary action is the one step that finishes the job, and no page ends without a way on. Then
Back, Forward and reload after a refusal and after a success (never a resubmission prompt, never
a fresh form that fails), the in-app page's first screen at 320x568, every language's copy, and
no code spent by any GET of the walk."""

import json
import os
import re
import tempfile
import urllib.request
import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ROOT, Server, chromium, free_port, page_heading, wait_for_heading

IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36"
GMAIL = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 GmailApp/6.0"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
DEVICES = {"iPhone": IPHONE, "Android": ANDROID, "Gmail": GMAIL, "desktop": DESKTOP}
LANGUAGES = ["en", "ru", "it"]
LOCALES = ROOT / "Public" / "locales"


def strings(language):
    return json.loads((LOCALES / f"{language}.json").read_text())


@pytest.fixture(scope="module")
def server():
    port = free_port()
    server = Server(tempfile.mkdtemp(prefix="linkdomain-walk-"), "walk", {
        "server": {"port": port},
        "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app", "appStoreID": "1234567890"}]},
        "android": {"apps": [{"packageName": "com.example.app",
                              "fingerprints": ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"]}]},
        "pivotBaseURL": f"http://localhost:{port}",
        "authorizedDomains": ["127.0.0.1", "example.com"],
        "branding": {"appName": "Acme Notes", "homeURL": "https://example.com/"},
    })
    yield server
    server.stop()


def admin(base, operation, body):
    request = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v1/projects/demo-linkdomain/{operation}",
                                     data=json.dumps(body).encode(), headers={"Content-Type": "application/json", "Authorization": "Bearer owner"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def account(base):
    email = f"walk-{uuid.uuid4().hex[:8]}@example.com"
    admin(base, "accounts", {"email": email, "password": "password 1"})
    return email


def mailed(base, kind, email, language, **extra):
    """The link a mail would carry, in `language`, for an app on both platforms."""
    body = {"requestType": kind, "email": email, "returnOobLink": True, "iOSBundleId": "com.example.app",
            "androidPackageName": "com.example.app", **extra}
    link = admin(base, "accounts:sendOobCode", body)["oobLink"]
    return link.replace("lang=en", f"lang={language}").replace("lang%3Den", f"lang%3D{language}")


def codes(base):
    with urllib.request.urlopen(f"{base}/emulator/v1/projects/demo-linkdomain/oobCodes") as response:
        return {code["oobCode"] for code in json.load(response)["oobCodes"]}


def primary_action(driver):
    """The first thing in the page's main part a person would press: (kind, visible text or label)."""
    for element in driver.find_elements(By.CSS_SELECTOR, "main a.button, main button[type=submit], main button[data-copy], main figure.qr svg"):
        if element.is_displayed():
            label = element.text.strip() or element.get_attribute("aria-label")
            return element.tag_name, label
    return None


def text(language, key, app="Acme Notes"):
    return strings(language)[key].replace("{app}", app)


def states(base, language):
    """(state, device, URL, expected primary action's text) for each page state a link can show."""
    email = account(base)
    reset = mailed(base, "PASSWORD_RESET", email, language, continueUrl="https://example.com/after")
    verify = mailed(base, "VERIFY_EMAIL", email, language)
    signin_web = mailed(base, "EMAIL_SIGNIN", email, language, continueUrl="https://example.com/finish", canHandleCodeInApp=True)
    # A sign-in link whose continue URL is gone (cut, or never trusted): only the app or the phone can finish it.
    signin_code = re.search(r"oobCode(?:=|%3D)([A-Za-z0-9_-]+)", signin_web).group(1)
    signin_app = f"{base}/__/auth/action?apiKey=k&mode=signIn&oobCode={signin_code}&lang={language}"
    used = f"{base}/__/auth/action?mode=resetPassword&oobCode=spent-{uuid.uuid4().hex}&apiKey=k&lang={language}"
    pivot = reset.replace("http://127.0.0.1:", "http://localhost:")
    return [
        ("reset", "iPhone", reset, text(language, "continue_here")),
        ("reset", "Android", reset, text(language, "continue_here")),
        ("reset", "Gmail", reset, text(language, "continue_here")),  # Gmail's browser can finish a reset itself
        ("reset", "desktop", reset, text(language, "reset_button")),
        ("verify", "iPhone", verify, text(language, "continue_here")),
        ("verify", "desktop", verify, text(language, "verify_button")),
        ("sign-in with a continue URL", "iPhone", signin_web, text(language, "open_in_app")),
        ("sign-in with a continue URL", "Android", signin_web, text(language, "open_in_app")),
        ("sign-in with a continue URL", "Gmail", signin_web, text(language, "copy_link")),  # only the app or Safari can finish it
        ("sign-in without one", "iPhone", signin_app, text(language, "open_in_app")),
        ("sign-in without one", "desktop", signin_app, text(language, "qr_label")),
        ("app not installed (pivot host)", "iPhone", pivot, text(language, "continue_here")),
        # A sign-in the app asked for, opened on a computer: the phone first (the QR code).
        ("sign-in with a continue URL", "desktop", signin_web, text(language, "qr_label")),
        ("used or invalid link", "desktop", used, text(language, "new_link_button")),
        # The code is checked before the landing: a used link ends at once on every device.
        ("used or invalid link", "iPhone", used, text(language, "new_link_button")),
        ("used or invalid link", "Android", used, text(language, "new_link_button")),
        ("used or invalid link", "Gmail", used, text(language, "new_link_button")),
        ("used or invalid link, continued", "iPhone", used + "&web=1", text(language, "new_link_button")),
        ("not a link", "desktop", f"{base}/__/auth/action?mode=resetPassword&lang={language}", text(language, "back_to_site").replace("{site}", "Acme Notes")),
        ("new link sent", "desktop", f"{base}/__/auth/new-link?lang={language}", text(language, "back_to_site").replace("{site}", "Acme Notes")),
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_page_state_has_the_right_primary_action(server, language):
    before = codes(server.base)
    failures = []
    drivers = {name: chromium(agent, javascript=True) for name, agent in DEVICES.items()}
    try:
        for state, device, url, expected in states(server.base, language):
            driver = drivers[device]
            driver.get(url)
            found = primary_action(driver)
            if found is None or found[1] != expected:
                failures.append(f"{state} on {device} ({language}): primary action {found!r}, expected {expected!r} — {page_heading(driver)!r}")
            if driver.find_elements(By.CSS_SELECTOR, f'html[lang="{language}"]') == []:
                failures.append(f"{state} on {device}: not in {language}")
    finally:
        for driver in drivers.values():
            driver.quit()
    assert not failures, "\n".join(failures)
    # Nothing above was more than a GET: every code it showed is still there to be used.
    assert before <= codes(server.base)


def submit(driver, first, second):
    driver.find_element(By.ID, "new-password").send_keys(first)
    driver.find_element(By.ID, "confirm-password").send_keys(second)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()


@pytest.mark.parametrize("javascript", [False, True], ids=["without script", "with script"])
def test_back_forward_and_reload_after_a_refusal_and_after_success(server, javascript):
    en = strings("en")
    email = account(server.base)
    link = mailed(server.base, "PASSWORD_RESET", email, "en")
    driver = chromium(DESKTOP, javascript=javascript)
    try:
        driver.get(link)
        assert wait_for_heading(driver, en["reset_title"])
        submit(driver, "short", "short")
        # The browser refuses a short password itself and keeps it; nothing is sent.
        assert page_heading(driver) == en["reset_title"] and driver.find_element(By.ID, "new-password").get_attribute("value") == "short"
        driver.find_element(By.ID, "new-password").clear()
        driver.find_element(By.ID, "confirm-password").clear()
        submit(driver, "new password 1", "new password 2")
        if javascript:
            # The script refuses the mismatch before sending: both fields keep what was typed.
            assert driver.find_element(By.ID, "confirm-password").get_attribute("value") == "new password 2"
            assert driver.execute_script("return document.getElementById('confirm-password').validationMessage") == en["passwords_differ"]
            driver.find_element(By.CSS_SELECTOR, "button[data-reveal]").click()
            assert driver.find_element(By.ID, "new-password").get_attribute("type") == "text"
            driver.find_element(By.ID, "confirm-password").clear()
            driver.find_element(By.ID, "new-password").clear()
        else:
            # Without the script the server refuses it, with a redirect: the reason, and a GET to reload.
            WebDriverWait(driver, 10).until(lambda d: "refused=differ" in d.current_url)
            assert en["passwords_differ"] in driver.page_source
            driver.refresh()
            assert wait_for_heading(driver, en["reset_title"]) and en["passwords_differ"] in driver.page_source
            assert not driver.find_elements(By.CSS_SELECTOR, "button[data-reveal]:not([hidden])")  # nothing that needs the script shows
        submit(driver, "new password 3", "new password 3")
        assert wait_for_heading(driver, en["reset_done_title"])
        # History holds the form (and, without the script, the refused form) before the result.
        for step in ["back", "forward", "reload", "back"] + ([] if javascript else ["back", "forward"]):
            getattr(driver, {"reload": "refresh"}.get(step, step))()
            heading = page_heading(driver)
            assert heading == en["reset_done_title"], f"after {step}: {heading!r} at {driver.current_url}"
        # The password is the one the form sent last.
        request = urllib.request.Request(f"{server.base}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                                         data=json.dumps({"email": email, "password": "new password 3"}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            assert "idToken" in json.load(response)
    finally:
        driver.quit()


def test_the_in_app_page_puts_copy_link_first_and_the_code_out_of_sight(server):
    en = strings("en")
    driver = chromium(GMAIL, javascript=True)
    try:
        # An iPhone SE's screen; the app's own toolbars take some of it, so the button must sit well inside.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 320, "height": 568, "deviceScaleFactor": 2, "mobile": True})
        link = mailed(server.base, "EMAIL_SIGNIN", account(server.base), "en", continueUrl="https://example.com/finish", canHandleCodeInApp=True)
        code = re.search(r"oobCode(?:=|%3D)([A-Za-z0-9_-]+)", link).group(1)
        driver.get(link)
        copy = driver.find_element(By.CSS_SELECTOR, "button[data-copy]")
        viewport = driver.execute_script("return window.innerHeight")
        assert copy.is_displayed() and copy.text == en["copy_link"]
        assert viewport == 568 and copy.rect["y"] + copy.rect["height"] <= 480, (copy.rect, viewport)
        if os.environ.get("SCREENSHOTS_DIR"):
            driver.save_screenshot(os.path.join(os.environ["SCREENSHOTS_DIR"], "landing-gmail-320.png"))
        assert code not in driver.find_element(By.TAG_NAME, "body").text  # the address is behind "Show the link"
        driver.find_element(By.CSS_SELECTOR, "details.raw-link summary").click()
        assert driver.find_element(By.CSS_SELECTOR, "details.raw-link input").get_attribute("value") == link
        # The page's own address is never a link: tapped, it would only reload here.
        assert not [a for a in driver.find_elements(By.CSS_SELECTOR, "main a") if a.get_attribute("href") == link]
    finally:
        driver.quit()


@pytest.mark.parametrize("language", sorted(path.stem for path in LOCALES.glob("*.json")))
def test_every_language_says_the_new_steps(server, language):
    table = strings(language)
    driver = chromium(DESKTOP, javascript=True)
    try:
        driver.get(f"{server.base}/__/auth/action?mode=verifyEmail&oobCode=nope&apiKey=k&lang={language}")
        for key in ["new_link_prompt", "new_link_email", "new_link_button", "error_invalid_title"]:
            assert table[key] in driver.find_element(By.TAG_NAME, "body").text, (language, key)
    finally:
        driver.quit()
