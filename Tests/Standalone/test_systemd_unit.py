"""The shipped systemd unit is valid and sandboxed, as systemd itself judges it."""

import re
import shutil
import subprocess

import pytest

from conftest import BINARY, ROOT


def test_unit_verifies_and_is_sandboxed(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (Debian package systemd)")
    unit = (ROOT / "deploy" / "linkdomain.service").read_text()
    assert all(setting in unit for setting in ["DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes", "StateDirectory=linkdomain"])
    # The same unit, pointing at the binary under test.
    path = tmp_path / "linkdomain.service"
    path.write_text(unit.replace("/usr/local/bin/linkdomain", str(BINARY)))
    verified = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True)
    assert verified.returncode == 0 and verified.stderr.strip() == "", verified.stderr
    security = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(path)], capture_output=True, text=True)
    exposure = re.search(r"Overall exposure level for linkdomain.service: ([0-9.]+)", security.stdout)
    assert exposure and float(exposure.group(1)) <= 2.0, security.stdout[-400:]
