"""PostgreSQL stopped under a running LinkDomain (a clean stop, and a crash with `-m immediate`),
then started again: `/readyz` turns not-ready within 5 s and says why, a request that needs the
database answers 503 with `Retry-After` within a couple of seconds instead of hanging, what needs
no database keeps answering, `/metrics` shows the outage, and everything works again without a
restart within 5 s of the database's return (fault 3 of the suite: the short form in `.ci/run`, the
long form under load for 30 s in `scripts/faults`)."""

import json
import threading
import time
import urllib.error
import urllib.request
import uuid

import pytest

from conftest import Server
from faultkit import (
    DESKTOP, Load, PrivatePostgres, address, answered, clicks, configuration, failures, get, long_only, make_short_link,
    needs_root, record, resident_kib,
)

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


@needs_root
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


@long_only
@needs_root
@pytest.mark.parametrize("stop", ["fast", "immediate"])
def test_thirty_seconds_without_the_database_under_load(tmp_path, stop):
    """The long form: steady clicks and sign-ups while PostgreSQL is away for 30 s. Clicks keep
    being answered and none is lost or counted twice; sign-ups answer 503 fast; every row is once."""
    database = PrivatePostgres()
    server = None
    try:
        server = Server(tmp_path, "outage-long", {**configuration({"postgresURL": database.url}), "health": {"checkIntervalSeconds": 1}})
        short, path = make_short_link(server.base)
        assert get(server.base + path, headers={"User-Agent": DESKTOP})[0] == 302  # now cached on this replica
        seconds, stop_at, away = 60, 10, 30
        load = Load(address(server.base), [path, "/.well-known/apple-app-site-association"], rate=1000, seconds=seconds,
                    user_agent=DESKTOP)
        signups, memory, running = [], [], threading.Event()
        running.set()

        def sign_up_steadily():
            while running.is_set():
                email = f"steady-{uuid.uuid4().hex[:10]}@example.com"
                began = time.monotonic()
                status, _, _, took = call(server.base, SIGNUP, {"email": email, "password": "secret1"})
                signups.append((began, email, status, took))
                time.sleep(0.05)

        def watch_memory():
            while running.is_set():
                memory.append((time.monotonic(), resident_kib(server.process.pid)))
                time.sleep(1)

        threads = [threading.Thread(target=sign_up_steadily), threading.Thread(target=watch_memory)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(stop_at)
        database.stop(stop)
        stopped = time.monotonic()
        time.sleep(away)
        database.start()
        returned = time.monotonic()
        total = load.wait()
        running.clear()
        for thread in threads:
            thread.join()
        back = wait_for(server.base, "/readyz", 200, 10)
        time.sleep(2)  # the counts kept through the outage are written at the next flush

        served = answered(total, 302) + 1  # and the click that cached the link
        stored = clicks(server.base, short)
        assert failures(total) == 0 and set(total["status"]) <= {"200", "302"}, total
        assert stored == served, f"{served} clicks answered, {stored} stored"
        # Before the probe has seen the outage (an interval and a deadline: up to 3 s), a call waits
        # out its deadline (2 s); after, it is refused at once.
        detecting = [took for at, _, status, took in signups if stopped <= at < stopped + 4]
        during = [(status, took) for at, _, status, took in signups if stopped + 4 <= at < returned]
        assert during and all(status == 503 and took < 0.5 for status, took in during), during[:5]
        assert max(detecting) < 2.5, detecting
        answered_503 = [email for _, email, status, _ in signups if status == 503]
        stored_anyway = int(database.query("SELECT count(*) FROM users WHERE email IN (%s)" % ",".join(
            f"'{email}'" for email in answered_503))) if answered_503 else 0
        ok = [email for _, email, status, _ in signups if status == 200]
        assert int(database.query("SELECT count(*) FROM users WHERE email LIKE 'steady-%'")) == len(ok) + stored_anyway
        record(f"database_outage_{stop}", {
            "away_s": away, "clicks_answered": served, "clicks_stored": stored, "client_errors": failures(total),
            "signups": len(signups), "signups_ok": len(ok), "signups_503": len(answered_503),
            "signups_503_stored_anyway": stored_anyway,
            "signup_503_max_ms_once_seen": round(max(took for _, took in during) * 1000, 1),
            "signup_max_ms_first_4_s": round(max(detecting) * 1000, 1), "ready_after_return_s": round(back, 2),
            "signups_timeline": [(round(at - started, 2), status, round(took * 1000, 1)) for at, _, status, took in signups],
            "per_second": load.lines, "rss_kib": [(round(at - started, 1), kib) for at, kib in memory],
            "stopped_at_s": round(stopped - started, 1), "returned_at_s": round(returned - started, 1),
        })
    finally:
        if server:
            server.stop()
        database.remove()
