"""Two LinkDomain processes on different ports sharing one PostgreSQL (scripts/test starts it and
sets TEST_POSTGRES_URL): what one creates, the other serves, and a code is spent exactly once."""

import concurrent.futures
import json
import tempfile
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import POSTGRES, Server, fresh_database

KEY = "replica-test-key-0123456789"

pytestmark = pytest.mark.skipif(POSTGRES is None, reason="needs TEST_POSTGRES_URL (scripts/test starts PostgreSQL)")


@pytest.fixture(scope="module")
def replicas():
    database = fresh_database()
    directory = tempfile.mkdtemp(prefix="linkdomain-replicas-")
    servers = [Server(directory, name, {
        "publicBaseURL": "http://localhost:9999",
        "authorizedDomains": ["example.com", "localhost"],
        "formSecret": "the same secret on every replica, 32+",
        "shortLinks": {"apiKeys": [KEY]},
        "limits": {"requestsPerMinute": 100000, "burst": 100000},
        "storage": {"postgresURL": database},
    }) for name in ["a", "b"]]
    yield [server.base for server in servers]
    for server in servers:
        server.stop()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def post(url, body, headers=None):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_short_link_made_on_one_resolves_on_the_other(replicas):
    a, b = replicas
    status, answer = post(f"{a}/v1/shortLinks?key={KEY}", {"longDynamicLink": "http://localhost:9999/?link=https%3A%2F%2Fexample.com%2Fshared"})
    assert status == 200, answer
    suffix = answer["shortLink"].rsplit("/", 1)[1]
    opener = urllib.request.build_opener(NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as redirect:
        opener.open(urllib.request.Request(f"{b}/{suffix}", headers={"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0"}))
    assert redirect.value.code == 302
    assert redirect.value.headers["Location"] == "https://example.com/shared"


def test_a_code_is_spent_once_across_both(replicas):
    a, b = replicas
    status, answer = post(f"{a}/identitytoolkit.googleapis.com/v1/projects/demo-linkdomain/accounts:sendOobCode",
                          {"requestType": "EMAIL_SIGNIN", "email": "shared@example.com", "continueUrl": "https://example.com/",
                           "returnOobLink": True}, {"Authorization": "Bearer owner"})
    assert status == 200, answer
    code = answer["oobCode"]

    def attempt(index):
        base = replicas[index % 2]
        return post(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signInWithEmailLink?key=k",
                    {"email": "shared@example.com", "oobCode": code})

    with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(attempt, range(40)))
    successes = [body for status, body in results if status == 200]
    assert len(successes) == 1, results[:3]
    assert all(body["error"]["message"] == "INVALID_OOB_CODE" for status, body in results if status != 200)
    # The ID token one replica signed is good on the other: they share the signing key.
    status, lookup = post(f"{b}/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k", {"idToken": successes[0]["idToken"]})
    assert status == 200 and lookup["users"][0]["email"] == "shared@example.com"


def status_of(url):
    """The status a desktop browser gets, redirects not followed."""
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, headers={"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0"})) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_a_link_deleted_or_disabled_on_one_stops_on_the_other_at_its_next_look(replicas):
    """B has the link in its memory (it answered it); A disables, enables and deletes it."""
    import time
    a, b = replicas
    status, answer = post(f"{a}/v1/shortLinks?key={KEY}", {"longDynamicLink": "http://localhost:9999/?link=https%3A%2F%2Fexample.com%2Fgone"})
    assert status == 200, answer
    suffix = answer["shortLink"].rsplit("/", 1)[1]
    for _ in range(3):
        assert status_of(f"{b}/{suffix}") == 302

    def after(change):
        started = time.monotonic()
        status, answer = post(f"{a}/v1/shortLinks/{suffix}{change}?key={KEY}", {})
        assert status == 200, answer
        return started

    def waits_for(expected, started):
        # Replicas read the changes every second; three allow for a loaded machine.
        while status_of(f"{b}/{suffix}") != expected:
            assert time.monotonic() - started < 3, f"replica b did not answer {expected} within 3 s"
            time.sleep(0.05)

    waits_for(404, after(":disable"))
    waits_for(302, after(":enable"))
    request = urllib.request.Request(f"{a}/v1/shortLinks/{suffix}?key={KEY}", method="DELETE")
    started = time.monotonic()
    with urllib.request.urlopen(request) as response:
        assert response.status == 200
    waits_for(404, started)
