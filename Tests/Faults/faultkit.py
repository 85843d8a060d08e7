"""What the fault suite shares: a LinkDomain configuration and its short links, the steady load
(Benchmarks/FaultLoad, built once), a PostgreSQL
cluster of the test's own that it may stop and kill, nginx in front of replicas, an SMTP relay
that hangs, and readings of a process (resident memory, open files).

The short form (run by `.ci/run`) takes seconds per fault; `scripts/faults` sets FAULTS_LONG=1 and
runs the long form against the release build, writing each fault's figures as JSON under
FAULTS_OUT for RELIABILITY.md and its plots."""

import json
import os
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT, free_port, post_json

LONG = os.environ.get("FAULTS_LONG") == "1"
OUT = Path(os.environ.get("FAULTS_OUT", "/tmp/linkdomain-faults"))
long_only = pytest.mark.skipif(not LONG, reason="long form only (scripts/faults)")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (runuser, mount)")

KEY = "fault-suite-short-link-key-0123"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"


def configuration(storage, port=None):
    return {"shortLinks": {"apiKeys": [KEY]}, "authorizedDomains": ["example.com", "127.0.0.1", "localhost"],
            "publicBaseURL": "http://localhost:9999", "formSecret": "one secret for every replica of the suite",
            "limits": {"requestsPerMinute": 1000000, "burst": 1000000}, "storage": storage,
            **({"server": {"port": port}} if port else {})}


def make_short_link(base, target="https://example.com/after-signals"):
    status, answer = post_json(f"{base}/v1/shortLinks?key={KEY}",
                               {"longDynamicLink": f"http://localhost:9999/?link={urllib.parse.quote(target, safe='')}"})
    assert status == 200, answer
    return answer["shortLink"], "/" + answer["shortLink"].rsplit("/", 1)[1]


def clicks(base, short):
    url = f"{base}/v1/{urllib.parse.quote(short, safe='')}/linkStats?durationDays=7&key={KEY}"
    with urllib.request.urlopen(url) as response:
        return sum(int(entry["count"]) for entry in json.load(response).get("linkEventStats", []) if entry["event"] == "CLICK")


def address(base):
    return base.split("://", 1)[1]

_GENERATOR = Path(os.environ.get("FAULTS_GENERATOR", "/tmp/linkdomain-faultload/faultload"))
_build_lock = threading.Lock()


def generator():
    """The load generator's binary, built from Benchmarks/FaultLoad on first use."""
    with _build_lock:
        source = ROOT / "Benchmarks" / "FaultLoad" / "main.go"
        if not _GENERATOR.exists() or _GENERATOR.stat().st_mtime < source.stat().st_mtime:
            _GENERATOR.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["go", "build", "-o", str(_GENERATOR), str(source)], check=True,
                           env={**os.environ, "GOCACHE": str(_GENERATOR.parent / "cache")})
    return _GENERATOR


class Load:
    """Steady GET load on `address` (host:port) in the background: `paths` in turn at `rate` a
    second over `connections` keep-alive connections for `seconds`. `lines` is what it saw
    second by second, `total` the whole run once `wait()` returned."""

    def __init__(self, address, paths, rate, seconds, connections=16, user_agent=None):
        command = [str(generator()), "-addr", address, "-c", str(connections), "-rate", str(rate), "-d", f"{seconds}s"]
        for path in paths:
            command += ["-path", path]
        if user_agent:
            command += ["-ua", user_agent]
        self.lines = []
        self.total = None
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stdout:
            entry = json.loads(line)
            if entry.get("total"):
                self.total = entry
            else:
                self.lines.append(entry)

    def wait(self):
        self.process.wait(timeout=7200)
        self._reader.join(timeout=10)
        assert self.total is not None, "the load generator ended without its summary"
        return self.total


def answered(total, status):
    return total["status"].get(str(status), 0)


def failures(total):
    return sum(total["errors"].values())


class PrivatePostgres:
    """A throw-away cluster of the test's own (scripts/postgres), which it may stop, kill and start."""

    def __init__(self):
        self.data, self.url = subprocess.run([str(ROOT / "scripts" / "postgres")], capture_output=True, text=True,
                                             check=True).stdout.split()
        self.port = self.url.rsplit(":", 1)[1].split("/")[0]
        self.bin = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]

    def pg_ctl(self, *arguments):
        subprocess.run(["runuser", "-u", "postgres", "--", str(self.bin / "pg_ctl"), "-D", self.data, *arguments],
                       check=True, capture_output=True)

    def stop(self, mode):
        self.pg_ctl("-m", mode, "stop")

    def start(self):
        self.pg_ctl("-l", f"{self.data}/server.log", "-w", "-o",
                    f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off", "start")

    def query(self, sql):
        """One value, as text, from psql on this cluster's database."""
        user = self.url.split("://", 1)[1].split("@", 1)[0].split(":", 1)[0]
        result = subprocess.run([str(self.bin / "psql"), "-h", "127.0.0.1", "-p", self.port, "-U", user, "-d",
                                 self.url.rsplit("/", 1)[1], "-At", "-c", sql], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    def remove(self):
        subprocess.run([str(ROOT / "scripts" / "postgres"), "stop", self.data], check=False)


class Nginx:
    """nginx on a port of its own, balancing over `upstreams` (host:port) as a load balancer in front
    of replicas would: keep-alive to the replicas, and an idempotent request that meets a replica's
    error (refused, reset) retried on the next one, as nginx does by default."""

    def __init__(self, directory, upstreams):
        self.port = free_port()
        self.directory = Path(directory) / "nginx"
        self.directory.mkdir(parents=True, exist_ok=True)
        servers = "\n".join(f"        server {upstream} max_fails=1 fail_timeout=2s;" for upstream in upstreams)
        (self.directory / "nginx.conf").write_text(f"""
worker_processes 1;
pid {self.directory}/nginx.pid;
error_log {self.directory}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {self.directory}/body;
    proxy_temp_path {self.directory}/proxy;
    fastcgi_temp_path {self.directory}/fastcgi;
    uwsgi_temp_path {self.directory}/uwsgi;
    scgi_temp_path {self.directory}/scgi;
    upstream linkdomain {{
{servers}
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{self.port};
        location / {{
            proxy_pass http://linkdomain;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_next_upstream error timeout;
            proxy_connect_timeout 1s;
        }}
    }}
}}
""")
        subprocess.run(["nginx", "-c", str(self.directory / "nginx.conf"), "-p", str(self.directory)], check=True)
        self.address = f"127.0.0.1:{self.port}"
        self.base = f"http://{self.address}"
        for _ in range(50):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        pytest.fail("nginx did not start")

    def stop(self):
        subprocess.run(["nginx", "-c", str(self.directory / "nginx.conf"), "-p", str(self.directory), "-s", "stop"], check=False)


class HangingRelay:
    """A relay that takes the TCP connection and never says a word (no greeting)."""

    def __init__(self, port):
        self.listener = socket.create_server(("127.0.0.1", port), reuse_port=False)
        self.connections = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections.append(connection)

    def stop(self):
        # close() alone leaves the socket listening while the thread's accept() holds it.
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        self._thread.join(timeout=5)
        for connection in self.connections:
            connection.close()


def resident_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def open_files(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def get(url, timeout=10, headers=None):
    """(status, body text) of a GET that follows no redirect."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *arguments, **keywords):
            return None
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=timeout) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


def metric_value(base, line_prefix):
    """The sum of the values of `/metrics` lines starting with `line_prefix`."""
    text = get(base + "/metrics")[1]
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(line_prefix))


def record(name, figures):
    """Keeps a fault's figures for RELIABILITY.md (and prints them with -s)."""
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(figures, indent=1))
    print(f"\n{name}: {json.dumps({k: v for k, v in figures.items() if not isinstance(v, list)})}")
