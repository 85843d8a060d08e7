"""Every language in headless Chromium (docs/design/languages.md): the landing page, the reset form
and a used link's page at 320 px and on a desktop, with nothing wider than the screen (German and
Finnish run long), axe-core's WCAG A/AA rules clean, right to left mirrored for ar, fa and he, and
an address kept left to right inside right-to-left text. Screenshots of each are written to
$PAGE_SCREENSHOTS (a temporary directory when unset) for people to look at."""

import json
import os
import pathlib
import tempfile
import urllib.parse
import urllib.request

import pytest

from conftest import Server, chromium
from test_accessibility import DESKTOP, IPHONE, admin, run_axe

LANGUAGES = [
    "en", "en-GB", "ar", "bg", "ca", "cs", "da", "de", "el", "es", "es-419", "fa", "fi", "fil", "fr", "he", "hi", "hr", "hu", "id", "it",
    "ja", "ko", "lt", "lv", "nl", "no", "pl", "pt", "pt-PT", "ro", "ru", "sk", "sl", "sr", "sv", "th", "tr", "uk", "vi", "zh-CN", "zh-TW",
]
RIGHT_TO_LEFT = {"ar", "fa", "he"}
WIDTHS = {"phone": (320, 640, True), "desktop": (1280, 800, False)}
ADDRESS = "languages-reader@example.com"

# Elements wider than the viewport, or starting left of it while still visible (a skip link parked
# far off-screen until focused is not a layout fault).
OVERFLOW = """
const width = document.documentElement.clientWidth;
const wide = [];
if (document.documentElement.scrollWidth > width) wide.push('page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + width);
for (const element of document.querySelectorAll('body *')) {
  const box = element.getBoundingClientRect();
  if (box.width === 0 || box.right <= 0 || box.left >= width + 100) continue;
  if (box.left < -1 || box.right > width + 1) wide.push(element.tagName.toLowerCase() + '.' + element.className + ' ' + Math.round(box.left) + '..' + Math.round(box.right));
}
return wide;
"""


@pytest.fixture(scope="module")
def links():
    server = Server(tempfile.mkdtemp(prefix="linkdomain-languages-"), "languages", {
        "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app", "appStoreID": "1234567890"}]},
        "authorizedDomains": ["127.0.0.1", "example.com"],
        "branding": {"appName": "Example", "supportURL": "https://example.com/help", "privacyURL": "https://example.com/privacy"},
    })
    base = server.base
    admin(base, "accounts", {"email": ADDRESS, "password": "password 1"})

    def link(**extra):
        return admin(base, "accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": ADDRESS, "returnOobLink": True, **extra})["oobLink"]

    used = link(iOSBundleId="com.example.app")
    code = urllib.parse.unquote(used).split("oobCode=")[1].split("&")[0]
    request = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v1/accounts:resetPassword?key=demo-api-key",
                                     data=json.dumps({"oobCode": code, "newPassword": "password 2"}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        assert response.status == 200
    yield {
        "landing": (IPHONE, link(iOSBundleId="com.example.app")),
        "reset form": (DESKTOP, link(continueUrl="https://example.com/")),
        "used link": (IPHONE, used),
    }
    server.stop()


@pytest.fixture(scope="module")
def browser():
    driver = chromium(DESKTOP, javascript=True)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def screenshots():
    directory = pathlib.Path(os.environ.get("PAGE_SCREENSHOTS") or tempfile.mkdtemp(prefix="linkdomain-screenshots-"))
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def in_language(link, language):
    """`link` as Firebase mails it to an app set to `language`: its action link's `lang` (inside an
    app's `/__/auth/links?link=`, percent-encoded)."""
    assert "lang=en" in link or "lang%3Den" in link, link
    return link.replace("lang=en", f"lang={language}").replace("lang%3Den", f"lang%3D{language}")


def show(driver, agent, url, size, language):
    """`url` as a browser set to `language` shows it: an action link in its `lang`, an app's link
    (whose own link names none) by `Accept-Language`."""
    width, height, mobile = WIDTHS[size]
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": f"{language}, en;q=0.1"}})
    driver.execute_cdp_cmd("Network.setUserAgentOverride", {"userAgent": agent})
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    driver.get(url)


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_page_fits_reads_and_passes_axe(links, browser, screenshots, language):
    failures = []
    for name, (agent, link) in links.items():
        for size in WIDTHS:
            show(browser, agent, in_language(link, language), size, language)
            html = browser.find_element("tag name", "html")
            assert html.get_attribute("lang") == language, (name, size)
            assert html.get_attribute("dir") == ("rtl" if language in RIGHT_TO_LEFT else "ltr"), (name, size)
            failures += [f"{name} at {size}: {wide}" for wide in browser.execute_script(OVERFLOW)]
            browser.save_screenshot(str(screenshots / f"{language}-{name.replace(' ', '-')}-{size}.png"))
            if size == "phone":
                failures += [f"{name}: axe {violation['id']}: {violation['help']}" for violation in run_axe(browser)]
    assert not failures, "\n".join(failures)


# How far each element's text (its first line) stands from the card's left and right edges.
START_GAPS = """
const card = document.querySelector('main').getBoundingClientRect();
return [...arguments].map(selector => {
  const range = document.createRange();
  range.selectNodeContents(document.querySelector(selector));
  const line = range.getClientRects()[0];
  return {selector, right: Math.round(card.right - line.right), left: Math.round(line.left - card.left)};
});
"""


@pytest.mark.parametrize("language", ["en"] + sorted(RIGHT_TO_LEFT))
def test_right_to_left_is_mirrored_and_keeps_addresses_whole(links, browser, language):
    agent, link = links["reset form"]
    show(browser, agent, in_language(link, language), "phone", language)
    # The heading, the password fields' labels and "Show passwords" start at the right edge, where a
    # right-to-left reader starts; the fields themselves fill the width.
    gaps = browser.execute_script(START_GAPS, "h1", "label[for=new-password]", "label[for=confirm-password]", "button[data-reveal]")
    for gap in gaps:
        assert (gap["right"] < gap["left"]) == (language in RIGHT_TO_LEFT), gap
    # The address reads left to right inside the right-to-left page: isolated in a <bdi>.
    assert f"<bdi>{ADDRESS}</bdi>" in browser.page_source
    bdi = browser.execute_script("const b = document.querySelector('.account bdi'); return getComputedStyle(b).unicodeBidi;")
    assert bdi == "isolate"
