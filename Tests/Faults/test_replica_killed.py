"""A replica killed with SIGKILL under load (fault 1 of the suite; long form, `scripts/faults`).

Two replicas share a PostgreSQL behind nginx, under steady clicks. Mails are queued while the
relay hangs (it takes the connection and never greets), so both replicas hold claims on mails
when one of them is killed; codes are being spent through nginx at the same moment. Measured:
what clients saw (nginx retries idempotent GETs on the other replica), how many answered clicks
the killed replica had not yet written (its unflushed second), that every code was spent at most
once, and that every mail arrives exactly once after the relay returns (the killed replica's
claims expire and the other replica sends them)."""

import concurrent.futures
import signal
import sys
import tempfile
import time
import uuid

from conftest import ROOT, Server, post_json
from faultkit import (
    DESKTOP, HangingRelay, Load, Nginx, PrivatePostgres, address, answered, clicks, configuration, failures, long_only,
    make_short_link, record,
)

sys.path.insert(0, str(ROOT / "Tests" / "Mail"))
from relay import Relay, free_port  # noqa: E402

ADMIN_OOB = "/identitytoolkit.googleapis.com/v1/projects/demo-linkdomain/accounts:sendOobCode"
SIGN_IN = "/identitytoolkit.googleapis.com/v1/accounts:signInWithEmailLink?key=k"


def replica_configuration(storage, relay_port, port=None, relay_timeout=5):
    return {**configuration(storage, port),
            "mail": {"smtpURL": f"smtp://127.0.0.1:{relay_port}", "from": "noreply@example.com", "retryInitialSeconds": 1,
                     "timeoutSeconds": relay_timeout, "perClientPerHour": 100000, "perRecipientPerHour": 100}}


def answer_of(url, body):
    """(status, JSON answer) of a POST; nginx's own 502 page or a dropped connection is (status or 599, {})."""
    try:
        return post_json(url, body, timeout=20)
    except (ValueError, OSError):
        return 599, {}


def sign_in_code(base, email):
    status, answer = post_json(base + ADMIN_OOB, {"requestType": "EMAIL_SIGNIN", "email": email, "continueUrl": "https://example.com/",
                                                  "returnOobLink": True}, {"Authorization": "Bearer owner"})
    assert status == 200, answer
    return answer["oobCode"]


@long_only
def test_a_replica_killed_under_load():
    database = PrivatePostgres()
    directory = tempfile.mkdtemp(prefix="linkdomain-kill-")
    relay_port = free_port()
    hanging = HangingRelay(relay_port)
    storage = {"postgresURL": database.url}
    # The replica to be killed starts alone, queues the mails and claims them: its session then waits
    # on the hanging relay for 12 s, longer than it lives. The other replica starts after.
    replicas = [Server(directory, "a", replica_configuration(storage, relay_port, relay_timeout=12))]
    balancer = relay = None
    try:
        recipients = [f"kill-{index}-{uuid.uuid4().hex[:6]}@example.com" for index in range(20)]
        for recipient in recipients:
            status, answer = post_json(f"{replicas[0].base}/v1/accounts:sendOobCode?key=demo-api-key",
                                       {"requestType": "EMAIL_SIGNIN", "email": recipient, "continueUrl": "https://example.com/"})
            assert status == 200, answer
        queued_at = time.monotonic()
        replicas.append(Server(directory, "b", replica_configuration(storage, relay_port)))
        balancer = Nginx(directory, [address(replica.base) for replica in replicas])
        short, path = make_short_link(replicas[0].base)
        emails = [f"code-{index}-{uuid.uuid4().hex[:6]}@example.com" for index in range(40)]
        codes = [(email, sign_in_code(replicas[1].base, email)) for email in emails]

        rate, seconds, kill_at = 2000, 40, 5
        load = Load(balancer.address, [path, "/.well-known/apple-app-site-association"], rate=rate, seconds=seconds, user_agent=DESKTOP)
        time.sleep(kill_at - 0.5)

        def spend(pair):
            email, code = pair
            return pair, answer_of(balancer.base + SIGN_IN, {"email": email, "oobCode": code})

        with concurrent.futures.ThreadPoolExecutor(max_workers=40) as pool:
            attempts = [pool.submit(spend, pair) for pair in codes + codes]  # each code tried twice at once
            time.sleep(0.5)
            replicas[0].process.send_signal(signal.SIGKILL)
            killed_after_queueing = time.monotonic() - queued_at
            results = [attempt.result() for attempt in attempts]
        replicas[0].process.wait(timeout=10)
        time.sleep(10)
        replicas[0] = Server(directory, "a-again", replica_configuration(storage, relay_port, port=replicas[0].port))
        total = load.wait()
        time.sleep(1.5)

        served = answered(total, 302)
        stored = clicks(replicas[1].base, short)
        successes = {}
        for (email, code), (status, answer) in results:
            successes.setdefault(code, 0)
            if status == 200:
                successes[code] += 1
        assert all(count <= 1 for count in successes.values()), successes
        # A code whose only success was lost with the killed replica was still spent once: trying again is refused.
        unanswered = [pair for pair in codes if successes[pair[1]] == 0]
        retried = [answer_of(balancer.base + SIGN_IN, {"email": email, "oobCode": code}) for email, code in unanswered]
        spent_unseen = sum(1 for status, answer in retried if status == 400 and answer["error"]["message"] == "INVALID_OOB_CODE")

        hanging.stop()
        relay = Relay(port=relay_port)
        relay.start()
        started = time.monotonic()
        while time.monotonic() - started < 300 and len({m.rcpt_tos[0].lower() for m in relay.messages}) < len(recipients):
            time.sleep(1)
        delivered_after = time.monotonic() - started
        delivered_after_queueing = time.monotonic() - queued_at
        time.sleep(5)  # anything sent twice would arrive now
        arrivals = [message.rcpt_tos[0].lower() for message in relay.messages]
        per_recipient = {recipient: arrivals.count(recipient.lower()) for recipient in recipients}
        assert all(count == 1 for count in per_recipient.values()), per_recipient

        assert stored <= served, (stored, served)
        lost = served - stored
        # At most what the killed replica answered in its last second (it writes its counts once a second).
        assert lost <= rate, lost
        record("replica_killed", {
            "rate": rate, "sent": total["sent"], "status": total["status"], "errors": total["errors"],
            "client_errors": failures(total) + sum(v for k, v in total["status"].items() if k not in ("200", "302")),
            "clicks_answered": served, "clicks_stored": stored, "clicks_lost": lost,
            "codes": len(codes), "codes_succeeded": sum(successes.values()), "codes_spent_answer_lost": spent_unseen,
            "codes_tried_again_and_accepted": sum(1 for status, _ in retried if status == 200),
            "mails": len(recipients), "mails_delivered": len(arrivals), "mails_all_delivered_after_relay_return_s": round(delivered_after, 1),
            "killed_at_s": kill_at, "killed_after_queueing_s": round(killed_after_queueing, 1),
            "mails_all_delivered_after_queueing_s": round(delivered_after_queueing, 1), "post_failures": sum(1 for _, (status, _) in results if status >= 500),
            "per_second": load.lines,
        })
    finally:
        if balancer:
            balancer.stop()
        hanging.stop()
        if relay:
            relay.stop()
        for replica in replicas:
            if replica.process.poll() is None:
                replica.stop()
        database.remove()
