"""Smaller doors an outside review found open, each tried over the network against the real
binary: imported password hashes whose checks would take seconds (refused at import, and one
client's checks cannot starve everyone else's), addresses that read as links or hide text,
a Smart App Banner extended from the query, and aborted uploads logged as our failures."""

import base64
import hashlib
import html
import os
import re
import socket
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest

from conftest import Server, post_json

PROJECT = "demo-linkdomain"
V1 = "/identitytoolkit.googleapis.com/v1"
OWNER = {"Authorization": "Bearer owner"}
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")


@pytest.fixture(scope="module")
def server():
    directory = tempfile.mkdtemp(prefix="linkdomain-doors-")
    server = Server(directory, "doors", {
        "backend": {"kind": "embedded", "projectID": PROJECT},
        "storage": {"sqlitePath": f"{directory}/auth.sqlite"},
        "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app", "appStoreID": "1234567890"}]},
        "authorizedDomains": ["example.com"],
        # Clients are told apart by X-Forwarded-For, as behind a proxy.
        "limits": {"requestsPerMinute": 1000000, "burst": 1000000, "trustedProxies": ["127.0.0.1"]},
    })
    yield server
    server.stop()


def call(server, path, body, headers=None):
    return post_json(server.base + path + "?key=any", body, headers, timeout=120)


def message(answer):
    return answer[1].get("error", {}).get("message", "")


def batch_create(server, users, **algorithm):
    return call(server, f"{V1}/projects/{PROJECT}/accounts:batchCreate", {"users": users, **algorithm}, OWNER)


def b64(data):
    return base64.b64encode(data).decode()


@pytest.mark.parametrize("parameters, why", [
    ({"cpuMemCost": 1 << 16, "blockSize": 8, "parallelization": 16}, "4.8 s a check"),
    ({"cpuMemCost": 1 << 19, "blockSize": 1, "parallelization": 1}, "RFC 7914 wants N < 2^(16 r): every check failed"),
    ({"cpuMemCost": 1000, "blockSize": 8, "parallelization": 1}, "N must be a power of two"),
])
def test_scrypt_parameters_that_cost_seconds_or_cannot_work_are_refused(server, parameters, why):
    user = {"localId": f"scrypt-{uuid.uuid4().hex[:8]}", "email": f"s-{uuid.uuid4().hex[:8]}@example.com",
            "passwordHash": b64(b"x" * 64), "salt": b64(b"salt")}
    status, answer = batch_create(server, [user], hashAlgorithm="STANDARD_SCRYPT", dkLen=64, **parameters)
    assert status == 400 and message((status, answer)).startswith("INVALID_ARGUMENT"), (why, answer)


def test_bcrypt_hashes_above_the_cost_cap_are_refused_per_account(server):
    import bcrypt

    fine = bcrypt.hashpw(b"password one", bcrypt.gensalt(rounds=10))
    costly = bcrypt.hashpw(b"password two", bcrypt.gensalt(rounds=14))
    users = [{"localId": f"b-{uuid.uuid4().hex[:8]}", "email": f"b{index}-{uuid.uuid4().hex[:6]}@example.com", "passwordHash": b64(hashed)}
             for index, hashed in enumerate([fine, costly])]
    status, answer = batch_create(server, users, hashAlgorithm="BCRYPT")
    assert status == 200, answer
    assert [failure["index"] for failure in answer.get("error", [])] == [1], answer
    assert "cost" in answer["error"][0]["message"]
    assert call(server, f"{V1}/accounts:signInWithPassword", {"email": users[0]["email"], "password": "password one"})[0] == 200


def sign_in_from(server, email, password, client):
    return call(server, f"{V1}/accounts:signInWithPassword", {"email": email, "password": password}, {"X-Forwarded-For": client})


def test_one_clients_slow_checks_do_not_starve_another_clients_sign_in(server):
    # The costliest hash an import may bring: scrypt with N = 2^16, r = 8 (64 MiB and ~2^19 mixes a check).
    salt = os.urandom(16)
    slow_email = f"slow-{uuid.uuid4().hex[:8]}@example.com"
    digest = hashlib.scrypt(b"the slow password", salt=salt, n=1 << 16, r=8, p=1, maxmem=1 << 28, dklen=64)
    status, answer = batch_create(server, [{"localId": f"slow-{uuid.uuid4().hex[:8]}", "email": slow_email,
                                            "passwordHash": b64(digest), "salt": b64(salt)}],
                                  hashAlgorithm="STANDARD_SCRYPT", cpuMemCost=1 << 16, blockSize=8, parallelization=1, dkLen=64)
    assert status == 200 and not answer.get("error"), answer
    assert sign_in_from(server, slow_email, "the slow password", "198.51.100.1")[0] == 200
    normal = f"normal-{uuid.uuid4().hex[:8]}@example.com"
    assert call(server, f"{V1}/accounts:signUp", {"email": normal, "password": "normal password"})[0] == 200

    # The server's hashing threads (PasswordHashingPool.threads); the attacker keeps four times as
    # many slow checks waiting as there are threads.
    threads = max(1, min(8, (os.cpu_count() or 2) - 1))
    stop = threading.Event()
    finished = []  # the attacker's checks, in the order they were answered
    lock = threading.Lock()

    def attack():
        while not stop.is_set():
            sign_in_from(server, slow_email, "wrong guess", "198.51.100.66")
            with lock:
                finished.append(1)

    attackers = [threading.Thread(target=attack) for _ in range(4 * threads)]
    for thread in attackers:
        thread.start()
    try:
        while True:  # until the attacker's checks fill the queue: a round of them has been answered
            with lock:
                if len(finished) >= threads:
                    break
            time.sleep(0.05)
        overtaken = []
        for _ in range(3):
            with lock:
                before = len(finished)
            status, answer = sign_in_from(server, normal, "normal password", "198.51.100.2")
            assert status == 200, answer
            with lock:
                overtaken.append(len(finished) - before)
    finally:
        stop.set()
        for thread in attackers:
            thread.join()
    # In turn, the other client waits for the checks already running and at most one more round:
    # in arrival order it would wait for all the attacker's queued checks (four per thread).
    assert max(overtaken) <= 2 * threads, (threads, overtaken)


@pytest.mark.parametrize("address", [
    "https://evil.example/secure-login?x=@attacker.test",
    "https:evil.example@attacker.test",
    "victim\u2800\u2800\u2800please\u2800sign\u2800in\u2800again@example.com",
    "moc.elpmaxe\u202e@example.com",
    "zero\u200bwidth@example.com",
    "hangul\u3164filler@example.com",
    "two..dots@example.com",
    "user@exa mple.com",
])
def test_addresses_that_read_as_links_or_hide_text_are_refused(server, address):
    status, answer = call(server, f"{V1}/accounts:signUp", {"email": address, "password": "some password"})
    assert status == 400 and message((status, answer)) == "INVALID_EMAIL", (address, answer)


@pytest.mark.parametrize("address", ["first.last+tag@example.com", "o'brien@example.co.uk", "jöhn@exämple.de", "用户@例子.中国"])
def test_ordinary_addresses_of_every_script_are_taken(server, address):
    status, answer = call(server, f"{V1}/accounts:signUp", {"email": address.replace("@", f"{uuid.uuid4().hex[:4]}@"),
                                                            "password": "some password"})
    assert status == 200, (address, answer)


def test_the_smart_app_banner_argument_is_the_canonical_link(server):
    query = urllib.parse.urlencode({"mode": "resetPassword", "oobCode": "code123", "apiKey": "key", "lang": "en"})
    url = f"{server.base}/__/auth/action?{query}&x=,app-id=666666666,app-argument=https://evil.example/"
    request = urllib.request.Request(url, headers={"User-Agent": IPHONE})
    try:
        with urllib.request.urlopen(request) as response:
            page = response.read().decode()
    except urllib.error.HTTPError as error:
        page = error.read().decode()
    banner = re.search(r'<meta name="apple-itunes-app" content="([^"]*)">', page)
    assert banner, page[:400]
    content = html.unescape(banner.group(1))
    assert content.count("app-id=") == 1 and content.startswith("app-id=1234567890"), content
    assert "evil.example" not in content and content.count("app-argument=") <= 1, content
    if "app-argument=" in content:
        argument = content.split("app-argument=", 1)[1]
        assert argument.startswith(server.base + "/__/auth/links?link=") and "," not in argument, argument


def test_an_aborted_upload_is_not_logged_as_our_failure(server):
    for _ in range(20):
        with socket.create_connection(("127.0.0.1", server.port)) as connection:
            connection.sendall(b"POST /identitytoolkit.googleapis.com/v1/accounts:signUp?key=any HTTP/1.1\r\nHost: a\r\n"
                               b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"email\":")
            time.sleep(0.02)
    time.sleep(1)
    errors = [line for line in server.output().splitlines() if " error " in line]
    assert not errors, errors[:3]
