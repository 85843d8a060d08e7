"""The mail test helpers checked on their own, with Python's smtplib, dkimpy, google-auth and
requests as the clients: if one of these fails, a mail test failing is the helper's fault, not
the server's. No `linkdomain` binary is needed."""

import base64
import json
import smtplib
import socket
import ssl
import time

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from google.auth import crypt
from google.auth import jwt
from google.auth.transport.requests import Request
from google.oauth2 import service_account

from keys import (dkim_sign, dkim_verify, make_certificate_authority, make_dkim_key, make_service_account,
                  public_key_pem)
from relay import Relay
from token_endpoint import TokenEndpoint

SCOPE = "https://www.googleapis.com/auth/identitytoolkit"
# A dot-stuffed line and trailing whitespace: both must come through unchanged.
MESSAGE = (b"From: LinkDomain <noreply@example.com>\r\n"
           b"To: someone@example.org\r\n"
           b"Subject: Sign in to LinkDomain\r\n"
           b"Message-ID: <selfcheck@example.com>\r\n"
           b"MIME-Version: 1.0\r\n"
           b"Content-Type: text/plain; charset=utf-8\r\n"
           b"\r\n"
           b"Follow this link to sign in:  \r\n"
           b".https://example.com/__/auth/action?mode=signIn\r\n"
           b"..\r\n")


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return make_certificate_authority(tmp_path_factory.mktemp("pki"))


def client_context(ca):
    return ssl.create_default_context(cafile=str(ca))


def test_starttls_and_auth_message_recorded_exactly(pki):
    ca, cert, key = pki
    with Relay(tls=(cert, key), auth=("user", "secret")) as relay:
        with smtplib.SMTP(relay.host, relay.port, local_hostname="client.test", timeout=5) as client:
            client.ehlo()
            assert "auth" not in client.esmtp_features, "AUTH must not be offered before STARTTLS"
            with pytest.raises(smtplib.SMTPSenderRefused) as refused:
                client.sendmail("noreply@example.com", ["someone@example.org"], MESSAGE)
            assert refused.value.smtp_code == 530
            client.starttls(context=client_context(ca))
            client.ehlo()
            with pytest.raises(smtplib.SMTPAuthenticationError):
                client.login("user", "wrong")
            client.login("user", "secret")
            client.sendmail("noreply@example.com", ["someone@example.org"], MESSAGE)
        [message] = relay.wait_for(1, timeout=5)
        assert message.data == MESSAGE
        assert message.mail_from == "noreply@example.com"
        assert message.rcpt_tos == ["someone@example.org"]
        assert message.tls is True
        assert message.authenticated_as == "user"
        assert message.helo == "client.test"
        assert relay.connections == 1


def test_login_mechanism_and_plain_text_auth():
    with Relay(auth=("user", "secret")) as relay:
        with smtplib.SMTP(relay.host, relay.port, timeout=5) as client:
            client.ehlo()
            assert client.has_extn("auth") and "LOGIN" in client.esmtp_features["auth"]
            with pytest.raises(smtplib.SMTPSenderRefused) as refused:
                client.sendmail("a@example.com", ["b@example.org"], MESSAGE)
            assert refused.value.smtp_code == 530
            client.user, client.password = "user", "secret"
            client.auth("LOGIN", client.auth_login)
            client.sendmail("a@example.com", ["b@example.org"], MESSAGE)
        [message] = relay.wait_for(1, timeout=5)
        assert message.tls is False and message.authenticated_as == "user"


def test_implicit_tls(pki):
    ca, cert, key = pki
    with Relay(tls=(cert, key), implicit_tls=True) as relay:
        with smtplib.SMTP_SSL(relay.host, relay.port, context=client_context(ca), timeout=5) as client:
            client.sendmail("a@example.com", ["b@example.org"], MESSAGE)
        [message] = relay.wait_for(1, timeout=5)
        assert message.tls is True and message.authenticated_as is None and message.data == MESSAGE
    with Relay(tls=(cert, key), implicit_tls=True, auth=("user", "secret")) as relay:
        with smtplib.SMTP_SSL(relay.host, relay.port, context=client_context(ca), timeout=5) as client:
            with pytest.raises(smtplib.SMTPSenderRefused):
                client.sendmail("a@example.com", ["b@example.org"], MESSAGE)
            client.login("user", "secret")
            client.sendmail("a@example.com", ["b@example.org"], MESSAGE)
        [message] = relay.wait_for(1, timeout=5)
        assert message.tls is True and message.authenticated_as == "user"


def test_reject_and_defer_at_rcpt():
    with Relay(reject={"gone@example.org"}, defer={"Busy@example.org"}) as relay:
        with smtplib.SMTP(relay.host, relay.port, timeout=5) as client:
            refused = client.sendmail("a@example.com", ["ok@example.org", "GONE@example.org", "busy@example.org"],
                                      MESSAGE)
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                client.sendmail("a@example.com", ["busy@example.org"], MESSAGE)
        assert refused["GONE@example.org"] == (550, b"5.1.1 mailbox unavailable")
        assert refused["busy@example.org"] == (451, b"4.3.0 try again later")
        [message] = relay.wait_for(1, timeout=5)
        assert message.rcpt_tos == ["ok@example.org"]
        assert relay.rcpt_attempts == ["ok@example.org", "GONE@example.org", "busy@example.org",
                                       "busy@example.org"]
        with pytest.raises(AssertionError, match="received 1 message"):
            relay.wait_for(2, timeout=0.2)


def test_down_then_up_on_the_same_port(pki):
    ca, cert, key = pki
    first = Relay(tls=(cert, key)).start()
    port = first.port
    # A connection still open (and encrypted) when the relay goes down must not hold stop() up.
    lingering = smtplib.SMTP(first.host, port, timeout=5)
    lingering.starttls(context=client_context(ca))
    lingering.ehlo()
    started = time.monotonic()
    first.stop()
    assert time.monotonic() - started < 5
    with pytest.raises(OSError):
        lingering.noop()
    lingering.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()

    with Relay(port=port, tls=(cert, key)) as second:
        with smtplib.SMTP(second.host, port, timeout=5) as client:
            client.starttls(context=client_context(ca))
            client.sendmail("a@example.com", ["b@example.org"], MESSAGE)
        assert second.wait_for(1, timeout=5)[0].tls

    # The same object can be brought up again too; what it recorded is kept.
    first.start()
    try:
        with smtplib.SMTP(first.host, port, timeout=5) as client:
            client.starttls(context=client_context(ca))
            client.sendmail("a@example.com", ["b@example.org"], MESSAGE)
        assert len(first.wait_for(1, timeout=5)) == 1
    finally:
        first.stop()


@pytest.mark.parametrize("algorithm", ["rsa", "ed25519"])
def test_dkim_keys_sign_and_verify(tmp_path, algorithm):
    private_key, txt = make_dkim_key(tmp_path, algorithm)
    pem = private_key.read_bytes()
    assert pem.startswith(b"-----BEGIN PRIVATE KEY-----\n")
    key = serialization.load_pem_private_key(pem, password=None)
    published = base64.b64decode(txt.split("p=", 1)[1])
    if algorithm == "rsa":
        assert txt.startswith("v=DKIM1; k=rsa; p=")
        assert key.key_size == 2048
        assert published == key.public_key().public_bytes(serialization.Encoding.DER,
                                                          serialization.PublicFormat.SubjectPublicKeyInfo)
    else:
        assert txt.startswith("v=DKIM1; k=ed25519; p=")
        assert published == key.public_key().public_bytes(serialization.Encoding.Raw,
                                                          serialization.PublicFormat.Raw)

    signed = dkim_sign(MESSAGE, "sel", "example.com", private_key)
    assert signed.startswith(b"DKIM-Signature: ")
    records = {"sel._domainkey.example.com": txt}
    assert dkim_verify(signed, records)
    assert dkim_verify(signed, {"SEL._domainkey.Example.com.": txt.encode()})
    assert not dkim_verify(signed.replace(b"sign in:", b"sign on:"), records)
    assert not dkim_verify(signed, {"other._domainkey.example.com": txt})
    assert not dkim_verify(MESSAGE, records)
    other_key, other_txt = make_dkim_key(tmp_path, algorithm, name="other.key")
    assert not dkim_verify(signed, {"sel._domainkey.example.com": other_txt})


def assertion(signer, issuer, audience, scope=SCOPE, lifetime=3600, header=None):
    now = int(time.time())
    return jwt.encode(signer, {"iss": issuer, "scope": scope, "aud": audience, "iat": now,
                               "exp": now + lifetime}, header=header).decode()


def exchange(url, token, grant_type="urn:ietf:params:oauth:grant-type:jwt-bearer"):
    return requests.post(url, data={"grant_type": grant_type, "assertion": token}, timeout=5)


def test_service_account_token_exchange(tmp_path):
    endpoint = TokenEndpoint({}, client_email="linkdomain-test@demo-linkdomain.iam.gserviceaccount.com",
                             access_token="ya29.test-token")
    with endpoint:
        path, certificate, key_id = make_service_account(tmp_path, endpoint.url)
        stranger_path, _, stranger_key_id = make_service_account(tmp_path, endpoint.url)
        endpoint.public_keys[key_id] = certificate
        info = service_account.Credentials.from_service_account_file(str(path)).service_account_email
        assert info == endpoint.client_email

        signer = crypt.RSASigner.from_service_account_file(str(path))
        assert signer.key_id == key_id
        reply = exchange(endpoint.url, assertion(signer, endpoint.client_email, endpoint.url))
        assert reply.status_code == 200, reply.text
        assert reply.json() == {"access_token": "ya29.test-token", "expires_in": 3600, "token_type": "Bearer"}
        assert endpoint.assertions[0]["iss"] == endpoint.client_email
        google_audience = assertion(signer, endpoint.client_email, "https://oauth2.googleapis.com/token")
        assert exchange(endpoint.url, google_audience).status_code == 200

        # Google's own client library against the endpoint: the token is fetched once and cached.
        credentials = service_account.Credentials.from_service_account_file(str(path), scopes=[SCOPE])
        request = Request()
        headers = {}
        for _ in range(3):
            credentials.before_request(request, "GET", "https://example.invalid/", headers)
        assert headers["authorization"] == "Bearer ya29.test-token"
        assert endpoint.requests == 3 and len(endpoint.assertions) == 3
        assert endpoint.assertions[2]["aud"] == "https://oauth2.googleapis.com/token"
        assert endpoint.assertions[2]["scope"] == SCOPE

        # Refusals: another account's key, a forged kid, wrong audience, issuer, scope, lifetime.
        stranger = crypt.RSASigner.from_service_account_file(str(stranger_path))
        forged = crypt.RSASigner.from_string(json.loads(stranger_path.read_text())["private_key"], key_id=key_id)
        refusals = [
            assertion(stranger, endpoint.client_email, endpoint.url),
            assertion(forged, endpoint.client_email, endpoint.url),
            assertion(signer, endpoint.client_email, "https://example.com/token"),
            assertion(signer, "someone-else@demo-linkdomain.iam.gserviceaccount.com", endpoint.url),
            assertion(signer, endpoint.client_email, endpoint.url, scope="https://www.googleapis.com/auth/gmail.send"),
            assertion(signer, endpoint.client_email, endpoint.url, lifetime=7200),
            assertion(signer, endpoint.client_email, endpoint.url, header={"alg": "RS512"}),
            "not-a-jwt",
        ]
        for token in refusals:
            reply = exchange(endpoint.url, token)
            assert reply.status_code == 400, token
            assert reply.json()["error"] in {"invalid_grant", "invalid_scope"}, reply.text
        assert "unknown kid" in endpoint.failures[0]
        assert "signature" in endpoint.failures[1].lower()
        reply = exchange(endpoint.url, assertion(signer, endpoint.client_email, endpoint.url), grant_type="password")
        assert reply.status_code == 400 and reply.json()["error"] == "unsupported_grant_type"
        assert len(endpoint.assertions) == 3 and endpoint.requests == 3 + len(refusals) + 1

        # The bare public key works as well as the certificate.
        endpoint.public_keys[key_id] = public_key_pem(certificate)
        assert exchange(endpoint.url, assertion(signer, endpoint.client_email, endpoint.url)).status_code == 200
    with pytest.raises(requests.ConnectionError):
        exchange(endpoint.url, "x")
