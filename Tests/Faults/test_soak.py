"""A soak at half of capacity (fault 7 of the suite; long form, `scripts/faults`): 30 minutes
(FAULTS_SOAK_SECONDS) of clicks, association files and sign-in links at half of what the server
answered flat out on this machine, with sign-ups and new short links on PostgreSQL beside them.
Sampled every 5 s: resident memory, open files and the database's connections, which must stay
flat; per second: the load's p99."""

import os
import threading
import time
import uuid

from conftest import Server, post_json
from faultkit import (
    DESKTOP, KEY, Load, PrivatePostgres, address, configuration, failures, long_only, make_short_link, open_files,
    record, resident_kib,
)

SECONDS = int(os.environ.get("FAULTS_SOAK_SECONDS", "1800"))
SIGN_IN = ("/__/auth/links?link=https%3A%2F%2Flocalhost%3A9999%2F__%2Fauth%2Faction%3Fmode%3DsignIn%26oobCode%3Dsoak"
           "%26apiKey%3Dk%26continueUrl%3Dhttps%253A%252F%252Fexample.com%252F")


@long_only
def test_half_of_capacity_for_thirty_minutes(tmp_path):
    database = PrivatePostgres()
    server = None
    try:
        server = Server(tmp_path, "soak", {**configuration({"postgresURL": database.url}),
                                           "limits": {"requestsPerMinute": 1000000, "burst": 1000000}})
        short, path = make_short_link(server.base)
        paths = [path, "/.well-known/apple-app-site-association", SIGN_IN]
        capacity = Load(address(server.base), paths, rate=0, seconds=10, connections=64, user_agent=DESKTOP).wait()
        rate = int(capacity["sent"] / 10 / 2)
        pid = server.process.pid
        samples, writes, running = [], {"ok": 0, "failed": 0}, threading.Event()
        running.set()
        database_name = database.url.rsplit("/", 1)[1]

        def sample():
            started = time.monotonic()
            while running.is_set():
                connections = int(database.query(f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{database_name}'"))
                samples.append({"t": round(time.monotonic() - started, 1), "rss_kib": resident_kib(pid), "files": open_files(pid),
                                "database_connections": connections})
                time.sleep(5)

        def write_steadily():
            while running.is_set():
                status, _ = post_json(f"{server.base}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                                      {"email": f"soak-{uuid.uuid4().hex[:10]}@example.com", "password": "secret1"})
                made, _ = post_json(f"{server.base}/v1/shortLinks?key={KEY}",
                                    {"longDynamicLink": f"http://localhost:9999/?link=https%3A%2F%2Fexample.com%2F{uuid.uuid4().hex[:8]}"})
                writes["ok" if status == 200 and made == 200 else "failed"] += 1
                time.sleep(0.2)

        threads = [threading.Thread(target=sample), threading.Thread(target=write_steadily)]
        for thread in threads:
            thread.start()
        soak = Load(address(server.base), paths, rate=rate, seconds=SECONDS, connections=64, user_agent=DESKTOP)
        total = soak.wait()
        running.clear()
        for thread in threads:
            thread.join()

        # After warming up (five minutes of 30), while the load runs.
        settled = [s for s in samples if min(300, SECONDS / 4) <= s["t"] <= SECONDS - 2]
        first, last = settled[: len(settled) // 3], settled[-(len(settled) // 3):]
        rss_growth = max(s["rss_kib"] for s in last) / max(s["rss_kib"] for s in first)
        files = [s["files"] for s in settled]
        connections = [s["database_connections"] for s in settled]
        record("soak", {
            "seconds": SECONDS, "capacity_per_s": round(capacity["sent"] / 10), "rate_per_s": rate, "sent": total["sent"],
            "status": total["status"], "errors": total["errors"], "p50_ms": total["p50"], "p99_ms": total["p99"],
            "p999_ms": total["p999"], "max_ms": total["max"], "writes": writes,
            "rss_kib_first_third_max": max(s["rss_kib"] for s in first), "rss_kib_last_third_max": max(s["rss_kib"] for s in last),
            "files_min_max": [min(files), max(files)], "database_connections_min_max": [min(connections), max(connections)],
            "samples": samples, "per_second": [{k: line[k] for k in ("t", "sent", "p50", "p99", "max")} for line in soak.lines],
        })
        assert failures(total) == 0 and writes["failed"] == 0, (total["errors"], writes)
        assert rss_growth < 1.15, f"resident memory grew {rss_growth:.2f}x between the first and last thirds"
        assert max(files) - min(files) <= 32, files
        assert max(connections) - min(connections) <= 4, connections
    finally:
        if server:
            server.stop()
        database.remove()
