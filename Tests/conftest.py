"""Helpers shared by the Python tests (firebase-admin, browser, replicas): start the built
`linkdomain` binary with a configuration and wait until it answers."""

import json
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BINARY = ROOT / ".build" / "debug" / "linkdomain"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """A running `linkdomain serve`; its output goes to a log file shown if it fails to start."""

    def __init__(self, directory, name, configuration, ca=None):
        """`ca`: the CA file that signed the configured TLS certificate; the server is then reached over HTTPS."""
        self.port = free_port()
        configuration = {**configuration,
                         "server": {"host": "127.0.0.1", "port": self.port, **configuration.get("server", {})}}
        path = Path(directory) / f"{name}.json"
        path.write_text(json.dumps(configuration))
        self.log = open(Path(directory) / f"{name}.log", "w+")
        self.process = subprocess.Popen([str(BINARY), "serve", "--config", str(path)], stdout=self.log, stderr=subprocess.STDOUT)
        self.base = f"{'https' if ca else 'http'}://127.0.0.1:{self.port}"
        self.ssl_context = ssl.create_default_context(cafile=str(ca)) if ca else None
        for _ in range(300):
            if self.process.poll() is not None:
                self.log.seek(0)
                pytest.fail(f"linkdomain exited: {self.log.read()}")
            try:
                urllib.request.urlopen(self.base + "/healthz", context=self.ssl_context)
                return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        pytest.fail(f"linkdomain did not answer on {self.base}")

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
