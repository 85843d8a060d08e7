"""The attacks of an unauthenticated stranger, against the real binary in both modes: development
(loopback, the Firebase Auth emulator's contract) and a deployment (an https public base URL with
API and admin keys), where the emulator's powers do not exist."""

import concurrent.futures
import json
import sqlite3
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from conftest import Server

API_KEY = "deployment-client-key"
ADMIN_KEY = "deployment-admin-key-0123456789abcdef0123"
PROJECT = "demo-linkdomain"
SIGNUP = "/identitytoolkit.googleapis.com/v1/accounts:signUp"
SEND = "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode"
SIGNIN = "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword"
UPDATE = "/identitytoolkit.googleapis.com/v1/accounts:update"
ADMIN = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}"
TOKEN = "/securetoken.googleapis.com/v1/token"
CODES = f"/emulator/v1/projects/{PROJECT}/oobCodes"

COMMON = {
    "authorizedDomains": ["app.example.com", "localhost"],
    "backend": {"kind": "embedded", "projectID": PROJECT},
    # The attacks below run far more requests than one client would.
    "limits": {"requestsPerMinute": 100000, "burst": 100000},
}


def request(base, path, body=None, headers=None, method=None, raw=None, content_type="application/json"):
    """(status, parsed JSON or text) of one request."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    all_headers = {"Content-Type": content_type} if data is not None else {}
    all_headers.update(headers or {})
    req = urllib.request.Request(base + path, data=data, headers=all_headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def message(answer):
    return answer[1]["error"]["message"] if isinstance(answer[1], dict) and "error" in answer[1] else None


@pytest.fixture(scope="module")
def development():
    directory = tempfile.mkdtemp(prefix="linkdomain-dev-")
    server = Server(directory, "development", {**COMMON, "storage": {"sqlitePath": f"{directory}/auth.sqlite"}})
    server.database = f"{directory}/auth.sqlite"
    server.directory = directory
    yield server
    server.stop()


@pytest.fixture(scope="module")
def deployment():
    directory = tempfile.mkdtemp(prefix="linkdomain-deploy-")
    configuration = {**COMMON, "publicBaseURL": "https://links.example.com",
                     "backend": {**COMMON["backend"], "apiKeys": [API_KEY], "adminKeys": [ADMIN_KEY]},
                     "storage": {"sqlitePath": f"{directory}/auth.sqlite"}}
    server = Server(directory, "deployment", configuration)
    server.database = f"{directory}/auth.sqlite"
    server.directory = directory
    server.configuration = configuration
    yield server
    server.stop()


# Development keeps the emulator's contract.

def test_development_says_so_and_keeps_the_emulator_contract(development):
    assert "mode:              development (loopback only)" in development.output()
    base = development.base
    assert request(base, SIGNUP + "?key=anything", {"email": "dev@example.com", "password": "secret1"})[0] == 200
    assert request(base, SEND + "?key=any-other", {"requestType": "PASSWORD_RESET", "email": "dev@example.com"})[0] == 200
    status, listing = request(base, CODES)
    assert status == 200 and [code["email"] for code in listing["oobCodes"]] == ["dev@example.com"]
    status, created = request(base, ADMIN + "/accounts", {"email": "made@example.com", "emailVerified": True},
                              headers={"Authorization": "Bearer owner"})
    assert status == 200 and created["localId"]
    assert "link for dev@example.com" in development.output()


# A deployment refuses every emulator power.

def test_deployment_lists_no_codes(deployment):
    base = deployment.base
    assert request(base, SIGNUP + f"?key={API_KEY}", {"email": "victim@example.com", "password": "secret1"})[0] == 200
    assert request(base, SEND + f"?key={API_KEY}", {"requestType": "PASSWORD_RESET", "email": "victim@example.com"})[0] == 200
    status, body = request(base, CODES)
    assert status == 404 and "oobCode" not in str(body)


def test_deployment_refuses_bearer_owner_and_unknown_keys(deployment):
    base = deployment.base
    owner = request(base, ADMIN + "/accounts", {"email": "evil@example.com", "password": "secret1", "emailVerified": True},
                    headers={"Authorization": "Bearer owner"})
    assert owner[0] == 401 and message(owner).startswith("UNAUTHENTICATED")
    lookup = request(base, ADMIN + "/accounts:lookup", {"email": ["victim@example.com"]}, headers={"Authorization": "Bearer owner"})
    assert lookup[0] == 401 and "users" not in str(lookup[1])
    assert request(base, SIGNUP + "?key=demo-api-key", {"email": "a@example.com", "password": "secret1"})[0] == 400
    assert message(request(base, SIGNUP, {"email": "a@example.com", "password": "secret1"})) == "The request is missing a valid API key."
    link = request(base, SEND + f"?key={API_KEY}", {"requestType": "PASSWORD_RESET", "email": "victim@example.com", "returnOobLink": True})
    assert link[0] in (400, 401) and "oobLink" not in str(link[1])


def test_deployment_admin_key_and_header_api_key_work(deployment):
    base = deployment.base
    status, created = request(base, ADMIN + "/accounts", {"email": "admin-made@example.com", "password": "secret1"},
                              headers={"Authorization": f"Bearer {ADMIN_KEY}"})
    assert status == 200
    status, link = request(base, ADMIN + "/accounts:sendOobCode",
                           {"requestType": "PASSWORD_RESET", "email": "admin-made@example.com", "returnOobLink": True},
                           headers={"Authorization": f"Bearer {ADMIN_KEY}"})
    assert status == 200 and link["oobLink"].startswith("https://links.example.com/__/auth/action?")
    assert request(base, SIGNIN, {"email": "admin-made@example.com", "password": "secret1"}, headers={"X-Goog-Api-Key": API_KEY})[0] == 200


def test_deployment_logs_no_address_code_or_password(deployment):
    base = deployment.base
    request(base, SIGNUP + f"?key={API_KEY}", {"email": "private.person@example.com", "password": "hunter22"})
    request(base, SEND + f"?key={API_KEY}", {"requestType": "PASSWORD_RESET", "email": "private.person@example.com"})
    request(base, SEND + f"?key={API_KEY}", {"requestType": "EMAIL_SIGNIN", "email": "private.person@example.com",
                                             "continueUrl": "https://evil.example.net/x?email=private.person@example.com"})
    codes = sqlite3.connect(deployment.database).execute("SELECT code FROM oobCodes").fetchall()
    output = deployment.output()
    assert "private.person" not in output and "hunter22" not in output
    assert codes and not any(code in output for (code,) in codes)
    assert "code issued" in output
    assert "host=evil.example.net" in output  # why the continue URL was refused, by its host only


def test_start_refused_without_deployment_keys(tmp_path):
    import subprocess
    from conftest import BINARY
    path = tmp_path / "deploy.json"
    path.write_text(json.dumps({"publicBaseURL": "https://links.example.com", "storage": {"sqlitePath": str(tmp_path / "db.sqlite")},
                                "backend": {"adminKeys": ["short"]}}))
    result = subprocess.run([str(BINARY), "serve", "--config", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "backend.apiKeys: is missing: this is a deployment" in result.stderr
    assert "backend.adminKeys: key 0 is 5 characters long" in result.stderr
    assert "short" not in result.stderr.replace("5 characters", "")  # the key itself is never printed
    path.write_text(json.dumps({"publicBaseURL": "https://links.example.com", "storage": {"sqlitePath": str(tmp_path / "db.sqlite")}}))
    result = subprocess.run([str(BINARY), "serve", "--config", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "backend.adminKeys: is missing" in result.stderr and "backend.apiKeys: is missing" in result.stderr


def test_forced_development_is_loud(tmp_path):
    server = Server(tmp_path, "forced", {**COMMON, "publicBaseURL": "https://links.example.com", "server": {"forceDevelopmentMode": True},
                                         "storage": {"sqlitePath": str(tmp_path / "db.sqlite")}})
    try:
        output = server.output()
        assert "DEVELOPMENT MODE FORCED" in output and "mode:              DEVELOPMENT, FORCED" in output
        assert request(server.base, CODES)[0] == 200
    finally:
        server.stop()


# Inputs that stopped the process, in both modes.

@pytest.mark.parametrize("mode", ["development", "deployment"])
def test_no_request_stops_the_process(mode, request_fixture):
    server, key, admin = request_fixture(mode)
    base = server.base
    for raw in [b"a=b&=", b"=", b"&&=&", b"=x&a", b"%", b"a=%zz&%="]:
        status, _ = request(base, SIGNUP + f"?key={key}", raw=raw, content_type="application/x-www-form-urlencoded")
        assert status in (200, 400)
    assert request(base, "/healthz")[0] == 200
    # An Accept-Language with no tag in it (`;`) was an index out of range on every page.
    for language in [";", ",", ";;,;", " ;q=1", ""]:
        status, _ = request(base, "/__/auth/action?mode=resetPassword&oobCode=x&apiKey=k",
                            headers={"Accept-Language": language, "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0"})
        assert status in (200, 400, 429)
        assert request(base, "/?link=https%3A%2F%2Fexample.com%2F&d=1", headers={"Accept-Language": language})[0] in (200, 400)
    assert request(base, "/healthz")[0] == 200
    # validSince past what a timestamp can be is refused, and a stored one cannot overflow the refresh.
    status, user = request(base, SIGNUP + f"?key={key}", {"email": f"overflow-{mode}@example.com", "password": "secret1"})
    assert status == 200
    huge = request(base, ADMIN + "/accounts:update", {"localId": user["localId"], "validSince": "9223372036854775807"},
                   headers={"Authorization": f"Bearer {admin}"})
    assert huge[0] == 400 and message(huge) == "INVALID_VALID_SINCE"
    with sqlite3.connect(server.database) as database:
        database.execute("UPDATE users SET validSince = 9223372036854775807 WHERE localID = ?", (user["localId"],))
    refreshed = request(base, TOKEN + f"?key={key}", raw=f"grant_type=refresh_token&refresh_token={user['refreshToken']}".encode(),
                        content_type="application/x-www-form-urlencoded")
    assert refreshed[0] == 400 and message(refreshed) == "TOKEN_EXPIRED"
    assert request(base, "/healthz")[0] == 200


@pytest.fixture
def request_fixture(development, deployment):
    return lambda mode: (development, "any", "owner") if mode == "development" else (deployment, API_KEY, ADMIN_KEY)


@pytest.mark.parametrize("mode", ["development", "deployment"])
def test_field_limits(mode, request_fixture):
    server, key, _ = request_fixture(mode)
    base = server.base
    megabyte = request(base, SIGNUP + f"?key={key}", {"email": "a" * 1_000_000 + "@example.com", "password": "secret1"})
    assert megabyte[0] == 413
    assert message(request(base, SIGNUP + f"?key={key}", {"email": "a" * 250 + "@example.com", "password": "secret1"})) == "INVALID_EMAIL"
    long_password = request(base, SIGNUP + f"?key={key}", {"email": f"long-{mode}@example.com", "password": "p" * 4097})
    assert message(long_password).startswith("PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
    escape = request(base, SIGNUP + f"?key={key}", {"email": "a\u001b[2Jb@example.com", "password": "secret1"})
    assert message(escape) == "INVALID_EMAIL"
    name = request(base, SIGNUP + f"?key={key}", {"email": f"name-{mode}@example.com", "password": "secret1", "displayName": "n" * 257})
    assert message(name) == "INVALID_DISPLAY_NAME"
    nested = request(base, SIGNUP + f"?key={key}", raw=b"[" * 20000 + b"]" * 20000)
    assert nested[0] == 400
    with sqlite3.connect(server.database) as database:
        assert database.execute("SELECT max(length(email)) FROM users").fetchone()[0] <= 254


# Timing and stalls.

@pytest.mark.parametrize("mode", ["development", "deployment"])
def test_health_answers_while_sign_ins_hash(mode, request_fixture):
    # Hashing runs off the event loop: /healthz is answered, again and again, while 50 sign-ins
    # wait for the hashing threads; no answer waits for the sign-ins to finish. (That an unknown
    # address costs a hash like a known one is PasswordServiceTests', by turns on the threads.)
    server, key, _ = request_fixture(mode)
    base = server.base
    request(base, SIGNUP + f"?key={key}", {"email": f"busy-{mode}@example.com", "password": "right password"})
    with concurrent.futures.ThreadPoolExecutor(max_workers=50) as pool:
        sign_ins = [pool.submit(request, base, SIGNIN + f"?key={key}", {"email": f"busy-{mode}@example.com", "password": f"wrong {index}"})
                    for index in range(50)]
        answered_while_hashing = 0
        while not all(future.done() for future in sign_ins):
            assert request(base, "/healthz")[0] == 200
            # Counted only when a sign-in was still waiting after the answer came.
            answered_while_hashing += not all(future.done() for future in sign_ins)
        results = [future.result() for future in sign_ins]
    assert all(message(result) == "INVALID_LOGIN_CREDENTIALS" for result in results)
    assert answered_while_hashing >= 5, "/healthz waited for the sign-ins"


def test_action_page_gets_have_their_own_limit_and_a_branded_429(tmp_path):
    server = Server(tmp_path, "limited", {"limits": {"pageChecksPerMinute": 60, "pageChecksBurst": 3},
                                          "storage": {"sqlitePath": str(tmp_path / "db.sqlite")}})
    try:
        answers = []
        for index in range(5):
            req = urllib.request.Request(server.base + f"/__/auth/action?mode=resetPassword&oobCode=guess{index}&apiKey=k",
                                         headers={"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0", "Accept-Language": "ru"})
            try:
                with urllib.request.urlopen(req) as response:
                    answers.append((response.status, dict(response.headers), response.read().decode()))
            except urllib.error.HTTPError as error:
                answers.append((error.code, dict(error.headers), error.read().decode()))
        assert [status for status, _, _ in answers] == [400, 400, 400, 429, 429], answers
        status, headers, body = answers[3]
        assert headers["Content-Type"] == "text/html; charset=utf-8" and int(headers["Retry-After"]) >= 1
        assert '<html lang="ru" dir="ltr">' in body and "Слишком много попыток" in body
    finally:
        server.stop()


def test_a_person_behind_a_busy_address_still_opens_their_link(tmp_path):
    """An office or a carrier's NAT: 30 links opened from one address in a minute, then one more."""
    server = Server(tmp_path, "office", {"storage": {"sqlitePath": str(tmp_path / "db.sqlite")}})
    try:
        statuses = [request(server.base, f"/__/auth/action?mode=resetPassword&oobCode=colleague{index}&apiKey=k",
                            headers={"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0"})[0] for index in range(31)]
        assert 429 not in statuses, statuses
    finally:
        server.stop()


@pytest.mark.parametrize("issued_at", ["-9223372036854775808", "9223372036854775807", "-1"])
def test_forged_form_tokens_are_refused(development, issued_at):
    """A form token's issue time at the ends of Int64 once overflowed the expiry check."""
    base = development.base
    body = f"mode=resetPassword&oobCode=x&form={issued_at}.AAAA&newPassword=secret12&confirmPassword=secret12&lang=en".encode()
    req = urllib.request.Request(base + "/__/auth/action", data=body, method="POST",
                                 headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": "ld_form=nonce"})
    try:
        status = urllib.request.urlopen(req, timeout=10).status
    except urllib.error.HTTPError as error:
        status = error.code
    assert 400 <= status < 500
    assert request(base, "/healthz")[0] == 200
