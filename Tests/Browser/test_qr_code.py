"""A sign-in link meant for the phone, opened on a computer: the page shows the same link as a QR
code, which a camera reads off the rendered page (Chromium draws it, zbarimg decodes the
screenshot); and a tap the app did not take, arriving on the pivot host, is never sent back to it."""

import http.client
import subprocess
import tempfile

import pytest

from conftest import Server, chromium

DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")
SIGN_IN = "/__/auth/action?apiKey=k&mode=signIn&oobCode=qr-code-test&lang=en"


@pytest.fixture(scope="module")
def server():
    server = Server(tempfile.mkdtemp(prefix="linkdomain-qr-"), "qr", {
        "pivotBaseURL": "https://open.example.com",
        "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app", "appStoreID": "1234567890"}]},
        "authorizedDomains": ["127.0.0.1"],
        "storage": {"sqlitePath": "auth.sqlite"},
    })
    yield server
    server.stop()


def get(server, path, user_agent, host=None):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {"User-Agent": user_agent}
    if host:
        headers["Host"] = host
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    return response.status, response.read().decode()


def test_the_qr_code_on_a_computer_is_the_link(server, tmp_path):
    driver = chromium(DESKTOP)
    try:
        driver.set_window_size(1000, 1100)
        driver.get(server.base + SIGN_IN)
        shot = tmp_path / "qr.png"
        driver.save_screenshot(str(shot))
    finally:
        driver.quit()
    decoded = subprocess.run(["zbarimg", "--quiet", "--raw", str(shot)], capture_output=True, text=True)
    assert decoded.returncode == 0, decoded.stderr
    # The page's public address is the configured base URL (here the loopback one it serves on).
    assert decoded.stdout.strip() == f"http://127.0.0.1:{server.port}{SIGN_IN}"


def test_a_phone_gets_no_qr_code_and_the_code_is_not_spent(server):
    # The code was never issued: the phone is told so at once, and shown no code to scan.
    status, page = get(server, SIGN_IN, IPHONE)
    assert status == 400 and 'class="qr"' not in page
    status, page = get(server, SIGN_IN, DESKTOP)
    assert status == 200 and 'class="qr"' in page and "<svg" in page and "Scan this code" in page


def live_reset_code(server):
    import json
    import urllib.request
    import uuid
    email = f"pivot-{uuid.uuid4().hex[:8]}@example.com"
    for operation, body in [("accounts", {"email": email, "password": "password 1"}),
                            ("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": email, "returnOobLink": True})]:
        request = urllib.request.Request(f"{server.base}/identitytoolkit.googleapis.com/v1/projects/demo-linkdomain/{operation}",
                                         data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json", "Authorization": "Bearer owner"})
        with urllib.request.urlopen(request, timeout=10) as response:
            answer = json.load(response)
    return answer["oobLink"].split("oobCode=")[1].split("&")[0]


def test_the_pivot_host_never_offers_the_app_again(server):
    # A live code: the landing comes after its check (a used one would end at once).
    reset = f"/__/auth/action?apiKey=k&mode=resetPassword&oobCode={live_reset_code(server)}&lang=en"
    status, landing = get(server, reset, IPHONE)
    assert status == 200 and "https://open.example.com/__/auth/action" in landing
    status, pivot = get(server, reset, IPHONE, host="open.example.com")
    assert status == 200 and "App not installed?" in pivot and "https://open.example.com/" not in pivot
