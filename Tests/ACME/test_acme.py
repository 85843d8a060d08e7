"""Certificates ordered by `serve` itself (RFC 8555) from Pebble, Debian's ACME test server, with
pebble-challtestsrv answering every name with 127.0.0.1: the first order by tls-alpn-01 and by
http-01 (with the plain port's redirect), a renewal swapped in under load without dropping the
connection already open, two replicas on one PostgreSQL ordering once, the replica that did not
order answering the CA's check from the shared store, and the CA going away and coming back while
the old certificate stays in use."""

import http.client
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path

import pytest
import requests
from cryptography import x509

from conftest import BINARY, POSTGRES, fresh_database

NAME = "links.example.test"
ORDERING = "ACME: ordering a certificate"
ISSUED = "ACME: certificate issued"
INSTALLED = "TLS certificate installed"
NOT_ISSUED = "ACME: the certificate was not issued; the current one stays in use"
VALIDATED = "set VALID by completed challenge"
FULLY_AUTHORIZED = "is fully authorized"

pytestmark = pytest.mark.skipif(not (Path("/usr/bin/pebble").exists() and Path("/usr/bin/pebble-challtestsrv").exists()),
                                reason="needs Debian's pebble package (/usr/bin/pebble, /usr/bin/pebble-challtestsrv)")


def free_port():
    """A port free for both TCP and UDP on 127.0.0.1 (challtestsrv's DNS listens on both)."""
    while True:
        with socket.socket() as tcp, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            tcp.bind(("127.0.0.1", 0))
            port = tcp.getsockname()[1]
            try:
                udp.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


def wait_for(condition, timeout, what, details=lambda: ""):
    """Polls `condition` until it answers something true (which is returned), failing after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {timeout} s\n{details()}")
        time.sleep(0.2)


def openssl(*arguments, cwd):
    result = subprocess.run(["openssl", *arguments], cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, f"openssl {' '.join(arguments)}: {result.stderr}"


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A throw-away CA (EC P-256) and a leaf for localhost/127.0.0.1 for Pebble's own HTTPS listener."""
    directory = tmp_path_factory.mktemp("pki")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
            "-subj", "/CN=LinkDomain ACME test CA", "-days", "2", "-out", "ca.pem", cwd=directory)
    (directory / "localhost.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                                             "extendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "localhost.key",
            "-subj", "/CN=localhost", "-out", "localhost.csr", cwd=directory)
    openssl("x509", "-req", "-in", "localhost.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "4242",
            "-days", "2", "-extfile", "localhost.ext", "-out", "localhost.pem", cwd=directory)
    return directory


@pytest.fixture
def processes():
    """Every process a test starts, ended (by its own id) when the test is over, passed or not."""
    started = []
    yield started
    for process in reversed(started):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class Pebble:
    """pebble-challtestsrv (every name is 127.0.0.1) and pebble, checking challenges on `http_port`
    and `tls_port` and issuing certificates valid for `validity` seconds. Every order's challenge
    is checked: Pebble otherwise reuses a valid authorization for half of the later orders."""

    def __init__(self, directory, pki, processes, *, http_port, tls_port, validity=None, mac_keys=None):
        self.directory, self.pki, self.processes = Path(directory), pki, processes
        self.dns_port, self.port, self.management_port, self.challenges_port = (free_port() for _ in range(4))
        self.environment = {key: value for key, value in os.environ.items() if not key.startswith("PEBBLE_")}
        self.environment.update(PEBBLE_VA_NOSLEEP="1", PEBBLE_AUTHZREUSE="0")
        configuration = {"listenAddress": f"127.0.0.1:{self.port}", "managementListenAddress": f"127.0.0.1:{self.management_port}",
                         "certificate": str(pki / "localhost.pem"), "privateKey": str(pki / "localhost.key"),
                         "httpPort": http_port, "tlsPort": tls_port, "ocspResponderURL": "", "externalAccountBindingRequired": False}
        if validity:
            configuration["certificateValidityPeriod"] = validity
        if mac_keys:
            configuration.update(externalAccountBindingRequired=True, externalAccountMACKeys=mac_keys)
        self.configuration = self.directory / "pebble.json"
        self.configuration.write_text(json.dumps({"pebble": configuration}))
        self.directory_url = f"https://localhost:{self.port}/dir"
        self.runs = 0
        self.start()

    def start(self):
        """Starts both programs (again: Pebble then begins with no accounts and a new root)."""
        self.runs += 1
        self.dns_log = open(self.directory / f"challtestsrv-{self.runs}.log", "w+")
        self.dns = subprocess.Popen(["pebble-challtestsrv", "-defaultIPv6", "", "-dns01", f"127.0.0.1:{self.dns_port}",
                                     "-http01", "", "-https01", "", "-tlsalpn01", "", "-management", f"127.0.0.1:{self.challenges_port}"],
                                    stdout=self.dns_log, stderr=subprocess.STDOUT)
        self.processes.append(self.dns)
        self.log = open(self.directory / f"pebble-{self.runs}.log", "w+")
        self.process = subprocess.Popen(["pebble", "-config", str(self.configuration), "-dnsserver", f"127.0.0.1:{self.dns_port}"],
                                        stdout=self.log, stderr=subprocess.STDOUT, env=self.environment)
        self.processes.append(self.process)

        def answers():
            assert self.process.poll() is None, f"pebble exited:\n{self.output()}"
            try:
                requests.get(f"https://127.0.0.1:{self.port}/dir", verify=str(self.pki / "ca.pem"), timeout=2).raise_for_status()
                requests.get(f"http://127.0.0.1:{self.challenges_port}/", timeout=2)
                return True
            except requests.RequestException:
                return False

        wait_for(answers, 30, "pebble answering", self.output)
        root = requests.get(f"https://127.0.0.1:{self.management_port}/roots/0", verify=str(self.pki / "ca.pem"), timeout=10)
        root.raise_for_status()
        self.root = self.directory / f"pebble-root-{self.runs}.pem"
        self.root.write_text(root.text)

    def stop(self):
        for process in [self.process, self.dns]:
            process.terminate()
            process.wait(timeout=10)

    def output(self):
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")

    def issued(self):
        """How many certificates this run of Pebble has issued, as its log tells."""
        return len(re.findall(r"Issued certificate serial", self.output()))

    def validated(self):
        """How many challenges this run of Pebble checked and found answered, as its log tells."""
        return self.output().count(VALIDATED)

    def skip_if_an_authorization_was_reused(self):
        """Pebble makes a new authorization only when `rand.Intn(100) > PEBBLE_AUTHZREUSE`, so even
        at 0 an order reuses a valid one 1 time in 100 and no challenge is checked for it: such a
        run proves nothing about answering one, and is skipped rather than passed or failed."""
        if self.validated() < self.output().count(FULLY_AUTHORIZED):
            pytest.skip("Pebble reused a valid authorization (1 time in 100 even at PEBBLE_AUTHZREUSE=0): no challenge was checked")


def unverified_context():
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class HTTPSTo(http.client.HTTPSConnection):
    """HTTPS to 127.0.0.1:`port`, asking for (and, with a verifying context, checking) `NAME`."""

    def __init__(self, port, context, timeout=15):
        super().__init__("127.0.0.1", port, context=context, timeout=timeout)

    def connect(self):
        sock = socket.create_connection(("127.0.0.1", self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=NAME)


def serial_of(connection):
    return x509.load_der_x509_certificate(connection.sock.getpeercert(binary_form=True)).serial_number


class LinkDomain:
    """`linkdomain serve` ordering its certificate from `pebble`; its output goes to NAME.log."""

    def __init__(self, directory, name, processes, *, pebble, pki, tls_port, challenge="tls-alpn-01", http_port=None,
                 storage=None, extra=None, environment=None):
        self.directory, self.name, self.tls_port, self.http_port = Path(directory), name, tls_port, http_port
        server = {"host": "127.0.0.1", "port": tls_port, "forceDevelopmentMode": True,
                  "tls": {"acme": {"directoryURL": pebble.directory_url, "email": "ops@example.test",
                                   "trustedCertificatesPath": str(pki / "ca.pem"), "challenge": challenge}}}
        if http_port:
            server["httpPort"] = http_port
        configuration = {"publicBaseURL": f"https://{NAME}:{tls_port}", "server": server,
                         "limits": {"requestsPerMinute": 100000, "burst": 100000},
                         "storage": storage or {"sqlitePath": str(self.directory / f"{name}.sqlite")}, **(extra or {})}
        path = self.directory / f"{name}.json"
        path.write_text(json.dumps(configuration))
        # Someone may be rebuilding the binary: it may be missing for a moment.
        wait_for(lambda: os.access(BINARY, os.X_OK), 300, f"{BINARY} to exist")
        self.log = open(self.directory / f"{name}.log", "w+")
        self.process = subprocess.Popen([str(BINARY), "serve", "--config", str(path)], stdout=self.log, stderr=subprocess.STDOUT,
                                        env={**os.environ, **(environment or {})})
        processes.append(self.process)

    def wait_until_listening(self):
        def handshakes():
            assert self.process.poll() is None, f"linkdomain exited:\n{self.output()}"
            try:
                with socket.create_connection(("127.0.0.1", self.tls_port), timeout=5) as sock:
                    with unverified_context().wrap_socket(sock, server_hostname=NAME):
                        return True
            except OSError:
                return False

        wait_for(handshakes, 60, f"{self.name} accepting TLS on {self.tls_port}", self.output)
        return self

    def output(self):
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")

    def get(self, path, context=None):
        """(status, body) of GET `path` on the TLS port; the certificate is not checked unless `context` does."""
        connection = HTTPSTo(self.tls_port, context or unverified_context())
        try:
            connection.request("GET", path, headers={"Host": f"{NAME}:{self.tls_port}"})
            response = connection.getresponse()
            return response.status, response.read().decode(errors="replace")
        finally:
            connection.close()

    def served(self):
        """The certificate a new connection gets now (not checked)."""
        with socket.create_connection(("127.0.0.1", self.tls_port), timeout=10) as sock:
            with unverified_context().wrap_socket(sock, server_hostname=NAME) as tls:
                return x509.load_der_x509_certificate(tls.getpeercert(binary_form=True))

    def verified(self, root):
        """`getpeercert()` of a new connection that checks the chain against `root` and the name
        links.example.test; None when it does not verify (the stand-in, or a certificate from another root)."""
        context = ssl.create_default_context(cafile=str(root))
        try:
            with socket.create_connection(("127.0.0.1", self.tls_port), timeout=10) as sock:
                with context.wrap_socket(sock, server_hostname=NAME) as tls:
                    return tls.getpeercert()
        except ssl.SSLCertVerificationError:
            return None

    def metric(self, metric, **labels):
        """The value of `metric` with (at least) `labels`, or None."""
        status, body = self.get("/metrics")
        assert status == 200, body
        for line in body.splitlines():
            match = re.fullmatch(rf"{re.escape(metric)}(?:\{{(.*)\}})?\s+(\S+)", line)
            if match:
                have = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group(1) or ""))
                if all(have.get(key) == value for key, value in labels.items()):
                    return float(match.group(2))
        return None

    def wait_for_certificate(self, root, timeout=60, other_than=None):
        """Waits until new connections get a certificate from `root` for links.example.test (whose serial
        is not `other_than`); its `getpeercert()`."""

        def issued():
            assert self.process.poll() is None, f"linkdomain exited:\n{self.output()}"
            peer = self.verified(root)
            return peer if peer and (other_than is None or int(peer["serialNumber"], 16) != other_than) else None

        return wait_for(issued, timeout, f"{self.name} serving a certificate from Pebble", self.output)


def is_stand_in(certificate):
    """Whether `certificate` is not one of Pebble's (they are issued by "Pebble Intermediate CA ...")."""
    return "Pebble" not in certificate.issuer.rfc4514_string()


def check_issued(server, pebble):
    """What every first order must leave behind: a certificate from Pebble's root for the name,
    /readyz ready, the expiry metric positive and an issued order counted."""
    peer = server.wait_for_certificate(pebble.root)
    subject_names = [value for kind, value in peer.get("subjectAltName", ()) if kind == "DNS"]
    assert subject_names == [NAME], peer
    not_after = ssl.cert_time_to_seconds(peer["notAfter"])
    assert not_after > time.time(), peer
    status, body = server.get("/readyz")
    assert status == 200 and body.startswith("ready\n"), body
    expiry = server.metric("linkdomain_certificate_expiry_seconds", name=NAME)
    assert expiry is not None and expiry > 0, expiry
    assert expiry <= not_after - time.time() + 5
    issued = server.metric("linkdomain_acme_orders_total", outcome="issued")
    assert issued is not None and issued >= 1, issued
    output = server.output()
    for line in [ORDERING, ISSUED, INSTALLED]:
        assert line in output, output
    assert pebble.issued() >= 1
    return peer


def check_validated(pebble, times=1):
    """Pebble (which checks every challenge unless told not to) saw `times` challenges answered."""
    pebble.skip_if_an_authorization_was_reused()
    assert pebble.validated() == times, pebble.output()


def check_stand_in_before(server):
    """Right after start-up, while no certificate is issued, /readyz says why it is not ready and
    handshakes get a self-signed stand-in. An order may be quicker than this look, so only what is
    seen is checked: a stand-in served after /readyz answered means /readyz must have been 503."""
    status, body = server.get("/readyz")
    served = server.served()
    if status == 503:
        assert body.startswith(f"not ready: certificate: none issued yet for {NAME}"), body
    else:
        assert status == 200 and body.startswith("ready\n"), body
    if is_stand_in(served):
        assert status == 503, f"/readyz said {body!r} before the stand-in was served"
        assert served.issuer == served.subject, "the stand-in is self-signed"


def test_first_certificate_by_tls_alpn_01(tmp_path, pki, processes):
    tls_port = free_port()
    pebble = Pebble(tmp_path, pki, processes, http_port=free_port(), tls_port=tls_port)
    server = LinkDomain(tmp_path, "alpn", processes, pebble=pebble, pki=pki, tls_port=tls_port).wait_until_listening()
    check_stand_in_before(server)
    check_issued(server, pebble)
    check_validated(pebble)
    assert f"for {NAME} by tls-alpn-01" in server.output()
    # The challenge certificate is only for a ClientHello offering acme-tls/1 alone while a
    # challenge is open (here or in the store): such a hello now is closed with no certificate ...
    context = ssl.create_default_context(cafile=str(pebble.root))
    context.set_alpn_protocols(["acme-tls/1"])
    with socket.create_connection(("127.0.0.1", tls_port), timeout=10) as sock:
        with pytest.raises((ssl.SSLEOFError, ConnectionResetError)):
            context.wrap_socket(sock, server_hostname=NAME)
    # ... and one offering it beside another protocol is an ordinary one, with the ordinary certificate.
    context.set_alpn_protocols(["acme-tls/1", "http/1.1"])
    with socket.create_connection(("127.0.0.1", tls_port), timeout=10) as sock:
        with context.wrap_socket(sock, server_hostname=NAME) as tls:
            assert tls.selected_alpn_protocol() != "acme-tls/1"


def plain_get(port, path, host):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    try:
        connection.request("GET", path, headers={"Host": host})
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("Location")
    finally:
        connection.close()


def test_first_certificate_by_http_01_and_the_plain_port(tmp_path, pki, processes):
    tls_port, http_port = free_port(), free_port()
    pebble = Pebble(tmp_path, pki, processes, http_port=http_port, tls_port=tls_port)
    server = LinkDomain(tmp_path, "http01", processes, pebble=pebble, pki=pki, tls_port=tls_port, challenge="http-01",
                        http_port=http_port).wait_until_listening()
    check_stand_in_before(server)
    check_issued(server, pebble)
    check_validated(pebble)
    assert f"Attempting to validate w/ HTTP: http://{NAME}:{http_port}/.well-known/acme-challenge/" in pebble.output()

    # Everything else on the plain port goes to the same path and query on https://.
    for host in [f"{NAME}:{http_port}", NAME, f"127.0.0.1:{http_port}", "evil.example"]:
        assert plain_get(http_port, "/x?y=1", host) == (308, f"https://{NAME}:{tls_port}/x?y=1"), host
    # Only open challenges' tokens are answered.
    assert plain_get(http_port, "/.well-known/acme-challenge/unknownToken_0123456789abcdef", f"{NAME}:{http_port}")[0] == 404
    assert plain_get(http_port, "/.well-known/acme-challenge/", f"{NAME}:{http_port}")[0] == 404


def test_a_ca_that_binds_accounts_gets_the_external_account_binding(tmp_path, pki, processes):
    # As ZeroSSL or Google Trust Services: no account without the CA's key ID and HMAC key.
    mac_key = "zWNDZM6eQGHWpSRTPal5eIUYFTu7EajVIoguysqZ9wG44nMEtx3MUAsUDkMTQ12W"
    tls_port = free_port()
    pebble = Pebble(tmp_path, pki, processes, http_port=free_port(), tls_port=tls_port, mac_keys={"kid-1": mac_key})
    unbound = LinkDomain(tmp_path, "unbound", processes, pebble=pebble, pki=pki, tls_port=tls_port).wait_until_listening()
    wait_for(lambda: "externalAccountRequired" in unbound.output(), 60, "the CA refusing an account without a binding", unbound.output)
    unbound.process.terminate()
    unbound.process.wait(timeout=30)
    server = LinkDomain(tmp_path, "bound", processes, pebble=pebble, pki=pki, tls_port=tls_port,
                        extra={}, environment={"LINKDOMAIN_SERVER_TLS_ACME_EXTERNAL_ACCOUNT_KEY_ID": "kid-1",
                                               "LINKDOMAIN_SERVER_TLS_ACME_EXTERNAL_ACCOUNT_MAC_KEY": mac_key})
    server.wait_until_listening()
    check_issued(server, pebble)
    assert mac_key not in server.output()


class Load:
    """Requests for /healthz while a certificate is swapped: one keep-alive connection opened
    before the swap, and threads opening a new connection for every request. Every failure is kept."""

    def __init__(self, port, root, new_connection_threads=2):
        self.port, self.root = port, root
        self.stop = threading.Event()
        self.failures = []
        self.lock = threading.Lock()
        self.kept_alive_requests = []  # (monotonic time, serial of the connection's certificate)
        self.new_connection_serials = []  # (monotonic time, serial)
        self.kept = HTTPSTo(port, ssl.create_default_context(cafile=str(root)))
        self.kept.connect()
        self.kept_socket = self.kept.sock
        self.threads = [threading.Thread(target=self.keep_alive, daemon=True)]
        self.threads += [threading.Thread(target=self.new_connections, daemon=True) for _ in range(new_connection_threads)]
        for thread in self.threads:
            thread.start()

    def fail(self, what):
        with self.lock:
            self.failures.append(what)

    def keep_alive(self):
        while not self.stop.is_set():
            try:
                self.kept.request("GET", "/healthz", headers={"Host": f"{NAME}:{self.port}"})
                response = self.kept.getresponse()
                body = response.read()
                if self.kept.sock is not self.kept_socket:
                    self.fail("the keep-alive connection was opened again")
                    return
                if response.status != 200 or body != b"ok\n":
                    self.fail(f"keep-alive: {response.status} {body!r}")
                if response.will_close:
                    self.fail("keep-alive: the server closed the connection")
                    return
                with self.lock:
                    self.kept_alive_requests.append((time.monotonic(), serial_of(self.kept)))
            except Exception as error:  # noqa: BLE001 - every failure is the finding
                self.fail(f"keep-alive: {error!r}")
                return
            time.sleep(0.02)

    def new_connections(self):
        context = ssl.create_default_context(cafile=str(self.root))
        while not self.stop.is_set():
            connection = HTTPSTo(self.port, context)
            try:
                connection.request("GET", "/healthz", headers={"Host": f"{NAME}:{self.port}"})
                response = connection.getresponse()
                body = response.read()
                if response.status != 200 or body != b"ok\n":
                    self.fail(f"new connection: {response.status} {body!r}")
                with self.lock:
                    self.new_connection_serials.append((time.monotonic(), serial_of(connection)))
            except Exception as error:  # noqa: BLE001
                self.fail(f"new connection: {error!r}")
            finally:
                connection.close()
            time.sleep(0.02)

    def finish(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)
        self.kept.close()


def test_renewal_is_swapped_in_under_load_without_dropping_open_connections(tmp_path, pki, processes):
    tls_port = free_port()
    # Renewal is due 13 s into the 20 s lifetime: the swap comes well before the first one expires.
    pebble = Pebble(tmp_path, pki, processes, http_port=free_port(), tls_port=tls_port, validity=20)
    server = LinkDomain(tmp_path, "renew", processes, pebble=pebble, pki=pki, tls_port=tls_port).wait_until_listening()
    first = check_issued(server, pebble)
    first_serial = int(first["serialNumber"], 16)
    lifetime = ssl.cert_time_to_seconds(first["notAfter"]) - ssl.cert_time_to_seconds(first["notBefore"])
    assert lifetime <= 21, first

    load = Load(tls_port, pebble.root)
    try:
        assert serial_of(load.kept) == first_serial, "the keep-alive connection must start before the renewal"

        def renewed():
            assert not load.failures, load.failures
            with load.lock:
                return next((when for when, serial in load.new_connection_serials if serial != first_serial), None)

        swapped_at = wait_for(renewed, 60, "a renewed certificate on new connections", server.output)
        # The connection opened before the swap keeps working after it, with the old certificate.
        wait_for(lambda: sum(1 for when, _ in load.kept_alive_requests if when > swapped_at) >= 20, 30,
                 "20 requests on the old keep-alive connection after the swap", lambda: str(load.failures))
        time.sleep(1)
    finally:
        load.finish()
    assert not load.failures, load.failures[:10]
    assert {serial for _, serial in load.kept_alive_requests} == {first_serial}
    later = [serial for when, serial in load.new_connection_serials if when > swapped_at + 0.5]
    assert later and first_serial not in later, "after the swap every new connection gets the new certificate"
    second = server.verified(pebble.root)
    assert second and int(second["serialNumber"], 16) != first_serial
    assert ssl.cert_time_to_seconds(second["notAfter"]) >= ssl.cert_time_to_seconds(first["notAfter"])
    assert server.metric("linkdomain_acme_orders_total", outcome="issued") >= 2
    assert server.output().count(INSTALLED) >= 2
    assert pebble.issued() >= 2
    pebble.skip_if_an_authorization_was_reused()
    assert pebble.validated() >= 2, "the renewal's challenge was checked too"


@pytest.mark.skipif(POSTGRES is None, reason="needs TEST_POSTGRES_URL (scripts/test starts PostgreSQL)")
def test_two_replicas_on_one_postgresql_order_once_and_serve_the_same_certificate(tmp_path, pki, processes):
    # Pebble checks replica a's port only, whichever replica orders: the challenge is in the store.
    database = fresh_database()  # a new database: no account or certificate from an earlier run
    ports = [free_port(), free_port()]
    pebble = Pebble(tmp_path, pki, processes, http_port=free_port(), tls_port=ports[0])
    shared = {"formSecret": "the same secret on every replica, 32+"}
    replicas = [LinkDomain(tmp_path, name, processes, pebble=pebble, pki=pki, tls_port=port, storage={"postgresURL": database}, extra=shared)
                for name, port in zip(["a", "b"], ports)]
    for replica in replicas:
        replica.wait_until_listening()
    peers = [replica.wait_for_certificate(pebble.root, timeout=90) for replica in replicas]
    assert peers[0]["serialNumber"] == peers[1]["serialNumber"], peers
    # Let a second order (there must be none) show up in the logs.
    time.sleep(3)
    outputs = [replica.output() for replica in replicas]
    assert sum(output.count(ORDERING) for output in outputs) == 1, outputs
    assert sum(output.count(ISSUED) for output in outputs) == 1, outputs
    assert all(INSTALLED in output for output in outputs), outputs
    assert pebble.issued() == 1, pebble.output()
    check_validated(pebble)
    counted = [replica.metric("linkdomain_acme_orders_total", outcome="issued") or 0 for replica in replicas]
    assert sum(counted) == 1, counted
    for replica in replicas:
        status, body = replica.get("/readyz")
        assert status == 200, body
        assert replica.verified(pebble.root)["serialNumber"] == peers[0]["serialNumber"]


def renewal_time(certificate):
    """When `serve` renews `certificate` (RenewalSchedule.renewalTime): two thirds into its lifetime,
    in whole seconds; it orders then, or up to a second later."""
    not_before = int(certificate.not_valid_before_utc.timestamp())
    lifetime = int(certificate.not_valid_after_utc.timestamp()) - not_before
    return not_before + lifetime // 3 * 2 + lifetime % 3 * 2 // 3


@pytest.mark.skipif(POSTGRES is None, reason="needs TEST_POSTGRES_URL (scripts/test starts PostgreSQL)")
def test_the_replica_that_does_not_order_answers_the_cas_tls_alpn_01_check(tmp_path, pki, processes):
    # Pebble checks replica a's port only. a orders the first certificate; b, started later, installs
    # it from the store. Just before the renewal is due a is stopped, so b takes the lease and
    # orders; a goes on as soon as b says it orders, and answers the CA's check with the
    # challenge b published in the store (a connection made while a is stopped waits in the accept queue).
    database = fresh_database()
    ports = [free_port(), free_port()]
    pebble = Pebble(tmp_path, pki, processes, http_port=free_port(), tls_port=ports[0], validity=30)
    shared = {"formSecret": "the same secret on every replica, 32+"}

    def replica(name, port):
        return LinkDomain(tmp_path, name, processes, pebble=pebble, pki=pki, tls_port=port, storage={"postgresURL": database},
                          extra=shared).wait_until_listening()

    a = replica("a", ports[0])
    first_serial = int(check_issued(a, pebble)["serialNumber"], 16)
    check_validated(pebble)
    b = replica("b", ports[1])
    assert int(b.wait_for_certificate(pebble.root, timeout=30)["serialNumber"], 16) == first_serial, "b installs a's certificate"
    served = b.served()
    assert served.serial_number == first_serial
    renew_at = renewal_time(served)
    stop_at = renew_at - 2.5
    assert time.time() < stop_at - 0.5, (f"b served the stored certificate only {renew_at - time.time():.1f} s before the "
                                         f"renewal is due: too late to stop a first\n{b.output()}")
    assert ORDERING not in b.output(), b.output()

    time.sleep(max(0, stop_at - time.time()))
    a.process.send_signal(signal.SIGSTOP)
    try:
        assert a.output().count(ORDERING) == 1, f"a began renewing before it was stopped (stopped too late)\n{a.output()}"
        deadline = renew_at + 10
        while ORDERING not in b.output():
            assert b.process.poll() is None, f"b exited:\n{b.output()}"
            if time.time() > deadline:
                pytest.fail(f"b did not order within 10 s of the renewal time while a was stopped\n{b.output()}")
            time.sleep(0.05)
    finally:
        a.process.send_signal(signal.SIGCONT)

    def b_issued():
        output = b.output()
        assert NOT_ISSUED not in output, (f"b's order failed: the CA's check on a's port was not answered\n"
                                          f"--- b ---\n{output}\n--- a ---\n{a.output()}\n--- pebble ---\n{pebble.output()}")
        return ISSUED in output

    wait_for(b_issued, 30, "b's order to be issued", lambda: b.output() + pebble.output())
    new_b = b.wait_for_certificate(pebble.root, timeout=30, other_than=first_serial)
    new_a = a.wait_for_certificate(pebble.root, timeout=30, other_than=first_serial)
    assert new_a["serialNumber"] == new_b["serialNumber"], (new_a, new_b)
    assert a.output().count(ORDERING) == 1, f"a ordered again, though b held the lease\n{a.output()}"
    assert a.output().count(ISSUED) == 1, a.output()
    assert b.output().count(ORDERING) == 1 and b.output().count(ISSUED) == 1, b.output()
    assert a.output().count(INSTALLED) == 2 and b.output().count(INSTALLED) == 2, (a.output(), b.output())
    # Two orders, each with its challenge checked on a's port: the second was b's.
    check_validated(pebble, times=2)
    assert pebble.issued() == 2, pebble.output()
    assert b.metric("linkdomain_acme_orders_total", outcome="issued") == 1
    for server in [a, b]:
        status, body = server.get("/readyz")
        assert status == 200 and body.startswith("ready\n"), body


def test_the_old_certificate_stays_while_the_ca_is_down_and_a_new_one_comes_when_it_is_back(tmp_path, pki, processes):
    tls_port = free_port()
    pebble = Pebble(tmp_path, pki, processes, http_port=free_port(), tls_port=tls_port, validity=30)
    server = LinkDomain(tmp_path, "outage", processes, pebble=pebble, pki=pki, tls_port=tls_port).wait_until_listening()
    first = check_issued(server, pebble)
    first_serial = int(first["serialNumber"], 16)
    status, body = server.get("/readyz")
    assert status == 200 and f"warning: certificate: the certificate for {NAME} expires in 0 days" in body, body

    pebble.stop()
    # Renewal is due 20 s into the 30 s lifetime; with the CA gone it fails.
    wait_for(lambda: NOT_ISSUED in server.output(), 60, "the failed renewal in the log", server.output)
    # The first retry comes 10 s after the first failure (then 20 s, 40 s ...).
    failure = next(line for line in server.output().splitlines() if NOT_ISSUED in line)
    assert re.search(r"\bretryInSeconds=(9|10)\b", failure), failure
    failed = server.metric("linkdomain_acme_orders_total", outcome="failed")
    assert failed is not None and failed >= 1, failed
    assert server.served().serial_number == first_serial, "the old certificate stays in use"
    status, body = server.get("/readyz")
    assert status == 200 and body.startswith("ready\n") and "warning: certificate: " in body, body
    assert server.metric("linkdomain_acme_orders_total", outcome="issued") == 1

    # Pebble again, with no memory of the account and a new root: the account key registers anew
    # and the next retry (10 s, 20 s, ... after the failures) gets a certificate from the new root.
    pebble.start()
    second = server.wait_for_certificate(pebble.root, timeout=90, other_than=first_serial)
    assert int(second["serialNumber"], 16) != first_serial
    assert server.metric("linkdomain_acme_orders_total", outcome="issued") >= 2
    assert server.metric("linkdomain_certificate_expiry_seconds", name=NAME) > 0
    status, body = server.get("/readyz")
    assert status == 200 and body.startswith("ready\n"), body
    assert pebble.issued() == 1, "the new Pebble issued the certificate served"
