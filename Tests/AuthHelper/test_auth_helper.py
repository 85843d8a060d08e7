"""The rest of Firebase Hosting's /__/ on this host (docs/design/auth-helper.md), against the real
binary: the sign-in helper relayed from a local stand-in for <project>.firebaseapp.com (byte for
byte, its headers and framing rules, its own Host, never the visitor's cookies, only its two
prefixes, kept copies while it is down, a deadline when it hangs), the helper's iframe framed by
another origin in Chromium, init.json and the passkey and password-manager files, and
firebase-admin through the admin listener of a deployment."""

import http.client
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from conftest import BINARY, Server, chromium, free_port

HANDLER_JS = bytes(range(256)) * 300 + os.urandom(50_000)
IFRAME_HTML = b"""<!doctype html><html><head><title>helper iframe</title><script src="/__/auth/iframe.js"></script></head><body>iframe</body></html>"""
IFRAME_JS = b"window.parent.postMessage('helper-ready ' + location.host, '*');\n"
HANDLER_HTML = b"<!doctype html><html><head><title>handler</title></head><body>signing in</body></html>"


class StandIn:
    """A stand-in for the project's firebaseapp.com origin that records what reaches it."""

    def __init__(self):
        self.requests = []
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *arguments):
                pass

            def answer(self, status, body, headers):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self, body=None):
                stand_in.requests.append({"method": self.command, "path": self.path, "headers": {name.lower(): value for name, value in self.headers.items()}, "body": body})
                path = self.path.split("?")[0]
                if path == "/__/auth/handler.js":
                    self.answer(200, HANDLER_JS, [("Content-Type", "text/javascript"), ("Cache-Control", "public, max-age=1800"),
                                                  ("ETag", '"handler-v1"'), ("Set-Cookie", "origin=1; Path=/")])
                elif path == "/__/auth/handler":
                    self.answer(200, HANDLER_HTML + (body or b""), [
                        ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"), ("Set-Cookie", "origin-session=1"),
                        ("Content-Security-Policy", "script-src 'self' https://apis.google.com"), ("X-Stand-In", "handler")])
                elif path == "/__/auth/iframe":
                    self.answer(200, IFRAME_HTML, [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache")])
                elif path == "/__/auth/iframe.js":
                    self.answer(200, IFRAME_JS, [("Content-Type", "text/javascript"), ("Cache-Control", "public, max-age=1800")])
                elif path == "/__/auth/slow.js":
                    time.sleep(20)
                    self.answer(200, b"late", [("Content-Type", "text/javascript")])
                elif path == "/__/auth/drip.js":
                    # The head at once, then a byte every half second for 20 s.
                    self.send_response(200)
                    self.send_header("Content-Type", "text/javascript")
                    self.send_header("Content-Length", "40")
                    self.end_headers()
                    for _ in range(40):
                        self.wfile.write(b"x")
                        self.wfile.flush()
                        time.sleep(0.5)
                elif path == "/__/auth/experiments.js":
                    self.answer(200, b"// experiments", [
                        ("Content-Type", "text/javascript"), ("Cache-Control", "public, max-age=1800"), ("Cache-Control", "no-store"),
                        ("NEL", '{"report_to": "x", "max_age": 86400}'), ("Report-To", '{"group": "x"}'), ("Clear-Site-Data", '"*"'),
                        ("Access-Control-Allow-Origin", "*"), ("Alt-Svc", 'h3=":443"'), ("Strict-Transport-Security", "max-age=1; includeSubDomains")])
                elif path.startswith("/__/firebase/"):
                    self.answer(200, b"// firebase sdk " + path.encode(), [("Content-Type", "text/javascript"), ("Cache-Control", "max-age=60")])
                else:
                    self.answer(404, b"not here", [("Content-Type", "text/plain")])

            def do_POST(self):
                self.do_GET(self.rfile.read(int(self.headers.get("Content-Length", "0"))))

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def fetch(base, target, method="GET", headers=None, body=None):
    """(status, headers, body) of one request with the target sent exactly as written."""
    host, port = base.split("//")[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    connection.request(method, target, body=body, headers=headers or {})
    response = connection.getresponse()
    answer = (response.status, {name.lower(): value for name, value in response.getheaders()}, response.read())
    connection.close()
    return answer


@pytest.fixture(scope="module")
def helper(tmp_path_factory):
    stand_in = StandIn()
    server = Server(tmp_path_factory.mktemp("helper"), "helper", {
        "authHandler": {"origin": stand_in.origin},
        "webApp": {"appId": "1:1234567890:web:abc123", "messagingSenderId": "1234567890"},
    })
    yield server, stand_in
    server.stop()
    stand_in.stop()


def test_helper_files_byte_for_byte_with_the_origins_host_and_headers(helper):
    server, stand_in = helper
    status, headers, body = fetch(server.base, "/__/auth/handler.js")
    assert status == 200 and body == HANDLER_JS
    assert headers["content-type"] == "text/javascript" and headers["etag"] == '"handler-v1"'
    assert headers["cache-control"] == "public, max-age=1800"
    assert "set-cookie" not in headers
    target = "/__/auth/handler?apiKey=AIza&appName=%5BDEFAULT%5D&authType=signInViaRedirect&redirectUrl=https%3A%2F%2Fapp.example.com%2F&v=10.14.1&providerId=google.com"
    status, headers, body = fetch(server.base, target, headers={
        "Cookie": "__session=visitor-secret", "Authorization": "Bearer visitor-token", "X-Forwarded-For": "203.0.113.9",
        "User-Agent": "Mozilla/5.0 test", "Accept-Language": "de"})
    assert status == 200 and body == HANDLER_HTML
    # The origin's own rules, not LinkDomain's: its CSP, no X-Frame-Options: DENY, no cookie of its own.
    assert headers["content-security-policy"] == "script-src 'self' https://apis.google.com"
    assert "x-frame-options" not in headers and "set-cookie" not in headers
    assert headers["content-type"] == "text/html; charset=utf-8" and headers["cache-control"] == "no-store"
    seen = [request for request in stand_in.requests if request["path"] == target][-1]
    assert seen["headers"]["host"] == f"127.0.0.1:{stand_in.port}"
    assert seen["headers"]["user-agent"] == "Mozilla/5.0 test" and seen["headers"]["accept-language"] == "de"
    for private in ["cookie", "authorization", "x-forwarded-for", "forwarded"]:
        assert private not in seen["headers"], private
    status, _, body = fetch(server.base, "/__/firebase/10.14.1/firebase-app.js")
    assert status == 200 and body == b"// firebase sdk /__/firebase/10.14.1/firebase-app.js"


def test_fields_that_speak_for_the_whole_host_never_come_back(helper):
    server, stand_in = helper
    for _ in range(2):
        status, headers, body = fetch(server.base, "/__/auth/experiments.js")
        assert status == 200 and body == b"// experiments"
        for field in ["nel", "report-to", "clear-site-data", "access-control-allow-origin", "alt-svc", "strict-transport-security", "set-cookie"]:
            assert field not in headers, field
        assert headers["x-content-type-options"] == "nosniff"
    # Its second Cache-Control says no-store: not kept, so both requests reached the origin.
    assert len([r for r in stand_in.requests if r["path"] == "/__/auth/experiments.js"]) == 2
    # A query a visitor makes up is never kept either.
    for _ in range(2):
        assert fetch(server.base, "/__/auth/handler.js?cachebuster=1")[0] == 200
    assert len([r for r in stand_in.requests if r["path"] == "/__/auth/handler.js?cachebuster=1"]) == 2


def test_sign_in_with_apple_form_post_reaches_the_handler(helper):
    server, stand_in = helper
    status, _, body = fetch(server.base, "/__/auth/handler", method="POST", body=b"state=abc&code=xyz",
                            headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": "c=1"})
    assert status == 200 and body == HANDLER_HTML + b"state=abc&code=xyz"
    seen = stand_in.requests[-1]
    assert seen["method"] == "POST" and seen["headers"]["content-type"] == "application/x-www-form-urlencoded"
    assert "cookie" not in seen["headers"]
    assert fetch(server.base, "/__/auth/iframe", method="DELETE")[0] == 405


def test_own_pages_stay_own_and_traversal_never_reaches_the_origin(helper):
    server, stand_in = helper
    before = len(stand_in.requests)
    for target in ["/__/auth/..%2f..%2fhealthz", "/__/auth/%2e%2e/%2e%2e/metrics", "/__/auth/%2E%2E%2Fmetrics", "/__/auth/a%5c..%5cb",
                   "/__/auth/a%252e%252e/b", "/__/auth/../metrics", "/__/firebase/../auth/handler", "/__/auth//handler",
                   "/__/auth/links/extra"]:
        status, headers, _ = fetch(server.base, target)
        assert status in (400, 404), target
        assert headers.get("x-frame-options") == "DENY", target
    # LinkDomain's own pages answer as themselves.
    status, headers, body = fetch(server.base, "/__/auth/action?mode=resetPassword&oobCode=nope&apiKey=k")
    assert status in (200, 400) and b"<html" in body and headers["x-frame-options"] == "DENY"
    assert "default-src 'none'" in headers["content-security-policy"]
    status, _, body = fetch(server.base, "/__/firebase/init.json")
    assert status == 200 and json.loads(body)["projectId"] == "demo-linkdomain"
    assert len(stand_in.requests) == before, stand_in.requests[before:]
    for request in stand_in.requests:
        assert request["path"].startswith(("/__/auth/", "/__/firebase/")) and ".." not in request["path"] and "%" not in request["path"].split("?")[0]


def test_init_json_from_the_configuration(helper):
    server, _ = helper
    status, headers, body = fetch(server.base, "/__/firebase/init.json")
    assert status == 200 and headers["content-type"] == "application/json"
    assert json.loads(body) == {"apiKey": "demo-api-key", "appId": "1:1234567890:web:abc123", "authDomain": f"127.0.0.1:{server.port}",
                                "messagingSenderId": "1234567890", "projectId": "demo-linkdomain"}


def test_helper_iframe_framed_by_another_origin_in_chromium(helper, tmp_path):
    server, _ = helper
    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(
        "<!doctype html><html><head><title>app</title></head><body>"
        "<script>window.addEventListener('message', function (event) { document.title = event.origin + ' said ' + event.data; });</script>"
        f"<iframe src=\"http://127.0.0.1:{server.port}/__/auth/iframe?apiKey=k&appName=%5BDEFAULT%5D&v=10\"></iframe></body></html>")
    app_port = free_port()
    site = subprocess.Popen([sys.executable, "-m", "http.server", str(app_port), "--bind", "127.0.0.1", "--directory", str(app)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    driver = chromium("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36", javascript=True)
    try:
        for _ in range(50):
            try:
                urllib.request.urlopen(f"http://localhost:{app_port}/index.html", timeout=5)
                break
            except OSError:
                time.sleep(0.1)
        # The app on another origin (localhost, not 127.0.0.1) frames the helper; its script,
        # relayed from the origin, runs inside and reaches the app.
        driver.get(f"http://localhost:{app_port}/index.html")
        from selenium.webdriver.support.ui import WebDriverWait
        WebDriverWait(driver, 30).until(lambda d: "said helper-ready" in d.title)
        assert driver.title == f"http://127.0.0.1:{server.port} said helper-ready 127.0.0.1:{server.port}"
    finally:
        driver.quit()
        site.terminate()


def test_kept_copies_while_the_origin_is_down_and_a_deadline_for_the_rest(tmp_path):
    stand_in = StandIn()
    server = Server(tmp_path, "down", {"authHandler": {"origin": stand_in.origin}})
    try:
        assert fetch(server.base, "/__/auth/handler.js")[2] == HANDLER_JS
        asked = len(stand_in.requests)
        # Fresh: answered from the kept copy, the origin not asked again; 304 for the visitor's own copy.
        status, headers, body = fetch(server.base, "/__/auth/handler.js")
        assert status == 200 and body == HANDLER_JS and "age" in headers
        assert fetch(server.base, "/__/auth/handler.js", headers={"If-None-Match": '"handler-v1"'})[0] == 304
        assert len(stand_in.requests) == asked
        # A hanging origin, or one that sends its head and then drips the body: 504, never a hang
        # (the client's 60 s timeout is only a guard).
        for path in ["/__/auth/slow.js", "/__/auth/drip.js"]:
            status, headers, _ = fetch(server.base, path)
            assert status == 504 and headers["retry-after"] == "5", path
        stand_in.stop()
        status, _, body = fetch(server.base, "/__/auth/handler.js")
        assert status == 200 and body == HANDLER_JS
        status, headers, _ = fetch(server.base, "/__/auth/handler")
        assert status == 502 and headers["x-frame-options"] == "DENY"
        metrics = urllib.request.urlopen(server.base + "/metrics").read().decode()
        assert 'linkdomain_auth_helper_requests_total{outcome="kept"}' in metrics
        assert 'linkdomain_auth_helper_requests_total{outcome="failed"}' in metrics
    finally:
        server.stop()


def test_without_an_origin_the_helper_is_not_served(tmp_path):
    server = Server(tmp_path, "off", {})
    try:
        status, headers, body = fetch(server.base, "/__/auth/handler?apiKey=k")
        assert status == 404 and headers["x-frame-options"] == "DENY" and "default-src 'none'" in headers["content-security-policy"]
        for path in ["/.well-known/webauthn", "/.well-known/passkey-endpoints", "/.well-known/change-password"]:
            assert fetch(server.base, path)[0] == 404, path
    finally:
        server.stop()


def test_passkey_and_password_manager_files(tmp_path):
    server = Server(tmp_path, "passkeys", {
        "android": {"apps": [{"packageName": "com.example.app", "fingerprints": ["AB" * 32], "webcredentials": True}]},
        "passkeys": {"relatedOrigins": ["https://example.com", "https://example.co.uk"],
                     "enrollURL": "https://example.com/passkeys/new", "manageURL": "https://example.com/passkeys"},
        "changePasswordURL": "https://example.com/account/password",
    })
    try:
        status, headers, body = fetch(server.base, "/.well-known/webauthn")
        assert status == 200 and headers["content-type"] == "application/json"
        assert json.loads(body) == {"origins": ["https://example.com", "https://example.co.uk"]}
        status, headers, body = fetch(server.base, "/.well-known/passkey-endpoints")
        assert status == 200 and headers["content-type"] == "application/json"
        assert json.loads(body) == {"enroll": "https://example.com/passkeys/new", "manage": "https://example.com/passkeys"}
        status, headers, _ = fetch(server.base, "/.well-known/change-password")
        assert status == 302 and headers["location"] == "https://example.com/account/password"
        status, _, body = fetch(server.base, "/.well-known/assetlinks.json")
        assert json.loads(body)[0]["relation"] == ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"]
    finally:
        server.stop()


def test_bad_credential_keys_stop_the_start(tmp_path):
    for configuration, key in [({"passkeys": {"relatedOrigins": ["https://example.com/login"]}}, "passkeys.relatedOrigins"),
                               ({"changePasswordURL": "http://example.com/pw"}, "changePasswordURL"),
                               ({"authHandler": {"origin": "http://helper.example.com"}}, "authHandler.origin"),
                               ({"admin": {"listen": "0.0.0.0:9099"}}, "admin.listen")]:
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(configuration))
        checked = subprocess.run([str(BINARY), "check", "--config", str(path)], capture_output=True, text=True, timeout=60)
        assert checked.returncode == 1 and key in checked.stderr, checked.stderr


ADMIN_SCRIPT = """
import json, firebase_admin
from firebase_admin import auth
app = firebase_admin.initialize_app(options={"projectId": "demo-linkdomain"})
try:
    user = auth.create_user(email="ops@example.com", password="secret-123", app=app)
    auth.update_user(user.uid, display_name="Ops", app=app)
    found = auth.get_user_by_email("ops@example.com", app=app)
    listed = [u.email for u in auth.list_users(app=app).iterate_all()]
    link = auth.generate_password_reset_link("ops@example.com", app=app)
    auth.delete_user(user.uid, app=app)
    print(json.dumps({"ok": True, "name": found.display_name, "listed": listed, "link": link}))
except Exception as error:
    print(json.dumps({"ok": False, "error": type(error).__name__, "message": str(error)[:300]}))
"""


def run_admin(host):
    environment = {**os.environ, "FIREBASE_AUTH_EMULATOR_HOST": host}
    finished = subprocess.run([sys.executable, "-c", ADMIN_SCRIPT], capture_output=True, text=True, timeout=120, env=environment)
    assert finished.returncode == 0, finished.stderr
    return json.loads(finished.stdout.strip().splitlines()[-1])


def test_firebase_admin_through_the_admin_listener_of_a_deployment(tmp_path):
    admin_port = free_port()
    server = Server(tmp_path, "deployment", {
        "publicBaseURL": "https://links.example.com",
        "backend": {"apiKeys": ["deployment-client-key"], "adminKeys": ["deployment-admin-key-0123456789abcdef0123"]},
        "admin": {"listen": f"127.0.0.1:{admin_port}"},
    })
    try:
        assert "mode:              deployment" in server.output()
        assert f"admin listener:    127.0.0.1:{admin_port}" in server.output()
        answer = run_admin(f"127.0.0.1:{admin_port}")
        assert answer["ok"], answer
        assert answer["name"] == "Ops" and answer["listed"] == ["ops@example.com"]
        assert answer["link"].startswith("https://links.example.com/__/auth/action?")
        # The public port keeps the deployment's contract: Bearer owner is refused.
        refused = run_admin(f"127.0.0.1:{server.port}")
        assert not refused["ok"], refused
        status, _, body = fetch(server.base, "/identitytoolkit.googleapis.com/v1/projects/demo-linkdomain/accounts:batchGet",
                                headers={"Authorization": "Bearer owner"})
        assert status == 401, body
        # The emulator's own powers stay development's, on the admin listener too.
        status, _, _ = fetch(f"http://127.0.0.1:{admin_port}", "/emulator/v1/projects/demo-linkdomain/oobCodes")
        assert status == 404
        # A name rebound to loopback by a page in a browser here is not answered.
        status, _, _ = fetch(f"http://127.0.0.1:{admin_port}", "/identitytoolkit.googleapis.com/v1/projects/demo-linkdomain/accounts:batchGet",
                             headers={"Authorization": "Bearer owner", "Host": f"rebind.attacker.example:{admin_port}"})
        assert status == 421
    finally:
        server.stop()
