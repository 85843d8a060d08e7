"""The TLS profile `serve` offers (Mozilla's intermediate: TLS 1.2 and 1.3, and for TLS 1.2 only
ECDHE with AES-GCM or ChaCha20-Poly1305), as testssl.sh, an outside scanner, sees it, with an EC
P-256 certificate from files made by openssl."""

import json
import re
import shutil
import subprocess

import pytest

from conftest import Server

TESTSSL = shutil.which("testssl") or shutil.which("testssl.sh")

pytestmark = pytest.mark.skipif(TESTSSL is None, reason="needs testssl (Debian's testssl.sh package)")


def openssl(*arguments, cwd):
    result = subprocess.run(["openssl", *arguments], cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, f"openssl {' '.join(arguments)}: {result.stderr}"


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    """testssl's findings (its flat JSON: one object a finding, keyed by `id`) for a server with an
    EC P-256 certificate for localhost and 127.0.0.1."""
    directory = tmp_path_factory.mktemp("tls-profile")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
            "-subj", "/CN=LinkDomain TLS profile test CA", "-days", "2", "-out", "ca.pem", cwd=directory)
    (directory / "server.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                                          "extendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "server.key",
            "-subj", "/CN=localhost", "-out", "server.csr", cwd=directory)
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "7",
            "-days", "2", "-extfile", "server.ext", "-out", "server.pem", cwd=directory)
    server = Server(directory, "profile", {
        "server": {"host": "127.0.0.1", "tls": {"certificatePath": str(directory / "server.pem"),
                                                "privateKeyPath": str(directory / "server.key")}},
        "storage": {"sqlitePath": str(directory / "profile.sqlite")},
        # HTTPS makes this a deployment: the embedded backend needs its keys.
        "backend": {"apiKeys": ["tls-profile-api-key"], "adminKeys": ["tls-profile-admin-key-0123456789abcdef0123456789"]},
        "limits": {"requestsPerMinute": 100000, "burst": 100000},
    }, ca=directory / "ca.pem")
    report = directory / "testssl.json"
    try:
        # Protocols, cipher categories, each cipher per protocol, forward secrecy, the
        # vulnerabilities (LUCKY13, BEAST, SWEET32 ...) and the HTTP headers (HSTS).
        run = subprocess.run([TESTSSL, "--quiet", "--color", "0", "--warnings", "off", "--nodns", "none",
                              "--connect-timeout", "10", "--openssl-timeout", "10", "--jsonfile", str(report),
                              "--protocols", "--std", "--cipher-per-proto", "--fs", "--vulnerable", "--headers",
                              f"127.0.0.1:{server.port}"], capture_output=True, text=True, timeout=240)
    finally:
        server.stop()
    assert report.exists(), f"testssl wrote no report (exit {run.returncode}):\n{run.stdout}\n{run.stderr}"
    entries = json.loads(report.read_text())
    scan_problems = [entry for entry in entries if entry["id"] in ("scanProblem", "engine_problem")]
    assert not scan_problems, scan_problems
    by_id = {}
    for entry in entries:
        by_id.setdefault(entry["id"], []).append(entry)
    return by_id


def one(findings, id):
    assert id in findings, f"testssl reported no {id}; it reported {sorted(findings)}"
    return findings[id][0]


def test_only_tls_1_2_and_1_3_are_offered(findings):
    for id in ["SSLv2", "SSLv3", "TLS1", "TLS1_1"]:
        assert one(findings, id)["finding"] == "not offered", findings[id]
    assert one(findings, "TLS1_2")["finding"] == "offered", findings["TLS1_2"]
    assert one(findings, "TLS1_3")["finding"].startswith("offered"), findings["TLS1_3"]


def offered_ciphers(findings):
    """(id, finding) of every cipher suite testssl found offered, protocol by protocol
    (`cipher-tls1_2_xc02b`: "TLS 1.2   xc02b   ECDHE-ECDSA-AES128-GCM-SHA256   ECDH 253   AESGCM ...")."""
    return [(id, entry["finding"]) for id, entries in findings.items() if id.startswith("cipher-") for entry in entries]


def not_vulnerable(entry):
    """testssl's verdict is good: OK or INFO, and no "VULNERABLE" or "potentially vulnerable" in it."""
    return entry["severity"] in ("OK", "INFO") and not re.search(r"(?<!not )vulnerable", entry["finding"], re.IGNORECASE)


def test_only_ecdhe_with_aead_suites_and_no_cbc(findings):
    ciphers = offered_ciphers(findings)
    assert ciphers, "testssl listed no cipher offered"
    assert all(id.startswith(("cipher-tls1_2_", "cipher-tls1_3_")) for id, _ in ciphers), ciphers
    assert any(id.startswith("cipher-tls1_2_") for id, _ in ciphers), ciphers
    for id, finding in ciphers:
        columns = finding.split()
        name, key_exchange, encryption = columns[3], columns[4], columns[6]
        assert encryption in ("AESGCM", "ChaCha20"), finding
        assert "CBC" not in finding.upper(), finding
        if id.startswith("cipher-tls1_2_"):
            assert name.startswith("ECDHE-") and key_exchange == "ECDH", finding
    # The categories testssl sorts suites into: nothing weak, nothing merely average (CBC, no FS).
    for id in ["cipherlist_NULL", "cipherlist_aNULL", "cipherlist_EXPORT", "cipherlist_LOW", "cipherlist_3DES_IDEA",
               "cipherlist_AVERAGE"]:
        assert one(findings, id)["finding"] == "not offered", findings[id]
    assert one(findings, "cipherlist_STRONG")["finding"] == "offered", findings["cipherlist_STRONG"]
    # CBC is what LUCKY13 (and BEAST and SWEET32) need: testssl says "potentially vulnerable" when it sees any.
    for id in ["LUCKY13", "BEAST", "SWEET32"]:
        assert not_vulnerable(one(findings, id)), findings[id]
        assert one(findings, id)["finding"].startswith("not vulnerable"), findings[id]


def test_forward_secrecy_for_every_suite(findings):
    # testssl 3.0 calls it PFS, later versions FS.
    id = "FS" if "FS" in findings else "PFS"
    entry = one(findings, id)
    assert entry["severity"] == "OK" and entry["finding"] == "offered", entry
    with_forward_secrecy = set(one(findings, f"{id}_ciphers")["finding"].split())
    offered = {finding.split()[3] for _, finding in offered_ciphers(findings)}
    assert offered <= with_forward_secrecy, (offered, with_forward_secrecy)


def test_no_known_vulnerability(findings):
    checks = ["heartbleed", "CCS", "ticketbleed", "ROBOT", "secure_client_renego", "CRIME_TLS", "BREACH",
              "POODLE_SSL", "SWEET32", "FREAK", "DROWN", "LOGJAM", "BEAST", "LUCKY13", "RC4"]
    for id in checks:
        assert not_vulnerable(one(findings, id)), findings[id]
    assert one(findings, "secure_renego")["finding"] == "supported", findings["secure_renego"]
    assert one(findings, "fallback_SCSV")["severity"] == "OK", findings["fallback_SCSV"]


def test_hsts_is_sent(findings):
    # testssl reports `HSTS` only when it is missing ("not offered"); when sent, `HSTS_time`.
    assert "HSTS" not in findings, findings["HSTS"]
    entry = one(findings, "HSTS_time")
    assert entry["severity"] == "OK", entry
    seconds = int(re.search(r"=(\d+) seconds", entry["finding"]).group(1))
    assert seconds >= 15552000, entry
