"""PostgreSQL stopped under a running LinkDomain (a clean stop, and a crash with `-m immediate`),
then started again: `/readyz` turns not-ready within 5 s and says why, a request that needs the
database answers 503 with `Retry-After` within a couple of seconds instead of hanging, what needs
no database keeps answering, `/metrics` shows the outage, and everything works again without a
restart within 5 s of the database's return. (The short form of the fault suite.)"""

import json
import os
import time
import urllib.error
import urllib.request
import uuid

import pytest

from conftest import Server
from faultkit import PrivatePostgres

SIGNUP = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"


def call(base, path, body=None, timeout=30):
    """(status, headers, parsed body, seconds taken)."""
    started = time.monotonic()
    request = urllib.request.Request(base + path, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Content-Type": "application/json"} if body is not None else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, headers, data = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, headers, data = error.code, error.headers, error.read()
    try:
        parsed = json.loads(data)
    except ValueError:
        parsed = data.decode(errors="replace")
    return status, headers, parsed, time.monotonic() - started


def wait_for(base, path, status, limit):
    """Seconds until `path` answers `status`, polling every 0.2 s; fails after `limit`."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if call(base, path, timeout=5)[0] == status:
            return time.monotonic() - started
        time.sleep(0.2)
    pytest.fail(f"{path} did not answer {status} within {limit} s")


@pytest.mark.skipif(os.geteuid() != 0, reason="stopping PostgreSQL as its own user needs root (runuser)")
@pytest.mark.parametrize("stop", ["fast", "immediate"])
def test_a_database_outage_is_answered_fast_and_survived(tmp_path, stop):
    database = PrivatePostgres()
    server = None
    try:
        server = Server(tmp_path, "outage", {"storage": {"postgresURL": database.url, "timeoutSeconds": 2},
                                             "health": {"checkIntervalSeconds": 1}})
        base = server.base
        assert call(base, SIGNUP, {"email": f"before-{uuid.uuid4().hex[:8]}@example.com", "password": "secret1"})[0] == 200
        assert call(base, "/readyz")[0] == 200

        database.stop(stop)
        lost = wait_for(base, "/readyz", 503, 10)
        assert lost <= 5, f"/readyz took {lost:.1f} s to turn not-ready"
        status, _, body, _ = call(base, "/readyz")
        assert "database: unavailable" in body, body
        status, headers, body, took = call(base, SIGNUP, {"email": f"during-{uuid.uuid4().hex[:8]}@example.com", "password": "secret1"})
        assert status == 503 and headers["Retry-After"] and body["error"]["code"] == 503, (status, body)
        assert took < 2.5, f"a request needing the database took {took:.1f} s"
        # What needs no database keeps answering.
        assert call(base, "/.well-known/apple-app-site-association")[0] == 200
        assert call(base, "/healthz")[0] == 200
        metrics = call(base, "/metrics")[2]
        assert 'linkdomain_dependency_up{dependency="database"} 0' in metrics, metrics[:2000]

        database.start()
        back = wait_for(base, "/readyz", 200, 10)
        assert back <= 5, f"/readyz took {back:.1f} s to turn ready again"
        assert call(base, SIGNUP, {"email": f"after-{uuid.uuid4().hex[:8]}@example.com", "password": "secret1"})[0] == 200
        print(f"\nstop -m {stop}: /readyz not ready after {lost:.1f} s; a sign-up answered 503 in {took * 1000:.0f} ms; "
              f"/readyz ready {back:.1f} s after the database returned")
        assert 'linkdomain_dependency_up{dependency="database"} 1' in call(base, "/metrics")[2]
        assert "database unavailable" in server.output() and "database available again" in server.output()
    finally:
        if server:
            server.stop()
        database.remove()
