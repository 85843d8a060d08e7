"""pyrebase4, as an outside client: its own sign-up, sign-in, refresh, account and custom-token flows."""

import json
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT, Server

# scripts/test makes this environment (pyrebase4 pins urllib3 below 2, so it lives apart).
PYTHON = ROOT / ".build-pyrebase" / "bin" / "python"


def test_pyrebase_flows():
    if not PYTHON.exists():
        pytest.fail(f"{PYTHON} is missing: scripts/test installs pyrebase4 there")
    server = Server(tempfile.mkdtemp(prefix="linkdomain-pyrebase-"), "pyrebase", {
        "publicBaseURL": "http://127.0.0.1:1",
        "storage": {"sqlitePath": "auth.sqlite"},
    })
    try:
        result = subprocess.run([str(PYTHON), str(Path(__file__).with_name("pyrebase_flows.py")), str(server.port)],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr[-3000:]
        seen = json.loads(result.stdout.strip().splitlines()[-1])
        assert seen == {key: True for key in seen} and len(seen) == 10, seen
    finally:
        server.stop()
