"""The app half on a phone without the app: "Copy the link and get the app" puts a sealed hand-off
URL on the pasteboard (Chromium, clipboard permission granted) and goes to the App Store; the app
claims it once through `installAttribution`. Android's Play link carries the same in `referrer`.
A short link's QR codes (PNG and SVG) decode to the short link itself (zbarimg), and neither
page nor image writes anything."""

import json
import sqlite3
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import Server, chromium, post_json

IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36"
LINK_KEY = "handoff-short-link-key-0123456789"


@pytest.fixture(scope="module")
def server():
    directory = tempfile.mkdtemp(prefix="linkdomain-handoff-")
    server = Server(directory, "handoff", {
        "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app", "appStoreID": "1234567890"}]},
        "android": {"apps": [{"packageName": "com.example.app",
                              "fingerprints": ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"]}]},
        "authorizedDomains": ["127.0.0.1", "example.com"],
        "shortLinks": {"apiKeys": [LINK_KEY]},
        "storage": {"sqlitePath": f"{directory}/links.sqlite"},
    })
    server.database = f"{directory}/links.sqlite"
    yield server
    server.stop()


def short_link(server, deep_link):
    status, answer = post_json(f"{server.base}/v1/shortLinks?key={LINK_KEY}",
                               {"longDynamicLink": f"{server.base}/?link={urllib.parse.quote(deep_link, safe='')}&ibi=com.example.app&apn=com.example.app"})
    assert status == 200, answer
    return answer["shortLink"]


def stats(server, short):
    url = f"{server.base}/v1/{urllib.parse.quote(short, safe='')}/linkStats?durationDays=7&key={LINK_KEY}"
    with urllib.request.urlopen(url) as response:
        return json.load(response).get("linkEventStats", [])


def claim(server, candidate):
    return post_json(f"{server.base}/v1/installAttribution?key=app-key", {"bundleId": "com.example.app", "uniqueMatchLinkToCheck": candidate})[1]


def test_copy_the_link_and_get_the_app_hands_the_link_to_the_app_once(server):
    short = short_link(server, "https://example.com/recipe/42")
    driver = chromium(IPHONE, javascript=True)
    try:
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": server.base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        driver.get(short)  # a phone gets the preview page first
        store = driver.find_element(By.CSS_SELECTOR, "a[data-copy-then]")
        assert store.text == "Copy the link and get the app"
        store.click()
        WebDriverWait(driver, 10).until(lambda d: "apps.apple.com" in d.current_url)
        assert "1234567890" in driver.current_url
        driver.get(server.base + "/healthz")
        pasted = driver.execute_async_script("navigator.clipboard.readText().then(arguments[0], e => arguments[0]('error: ' + e))")
    finally:
        driver.quit()
    assert pasted.startswith(server.base + "/__/handoff/"), pasted
    assert "recipe" not in pasted  # sealed: the pasteboard shows nothing of the link
    first = claim(server, pasted)
    assert first["attributionConfidence"] == "UNIQUE" and first["deepLink"] == "https://example.com/recipe/42", first
    again = claim(server, pasted)
    assert "deepLink" not in again and "already claimed" in again["matchMessage"]
    time.sleep(1.5)  # events are stored in batches
    events = {row["event"]: row["count"] for row in stats(server, short) if row["platform"] == "IOS"}
    assert events.get("APP_INSTALL") == "1" and events.get("APP_FIRST_OPEN") == "1", events


def test_the_play_link_carries_a_referrer_the_app_claims(server):
    short = short_link(server, "https://example.com/android/7")
    request = urllib.request.Request(short, headers={"User-Agent": ANDROID})
    with urllib.request.urlopen(request) as response:
        page = response.read().decode()
    start = page.index("https://play.google.com/store/apps/details?id=com.example.app&amp;referrer=")
    play = page[start:page.index('"', start)].replace("&amp;", "&")
    referrer = urllib.parse.parse_qs(urllib.parse.urlsplit(play).query)["referrer"][0]
    assert referrer.startswith("ldh.") and "android" not in referrer
    assert claim(server, referrer)["deepLink"] == "https://example.com/android/7"


def test_a_hand_off_url_opened_in_a_browser_spends_nothing(server):
    short = short_link(server, "https://example.com/opened")
    request = urllib.request.Request(short, headers={"User-Agent": IPHONE})
    with urllib.request.urlopen(request) as response:
        page = response.read().decode()
    start = page.index('data-copy-then="') + len('data-copy-then="')
    handoff = page[start:page.index('"', start)]
    with urllib.request.urlopen(handoff) as response:
        assert response.status == 200 and "Open the" in response.read().decode()
    assert claim(server, handoff)["attributionConfidence"] == "UNIQUE"


@pytest.mark.parametrize("image", ["png", "svg"])
def test_a_short_links_qr_code_is_the_short_link(server, image, tmp_path):
    short = short_link(server, "https://example.com/poster")
    with urllib.request.urlopen(f"{short}/qr.{image}") as response:
        assert response.headers["Content-Type"] == ("image/png" if image == "png" else "image/svg+xml")
        body = response.read()
    picture = tmp_path / "qr.png"
    if image == "png":
        picture.write_bytes(body)
    else:
        # Drawn by a browser, as it is on a slide or a printed page.
        driver = chromium(IPHONE)
        try:
            driver.set_window_size(900, 1000)
            driver.get(f"{short}/qr.svg")
            driver.save_screenshot(str(picture))
        finally:
            driver.quit()
    decoded = subprocess.run(["zbarimg", "--quiet", "--raw", str(picture)], capture_output=True, text=True)
    assert decoded.returncode == 0, decoded.stderr
    assert decoded.stdout.strip() == short
    assert not stats(server, short)  # an image is not a click
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{server.base}/NoSuchLink1/qr.png")
    assert missing.value.code == 404



def database_counts(server):
    """Rows (and a checksum) of the tables a GET must never write: claims, codes, events."""
    with sqlite3.connect(server.database) as connection:
        return {table: connection.execute(f"SELECT COUNT(*), COALESCE(SUM({column}), 0) FROM {table}").fetchone()
                for table, column in [("handoffClaims", "claimedAt"), ("oobCodes", "expiresAt"), ("linkEvents", "count")]}


def test_a_get_only_crawler_of_the_new_pages_spends_and_writes_nothing(server):
    """Phone pages that make hand-offs, the hand-off URL itself, QR codes and the new-link page,
    fetched with GET and HEAD as a mail scanner or a link previewer would: no claim is written, no
    code spent, and the new pages count no event."""
    short = short_link(server, "https://example.com/crawled")
    pages = []
    for agent in [IPHONE, ANDROID]:
        with urllib.request.urlopen(urllib.request.Request(short, headers={"User-Agent": agent})) as response:
            pages.append(response.read().decode())
    time.sleep(1.5)  # the phone views' clicks, stored
    before = database_counts(server)
    start = pages[0].index('data-copy-then="') + len('data-copy-then="')
    handoff = pages[0][start:pages[0].index('"', start)]
    for url in [handoff, f"{server.base}/__/handoff/not-a-token", f"{short}/qr.svg", f"{short}/qr.png", f"{server.base}/__/auth/new-link?lang=it"]:
        for method in ["GET", "HEAD"]:
            with urllib.request.urlopen(urllib.request.Request(url, method=method, headers={"User-Agent": "Googlebot/2.1"})) as response:
                assert response.status == 200, url
    time.sleep(1.5)  # past a batch of event writes
    assert database_counts(server) == before
