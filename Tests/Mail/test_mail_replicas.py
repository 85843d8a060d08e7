"""Two replicas on one PostgreSQL deliver a shared queue: 200 mails queued through both while
the relay is down, then each delivered exactly once when it comes back."""

import concurrent.futures
import tempfile
import time

import pytest

from conftest import POSTGRES, Server, fresh_database
from keys import make_certificate_authority
from mailtest import mail_configuration, metric, send_action
from relay import Relay, free_port

pytestmark = pytest.mark.skipif(POSTGRES is None, reason="needs TEST_POSTGRES_URL (scripts/test starts PostgreSQL)")


def test_two_replicas_deliver_200_mails_exactly_once():
    directory = tempfile.mkdtemp(prefix="linkdomain-mail-replicas-")
    ca, leaf, key = make_certificate_authority(directory)
    relay = Relay(port=free_port(), tls=(leaf, key), auth=("linkdomain", "relay-secret"))
    configuration = mail_configuration(relay, ca, {"publicBaseURL": "http://localhost:9999", "storage": {"postgresURL": fresh_database()},
                                                   "formSecret": "the same secret on every replica, 32+"})
    replicas = [Server(directory, name, configuration) for name in ["a", "b"]]
    addresses = [f"crowd-{index}@example.com" for index in range(200)]
    try:
        def queue(index):
            status, answer = send_action(replicas[index % 2].base, {"requestType": "EMAIL_SIGNIN", "email": addresses[index],
                                                                   "continueUrl": "https://example.com/"})
            assert status == 200, answer

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(queue, range(len(addresses))))
        relay.start()
        relay.wait_for(200, timeout=120)
        time.sleep(3)  # long enough for a second delivery of anything to show
        delivered = sorted(address for message in relay.messages for address in message.rcpt_tos)
        assert delivered == sorted(addresses)
        # Both replicas took part (claims skip what the other has locked), and neither sent twice.
        sent = [metric(replica.base, "linkdomain_mail_sent_total") for replica in replicas]
        assert sum(sent) == 200 and all(count > 0 for count in sent), sent
    finally:
        for replica in replicas:
            replica.stop()
        relay.stop()
