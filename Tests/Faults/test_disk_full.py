"""The SQLite file's disk full (fault 5 of the suite; short form in `.ci/run`): on a small tmpfs
the test mounts, a filler takes the last byte. Writes are refused with a clear answer (503 with
`Retry-After`, Google's error shape), `/readyz` says the disk is full, what only reads keeps
working, the database stays intact (`PRAGMA integrity_check`), and once the filler is gone
everything works again without a restart."""

import errno
import sqlite3
import subprocess
import time
import uuid

import pytest

from conftest import Server, post_json
from faultkit import DESKTOP, KEY, configuration, get, make_short_link, needs_root, record

SIGNUP = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"


def fill(path):
    """Writes until the file system refuses; returns the bytes written."""
    written = 0
    with open(path, "wb", buffering=0) as filler:
        chunk = b"\0" * 65536
        while True:
            try:
                written += filler.write(chunk)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error
                break
        for size in (4096, 512, 1):  # the last partial blocks too
            while True:
                try:
                    written += filler.write(b"\0" * size)
                except OSError:
                    break
    return written


def wait_for_readiness(base, ready, limit=10):
    started = time.monotonic()
    while time.monotonic() - started < limit:
        status, body = get(base + "/readyz")
        if (status == 200) == ready:
            return time.monotonic() - started, body
        time.sleep(0.2)
    pytest.fail(f"/readyz did not turn {'ready' if ready else 'not ready'} within {limit} s")


def integrity(path):
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()


@needs_root
def test_a_full_disk_refuses_writes_clearly_and_recovers(tmp_path):
    mountpoint = tmp_path / "small-disk"
    mountpoint.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mountpoint)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    database = mountpoint / "linkdomain.sqlite"
    server = None
    try:
        server = Server(tmp_path, "full", {**configuration({"sqlitePath": str(database)}), "health": {"checkIntervalSeconds": 1}})
        short, path = make_short_link(server.base)
        assert post_json(server.base + SIGNUP, {"email": f"before-{uuid.uuid4().hex[:8]}@example.com", "password": "secret1"})[0] == 200

        filler = mountpoint / "filler"
        filled = fill(filler)
        lost, why = wait_for_readiness(server.base, ready=False)
        assert "database: unavailable" in why and "disk full" in why, why

        status, answer = post_json(server.base + SIGNUP, {"email": f"during-{uuid.uuid4().hex[:8]}@example.com", "password": "secret1"})
        assert status == 503 and answer["error"]["code"] == 503, (status, answer)
        status, answer = post_json(f"{server.base}/v1/shortLinks?key={KEY}",
                                   {"longDynamicLink": "http://localhost:9999/?link=https%3A%2F%2Fexample.com%2Fnew"})
        assert status == 503, (status, answer)
        # What only reads keeps answering: a short link made before, the association files.
        assert get(server.base + path, headers={"User-Agent": DESKTOP})[0] == 302
        assert get(server.base + "/.well-known/apple-app-site-association")[0] == 200
        assert server.process.poll() is None
        assert "disk full" in server.output()

        filler.unlink()
        back, _ = wait_for_readiness(server.base, ready=True)
        assert post_json(server.base + SIGNUP, {"email": f"after-{uuid.uuid4().hex[:8]}@example.com", "password": "secret1"})[0] == 200
        assert make_short_link(server.base)[0]
        assert integrity(database) == "ok"
        record("disk_full", {"filler_bytes": filled, "not_ready_after_s": round(lost, 2), "ready_after_space_s": round(back, 2),
                             "integrity": "ok"})
    finally:
        if server:
            server.stop()
        if subprocess.run(["umount", str(mountpoint)], check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(mountpoint)], check=False)
