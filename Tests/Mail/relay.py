"""An SMTP relay on loopback for the mail tests, built on aiosmtpd.

It plays the operator's smarthost: STARTTLS or implicit TLS with the throw-away CA from
`keys.make_certificate_authority`, AUTH PLAIN/LOGIN for one account, recipients that are refused
(5xx) or deferred (4xx), and a fixed port so a test can take the relay down and bring a new one
up at the same address. Every message is kept byte for byte as it arrived so DKIM signatures can
be verified on exactly what the server sent.
"""

import socket
import ssl
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Optional

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

REJECT_REPLY = "550 5.1.1 mailbox unavailable"
DEFER_REPLY = "451 4.3.0 try again later"


def free_port():
    """A port nothing listens on right now (aiosmtpd's Controller cannot bind port 0: it
    connects to `self.port` to check it is up, so the number has to be known beforehand)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class ReceivedMessage:
    """One accepted message: the envelope, the DATA bytes exactly as received (after SMTP
    dot-unstuffing, CRLF line ends kept), and how the connection was secured."""
    mail_from: str
    rcpt_tos: list
    data: bytes
    tls: bool
    authenticated_as: Optional[str]
    helo: Optional[str] = None
    received_at: float = field(default_factory=time.time)


class _Handler:
    def __init__(self, relay):
        self.relay = relay

    async def handle_MAIL(self, server, connection, envelope, address, mail_options):
        # Outside STARTTLS, required AUTH is enforced here rather than with aiosmtpd's
        # auth_required, which warns on every connection unless auth_require_tls is also on.
        if self.relay.auth and not self.relay._starttls and not connection.authenticated:
            return "530 5.7.0 Authentication required"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, connection, envelope, address, rcpt_options):
        relay = self.relay
        with relay._condition:
            relay.rcpt_attempts.append(address)
            relay._condition.notify_all()
        normalised = address.lower()
        if normalised in relay._reject:
            return REJECT_REPLY
        if normalised in relay._defer:
            return DEFER_REPLY
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, connection, envelope):
        relay = self.relay
        transport = server.transport
        encrypted = transport is not None and transport.get_extra_info("ssl_object") is not None
        login = None
        if connection.authenticated and isinstance(connection.auth_data, LoginPassword):
            login = connection.auth_data.login.decode("utf-8", errors="replace")
        message = ReceivedMessage(
            mail_from=envelope.mail_from,
            rcpt_tos=list(envelope.rcpt_tos),
            data=bytes(envelope.original_content),
            tls=encrypted,
            authenticated_as=login,
            helo=connection.host_name,
        )
        with relay._condition:
            relay.messages.append(message)
            relay._condition.notify_all()
        return "250 2.0.0 OK queued"


class _Controller(Controller):
    """Keeps the live SMTP connections so `stop()` can drop them the way a relay going down
    does. aiosmtpd only cancels their tasks; with Python 3.12+ `Server.wait_closed()` then
    waits for every connection to finish, and a TLS shutdown can wait for the peer for 30 s."""

    def __init__(self, *arguments, on_connection, **keywords):
        super().__init__(*arguments, **keywords)
        self.live = weakref.WeakSet()
        self.on_connection = on_connection

    def factory(self):
        smtp = super().factory()
        self.live.add(smtp)
        self.on_connection()
        return smtp

    def drop_connections(self):
        for smtp in list(self.live):
            for transport in (smtp.transport, getattr(smtp, "_original_transport", None)):
                if transport is not None:
                    transport.abort()


class Relay:
    """An SMTP relay on 127.0.0.1 recording what it is sent.

    `tls=(cert_path, key_path)` offers STARTTLS and requires it before MAIL; with
    `implicit_tls=True` the port speaks TLS from the first byte (SMTPS, port 465 style).
    `auth=(user, password)` requires AUTH PLAIN or LOGIN with exactly that account; over TLS
    AUTH is only offered once the connection is encrypted. Recipients in `reject` get
    `550 5.1.1 mailbox unavailable` at RCPT, those in `defer` `451 4.3.0 try again later`
    (compared case-insensitively).

    `port=None` picks a free port; give a port to restart a relay at the same address.
    `start()` / `stop()` can be repeated on one object and the records are kept across them;
    it is also a context manager.

    Records (appended from the relay's thread, read from the test's):
    `messages` (`ReceivedMessage`s), `rcpt_attempts` (every RCPT address tried, refused ones
    included), `connections` (SMTP connections accepted while running, aiosmtpd's own start-up
    probe left out). They add up across restarts of one object; `clear()` empties them.
    """

    def __init__(self, port=None, tls=None, implicit_tls=False, auth=None,
                 reject=frozenset(), defer=frozenset(), hostname="relay.test"):
        if implicit_tls and not tls:
            raise ValueError("implicit_tls needs tls=(cert_path, key_path)")
        self.port = port if port is not None else free_port()
        self.host = "127.0.0.1"
        self.tls = tls
        self.implicit_tls = implicit_tls
        self._starttls = bool(tls) and not implicit_tls
        self.auth = auth
        self.hostname = hostname
        self._reject = frozenset(address.lower() for address in reject)
        self._defer = frozenset(address.lower() for address in defer)
        self._condition = threading.Condition()
        self.messages = []
        self.rcpt_attempts = []
        self.connections = 0
        self._counting = False
        self._controller = None

    # Lifecycle

    def _ssl_context(self):
        cert_path, key_path = self.tls
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(str(cert_path), str(key_path))
        return context

    def _authenticate(self, server, connection, envelope, mechanism, auth_data):
        user, password = self.auth
        if (isinstance(auth_data, LoginPassword)
                and auth_data.login == user.encode() and auth_data.password == password.encode()):
            return AuthResult(success=True, auth_data=auth_data)
        return AuthResult(success=False, handled=False)

    def _count_connection(self):
        if self._counting:
            with self._condition:
                self.connections += 1

    def start(self):
        if self._controller is not None:
            raise RuntimeError("relay already running")
        keywords = {
            "hostname": self.host,
            "port": self.port,
            "server_hostname": self.hostname,  # also spares a slow socket.getfqdn()
            "ident": "LinkDomain test relay",
            "decode_data": False,
            "ready_timeout": 5.0,
        }
        if self.tls:
            context = self._ssl_context()
            if self.implicit_tls:
                keywords["ssl_context"] = context
            else:
                keywords["tls_context"] = context
                keywords["require_starttls"] = True
        if self.auth:
            keywords["authenticator"] = self._authenticate
            # aiosmtpd's auth_require_tls only counts STARTTLS: on an implicit-TLS port it would
            # refuse AUTH (538) and never advertise it. So it is on for STARTTLS only; otherwise
            # (SMTPS, or plain text for testing a plain setup) AUTH is taken as is and required
            # at MAIL by _Handler.handle_MAIL.
            keywords["auth_required"] = self._starttls
            keywords["auth_require_tls"] = self._starttls
        controller = _Controller(_Handler(self), on_connection=self._count_connection, **keywords)
        # asyncio's create_server sets SO_REUSEADDR on POSIX, so the port can be bound again
        # right after stop() even with connections in TIME_WAIT.
        controller.start()
        self._controller = controller
        self._counting = True
        return self

    def stop(self):
        """Take the relay down: drop open connections, close the listener. Idempotent."""
        controller, self._controller = self._controller, None
        self._counting = False
        if controller is None:
            return
        loop = controller.loop
        if not loop.is_closed():
            try:
                loop.call_soon_threadsafe(controller.drop_connections)
            except RuntimeError:
                pass
        controller.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()

    @property
    def running(self):
        return self._controller is not None

    @property
    def address(self):
        return (self.host, self.port)

    # Records

    def clear(self):
        with self._condition:
            self.messages.clear()
            self.rcpt_attempts.clear()
            self.connections = 0

    def _wait(self, ready, timeout, describe):
        deadline = time.monotonic() + timeout
        with self._condition:
            while not ready():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(describe())
                self._condition.wait(remaining)

    def wait_for(self, count, timeout=10.0):
        """Wait until at least `count` messages were accepted; returns a copy of `messages`."""
        self._wait(lambda: len(self.messages) >= count, timeout, lambda: (
            f"relay {self.host}:{self.port} received {len(self.messages)} message(s) in {timeout:g} s, "
            f"expected {count}; RCPT attempts: {self.rcpt_attempts!r}; connections: {self.connections}; "
            f"senders: {[message.mail_from for message in self.messages]!r}"))
        with self._condition:
            return list(self.messages)

    def wait_for_attempts(self, count, timeout=10.0):
        """Wait until at least `count` RCPT commands were seen (refused ones count too)."""
        self._wait(lambda: len(self.rcpt_attempts) >= count, timeout, lambda: (
            f"relay {self.host}:{self.port} saw {len(self.rcpt_attempts)} RCPT attempt(s) in {timeout:g} s, "
            f"expected {count}: {self.rcpt_attempts!r}; connections: {self.connections}"))
        with self._condition:
            return list(self.rcpt_attempts)
