"""SIGHUP and SIGTERM under steady load (fault 2 of the suite; short form in `.ci/run`).

SIGHUP (`systemctl reload`) must never stop the service: every request answered, nothing
counted twice or lost. SIGTERM drains: every request the server took is answered in full, every
click it answered is stored, and it exits 0. Behind nginx, a rolling restart of two replicas
(SIGTERM, start again, one after the other) is invisible to clients: no error at all."""

import signal
import tempfile
import time

import pytest

from conftest import POSTGRES, Server, fresh_database
from faultkit import DESKTOP, LONG, Load, Nginx, address, answered, clicks, configuration, failures, make_short_link, record

def test_sighup_under_load_changes_nothing(tmp_path):
    server = Server(tmp_path, "hup", configuration({"sqlitePath": str(tmp_path / "hup.sqlite")}))
    try:
        short, path = make_short_link(server.base)
        load = Load(address(server.base), [path, "/.well-known/apple-app-site-association"], rate=400, seconds=4, user_agent=DESKTOP)
        for _ in range(3):
            time.sleep(1)
            server.process.send_signal(signal.SIGHUP)
        total = load.wait()
        assert server.process.poll() is None, "SIGHUP stopped the server"
        assert failures(total) == 0, total
        assert answered(total, 302) + answered(total, 200) == total["sent"], total
        assert clicks(server.base, short) == answered(total, 302)
        assert "SIGHUP: nothing to reload" in server.output()
        record("sighup", {"sent": total["sent"], "answered": answered(total, 302) + answered(total, 200), "errors": total["errors"],
                          "p99_ms": total["p99"]})
    finally:
        server.stop()


def test_sigterm_under_load_answers_what_it_took_and_keeps_every_click(tmp_path):
    storage = {"sqlitePath": str(tmp_path / "term.sqlite")}
    server = Server(tmp_path, "term", configuration(storage))
    short, path = make_short_link(server.base)
    port = server.port
    load = Load(address(server.base), [path], rate=600, seconds=4, user_agent=DESKTOP)
    time.sleep(1.5)
    server.process.send_signal(signal.SIGTERM)
    stopped = time.monotonic()
    code = server.process.wait(timeout=30)
    took = time.monotonic() - stopped
    total = load.wait()
    assert code == 0, server.output()[-2000:]
    # After the stop, new connections are refused and idle keep-alive connections closed; what the
    # server read, it answered.
    assert set(total["errors"]) <= {"refused", "closed", "reset"}, total
    served = answered(total, 302)
    assert served + failures(total) == total["sent"], total
    output = server.output()
    assert "link events not recorded" not in output
    # Every answer the server wrote (its request lines) reached the client: none lost in flight.
    assert output.count(f"path={path} status=302") == served, "the server answered more than the client received"
    again = Server(tmp_path, "term-again", configuration(storage, port=port))
    try:
        assert clicks(again.base, short) == served, "a click answered before SIGTERM was not stored"
    finally:
        again.stop()
    record("sigterm", {"sent": total["sent"], "answered_302": served, "errors": total["errors"], "exit_seconds": round(took, 2),
                       "clicks_stored": served})


@pytest.mark.skipif(POSTGRES is None, reason="needs TEST_POSTGRES_URL (scripts/test starts PostgreSQL)")
def test_a_rolling_restart_behind_nginx_is_invisible():
    directory = tempfile.mkdtemp(prefix="linkdomain-rolling-")
    storage = {"postgresURL": fresh_database()}
    replicas = [Server(directory, name, configuration(storage)) for name in ["a", "b"]]
    balancer = Nginx(directory, [address(replica.base) for replica in replicas])
    try:
        short, path = make_short_link(replicas[0].base)
        seconds = 60 if LONG else 12
        load = Load(balancer.address, [path, "/.well-known/apple-app-site-association"], rate=2000 if LONG else 500,
                    seconds=seconds, user_agent=DESKTOP)
        pause = seconds / 6
        time.sleep(pause)
        for index, name in enumerate(["a", "b"]):
            old = replicas[index]
            old.process.send_signal(signal.SIGHUP)
            time.sleep(pause / 2)
            old.process.send_signal(signal.SIGTERM)
            assert old.process.wait(timeout=30) == 0
            time.sleep(pause / 2)
            replicas[index] = Server(directory, f"{name}-again", configuration(storage, port=old.port))
            time.sleep(pause)
        total = load.wait()
        time.sleep(1.5)  # the other replica writes its counts once a second
        assert failures(total) == 0 and set(total["status"]) <= {"200", "302"}, total
        assert clicks(replicas[0].base, short) == answered(total, 302)
        record("rolling_restart", {"sent": total["sent"], "errors": total["errors"], "status": total["status"],
                                   "p99_ms": total["p99"], "max_ms": total["max"], "per_second": load.lines})
    finally:
        balancer.stop()
        for replica in replicas:
            if replica.process.poll() is None:
                replica.stop()
