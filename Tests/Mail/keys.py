"""Throw-away key material for the mail tests: a TLS certificate authority for the relay, DKIM
signing keys with their DNS TXT records, and a Google service-account key file.

Everything is generated fresh into a directory the test owns, so no test depends on keys checked
into the repository and nothing here is ever trusted outside the test run. TLS and DKIM keys are
made with the `openssl` command line, the same program an operator would use to provision the real
ones, so the files have the exact shape the server reads in production (PEM, PKCS#8).
"""

import base64
import datetime
import json
import secrets
import subprocess
from pathlib import Path

import dkim
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

# DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the raw 32-byte key follows it.
_ED25519_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")
# DER prefix of an Ed25519 PKCS#8 PrivateKeyInfo (RFC 8410); the raw 32-byte seed follows it.
_ED25519_PKCS8_PREFIX = bytes.fromhex("302e020100300506032b657004220420")


def _openssl(*arguments, cwd):
    """Run `openssl`, showing its error output if it fails (the default message hides it)."""
    result = subprocess.run(["openssl", *arguments], cwd=cwd, capture_output=True)
    if result.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(arguments)} failed:\n{result.stderr.decode(errors='replace')}")
    return result.stdout


def _key_arguments(key_type):
    if key_type == "ec":
        return ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
    if key_type == "rsa":
        return ["-newkey", "rsa:2048"]
    raise ValueError(f"unknown key type {key_type!r} (expected 'ec' or 'rsa')")


def make_certificate_authority(directory, key_type="ec"):
    """Create a CA and a leaf certificate it signs for `DNS:localhost, IP:127.0.0.1`, valid 2 days.

    Returns `(ca_cert_path, leaf_cert_path, leaf_key_path)`, PEM files in `directory`
    (`ca.pem`/`ca.key`, `localhost.pem`/`localhost.key`). `key_type` is "ec" (P-256) or "rsa" (2048).

    The extensions are spelled out rather than left to the local openssl.cnf: clients with strict
    X.509 checking (Python 3.13's default context, BoringSSL, swift-certificates) refuse a CA
    without a critical basicConstraints/keyUsage or a leaf without an authority key identifier.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", *_key_arguments(key_type), "-nodes", "-keyout", "ca.key",
             "-subj", "/CN=LinkDomain mail test CA", "-days", "2",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign",
             "-addext", "subjectKeyIdentifier=hash",
             "-out", "ca.pem", cwd=directory)
    # keyEncipherment only means something for RSA (key transport); EC keys only sign.
    key_usage = "digitalSignature,keyEncipherment" if key_type == "rsa" else "digitalSignature"
    (directory / "localhost.ext").write_text(
        "basicConstraints=critical,CA:FALSE\n"
        f"keyUsage=critical,{key_usage}\n"
        "extendedKeyUsage=serverAuth\n"
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
        "subjectKeyIdentifier=hash\n"
        "authorityKeyIdentifier=keyid,issuer\n")
    _openssl("req", *_key_arguments(key_type), "-nodes", "-keyout", "localhost.key",
             "-subj", "/CN=localhost", "-out", "localhost.csr", cwd=directory)
    _openssl("x509", "-req", "-in", "localhost.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-set_serial", str(secrets.randbits(63)), "-days", "2", "-extfile", "localhost.ext",
             "-out", "localhost.pem", cwd=directory)
    return directory / "ca.pem", directory / "localhost.pem", directory / "localhost.key"


def make_dkim_key(directory, algorithm, name=None):
    """Create a DKIM signing key; returns `(private_key_path, dns_txt_value)`.

    `algorithm` is "rsa" (2048 bits) or "ed25519". The private key is PKCS#8 PEM
    (`-----BEGIN PRIVATE KEY-----`) as `openssl genpkey` writes it, which is what an operator
    configures. The TXT value is what goes at `<selector>._domainkey.<domain>`:
    `v=DKIM1; k=rsa; p=<base64 DER SubjectPublicKeyInfo>` (RFC 6376), or
    `v=DKIM1; k=ed25519; p=<base64 raw 32-byte key>` (RFC 8463: the bare key, not the SPKI).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / (name or f"dkim-{algorithm}.key")
    if algorithm == "rsa":
        _openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", str(path), cwd=directory)
    elif algorithm == "ed25519":
        _openssl("genpkey", "-algorithm", "ed25519", "-out", str(path), cwd=directory)
    else:
        raise ValueError(f"unknown DKIM algorithm {algorithm!r} (expected 'rsa' or 'ed25519')")
    spki = _openssl("pkey", "-in", str(path), "-pubout", "-outform", "DER", cwd=directory)
    if algorithm == "rsa":
        return path, f"v=DKIM1; k=rsa; p={base64.b64encode(spki).decode()}"
    if not spki.startswith(_ED25519_SPKI_PREFIX) or len(spki) != len(_ED25519_SPKI_PREFIX) + 32:
        raise RuntimeError(f"unexpected Ed25519 public key encoding: {spki.hex()}")
    return path, f"v=DKIM1; k=ed25519; p={base64.b64encode(spki[-32:]).decode()}"


def dkim_signing_key(private_key_path):
    """The private key in the form `dkim.sign` takes, and the matching `signature_algorithm`.

    dkimpy reads RSA keys as PEM, but for Ed25519 it wants the base64 of the raw 32-byte seed
    (a PyNaCl SigningKey), not PKCS#8 PEM, so the seed is cut out of the PKCS#8 structure here.
    """
    pem = Path(private_key_path).read_bytes()
    key = serialization.load_pem_private_key(pem, password=None)
    if isinstance(key, rsa.RSAPrivateKey):
        return pem, b"rsa-sha256"
    der = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    if not der.startswith(_ED25519_PKCS8_PREFIX) or len(der) != len(_ED25519_PKCS8_PREFIX) + 32:
        raise ValueError(f"{private_key_path} is neither an RSA nor an Ed25519 key")
    return base64.b64encode(der[-32:]), b"ed25519-sha256"


def dkim_sign(message_bytes, selector, domain, private_key_path, include_headers=None):
    """Sign `message_bytes` with dkimpy (a reference signature to compare the server's with);
    returns the message with its DKIM-Signature header prepended."""
    key, algorithm = dkim_signing_key(private_key_path)
    if isinstance(selector, str):
        selector = selector.encode()
    if isinstance(domain, str):
        domain = domain.encode()
    signature = dkim.sign(message_bytes, selector, domain, key, signature_algorithm=algorithm,
                          include_headers=include_headers)
    return signature + message_bytes


def _normalise_dns_name(name):
    if isinstance(name, bytes):
        name = name.decode("ascii")
    return name.rstrip(".").lower()


def dkim_verify(message_bytes, records, minkey=1024):
    """Verify the topmost DKIM-Signature of `message_bytes` against in-memory DNS.

    `records` maps a name such as `sel._domainkey.example.com` to its TXT value. dkimpy asks
    for the name as bytes with a trailing dot (`b"sel._domainkey.example.com."`), so names are
    compared without the dot and case-insensitively; an unknown name answers nothing, which
    dkimpy reports as a failed verification. Ed25519 needs PyNaCl installed.
    """
    table = {_normalise_dns_name(name): value for name, value in records.items()}

    def lookup(name, timeout=5):
        value = table.get(_normalise_dns_name(name))
        if value is None:
            return None
        return value.encode() if isinstance(value, str) else value

    return bool(dkim.verify(message_bytes, dnsfunc=lookup, minkey=minkey))


def make_service_account(directory, token_uri, project_id="demo-linkdomain"):
    """Write a Google service-account JSON key file as the Cloud console downloads it.

    Returns `(json_path, certificate_pem, key_id)`. `certificate_pem` is a self-signed X.509
    certificate for the key, like the ones Google publishes at `client_x509_cert_url`.
    google-auth's `jwt.decode(certs={key_id: ...})` accepts a certificate or a
    `-----BEGIN PUBLIC KEY-----` PEM with the cryptography backend, but its older pure-Python
    `rsa` backend only understood certificates (or PKCS#1 keys), so the certificate is the form
    that works everywhere.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    key_id = secrets.token_hex(20)
    client_email = f"linkdomain-test@{project_id}.iam.gserviceaccount.com"
    private_key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                        serialization.NoEncryption()).decode()
    document = {
        "type": "service_account",
        "project_id": project_id,
        "private_key_id": key_id,
        "private_key": private_key_pem,
        "client_email": client_email,
        "client_id": str(secrets.randbelow(10 ** 21 - 10 ** 20) + 10 ** 20),
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": token_uri,
        "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
        "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/"
                                + client_email.replace("@", "%40"),
        "universe_domain": "googleapis.com",
    }
    path = directory / f"service-account-{key_id[:8]}.json"
    path.write_text(json.dumps(document, indent=2) + "\n")

    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, client_email)])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder()
                   .subject_name(name).issuer_name(name)
                   .public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=2))
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    return path, certificate.public_bytes(serialization.Encoding.PEM).decode(), key_id


def public_key_pem(certificate_pem):
    """The `-----BEGIN PUBLIC KEY-----` PEM of a certificate, for code that wants the bare key."""
    if isinstance(certificate_pem, str):
        certificate_pem = certificate_pem.encode()
    certificate = x509.load_pem_x509_certificate(certificate_pem)
    return certificate.public_key().public_bytes(serialization.Encoding.PEM,
                                                 serialization.PublicFormat.SubjectPublicKeyInfo).decode()
