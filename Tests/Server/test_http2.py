"""HTTP/2 over LinkDomain's own TLS listener, as browsers speak it: many streams on few
connections (h2load), requests that go to the router (a body, a page) beside the ones the event
loop answers, the same answers as over HTTP/1.1, an idle connection closed after
`server.idleTimeoutSeconds`, and a graceful shutdown that says GOAWAY before it closes."""

import json
import re
import signal
import socket
import ssl
import struct
import subprocess
import time

import pytest

from conftest import Server
from test_tls import pki  # noqa: F401 (the same throw-away CA and server.pem)

AASA = "/.well-known/apple-app-site-association"
IDLE = 2
API_KEY = "http2-test-api-key"
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
EMPTY_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
GOAWAY = 7


def start(pki, name):
    return Server(pki, name, {
        "server": {"host": "127.0.0.1", "idleTimeoutSeconds": IDLE,
                   "tls": {"certificatePath": "server.pem", "privateKeyPath": "server.key"}},
        "apple": {"apps": [{"teamID": "A1B2C3D4E5", "bundleID": "dev.linkdomain.demo"}]},
        "storage": {"sqlitePath": str(pki / f"{name}.sqlite")},
        "backend": {"apiKeys": [API_KEY], "adminKeys": ["http2-test-admin-key-0123456789abcdef0123456789"]},
    }, ca=pki / "ca.pem")


@pytest.fixture(scope="module")
def server(pki):
    server = start(pki, "http2")
    yield server
    server.stop()


def curl(server, pki, path, *arguments):
    result = subprocess.run(["curl", "-sS", "--cacert", str(pki / "ca.pem"), "-D", "-", *arguments,
                             f"https://localhost:{server.port}{path}"], capture_output=True, text=True, check=True)
    head, _, body = result.stdout.partition("\n\n")  # text mode: "\r\n" reads as "\n"
    assert head.startswith("HTTP/"), result.stdout
    return head, body


def h2load(server, pki, requests, clients, streams, path):
    result = subprocess.run(["h2load", "-n", str(requests), "-c", str(clients), "-m", str(streams),
                             f"https://localhost:{server.port}{path}"], capture_output=True, text=True, timeout=120)
    summary = re.search(r"requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed", result.stdout)
    statuses = re.search(r"status codes: (\d+) 2xx", result.stdout)
    assert summary and statuses, result.stdout + result.stderr
    return int(summary.group(3)), int(summary.group(4)), int(statuses.group(1)), result.stdout


def h2_connection(server, pki):
    context = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    context.set_alpn_protocols(["h2"])
    connection = context.wrap_socket(socket.create_connection(("127.0.0.1", server.port)), server_hostname="localhost")
    assert connection.selected_alpn_protocol() == "h2"
    connection.sendall(PREFACE + EMPTY_SETTINGS)
    return connection


def frames_until_closed(connection, seconds):
    """The types of the frames the server sends until it closes (None if it is still open after `seconds`)."""
    connection.settimeout(seconds)
    received = b""
    try:
        while chunk := connection.recv(65536):
            received += chunk
    except socket.timeout:
        return None
    except (ConnectionResetError, ssl.SSLError):
        pass
    types = []
    while len(received) >= 9:
        length = struct.unpack(">I", b"\x00" + received[:3])[0]
        types.append(received[3])
        received = received[9 + length:]
    return types


def test_many_streams_on_few_connections_are_all_answered(server, pki):
    for path in [AASA, "/healthz"]:
        succeeded, failed, ok, output = h2load(server, pki, 600, 3, 20, path)
        assert (succeeded, failed, ok) == (600, 0, 600), output


def test_a_request_with_a_body_goes_to_the_router_over_http2(server, pki):
    body = json.dumps({"email": "h2@example.com", "password": "correct horse", "returnSecureToken": True})
    head, answer = curl(server, pki, f"/identitytoolkit.googleapis.com/v1/accounts:signUp?key={API_KEY}", "--http2",
                        "-H", "Content-Type: application/json", "--data", body)
    assert head.startswith("HTTP/2 200"), head
    assert json.loads(answer)["email"] == "h2@example.com"


def test_http2_gives_the_same_answers_as_http11(server, pki):
    for path in [AASA, "/healthz", "/__/auth/action?mode=resetPassword&oobCode=nope&apiKey=k&lang=en", "/no-such-page"]:
        head2, body2 = curl(server, pki, path, "--http2")
        head1, body1 = curl(server, pki, path, "--http1.1")
        assert head2.split(" ")[1] == head1.split(" ")[1], path
        assert body2 == body1 and body1, path


def test_http2_head_and_conditional_requests_answer_as_http11(server, pki):
    def fields(head):
        lines = head.lower().splitlines()[1:]
        return {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in lines if not line.startswith("date:")}

    # -I's head goes to -D alone: what curl prints as the body is dropped.
    head2, body2 = curl(server, pki, AASA, "--http2", "-I", "-o", "/dev/null")
    head1, body1 = curl(server, pki, AASA, "--http1.1", "-I", "-o", "/dev/null")
    assert head2.startswith("HTTP/2 200") and body2 == body1 == "", head2
    assert fields(head2) == fields(head1)
    tag = fields(head1)["etag"]
    head2, body2 = curl(server, pki, AASA, "--http2", "-H", f"If-None-Match: {tag}")
    assert head2.startswith("HTTP/2 304") and body2 == "", head2


def test_answered_and_routed_streams_interleave_on_one_connection(server, pki):
    # h2load spreads the requests over the paths in turn: streams the event loop answers from their
    # frames between streams that become channels for the router, all on one connection.
    result = subprocess.run(["h2load", "-n", "300", "-c", "1", "-m", "30",
                             *[f"https://localhost:{server.port}{path}" for path in [AASA, "/healthz", "/no-such-page"]]],
                            capture_output=True, text=True, timeout=120)
    # h2load counts a 404 as failed; what matters is that every stream was answered, none reset.
    assert "300 done, 200 succeeded, 100 failed, 0 errored, 0 timeout" in result.stdout, result.stdout + result.stderr
    assert re.search(r"status codes: 200 2xx, 0 3xx, 100 4xx", result.stdout), result.stdout


class TLSRecords:
    """A TLS client over memory BIOs, so that the records the server sends can be counted as they
    come off the socket, before they are opened."""

    def __init__(self, server, pki):
        context = ssl.create_default_context(cafile=str(pki / "ca.pem"))
        context.set_alpn_protocols(["h2"])
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_hostname="localhost")
        self.socket = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        self.received = b""  # every byte the server sent, from its first record
        self.starts = []  # where each of its records starts in `received`
        self.plain = b""
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self.send_pending()
                self.receive()
        self.send_pending()
        assert self.tls.selected_alpn_protocol() == "h2"

    def send_pending(self):
        if data := self.outgoing.read():
            self.socket.sendall(data)

    def receive(self):
        data = self.socket.recv(65536)
        assert data, "the server closed the connection"
        self.incoming.write(data)
        self.received += data
        next_start = self.starts[-1] + 5 + struct.unpack(">H", self.received[self.starts[-1] + 3:self.starts[-1] + 5])[0] if self.starts else 0
        while next_start + 5 <= len(self.received):
            self.starts.append(next_start)
            next_start += 5 + struct.unpack(">H", self.received[next_start + 3:next_start + 5])[0]

    def write(self, data):
        self.tls.write(data)
        self.send_pending()

    def frames(self):
        """Reads until at least one whole frame is open; returns (type, flags, stream) of each."""
        while True:
            try:
                while chunk := self.tls.read(65536):
                    self.plain += chunk
            except ssl.SSLWantReadError:
                pass
            frames = []
            while len(self.plain) >= 9 and len(self.plain) >= 9 + struct.unpack(">I", b"\x00" + self.plain[:3])[0]:
                length = struct.unpack(">I", b"\x00" + self.plain[:3])[0]
                frames.append((self.plain[3], self.plain[4], struct.unpack(">I", self.plain[5:9])[0] & 0x7FFFFFFF))
                self.plain = self.plain[9 + length:]
            if frames:
                return frames
            self.receive()


def request_block(path):
    """GET https://localhost`path` as an HPACK block: indexed :method and :scheme, literal :path and :authority."""
    def literal(index, value):
        return bytes([index, len(value)]) + value.encode()
    return b"\x82\x87" + literal(4, path) + literal(1, "localhost")


def test_streams_answered_together_leave_in_fewer_tls_records_than_answers(server, pki):
    # NIO's TLS handler seals every write as a record, and NIO's HTTP/2 handler writes an answer as
    # three (HEADERS, a DATA frame's head, its payload): ten answers were thirty records. Joined
    # between two flushes, they are a record or two.
    client = TLSRecords(server, pki)
    client.write(PREFACE + EMPTY_SETTINGS)
    acknowledged = False
    while not acknowledged:
        acknowledged = any(kind == 4 and flags & 1 for kind, flags, _ in client.frames())
    mark = len(client.received)
    block = request_block(AASA)
    client.write(b"".join(struct.pack(">I", len(block))[1:] + bytes([1, 5]) + struct.pack(">I", stream) + block
                          for stream in range(1, 21, 2)))
    ended = set()
    while len(ended) < 10:
        ended |= {stream for kind, flags, stream in client.frames() if kind in (0, 1) and flags & 1 and stream}
    answers = [start for start in client.starts if start >= mark]
    assert ended == set(range(1, 21, 2))
    assert 1 <= len(answers) < 10, f"{len(answers)} records for 10 answers"
    client.socket.close()


def test_an_idle_http2_connection_is_closed(server, pki):
    with h2_connection(server, pki) as connection:
        started = time.monotonic()
        frames = frames_until_closed(connection, IDLE + 3)
        assert frames is not None, "the idle HTTP/2 connection stayed open"
        assert time.monotonic() - started >= IDLE - 0.5


def test_sigterm_says_goaway_then_closes_and_exits(pki):
    server = start(pki, "http2-shutdown")
    try:
        with h2_connection(server, pki) as connection:
            time.sleep(0.2)
            server.process.send_signal(signal.SIGTERM)
            frames = frames_until_closed(connection, IDLE + 3)
        assert frames is not None and GOAWAY in frames, frames
        assert server.process.wait(timeout=10) == 0
    finally:
        if server.process.poll() is None:
            server.stop()
