"""The pages in a real browser: headless Chromium, with JavaScript turned off, completes a password
reset and an email verification by clicking, and takes a screenshot of each kind of page.

Screenshots go to $SCREENSHOTS_DIR when set (docs/screenshots/ holds the committed ones),
else to a temporary folder."""

import json
import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import Server, chromium, wait_for_heading

IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")
# Headless Chromium names itself HeadlessChrome, which the service rightly treats as a link scanner:
# present the browser as the desktop Chrome it is.
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
SHOTS = Path(os.environ.get("SCREENSHOTS_DIR") or tempfile.mkdtemp(prefix="linkdomain-shots-"))


@pytest.fixture(scope="module")
def server():
    server = Server(tempfile.mkdtemp(prefix="linkdomain-browser-"), "browser", {
        "pivotBaseURL": "https://open.example.com",
        "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app", "appStoreID": "1234567890"}]},
        "android": {"apps": [{"packageName": "com.example.app", "fingerprints": ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"]}]},
        "authorizedDomains": ["127.0.0.1", "localhost"],
        "storage": {"sqlitePath": "auth.sqlite"},
        "branding": {"appName": "Example", "supportURL": "https://example.com/help", "privacyURL": "https://example.com/privacy",
                     "termsURL": "https://example.com/terms"},
    })
    yield server.base
    server.stop()


def call(base, operation, body, admin=False):
    path = f"/identitytoolkit.googleapis.com/v1/projects/demo-linkdomain/{operation}" if admin \
        else f"/identitytoolkit.googleapis.com/v1/{operation}?key=browser-test"
    headers = {"Content-Type": "application/json"}
    if admin:
        headers["Authorization"] = "Bearer owner"
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        return json.load(error)


def link(base, request_type, email, **extra):
    answer = call(base, "accounts:sendOobCode", {"requestType": request_type, "email": email, "returnOobLink": True, **extra}, admin=True)
    return answer["oobLink"]


def browser(user_agent=DESKTOP):
    return chromium(user_agent)


@pytest.fixture(scope="module")
def chrome():
    driver = browser()
    yield driver
    driver.quit()


def shot(driver, name, desktop=False):
    """`name.png` in the light scheme and `name-dark.png` in the dark one; with `desktop`, also
    `name-desktop.png` in a desktop-sized window."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme, suffix in [("light", ""), ("dark", "-dark")]:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        driver.save_screenshot(str(SHOTS / f"{name}{suffix}.png"))
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
    if desktop:
        size = driver.get_window_size()
        driver.set_window_size(1280, 800)
        driver.save_screenshot(str(SHOTS / f"{name}-desktop.png"))
        driver.set_window_size(size["width"], size["height"])


def test_password_reset_by_clicking(server, chrome):
    call(server, "accounts:signUp", {"email": "reset@example.com", "password": "old password"})
    chrome.get(link(server, "PASSWORD_RESET", "reset@example.com", continueUrl=f"{server}/healthz"))
    assert wait_for_heading(chrome, "Choose a new password")
    assert "reset@example.com" in chrome.page_source
    shot(chrome, "reset-password", desktop=True)
    chrome.find_element(By.ID, "new-password").send_keys("new password")
    chrome.find_element(By.ID, "confirm-password").send_keys("other password")
    chrome.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(chrome, 10).until(lambda d: "not the same" in d.page_source)
    shot(chrome, "reset-password-error")
    chrome.find_element(By.ID, "new-password").send_keys("new password")
    chrome.find_element(By.ID, "confirm-password").send_keys("new password")
    chrome.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert wait_for_heading(chrome, "Your password has been changed")
    shot(chrome, "reset-password-done")
    assert "idToken" in call(server, "accounts:signInWithPassword", {"email": "reset@example.com", "password": "new password"})
    chrome.find_element(By.LINK_TEXT, "Continue").click()
    assert chrome.current_url == f"{server}/healthz"


def test_email_verification_by_clicking(server, chrome):
    user = call(server, "accounts:signUp", {"email": "verify@example.com", "password": "password 1"})
    chrome.get(link(server, "VERIFY_EMAIL", "verify@example.com"))
    assert wait_for_heading(chrome, "Verify your email address")
    shot(chrome, "verify-email")
    chrome.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert wait_for_heading(chrome, "Your email address has been verified")
    shot(chrome, "verify-email-done")
    users = call(server, "accounts:lookup", {"localId": [user["localId"]]}, admin=True)["users"]
    assert users[0]["emailVerified"] is True


def test_other_page_kinds(server, chrome):
    call(server, "accounts:signUp", {"email": "old@example.com", "password": "password 1"})
    chrome.get(link(server, "VERIFY_AND_CHANGE_EMAIL", "old@example.com", newEmail="new@example.com"))
    assert wait_for_heading(chrome, "Confirm your new email address")
    shot(chrome, "change-email")
    chrome.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert wait_for_heading(chrome, "Your email address has been changed")
    recover = [code for code in json.load(urllib.request.urlopen(f"{server}/emulator/v1/projects/demo-linkdomain/oobCodes"))["oobCodes"]
               if code["requestType"] == "RECOVER_EMAIL"][0]
    chrome.get(recover["oobLink"])
    assert wait_for_heading(chrome, "Restore your email address")
    shot(chrome, "recover-email")
    chrome.get(f"{server}/__/auth/action?mode=resetPassword&oobCode=used-or-invalid&apiKey=k&lang=ru")
    assert wait_for_heading(chrome, "Ссылка уже использована или недействительна")
    shot(chrome, "error-invalid-ru")
    chrome.get(f"{server}/__/auth/action?mode=signIn&oobCode=abc&apiKey=k")
    assert wait_for_heading(chrome, "Finish signing in")
    shot(chrome, "sign-in-instructions")


def test_landing_page_on_iphone(server):
    driver = browser(IPHONE)
    try:
        call(server, "accounts:signUp", {"email": "phone@example.com", "password": "password 1"})
        driver.get(link(server, "PASSWORD_RESET", "phone@example.com", iOSBundleId="com.example.app"))
        assert wait_for_heading(driver, "Reset your Example password")
        assert driver.find_element(By.LINK_TEXT, "Open in the app").get_attribute("href").startswith("https://open.example.com/__/auth/links?link=")
        # A reset finishes in the browser: "Continue" is the first, primary button; the app comes second.
        buttons = driver.find_elements(By.CSS_SELECTOR, "a.button")
        assert [b.text for b in buttons][:2] == ["Continue", "Open in the app"] and "secondary" not in buttons[0].get_attribute("class")
        shot(driver, "landing-iphone")
        assert driver.title == "Reset your Example password – Example"
        driver.find_element(By.LINK_TEXT, "Continue").click()
        assert wait_for_heading(driver, "Choose a new password")
    finally:
        driver.quit()


def test_landing_page_in_gmail_on_iphone(server):
    """Gmail's own browser cannot open the app: the page says how to get to Safari instead."""
    driver = browser(IPHONE.replace("Version/17.5 Mobile/15E148 Safari/604.1", "Mobile/15E148 GmailApp/6.0"))
    try:
        call(server, "accounts:signUp", {"email": "gmail@example.com", "password": "password 1"})
        driver.get(link(server, "PASSWORD_RESET", "gmail@example.com", iOSBundleId="com.example.app"))
        assert wait_for_heading(driver, "Reset your Example password")
        assert "Gmail" in driver.page_source and "“Open in Safari”" in driver.page_source
        assert "press and hold" not in driver.page_source
        shot(driver, "landing-gmail")
        # The same in Russian, in an Android WebView: Chrome, not Safari, and no intent:// that would fail there.
        webview = "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/125.0 Mobile Safari/537.36"
        driver.quit()
        driver = browser(webview)
        driver.get(link(server, "PASSWORD_RESET", "gmail@example.com", androidPackageName="com.example.app").replace("lang%3Den", "lang%3Dru"))
        WebDriverWait(driver, 10).until(lambda d: "Chrome" in d.page_source)
        assert "встроенном браузере" in driver.page_source and "intent://" not in driver.page_source
    finally:
        driver.quit()
