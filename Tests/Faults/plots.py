"""Draws RELIABILITY.md's plots from the fault suite's figures (scripts/faults):

    python3 Tests/Faults/plots.py FIGURES_DIRECTORY PLOTS_DIRECTORY

Each plot is drawn only when its fault's figures are there."""

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.hashsalt"] = "linkdomain"  # the same figures give the same file


def load(directory, name):
    path = Path(directory) / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def save(figure, directory, name):
    figure.tight_layout()
    figure.savefig(Path(directory) / f"{name}.svg", metadata={"Date": None})
    plt.close(figure)


def soak(figures, out):
    samples, seconds = figures["samples"], figures["per_second"]
    figure, (memory, handles, latency) = plt.subplots(3, 1, figsize=(8, 7), sharex=True)
    minutes = [s["t"] / 60 for s in samples]
    memory.plot(minutes, [s["rss_kib"] / 1024 for s in samples])
    memory.set_ylabel("resident memory (MiB)")
    memory.set_ylim(bottom=0)
    handles.plot(minutes, [s["files"] for s in samples], label="open files")
    handles.plot(minutes, [s["database_connections"] for s in samples], label="PostgreSQL connections")
    handles.set_ylim(bottom=0)
    handles.legend(loc="lower right")
    latency.plot([line["t"] / 60 for line in seconds], [line["p99"] for line in seconds], linewidth=0.6)
    latency.set_ylabel("p99 of each second (ms)")
    latency.set_xlabel("minutes")
    latency.set_yscale("log")
    memory.set_title(f"Soak: {figures['rate_per_s']:,} requests/s (half of {figures['capacity_per_s']:,}) for "
                     f"{figures['seconds'] // 60} minutes")
    save(figure, out, "soak")


def outage(figures, out, name):
    seconds = figures["per_second"]
    figure, (latency, memory) = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
    latency.plot([line["t"] for line in seconds], [line["p99"] for line in seconds], label="p99 of each second (clicks, association file)")
    latency.set_ylabel("ms")
    latency.legend(loc="upper right")
    memory.plot([t for t, _ in figures["rss_kib"]], [kib / 1024 for _, kib in figures["rss_kib"]])
    memory.set_ylabel("resident memory (MiB)")
    memory.set_ylim(bottom=0)
    memory.set_xlabel("seconds")
    for axis in (latency, memory):
        axis.axvspan(figures["stopped_at_s"], figures["returned_at_s"], color="tab:red", alpha=0.12, label="database away")
    latency.set_title(f"PostgreSQL stopped ({name.rsplit('_', 1)[1]}) for {figures['away_s']} s under 1,000 requests/s")
    save(figure, out, name)


def per_second_outcomes(figures, out, name, title, marker=None):
    seconds = figures["per_second"]
    figure, (rates, latency) = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
    t = [line["t"] for line in seconds]
    rates.plot(t, [sum(line["status"].values()) for line in seconds], label="answered")
    rates.plot(t, [sum(line["errors"].values()) for line in seconds], label="errors seen by clients")
    rates.set_ylabel("requests per second")
    rates.legend(loc="center right")
    latency.plot(t, [line["p99"] for line in seconds])
    latency.set_ylabel("p99 of each second (ms)")
    latency.set_xlabel("seconds")
    if marker is not None:
        for axis in (rates, latency):
            axis.axvline(marker, color="tab:red", linestyle="--")
    rates.set_title(title)
    save(figure, out, name)


def main(source, out):
    Path(out).mkdir(parents=True, exist_ok=True)
    if figures := load(source, "soak"):
        soak(figures, out)
    for name in ["database_outage_fast", "database_outage_immediate"]:
        if figures := load(source, name):
            outage(figures, out, name)
    if figures := load(source, "replica_killed"):
        per_second_outcomes(figures, out, "replica_killed", "One of two replicas killed (SIGKILL) behind nginx, at the dashed line",
                            figures["killed_at_s"])
    if figures := load(source, "rolling_restart"):
        per_second_outcomes(figures, out, "rolling_restart", "Rolling restart of two replicas behind nginx (SIGHUP, SIGTERM, start)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
