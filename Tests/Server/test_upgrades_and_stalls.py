"""What a connection may hold: LinkDomain switches no protocol, so a request with `Upgrade`
(WebSocket, h2c) or a `CONNECT` is refused with 400 and `Connection: close` and nothing sent after
it is kept; a client that pipelines requests and never reads the answers is closed once its
connection has taken no output for the idle timeout. Both over plain HTTP and over TLS, with the
server's resident memory measured while an attacker keeps sending."""

import os
import shutil
import socket
import ssl
import tempfile
import time
from pathlib import Path

import pytest

from conftest import Server
from test_tls import make_certificate, openssl

IDLE = 2
# Connections that pipeline requests and read nothing, at once.
STALLED = 8


@pytest.fixture(scope="module")
def directory():
    path = Path(tempfile.mkdtemp(prefix="linkdomain-upgrades-"))
    yield path
    shutil.rmtree(path)


@pytest.fixture(scope="module")
def plain(directory):
    server = Server(directory, "plain", {"server": {"host": "127.0.0.1", "idleTimeoutSeconds": IDLE},
                                         "storage": {"sqlitePath": str(directory / "plain.sqlite")},
                                         "limits": {"requestsPerMinute": 1000000, "burst": 1000000}})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def tls(directory):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
            "-subj", "/CN=LinkDomain test CA", "-days", "2", "-out", "ca.pem", cwd=directory)
    make_certificate(directory, "server", 3003)
    server = Server(directory, "tls", {
        "server": {"host": "127.0.0.1", "idleTimeoutSeconds": IDLE,
                   "tls": {"certificatePath": "server.pem", "privateKeyPath": "server.key"}},
        "storage": {"sqlitePath": str(directory / "tls.sqlite")},
        "backend": {"apiKeys": ["upgrade-test-api-key"], "adminKeys": ["upgrade-test-admin-key-0123456789abcdef012345"]},
    }, ca=directory / "ca.pem")
    server.context = ssl.create_default_context(cafile=str(directory / "ca.pem"))
    server.context.set_alpn_protocols(["http/1.1"])
    yield server
    server.stop()


def resident_megabytes(server):
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def open_sockets(server):
    count = 0
    for fd in os.listdir(f"/proc/{server.process.pid}/fd"):
        try:
            count += os.readlink(f"/proc/{server.process.pid}/fd/{fd}").startswith("socket:")
        except OSError:
            pass
    return count


def connect(server):
    connection = socket.create_connection(("127.0.0.1", server.port))
    if getattr(server, "context", None):
        connection = server.context.wrap_socket(connection, server_hostname="localhost")
    return connection


class Answers:
    """Reads the responses on a connection one by one (small answers with a Content-Length only)."""

    def __init__(self, connection, timeout=5):
        self.connection = connection
        self.connection.settimeout(timeout)
        self.buffer = b""

    def _fill(self):
        chunk = self.connection.recv(65536)
        if not chunk:
            raise EOFError
        self.buffer += chunk

    def next(self):
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        fields = {}
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            fields[name.strip().lower().decode()] = value.strip().decode()
        length = int(fields.get("content-length", "0"))
        while len(self.buffer) < length:
            try:
                self._fill()
            except EOFError:
                break
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        if "content-length" not in fields and fields.get("connection") == "close":
            body, self.buffer = self.buffer, b""
        return head.split(b"\r\n")[0].decode(), fields, body.decode(errors="replace")


def read_answer(connection, timeout=5):
    return Answers(connection, timeout).next()


def flood_until_closed(connection, megabytes, seconds):
    """Sends up to `megabytes` after the request; how many megabytes the server took before the
    connection ended (None if it never did within `seconds`)."""
    chunk = b"x" * 65536
    sent = 0
    deadline = time.monotonic() + seconds
    connection.settimeout(0.5)
    while time.monotonic() < deadline and sent < megabytes * 1024 * 1024:
        try:
            sent += connection.send(chunk)
        except socket.timeout:
            # The server reads nothing more: the kernel's buffers are full. Is the connection still open?
            try:
                if connection.recv(65536) == b"":
                    return sent / 1024 / 1024
            except socket.timeout:
                continue
            except (ConnectionResetError, ssl.SSLError, OSError):
                return sent / 1024 / 1024
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            return sent / 1024 / 1024
    return None


UPGRADES = {
    "websocket": b"GET /healthz HTTP/1.1\r\nHost: links.example.com\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                 b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    "h2c": b"GET /healthz HTTP/1.1\r\nHost: links.example.com\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
           b"HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
    "connect": b"CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n",
}


@pytest.mark.parametrize("transport", ["plain", "tls"])
@pytest.mark.parametrize("kind", sorted(UPGRADES))
def test_upgrades_are_refused_and_what_follows_is_not_kept(request, transport, kind):
    server = request.getfixturevalue(transport)
    before = resident_megabytes(server)
    connections = [connect(server) for _ in range(4)]
    for connection in connections:
        connection.sendall(UPGRADES[kind])
        status, fields, body = read_answer(connection)
        assert status.startswith("HTTP/1.1 400"), status
        assert fields.get("connection") == "close"
        assert "x-content-type-options" in fields, "the refusal carries the security headers"
        if kind != "connect":  # NIO's encoder sends no body after a CONNECT's head, whatever its status
            assert "Upgrade" in body
    for connection in connections:
        # The attack: keep sending after the upgrade. The server must end the connection, not keep the bytes.
        taken = flood_until_closed(connection, megabytes=512, seconds=IDLE + 6)
        assert taken is not None, "the connection stayed open"
        assert taken < 64, f"the server took {taken:.0f} MB after a refused {kind}"
        connection.close()
    assert resident_megabytes(server) - before < 40


@pytest.mark.parametrize("transport", ["plain", "tls"])
def test_connection_upgrade_without_an_upgrade_field_is_served_and_kept_alive(request, transport):
    """nginx's common WebSocket snippet sends `Connection: upgrade` on every proxied request."""
    server = request.getfixturevalue(transport)
    with connect(server) as connection:
        for _ in range(3):
            # A loopback name: the plain server is in development, which answers no other host (421).
            connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: upgrade\r\n\r\n")
            status, fields, _ = read_answer(connection)
            assert status.startswith("HTTP/1.1 200"), status


def test_a_refusal_waits_for_the_answers_pipelined_before_it(plain):
    with connect(plain) as connection:
        connection.sendall(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n" * 3 + UPGRADES["websocket"])
        answers = Answers(connection)
        statuses = [answers.next()[0].split(" ")[1] for _ in range(4)]
        assert statuses == ["200", "200", "200", "400"]
        assert connection.recv(65536) == b""


@pytest.mark.parametrize("transport", ["plain", "tls"])
def test_a_client_that_never_reads_its_answers_is_closed(request, transport):
    server = request.getfixturevalue(transport)
    # /metrics goes through the router (not the event loop's fast path), with a sizeable answer.
    pipelined = b"GET /metrics HTTP/1.1\r\nHost: links.example.com\r\n\r\n" * 200
    sockets_before = open_sockets(server)
    connections = []
    for _ in range(STALLED):
        connection = connect(server)
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        connection.settimeout(0.05)
        connections.append(connection)
    for connection in connections:
        try:
            connection.sendall(pipelined * 50)
        except (socket.timeout, ssl.SSLError, OSError):
            pass  # the server stopped reading: its output is stuck behind ours
    # Each is accepted and answers until its output is stuck (the server fills the socket's buffers first).
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and open_sockets(server) - sockets_before < STALLED:
        time.sleep(0.1)
    assert open_sockets(server) - sockets_before >= STALLED, "each connection is held while it still may read"
    # Then closed once its output has been stuck for the idle timeout (on a busy machine, later).
    deadline = time.monotonic() + IDLE * 3 + 20
    while time.monotonic() < deadline and open_sockets(server) > sockets_before:
        time.sleep(0.25)
    assert open_sockets(server) <= sockets_before, "connections that read nothing are still held"
    for connection in connections:
        connection.close()
