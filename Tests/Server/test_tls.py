"""`serve` terminating TLS itself: a real handshake on loopback with a throw-away CA made by the
`openssl` CLI, HTTP/2 by ALPN with HTTP/1.1 as the fallback, HSTS, and a certificate renewed on
SIGHUP without dropping the connections already open."""

import http.client
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import BINARY, Server

AASA = "/.well-known/apple-app-site-association"


def openssl(*arguments, cwd):
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True, capture_output=True)


def make_certificate(directory, name, serial):
    """A certificate for localhost and 127.0.0.1, signed by the directory's CA."""
    (directory / f"{name}.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                                           "extendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", f"{name}.key",
            "-subj", "/CN=localhost", "-out", f"{name}.csr", cwd=directory)
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", str(serial),
            "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.pem", cwd=directory)


@pytest.fixture(scope="module")
def pki():
    directory = Path(tempfile.mkdtemp(prefix="linkdomain-tls-"))
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
            "-subj", "/CN=LinkDomain test CA", "-days", "2", "-out", "ca.pem", cwd=directory)
    make_certificate(directory, "first", 1001)
    make_certificate(directory, "second", 2002)
    shutil.copy(directory / "first.pem", directory / "server.pem")
    shutil.copy(directory / "first.key", directory / "server.key")
    yield directory
    shutil.rmtree(directory)


@pytest.fixture(scope="module")
def server(pki):
    server = Server(pki, "tls", {
        "server": {"host": "127.0.0.1", "tls": {"certificatePath": "server.pem", "privateKeyPath": "server.key"}},
        "apple": {"apps": [{"teamID": "A1B2C3D4E5", "bundleID": "dev.linkdomain.demo"}]},
        "android": {"apps": [{"packageName": "dev.linkdomain.demo", "fingerprints": [":".join(["AB"] * 32)]}]},
        "storage": {"sqlitePath": str(pki / "tls.sqlite")},
        # HTTPS makes this a deployment: the embedded backend needs its keys.
        "backend": {"apiKeys": ["tls-test-api-key"], "adminKeys": ["tls-test-admin-key-0123456789abcdef0123456789"]},
    }, ca=pki / "ca.pem")
    yield server
    server.stop()


def curl(server, pki, *arguments):
    result = subprocess.run(["curl", "-sS", "--cacert", str(pki / "ca.pem"), *arguments,
                             f"https://localhost:{server.port}{AASA}"], capture_output=True, text=True, check=True)
    return result.stdout


def serial_of(connection):
    return int(connection.sock.getpeercert()["serialNumber"], 16)


def test_http2_is_negotiated_by_alpn_and_serves_the_same_bytes(server, pki):
    version = curl(server, pki, "--http2", "-o", "/dev/null", "-w", "%{http_version}")
    assert version == "2"
    over_h2 = curl(server, pki, "--http2", "-D", "-")
    over_h1 = curl(server, pki, "--http1.1", "-D", "-")
    assert over_h2.split("\n\n", 1)[1] == over_h1.split("\n\n", 1)[1]
    assert "content-type: application/json\n" in over_h2.lower()


def test_http11_is_the_fallback_with_and_without_alpn(server, pki):
    assert curl(server, pki, "--http1.1", "-o", "/dev/null", "-w", "%{http_version}") == "1.1"
    context = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    with socket.create_connection(("127.0.0.1", server.port)) as raw, context.wrap_socket(raw, server_hostname="localhost") as tls:
        assert tls.selected_alpn_protocol() is None
        tls.sendall(f"GET {AASA} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := tls.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")


def test_https_responses_carry_hsts(server, pki):
    for protocol in ["--http2", "--http1.1"]:
        headers = curl(server, pki, protocol, "-o", "/dev/null", "-D", "-").lower()
        assert "strict-transport-security: max-age=31536000\n" in headers
    # The router's answers too, not only the event loop's.
    connection = http.client.HTTPSConnection("localhost", server.port, context=server.ssl_context)
    connection.request("GET", "/healthz")
    assert connection.getresponse().getheader("Strict-Transport-Security") == "max-age=31536000"


def test_plaintext_is_refused_on_the_tls_port(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
        raw.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        answer = raw.recv(1024)
    assert not answer.startswith(b"HTTP/1.1 200")


def test_sighup_reloads_the_certificate_and_open_connections_carry_on(server, pki):
    before = http.client.HTTPSConnection("localhost", server.port, context=server.ssl_context)
    before.request("GET", AASA)
    before.getresponse().read()
    assert serial_of(before) == 1001

    shutil.copy(pki / "second.pem", pki / "server.pem")
    shutil.copy(pki / "second.key", pki / "server.key")
    server.process.send_signal(signal.SIGHUP)
    for _ in range(50):
        after = http.client.HTTPSConnection("localhost", server.port, context=server.ssl_context)
        after.request("GET", AASA)
        after.getresponse().read()
        if serial_of(after) == 2002:
            break
        time.sleep(0.1)
    assert serial_of(after) == 2002

    # The connection opened before the reload still works, on the certificate it started with.
    before.request("GET", AASA)
    assert before.getresponse().status == 200
    assert serial_of(before) == 1001

    # A broken file is not taken: the process logs it and keeps the certificate it has.
    (pki / "server.pem").write_text("not a certificate\n")
    server.process.send_signal(signal.SIGHUP)
    for _ in range(50):
        if "not reloaded" in server.output():
            break
        time.sleep(0.1)
    assert "not reloaded" in server.output()
    check = http.client.HTTPSConnection("localhost", server.port, context=server.ssl_context)
    check.request("GET", AASA)
    assert check.getresponse().status == 200
    assert serial_of(check) == 2002
    assert server.process.poll() is None


def test_doctor_passes_linkdomain_itself_over_tls(server, pki):
    result = subprocess.run([str(BINARY), "doctor", f"https://localhost:{server.port}", "--ca-file", str(pki / "ca.pem")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ERROR" not in result.stdout
    assert "ok      apple-app-site-association: /__/auth/links opens the app" in result.stdout
    assert "ok      assetlinks.json: 1 app(s) with well-formed package names and fingerprints" in result.stdout


def test_doctor_refuses_a_certificate_it_cannot_trust(server):
    # Without the test CA, the chain is not trusted: what Apple's CDN would see.
    result = subprocess.run([str(BINARY), "doctor", f"https://localhost:{server.port}"], capture_output=True, text=True)
    assert result.returncode == 1
    assert "the certificate is not trusted" in result.stdout or "TLS handshake failed" in result.stdout, result.stdout


def test_a_mismatched_key_stops_the_start_naming_the_key(pki):
    configuration = pki / "mismatch.json"
    configuration.write_text('{"server": {"tls": {"certificatePath": "first.pem", "privateKeyPath": "second.key"}}}')
    result = subprocess.run([str(BINARY), "check", "--config", str(configuration)],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert "server.tls.privateKeyPath" in result.stderr
