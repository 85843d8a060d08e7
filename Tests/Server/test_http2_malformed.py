"""Malformed HTTP/2 requests (RFC 9113 §8.2 and §8.3) are refused stream by stream with
RST_STREAM PROTOCOL_ERROR, whether the event loop would have answered them or the router, while the
connection and its well-formed streams go on. LinkDomain checks request header blocks itself
(NIO's handler checks none, so that it does not check our own answers again): hyper-h2 sends the
blocks as written, without its own checks."""

import re
import socket
import ssl

import h2.config
import h2.connection
import h2.events
import h2.settings
import pytest

from test_http2 import AASA, curl, server  # noqa: F401 (the module's TLS server)
from test_tls import pki  # noqa: F401

GOOD = [(":method", "GET"), (":scheme", "https"), (":authority", "localhost"), (":path", AASA)]
PROTOCOL_ERROR = 1


def connect(server, pki):
    context = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    context.set_alpn_protocols(["h2"])
    sock = context.wrap_socket(socket.create_connection(("127.0.0.1", server.port)), server_hostname="localhost")
    sock.settimeout(10)
    config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8", validate_outbound_headers=False,
                                       normalize_outbound_headers=False, validate_inbound_headers=False)
    connection = h2.connection.H2Connection(config=config)
    connection.initiate_connection()
    sock.sendall(connection.data_to_send())
    return sock, connection


def outcomes(sock, connection, streams):
    """Each stream's end: its status (as text) or ("reset", error code)."""
    ended = {}
    while len(ended) < len(streams):
        data = sock.recv(65536)
        assert data, f"the connection closed with {sorted(set(streams) - set(ended))} open"
        for event in connection.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                ended[event.stream_id] = dict(event.headers)[":status"]
            elif isinstance(event, h2.events.StreamReset):
                ended[event.stream_id] = ("reset", event.error_code)
            elif isinstance(event, h2.events.ConnectionTerminated):
                pytest.fail(f"GOAWAY {event.error_code}")
        sock.sendall(connection.data_to_send())
    return [ended[stream] for stream in streams]


MALFORMED = {
    "an upper-case field name": GOOD + [("User-Agent", "x")],
    "a connection-specific field": GOOD + [("connection", "keep-alive")],
    "transfer-encoding": GOOD + [("transfer-encoding", "chunked")],
    "upgrade": GOOD + [("upgrade", "websocket")],
    "te other than trailers": GOOD + [("te", "gzip")],
    "no :path": GOOD[:3],
    "an empty :path": GOOD[:3] + [(":path", "")],
    "no :scheme": [GOOD[0], GOOD[2], GOOD[3]],
    "a repeated :method": GOOD + [(":method", "GET")],
    "a pseudo-header after a regular field": [GOOD[0], GOOD[1], ("accept", "*/*"), GOOD[2], GOOD[3]],
    "an unknown pseudo-header": GOOD + [(":status", "200")],
    ":protocol (extended CONNECT is not offered)": GOOD + [(":protocol", "websocket")],
    "a space in :path": GOOD[:3] + [(":path", "/a b")],
    "a line feed in a value": GOOD + [("accept", "a\nb")],
    "NUL in a value": GOOD + [("accept", "a\x00b")],
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_request_is_reset_and_the_connection_goes_on(server, pki, name):
    sock, connection = connect(server, pki)
    try:
        # Malformed on a stream the event loop would answer, and on one with a body (the router's).
        connection.send_headers(1, MALFORMED[name], end_stream=True)
        connection.send_headers(3, [(":method", "POST") if field[0] == ":method" else field for field in MALFORMED[name]])
        connection.send_headers(5, GOOD, end_stream=True)
        sock.sendall(connection.data_to_send())
        assert outcomes(sock, connection, [1, 3, 5]) == [("reset", PROTOCOL_ERROR), ("reset", PROTOCOL_ERROR), "200"], name
    finally:
        sock.close()


def test_well_formed_requests_pass_including_connect_and_trailers(server, pki):
    sock, connection = connect(server, pki)
    try:
        connection.send_headers(1, GOOD + [("te", "trailers"), ("accept", "a\tb "), ("x-token", "!#$%&'*+-.^_`|~09az")], end_stream=True)
        # CONNECT carries :method and :authority only: well formed, and refused by the server (400).
        connection.send_headers(3, [(":method", "CONNECT"), (":authority", "example.com:443")], end_stream=True)
        # A POST with its body and well-formed trailers goes to the router, which answers it.
        post = [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"), (":path", "/healthz")]
        connection.send_headers(5, post)
        connection.send_data(5, b"x")
        connection.send_headers(7, post)
        connection.send_data(7, b"x")
        connection.send_headers(5, [("x-trailer", "ok")], end_stream=True)
        # Trailers may not carry pseudo-header fields. (Sent with the rest in one write, so that they
        # are read before the router can have answered the stream.)
        connection.send_headers(7, [(":path", "/")], end_stream=True)
        sock.sendall(connection.data_to_send())
        first, connect_, post_ok, post_bad = outcomes(sock, connection, [1, 3, 5, 7])
        assert (first, connect_, post_bad) == ("200", "400", ("reset", PROTOCOL_ERROR))
        assert post_ok == "404", post_ok  # answered (no route takes a POST there), not reset
    finally:
        sock.close()


def test_made_up_methods_are_answered_and_counted_as_other(server, pki):
    """`:method` may be any token over HTTP/2: each is answered, and counted under one label, so a
    client cannot add metrics without bound."""
    sock, connection = connect(server, pki)
    try:
        streams = [1, 3, 5]
        for stream, method in zip(streams, ["MADEUP1", "MADEUP2", "MADEUP3"]):
            connection.send_headers(stream, [(":method", method), (":scheme", "https"), (":authority", "localhost"),
                                             (":path", "/nope")], end_stream=True)
        sock.sendall(connection.data_to_send())
        statuses = outcomes(sock, connection, streams)
        assert all(status.isdigit() and status.startswith("4") for status in statuses), statuses
    finally:
        sock.close()
    _, metrics = curl(server, pki, "/metrics")
    assert "MADEUP" not in metrics
    assert re.search(r'linkdomain_http_requests_total\{route="[^"]*",method="OTHER",status="4\d\d"\} [1-9]', metrics), metrics
