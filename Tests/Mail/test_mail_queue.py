"""Nothing lost, nothing sent twice: mails are stored before the API answers and delivered once,
whether the relay is down when they are queued, LinkDomain is killed with mails queued, or the
relay refuses one for good."""

import sqlite3
import subprocess
import time

import pytest

from conftest import BINARY, Server
from keys import make_certificate_authority
from mailtest import mail_configuration, metric, send_action
from relay import Relay, free_port

AUTH = ("linkdomain", "relay-secret")


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    return make_certificate_authority(tmp_path_factory.mktemp("ca"))


def queue_states(database):
    with sqlite3.connect(database) as connection:
        return connection.execute("SELECT state, attempts, lastError FROM mailQueue ORDER BY queuedAt").fetchall()


def sign_in_mail(base, address):
    status, answer = send_action(base, {"requestType": "EMAIL_SIGNIN", "email": address, "continueUrl": "https://example.com/"})
    assert status == 200, answer


def recipients(relay):
    return sorted(address for message in relay.messages for address in message.rcpt_tos)


def test_relay_down_when_queued_then_up_delivers_once(tmp_path, certificates):
    ca, leaf, key = certificates
    relay = Relay(port=free_port(), tls=(leaf, key), auth=AUTH)
    server = Server(tmp_path, "down", mail_configuration(relay, ca))
    try:
        sign_in_mail(server.base, "patient@example.com")
        time.sleep(2.5)  # attempts at once, after 1 s and after 2 s: each refused
        assert metric(server.base, "linkdomain_mail_retried_total") >= 1
        relay.start()
        relay.wait_for(1, timeout=20)
        time.sleep(2)
        assert recipients(relay) == ["patient@example.com"]
        assert metric(server.base, "linkdomain_mail_sent_total") == 1
    finally:
        server.stop()
        relay.stop()


def test_killed_with_mails_queued_then_restarted_delivers_each_once(tmp_path, certificates):
    ca, leaf, key = certificates
    relay = Relay(port=free_port(), tls=(leaf, key), auth=AUTH)
    configuration = mail_configuration(relay, ca, {"storage": {"sqlitePath": str(tmp_path / "queue.sqlite")}})
    first = Server(tmp_path, "first", configuration)
    addresses = [f"queued-{index}@example.com" for index in range(3)]
    for address in addresses:
        sign_in_mail(first.base, address)
    first.process.kill()  # no graceful shutdown: what a crash or an OOM kill does
    first.process.wait(timeout=10)
    assert [state for state, _, _ in queue_states(tmp_path / "queue.sqlite")] == ["queued"] * 3
    relay.start()
    second = Server(tmp_path, "second", configuration)
    try:
        relay.wait_for(3, timeout=30)
        time.sleep(2)
        assert recipients(relay) == addresses
        assert [state for state, _, _ in queue_states(tmp_path / "queue.sqlite")] == ["sent"] * 3
    finally:
        second.stop()
        relay.stop()


def test_a_permanent_refusal_is_recorded_and_not_retried(tmp_path, certificates):
    ca, leaf, key = certificates
    with Relay(tls=(leaf, key), auth=AUTH, reject={"gone@example.com"}) as relay:
        database = tmp_path / "refused.sqlite"
        server = Server(tmp_path, "refused", mail_configuration(relay, ca, {"storage": {"sqlitePath": str(database)}}))
        try:
            sign_in_mail(server.base, "gone@example.com")
            sign_in_mail(server.base, "here@example.com")
            relay.wait_for(1, timeout=15)
            time.sleep(3)  # three retry delays' worth: a retry would show
            assert relay.rcpt_attempts.count("gone@example.com") == 1
            assert recipients(relay) == ["here@example.com"]
            states = queue_states(database)
            assert sorted(state for state, _, _ in states) == ["failed", "sent"]
            failed = next(error for state, _, error in states if state == "failed")
            assert "550" in failed and "RCPT TO" in failed
            assert metric(server.base, "linkdomain_mail_failed_total") == 1
            refusal = [line for line in server.output().splitlines() if "mail refused by the relay" in line]
            assert len(refusal) == 1 and "550" in refusal[0] and "gone@example.com" not in refusal[0]
        finally:
            server.stop()


def test_the_client_limit_stops_one_address_sending_to_many(tmp_path, certificates):
    ca, leaf, key = certificates
    with Relay(tls=(leaf, key), auth=AUTH) as relay:
        server = Server(tmp_path, "client", mail_configuration(relay, ca, {"mail": {"perClientPerHour": 3}}))
        try:
            statuses = [send_action(server.base, {"requestType": "EMAIL_SIGNIN", "email": f"many-{index}@example.com",
                                                  "continueUrl": "https://example.com/"})[0] for index in range(5)]
            assert statuses == [200, 200, 200, 400, 400]
        finally:
            server.stop()


def test_implicit_tls_relay(tmp_path, certificates):
    ca, leaf, key = certificates
    with Relay(tls=(leaf, key), implicit_tls=True, auth=AUTH) as relay:
        configuration = mail_configuration(relay, ca)
        configuration["mail"]["smtpURL"] = f"smtps://linkdomain:relay-secret@127.0.0.1:{relay.port}"
        server = Server(tmp_path, "smtps", configuration)
        try:
            sign_in_mail(server.base, "tls@example.com")
            assert relay.wait_for(1, timeout=15)[0].tls
        finally:
            server.stop()


def test_mail_test_command(tmp_path, certificates):
    ca, leaf, key = certificates
    with Relay(tls=(leaf, key), auth=AUTH) as relay:
        path = tmp_path / "test.json"
        configuration = mail_configuration(relay, ca)
        path.write_text(__import__("json").dumps(configuration))
        done = subprocess.run([str(BINARY), "mail", "test", "ops@example.com", "--config", str(path)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert relay.wait_for(1)[0].rcpt_tos == ["ops@example.com"]

        configuration["mail"]["smtpURL"] = f"smtp://linkdomain:wrong@127.0.0.1:{relay.port}"
        path.write_text(__import__("json").dumps(configuration))
        done = subprocess.run([str(BINARY), "mail", "test", "ops@example.com", "--config", str(path)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 1
        assert "535" in done.stderr and "wrong" not in done.stderr
