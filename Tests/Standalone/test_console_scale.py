"""The console at the sizes the overview is built for: scripts/console-scale's database of 100,000
short links and 10,000,000 rows of click statistics, on SQLite and (with TEST_POSTGRES_URL) on
PostgreSQL, served by the binary under test. Each page answers, and answers right: the overview
counts every link and every click of the last 30 days, the most clicked link comes first. The
times are printed, not asserted (BENCHMARKS.md has the release build's)."""

import importlib.machinery
import importlib.util
import os
import random
import re
import tempfile
import urllib.request

import pytest

from conftest import BINARY, POSTGRES, ROOT

loader = importlib.machinery.SourceFileLoader("console_scale", str(ROOT / "scripts" / "console-scale"))
spec = importlib.util.spec_from_loader("console_scale", loader)
scale = importlib.util.module_from_spec(spec)
loader.exec_module(scale)
scale.BINARY = BINARY


def check(base, expected_clicks):
    figures = scale.measure(base)
    print({name: f"{milliseconds:.1f} ms" for name, milliseconds in figures.items()})
    with urllib.request.urlopen(base + "/__/console", timeout=60) as response:
        overview = response.read().decode()
    assert f'<span class="fact-value">{scale.LINKS}</span>' in overview
    # Every click of the last 30 days, summed over the platforms' tables (the "Clicks" column).
    counted = 0
    for table in re.findall(r"<table><caption>Clicks per day \(.*?</table>", overview, re.S):
        header = re.findall(r'<th scope="col" class="number">([^<]+)</th>', table)
        if "Clicks" not in header:
            continue
        column = header.index("Clicks")
        for cells in re.findall(r"<tr><th scope=\"row\">[^<]+</th>(.*?)</tr>", table):
            counted += int(re.findall(r">(\d+)<", cells)[column])
    assert counted == expected_clicks
    with urllib.request.urlopen(base + "/__/console/links?order=clicks", timeout=60) as response:
        first = re.search(r'href="/__/console/links/(s\d{6})"', response.read().decode()).group(1)
    return first


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_the_console_at_100000_links_and_10_million_rows(store):
    if store == "postgres" and POSTGRES is None:
        pytest.skip("needs TEST_POSTGRES_URL (scripts/test starts PostgreSQL)")
    with tempfile.TemporaryDirectory(prefix="console-scale-") as directory:
        port = 18900 + random.randint(0, 90)
        if store == "sqlite":
            storage = {"sqlitePath": os.path.join(directory, "scale.sqlite")}
        else:
            storage = {"postgresURL": scale.fresh_postgres(POSTGRES)}
        process = scale.serve(directory, storage, port)
        process.terminate()
        process.wait()
        if store == "sqlite":
            scale.fill_sqlite(storage["sqlitePath"])
            expected, most = scale.sqlite_truth(storage["sqlitePath"], scale.TODAY - 29)
        else:
            scale.fill_postgres_sql(storage["postgresURL"])
            expected, most = scale.postgres_truth(storage["postgresURL"], scale.TODAY - 29)
        process = scale.serve(directory, storage, port)
        try:
            assert check(f"http://127.0.0.1:{port}", expected) == most
        finally:
            process.terminate()
            process.wait()
