"""The SMTP relay refusing for now (4xx), hanging (takes the connection, never answers) and down
for longer than the retry window (fault 4 of the suite; long form, `scripts/faults`).

Measured: a deferred mail is retried with backoff while the others go out; a hung relay costs
each attempt `mail.timeoutSeconds`, never an API answer, and everything queued meanwhile is
delivered exactly once when a relay answers again; a mail the relay never took within
`mail.retryForSeconds` (the last attempt at the window's end) is recorded as failed with the
reason, counted at `/metrics`, and not sent later."""

import sqlite3
import sys
import time

from conftest import ROOT, Server, post_json
from faultkit import HangingRelay, long_only, metric_value, record

sys.path.insert(0, str(ROOT / "Tests" / "Mail"))
from relay import Relay, free_port  # noqa: E402


def queue(base, recipient):
    started = time.monotonic()
    status, answer = post_json(f"{base}/v1/accounts:sendOobCode?key=demo-api-key",
                               {"requestType": "EMAIL_SIGNIN", "email": recipient, "continueUrl": "https://example.com/"})
    assert status == 200, answer
    return time.monotonic() - started


def wait_until(condition, limit):
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if condition():
            return time.monotonic() - started
        time.sleep(0.25)
    raise AssertionError(f"not within {limit} s")


def arrivals(relay, recipient):
    return sum(1 for message in relay.messages for address in message.rcpt_tos if address.lower() == recipient)


def states(database):
    connection = sqlite3.connect(database)
    try:
        return connection.execute("SELECT recipient, state, lastError FROM mailQueue").fetchall()
    finally:
        connection.close()


@long_only
def test_relay_refusing_hanging_and_down(tmp_path):
    port = free_port()
    database = tmp_path / "mail.sqlite"
    server = Server(tmp_path, "relay-faults", {
        "storage": {"sqlitePath": str(database)}, "authorizedDomains": ["example.com"],
        "limits": {"requestsPerMinute": 1000000, "burst": 1000000},
        "mail": {"smtpURL": f"smtp://127.0.0.1:{port}", "from": "noreply@example.com", "retryInitialSeconds": 1,
                 "timeoutSeconds": 3, "retryForSeconds": 60, "perClientPerHour": 100000, "perRecipientPerHour": 100}})
    figures = {}
    try:
        # 1. Refusing one mailbox for now (451): the others go out at once; that one is retried with backoff.
        relay = Relay(port=port, defer={"later@example.com"})
        relay.start()
        queue(server.base, "later@example.com")
        others = [f"now-{index}@example.com" for index in range(5)]
        for recipient in others:
            queue(server.base, recipient)
        figures["others_delivered_while_one_deferred_s"] = round(wait_until(lambda: all(arrivals(relay, r) == 1 for r in others), 15), 2)
        time.sleep(12)
        tries = relay.rcpt_attempts.count("later@example.com")
        assert 2 <= tries <= 5, f"{tries} attempts in ~12 s: backoff 1, 2, 4, 8 s gives 4"
        relay._defer = frozenset()
        figures["deferred_attempts_in_12_s"] = tries
        figures["deferred_delivered_after_accepting_s"] = round(wait_until(lambda: arrivals(relay, "later@example.com") == 1, 30), 2)
        relay.stop()

        # 2. Hanging: every attempt waits mail.timeoutSeconds; the API still answers at once.
        hanging = HangingRelay(port)
        retried_before = metric_value(server.base, "linkdomain_mail_retried_total")
        held = [f"held-{index}@example.com" for index in range(10)]
        answers = [queue(server.base, recipient) for recipient in held]
        figures["api_answer_max_ms_while_relay_hangs"] = round(max(answers) * 1000, 1)
        assert max(answers) < 1, answers
        time.sleep(10)
        figures["hung_attempts_retried"] = metric_value(server.base, "linkdomain_mail_retried_total") - retried_before
        assert figures["hung_attempts_retried"] >= 1
        assert get_depth(server.base) == len(held)
        hanging.stop()
        relay = Relay(port=port)
        relay.start()
        figures["held_delivered_after_relay_return_s"] = round(wait_until(lambda: all(arrivals(relay, r) >= 1 for r in held), 60), 2)
        time.sleep(3)
        assert all(arrivals(relay, r) == 1 for r in held), "a mail held by a hung relay arrived twice"
        relay.stop()

        # 3. Down for longer than mail.retryForSeconds (60 s): recorded as failed, visible, never sent later.
        failed_before = metric_value(server.base, "linkdomain_mail_failed_total")
        lost = [f"lost-{index}@example.com" for index in range(3)]
        for recipient in lost:
            queue(server.base, recipient)
        figures["failed_recorded_after_s"] = round(wait_until(
            lambda: metric_value(server.base, "linkdomain_mail_failed_total") - failed_before >= len(lost), 150), 1)
        recorded = {recipient: (state, error) for recipient, state, error in states(database) if recipient in lost}
        assert all(state == "failed" and error for state, error in recorded.values()), recorded
        figures["failed_reason"] = next(iter(recorded.values()))[1]
        assert "cannot connect to the relay: Connection refused" in figures["failed_reason"], figures["failed_reason"]
        # The window is 60 s: the last attempt is made at its end, not dropped because the doubling overshot it.
        assert figures["failed_recorded_after_s"] >= 60, figures
        relay = Relay(port=port)
        relay.start()
        time.sleep(5)
        assert not any(arrivals(relay, r) for r in lost), "a mail recorded as failed was sent later"
        relay.stop()
        assert "mail" in server.output()
        record("relay_faults", figures)
    finally:
        server.stop()


def get_depth(base):
    return metric_value(base, "linkdomain_mail_queue_depth")
