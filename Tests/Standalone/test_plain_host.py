"""The binary needs nothing beside it: run alone in an empty directory it serves every page from
its built-in templates, and the static build (`scripts/release`) answers inside a minimal Debian
made with debootstrap, which has neither Swift nor SQLite."""

import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from conftest import BINARY, ROOT, free_port

IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
APP = {"LINKDOMAIN_APPLE_APPS_0_TEAM_ID": "ABCDE12345", "LINKDOMAIN_APPLE_APPS_0_BUNDLE_ID": "com.example.app",
       "LINKDOMAIN_AUTHORIZED_DOMAINS": "example.com"}
ENGLISH = json.loads((ROOT / "Public" / "locales" / "en.json").read_text())


def get(url, user_agent=FIREFOX, data=None):
    request = urllib.request.Request(url, data=data, headers={"User-Agent": user_agent, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def wait_until_up(process, base, log):
    for _ in range(300):
        if process.poll() is not None:
            pytest.fail(f"linkdomain exited: {Path(log).read_text()}")
        try:
            urllib.request.urlopen(base + "/healthz", timeout=2)
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.1)
    pytest.fail(f"linkdomain did not answer: {Path(log).read_text()}")


def check_every_page(base):
    """Every template, rendered from the binary's own copy."""
    status, css = get(base + "/__/static/styles.css")
    assert status == 200 and css == (ROOT / "Public" / "static" / "styles.css").read_text()
    api = base + "/identitytoolkit.googleapis.com/v1/accounts:"
    assert get(api + "signUp?key=k", data=json.dumps({"email": "alone@example.com", "password": "secret1"}).encode())[0] == 200
    assert get(api + "sendOobCode?key=k", data=json.dumps({"requestType": "PASSWORD_RESET", "email": "alone@example.com"}).encode())[0] == 200
    assert get(api + "sendOobCode?key=k", data=json.dumps({"requestType": "VERIFY_EMAIL", "idToken": json.loads(get(
        api + "signInWithPassword?key=k", data=json.dumps({"email": "alone@example.com", "password": "secret1"}).encode())[1])["idToken"]}).encode())[0] == 200
    codes = json.loads(get(base + "/emulator/v1/projects/demo-linkdomain/oobCodes")[1])["oobCodes"]
    by_type = {code["requestType"]: code["oobLink"] for code in codes}
    local = lambda link: base + link[link.index("/__/"):]
    status, reset = get(local(by_type["PASSWORD_RESET"]))
    assert status == 200 and ENGLISH["reset_title"] in reset and "alone@example.com" in reset          # reset-password
    status, verify = get(local(by_type["VERIFY_EMAIL"]))
    assert status == 200 and ENGLISH["verify_title"] in verify                                          # confirm-action
    status, invalid = get(base + "/__/auth/action?mode=resetPassword&oobCode=nope&apiKey=k")
    assert status == 400 and ENGLISH["error_invalid_title"] in invalid                                  # message
    status, landing = get(base + "/__/auth/links?link=" + urllib.parse.quote(local(by_type["VERIFY_EMAIL"]), safe=""), user_agent=IPHONE)
    assert status == 200 and ENGLISH["landing_title_verify"].split("{app}")[0] in landing and ENGLISH["landing_body_verify"].split("{app}")[0] in landing  # landing
    status, preview = get(base + "/?link=https%3A%2F%2Fexample.com%2Fx&st=Hello&ibi=com.example.app", user_agent=IPHONE)
    assert status == 200 and "Hello" in preview                                                         # preview
    status, social = get(base + "/?link=https%3A%2F%2Fexample.com%2Fx&st=Hello&sd=There", user_agent="Slackbot-LinkExpanding 1.0")
    assert status == 200 and 'property="og:title" content="Hello"' in social                            # social
    status, debug = get(base + "/?link=https%3A%2F%2Fexample.com%2Fx&d=1")
    assert status == 200 and "example.com/x" in debug                                                   # debug


def test_binary_alone_in_an_empty_directory(tmp_path):
    alone = tmp_path / "empty"
    alone.mkdir()
    shutil.copy2(BINARY, alone / "linkdomain")
    port = free_port()
    environment = {key: value for key, value in os.environ.items() if not key.startswith("LINKDOMAIN")}
    log = tmp_path / "alone.log"
    process = subprocess.Popen(["./linkdomain", "serve", "--port", str(port)], cwd=alone, env={**environment, **APP},
                               stdout=open(log, "w"), stderr=subprocess.STDOUT)
    try:
        wait_until_up(process, f"http://127.0.0.1:{port}", log)
        assert "pages:             built in" in log.read_text()
        check_every_page(f"http://127.0.0.1:{port}")
        assert sorted(path.name for path in alone.iterdir()) == ["linkdomain", "linkdomain.sqlite", "linkdomain.sqlite-shm", "linkdomain.sqlite-wal"]
    finally:
        process.terminate()
        process.wait(timeout=10)


def debian_root():
    """A minimal Debian made once with debootstrap (kept under .build for later runs), or the reason there is none."""
    if os.geteuid() != 0:
        return None, "debootstrap and chroot need root"
    if shutil.which("debootstrap") is None:
        return None, "debootstrap is not installed (apt-get install debootstrap)"
    root = ROOT / ".build-debian-root"
    if not (root / "usr" / "bin" / "env").exists():
        shutil.rmtree(root, ignore_errors=True)
        suite = subprocess.run(["sh", "-c", ". /etc/os-release && echo $VERSION_CODENAME"], capture_output=True, text=True).stdout.strip() or "bookworm"
        made = subprocess.run(["debootstrap", "--variant=minbase", suite, str(root), "http://deb.debian.org/debian"],
                              capture_output=True, text=True, timeout=900)
        if made.returncode != 0:
            return None, f"debootstrap failed: {made.stdout[-500:]} {made.stderr[-500:]}"
    return root, None


def test_static_binary_answers_on_plain_debian(tmp_path):
    needed = subprocess.run(["objdump", "-p", str(BINARY)], capture_output=True, text=True).stdout
    libraries = [line.split()[1] for line in needed.splitlines() if line.strip().startswith("NEEDED")]
    if any("swift" in library or "Foundation" in library for library in libraries):
        pytest.skip(f"{BINARY} is not the static build (scripts/release -c debug makes it); it needs {libraries}")
    assert not any("sqlite" in library for library in libraries), libraries
    root, reason = debian_root()
    if root is None:
        pytest.skip(reason)
    assert not list(root.glob("usr/lib/*/libsqlite3*")) and not list(root.glob("usr/lib/swift*")), "the root must be plain"
    shutil.copy2(BINARY, root / "usr" / "local" / "bin" / "linkdomain")
    shutil.rmtree(root / "srv" / "linkdomain", ignore_errors=True)
    (root / "srv" / "linkdomain").mkdir(parents=True)
    subprocess.run(["mount", "-t", "proc", "proc", str(root / "proc")], check=True)
    port = free_port()
    log = tmp_path / "chroot.log"
    process = subprocess.Popen(["chroot", str(root), "/usr/bin/env", "-i", "HOME=/srv/linkdomain",
                                *[f"{key}={value}" for key, value in APP.items()],
                                "sh", "-c", f"cd /srv/linkdomain && exec /usr/local/bin/linkdomain serve --port {port}"],
                               stdout=open(log, "w"), stderr=subprocess.STDOUT)
    try:
        wait_until_up(process, f"http://127.0.0.1:{port}", log)
        check_every_page(f"http://127.0.0.1:{port}")
    finally:
        process.terminate()
        process.wait(timeout=10)
        subprocess.run(["umount", str(root / "proc")])
