"""10,000 idle connections, and floods of unique short-link suffixes, unique paths and unique user
agents (fault 6 of the suite; long form, `scripts/faults`).

Measured: resident memory and `/metrics` size before and after each (no label per path or agent,
nothing kept per unknown suffix), and the latency of an ordinary client served meanwhile against
the same client on a quiet server."""

import resource
import socket
import time

from conftest import Server
from faultkit import (
    DESKTOP, Load, address, answered, configuration, failures, get, long_only, make_short_link, open_files, record,
    resident_kib,
)

IDLE = 10_000


def metrics_size(base):
    return len(get(base + "/metrics")[1].encode())


def ordinary_client(server, path, seconds=5):
    """What an ordinary visitor sees meanwhile: 200 requests a second on a known short link."""
    load = Load(address(server.base), [path], rate=200, seconds=seconds, connections=4, user_agent=DESKTOP)
    return load


@long_only
def test_idle_connections_and_floods_of_unique_requests(tmp_path):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4 * IDLE), hard))  # this test's sockets, and the server's (inherited)
    server = Server(tmp_path, "floods", {**configuration({"sqlitePath": str(tmp_path / "floods.sqlite")}),
                                         "limits": {"requestsPerMinute": 1000000, "burst": 1000000,
                                                    "pageChecksPerMinute": 1000000, "pageChecksBurst": 1000000}})
    figures = {}
    try:
        short, path = make_short_link(server.base)
        pid = server.process.pid
        quiet = ordinary_client(server, path).wait()
        figures["quiet"] = {"p99_ms": quiet["p99"], "max_ms": quiet["max"], "errors": failures(quiet)}
        figures["start"] = {"rss_kib": resident_kib(pid), "metrics_bytes": metrics_size(server.base), "files": open_files(pid)}

        # 10,000 connections that never send a byte.
        host, port = server.base.split("://", 1)[1].split(":")
        idle, opened_at = [], time.monotonic()
        for index in range(IDLE):
            connection = socket.socket()
            connection.setblocking(False)
            connection.connect_ex((host, int(port)))
            idle.append(connection)
            if index % 200 == 199:
                time.sleep(0.05)  # the listen backlog (256) takes a few hundred at a time; past it the kernel drops them
        # Wait until the server holds them all (or stops taking more).
        held, still = 0, 0
        while still < 3 and time.monotonic() - opened_at < 60:
            time.sleep(1)
            now = open_files(pid)
            still = still + 1 if now <= held else 0
            held = max(held, now)
        accepted_in = time.monotonic() - opened_at
        during = ordinary_client(server, path).wait()
        figures["idle"] = {"connections": IDLE, "accepted_in_s": round(accepted_in, 1), "rss_kib": resident_kib(pid),
                           "files": open_files(pid), "ordinary_p99_ms": during["p99"], "ordinary_max_ms": during["max"],
                           "ordinary_errors": failures(during)}
        assert failures(during) == 0 and answered(during, 302) == during["sent"], during
        assert figures["idle"]["files"] >= IDLE, figures["idle"]
        time.sleep(32)  # server.idleTimeoutSeconds (30) and a little: the server closes them
        figures["idle_after_timeout"] = {"rss_kib": resident_kib(pid), "files": open_files(pid)}
        for connection in idle:
            connection.close()
        assert figures["idle_after_timeout"]["files"] < 200, figures

        # Floods: 30,000 unique suffixes (each a database lookup that finds nothing), unique paths, unique agents.
        for name, paths, agent in [("unique_suffixes", ["/zz{n}"], DESKTOP),
                                   ("unique_paths", ["/__/auth/{n}/x", "/.well-known/{n}", "/a/b/c/{n}"], DESKTOP),
                                   ("unique_agents", [path], "Mozilla/5.0 (Flood {n}) Gecko/20100101 Firefox/{n}")]:
            flood = Load(address(server.base), paths, rate=3000, seconds=10, connections=32, user_agent=agent)
            time.sleep(2)
            meanwhile = ordinary_client(server, path).wait()
            total = flood.wait()
            figures[name] = {"sent": total["sent"], "status": total["status"], "errors": total["errors"], "flood_p99_ms": total["p99"],
                             "ordinary_p99_ms": meanwhile["p99"], "ordinary_errors": failures(meanwhile),
                             "rss_kib": resident_kib(pid), "metrics_bytes": metrics_size(server.base)}
            assert failures(meanwhile) == 0, meanwhile
        growth = figures["unique_agents"]["metrics_bytes"] - figures["start"]["metrics_bytes"]
        # The counters the floods touched (404s, clicks) appear once each; nothing per path or agent.
        assert growth < 8192, f"/metrics grew by {growth} bytes over {3 * 30000} unique requests"
        assert server.process.poll() is None
        record("floods", figures)
    finally:
        server.stop()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
