"""What an attacker cannot do with the mail a link domain sends, against the real binary and a
real relay: make an idle server burn a core (the sender waits without spinning after a mail),
tell registered addresses from others by how fast a password reset is answered, or bury someone
in mail: every path that mails meets a budget per client and per mailbox, with `victim+N@`
counted as the one mailbox it is, the "your address was changed" notice included."""

import os
import statistics
import time
import uuid
from pathlib import Path

import pytest

from conftest import Server
from keys import make_certificate_authority
from mailtest import call, mail_configuration
from relay import Relay

V1 = "/identitytoolkit.googleapis.com/v1"
PER_CLIENT = 10
PER_MAILBOX = 3


@pytest.fixture(scope="module")
def relay(tmp_path_factory):
    ca, leaf, key = make_certificate_authority(tmp_path_factory.mktemp("ca"))
    with Relay(tls=(leaf, key), auth=("linkdomain", "relay-secret")) as relay:
        relay.ca = ca
        yield relay


@pytest.fixture(scope="module")
def server(tmp_path_factory, relay):
    directory = tmp_path_factory.mktemp("abuse")
    configuration = mail_configuration(relay, relay.ca, {
        "mail": {"perClientPerHour": PER_CLIENT, "perRecipientPerHour": PER_MAILBOX},
        # The tests speak for several clients through X-Forwarded-For, as a proxy in front would.
        "limits": {"trustedProxies": ["127.0.0.1"]},
        "storage": {"sqlitePath": str(directory / "abuse.sqlite")},
    })
    server = Server(directory, "abuse", configuration)
    yield server
    server.stop()


def client(number):
    return {"X-Forwarded-For": f"203.0.113.{number}"}


def send(server, body, client_number):
    return call(server.base, f"{V1}/accounts:sendOobCode", body, headers=client(client_number))


def message(answer):
    return answer[1].get("error", {}).get("message", "")


def cpu_seconds(process):
    fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_an_idle_server_uses_no_cpu_after_sending_a_mail(server, relay):
    before = len(relay.messages)
    address = f"idle-{uuid.uuid4().hex[:8]}@example.com"
    status, answer = send(server, {"requestType": "EMAIL_SIGNIN", "email": address, "continueUrl": "https://example.com/"}, 1)
    assert status == 200, answer
    relay.wait_for(before + 1, timeout=15)
    time.sleep(1)  # the delivery recorded, the sender back to waiting
    start = cpu_seconds(server.process)
    time.sleep(4)
    used = cpu_seconds(server.process) - start
    # The sender looks at the queue twice a second; a busy loop used a whole core (4 s here).
    assert used < 0.2, f"{used:.2f} s of CPU in 4 s of idling"


def test_one_client_cannot_mail_many_addresses(server):
    statuses = [send(server, {"requestType": "EMAIL_SIGNIN", "email": f"spread-{index}-{uuid.uuid4().hex[:6]}@example.com",
                              "continueUrl": "https://example.com/"}, 2)[0] for index in range(PER_CLIENT + 4)]
    assert statuses == [200] * PER_CLIENT + [400] * 4
    # Another client is not held to the first one's budget.
    assert send(server, {"requestType": "EMAIL_SIGNIN", "email": f"other-{uuid.uuid4().hex[:6]}@example.com",
                         "continueUrl": "https://example.com/"}, 3)[0] == 200


def test_sub_addresses_share_their_mailbox_budget(server, relay):
    mailbox = f"victim{uuid.uuid4().hex[:6]}"
    answers = [send(server, {"requestType": "EMAIL_SIGNIN", "email": f"{mailbox}+{index}@example.com",
                             "continueUrl": "https://example.com/"}, 10 + index) for index in range(PER_MAILBOX + 3)]
    assert [status for status, _ in answers] == [200] * PER_MAILBOX + [400] * 3
    assert message(answers[-1]).startswith("TOO_MANY_ATTEMPTS_TRY_LATER")
    # The email action API counts the same mailbox.
    status, answer = call(server.base, "/v1/accounts:sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": f"{mailbox.upper()}+api@example.com",
                                                                    "continueUrl": "https://example.com/"}, headers=client(40))
    assert status == 400 and answer["error"]["message"].startswith("TOO_MANY_ATTEMPTS_TRY_LATER")


def test_address_change_notices_stay_within_the_old_mailbox_budget(server, relay):
    victim = f"notice-{uuid.uuid4().hex[:8]}@example.com"
    status, account = call(server.base, f"{V1}/accounts:signUp", {"email": victim, "password": "attacker password", "returnSecureToken": True},
                           headers=client(50))
    assert status == 200, account
    token = account["idToken"]
    for round in range(PER_MAILBOX + 3):
        # Away from the victim's address (a notice to it) and back (a notice to the other one).
        for address in [f"elsewhere-{round}-{uuid.uuid4().hex[:6]}@example.com", victim]:
            status, answer = call(server.base, f"{V1}/accounts:update", {"idToken": token, "email": address, "returnSecureToken": True},
                                  headers=client(51 + round))
            assert status == 200, answer
            token = answer["idToken"]
    time.sleep(3)  # every notice that was sent has arrived
    notices = [received for received in relay.messages if victim in received.rcpt_tos]
    assert len(notices) == PER_MAILBOX, f"{len(notices)} notices reached the old address"


def test_a_password_reset_answers_alike_for_registered_and_unknown_addresses(tmp_path, relay):
    configuration = mail_configuration(relay, relay.ca, {"mail": {"perRecipientPerHour": 10000},
                                                         "storage": {"sqlitePath": str(tmp_path / "timing.sqlite")}})
    server = Server(tmp_path, "timing", configuration)
    try:
        registered = [f"known-{index}-{uuid.uuid4().hex[:6]}@example.com" for index in range(4)]
        for address in registered:
            assert call(server.base, f"{V1}/accounts:signUp", {"email": address, "password": "some password"})[0] == 200

        def timed(path, address):
            start = time.perf_counter()
            status, answer = call(server.base, path, {"requestType": "PASSWORD_RESET", "email": address})
            elapsed = time.perf_counter() - start
            assert status == 200, answer
            time.sleep(0.1)  # whatever the request left running (its mail, the relay's session) is done before the next is timed
            return elapsed

        for path in [f"{V1}/accounts:sendOobCode", "/v1/accounts:sendOobCode"]:
            pairs = []
            for index in range(40):
                known = lambda: timed(path, registered[index % len(registered)])
                unknown = lambda: timed(path, f"nobody-{uuid.uuid4().hex[:10]}@example.com")
                # Alternating which goes first, so that warming up favours neither.
                pairs.append((known(), unknown()) if index % 2 else tuple(reversed((unknown(), known()))))
            slower = sum(known > unknown for known, unknown in pairs)
            # Told apart, one side is slower in nearly every pair (58 of 60 before); alike, about half.
            assert 6 <= slower <= 34, (path, slower, statistics.median(k for k, _ in pairs), statistics.median(u for _, u in pairs))
        # The mails still go out, to the registered addresses only.
        time.sleep(3)
        recipients = {address for received in relay.messages for address in received.rcpt_tos}
        assert set(registered) <= recipients
        assert not any(address.startswith("nobody-") for address in recipients)
    finally:
        server.stop()
