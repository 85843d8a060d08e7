"""Every page state checked by axe-core (the engine `axe-selenium-python` bundles) in headless
Chromium: no WCAG A or AA violation, in light and dark, on a phone and a desktop, in English,
Russian and Arabic (right to left); every other language's key pages in test_languages_in_browser.py. JavaScript is on, as in people's browsers (the pages' own script shows "Show passwords" and
"Copy link"), and so that axe can run."""

import json
import tempfile
import urllib.parse
import urllib.request
import uuid

import pytest
from axe_selenium_python import Axe

from conftest import Server, chromium, click_and_wait_for_next_page

IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")
GMAIL = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 GmailApp/6.0"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
# The axe-core that axe-selenium-python bundles knows WCAG 2.0's A and AA rules by these tags.
TAGS = ["wcag2a", "wcag2aa"]


@pytest.fixture(scope="module")
def server():
    server = Server(tempfile.mkdtemp(prefix="linkdomain-axe-"), "axe", {
        "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app", "appStoreID": "1234567890"}]},
        "authorizedDomains": ["127.0.0.1", "example.com"],
        "branding": {"appName": "Example", "supportURL": "https://example.com/help", "privacyURL": "https://example.com/privacy",
                     "termsURL": "https://example.com/terms"},
    })
    yield server.base
    server.stop()


def admin(base, operation, body):
    request = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v1/projects/demo-linkdomain/{operation}",
                                     data=json.dumps(body).encode(), headers={"Content-Type": "application/json", "Authorization": "Bearer owner"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def page_states(base):
    """(name, user agent, URL, what to do on the page first) for every kind of page."""
    email = f"axe-{uuid.uuid4().hex[:8]}@example.com"
    admin(base, "accounts", {"email": email, "password": "password 1"})

    def link(kind, **extra):
        return admin(base, "accounts:sendOobCode", {"requestType": kind, "email": email, "returnOobLink": True, **extra})["oobLink"]

    reset = link("PASSWORD_RESET", continueUrl="https://example.com/")
    app_link = link("PASSWORD_RESET", iOSBundleId="com.example.app")
    return [
        ("reset form", DESKTOP, reset, None),
        ("reset error", DESKTOP, reset + "&web=1&refused=differ", None),
        ("reset done", DESKTOP, reset, "submit"),
        ("verify form", DESKTOP, link("VERIFY_EMAIL"), None),
        ("verify done", DESKTOP, link("VERIFY_EMAIL"), "confirm"),
        ("change form", DESKTOP, link("VERIFY_AND_CHANGE_EMAIL", newEmail=f"new-{email}"), None),
        ("landing on iPhone", IPHONE, app_link, None),
        ("landing in Gmail", GMAIL, app_link, None),
        ("invalid code", DESKTOP, f"{base}/__/auth/action?mode=resetPassword&oobCode=nope&apiKey=k", None),
        ("not a link", DESKTOP, f"{base}/__/auth/action?mode=resetPassword", None),
        ("refused continue URL", DESKTOP, f"{base}/__/auth/action?mode=signIn&oobCode=x&apiKey=k&continueUrl=https%3A%2F%2Fevil.example.net%2F", None),
        ("debug", IPHONE, app_link + "&d=1", None),
        ("sign-in on a desktop (QR code)", DESKTOP, f"{base}/__/auth/action?mode=signIn&oobCode=x&apiKey=k", None),
        ("sign-in in Gmail (Copy link)", GMAIL, link("EMAIL_SIGNIN", continueUrl="https://example.com/", canHandleCodeInApp=True,
                                                     iOSBundleId="com.example.app"), None),
        ("sign-in an app asked for, on a desktop (open on your phone)", DESKTOP,
         link("EMAIL_SIGNIN", continueUrl=f"{base}/__/demo/continue", canHandleCodeInApp=True, iOSBundleId="com.example.app"), None),
        ("used link on an iPhone (send me a new link)", IPHONE, f"{base}/__/auth/links?link=" + urllib.parse.quote(
            f"{base}/__/auth/action?mode=signIn&oobCode=never-issued&apiKey=k&continueUrl={base}/__/demo/continue", safe=""), None),
        ("the demo's continue page", DESKTOP, f"{base}/__/demo/continue?lang=en", None),
        ("new link sent", DESKTOP, f"{base}/__/auth/new-link?lang=en", None),
        ("page not found", DESKTOP, f"{base}/no/such/page", None),
    ]


def run_axe(driver):
    """axe-core's violations of WCAG 2.1 A and AA on the current page."""
    Axe(driver).inject()
    driver.set_script_timeout(60)
    answer = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
        ".then(r => done(JSON.stringify(r.violations))).catch(e => done(JSON.stringify([{id: 'axe-error', help: String(e), nodes: []}])));",
        TAGS)
    return json.loads(answer)


def act(driver, step):
    """Fills and submits the page's form, then waits for the answer's page: axe injected while the
    form's page is still being replaced would land in the old document and be gone."""
    from selenium.webdriver.common.by import By
    if step is None:
        return
    if step == "submit":
        driver.find_element(By.ID, "new-password").send_keys("new password")
        driver.find_element(By.ID, "confirm-password").send_keys("new password")
    click_and_wait_for_next_page(driver, driver.find_element(By.CSS_SELECTOR, "button[type=submit]"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("language", ["en", "ru", "ar"])
def test_no_wcag_violation_on_any_page(server, scheme, language):
    failures = []
    for name, agent, url, step in page_states(server):
        driver = chromium(agent, javascript=True)
        try:
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
            driver.get(url + ("&" if "?" in url else "?") + f"lang={language}" if "lang=" not in url else url.replace("lang=en", f"lang={language}"))
            act(driver, step)
            for violation in run_axe(driver):
                failures.append(f"{name} ({scheme}, {language}): {violation['id']}: {violation['help']} — "
                                + "; ".join(node["html"][:120] for node in violation["nodes"][:3]))
        finally:
            driver.quit()
    assert not failures, "\n".join(failures)


def test_the_check_finds_what_it_looks_for(server):
    """An image without alt text and a grey-on-white paragraph, added to a real page, are reported."""
    driver = chromium(DESKTOP, javascript=True)
    try:
        driver.get(f"{server}/__/auth/action?mode=resetPassword")
        # Styled through the CSSOM: the pages' CSP would drop a style attribute.
        driver.execute_script("const main = document.querySelector('main');"
                              "main.insertAdjacentHTML('beforeend', '<img src=\"/__/static/favicon.svg\"><p id=\"faint\">faint</p>');"
                              "document.getElementById('faint').style.color = '#ddd';")
        assert {"image-alt", "color-contrast"} <= {violation["id"] for violation in run_axe(driver)}
    finally:
        driver.quit()
