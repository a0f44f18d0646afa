"""ZenMux emulator benchmark (issues 6, 16 and 43): the emulator against a bare aiohttp baseline and
CopilotKit's aimock (bench/aimock.py, installed by the bench), same load, in one rotation.

The rate loads come from wrk (bench/wrk.py), pinned with taskset to a core the servers do not run
on; each server's CPU per request is read from its process (/proc/PID/stat, user + system time
over the measured run, divided by the requests wrk counted). The 1,000 paced streams are held by
bench/load.py, which times every chunk's arrival. Each server is also started afresh a few times
and timed from its spawn to its first answer.

The non-streamed load is also run against bench/floor.py, which does only the contract's
per-request work, as a reference for what the emulator's own machinery costs.

`make bench` or `.venv/bin/python bench/run.py [--quick] [--reps N] [--duration S] [--no-streams] [--no-aimock]`.
Writes a table to stdout and bench/results/latest.json. Traffic goes to 127.0.0.1 only and every
measurement is bounded in time (default: 5 s each, 3 repetitions, about 4 minutes in all).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aimock
import orjson
import wrk
from gen_scenarios import (
    PACED_CHUNK_MS,
    PACED_PROMPT,
    PLAIN_PROMPT,
    STREAM_PROMPT,
    write_scenarios,
)
from servers import Server, compile_package, serve_arguments

HERE = Path(__file__).resolve().parent
PY = sys.executable


@dataclass(frozen=True)
class Load:
    """One load shape given to bench/load.py."""

    mode: str
    prompt: str
    concurrency: int
    duration: float
    warmup: float
    gap_ms: float | None = None


def cores() -> tuple[set[int] | None, int | None]:
    """(server cores, load-generator core): different cores when there are at least two."""
    if not hasattr(os, "sched_getaffinity"):
        return None, None
    avail = sorted(os.sched_getaffinity(0))
    if len(avail) < 2:
        return None, None
    return {avail[0]}, avail[1]


def run_wrk(url: str, load: Load, cpu: int | None, server: Server, scripts: Path) -> dict[str, Any]:
    """A rate load from wrk against `url`: a warm-up run, then the measured one, with the CPU time
    `server` used over it (server_cpu_us per request, server_cpu_share of a core) and, for streams,
    its chunks per second (requests/s times the events of one answer)."""
    script = wrk.write_script(scripts, load.prompt, load.mode == "stream")
    target = f"{url}/chat/completions"
    wrk.run(target, script, load.concurrency, load.warmup, cpu)
    before = server.cpu_seconds()
    result = wrk.run(target, script, load.concurrency, load.duration, cpu)
    after = server.cpu_seconds()
    if result["failures"]:
        raise RuntimeError(f"{server.name}: {result['failures']} failed requests under wrk: {result['wrk']}")
    if before is not None and after is not None and result["requests"]:
        result["server_cpu_us"] = (after - before) / result["requests"] * 1e6
        result["server_cpu_share"] = (after - before) / result["seconds"]
    if load.mode == "stream":
        result["chunks_per_s"] = result["rps"] * wrk.events_per_answer(target, load.prompt)
    return result


def run_load(url: str, load: Load, cpu: int | None, server: Server, rss: bool = False) -> dict[str, Any]:
    """Run bench/load.py against `url` (the paced streams); record the share of a core `server` used
    in the window (server_cpu_share) and, with `rss`, its peak RSS (rss_peak_kib)."""
    argv = [
        PY,
        str(HERE / "load.py"),
        "--url",
        f"{url}/chat/completions",
        "--mode",
        load.mode,
        "--prompt",
        load.prompt,
        "--concurrency",
        str(load.concurrency),
        "--duration",
        str(load.duration),
        "--warmup",
        str(load.warmup),
    ]
    if load.gap_ms is not None:
        argv += ["--gap-ms", str(load.gap_ms)]
    if cpu is not None:
        argv += ["--cpu", str(cpu)]
    limit = load.warmup + load.duration + 60
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = 0
    start = time.perf_counter()
    cpu_from: tuple[float, float | None] | None = None
    cpu_to: tuple[float, float | None] | None = None
    while proc.poll() is None:
        now = time.perf_counter()
        in_window = start + load.warmup <= now <= start + load.warmup + load.duration
        if in_window:
            if cpu_from is None:
                cpu_from = (now, server.cpu_seconds())
            cpu_to = (now, server.cpu_seconds())
            if rss:
                peak = max(peak, server.rss_kib() or 0)
        if time.perf_counter() - start > limit:
            proc.kill()
            break
        time.sleep(0.05)
    out, err = proc.communicate()
    if proc.returncode != 0 or not out.strip():
        raise RuntimeError(f"load generator failed ({proc.returncode}): {err.decode()[-2000:]}")
    result: dict[str, Any] = orjson.loads(out.splitlines()[-1])
    if rss:
        result["rss_peak_kib"] = peak
    if cpu_from and cpu_to and cpu_from[1] is not None and cpu_to[1] is not None and cpu_to[0] > cpu_from[0]:
        result["server_cpu_share"] = (cpu_to[1] - cpu_from[1]) / (cpu_to[0] - cpu_from[0])
    return result


def median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def machine() -> dict[str, Any]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def emulator_argv(scenarios: Path, cache: Path) -> list[str]:
    """The emulator serving `scenarios`, its validated files kept in `cache` (the bench's own folder)."""
    exe = Path(PY).with_name("zenmux-emulator")
    head = [str(exe)] if exe.exists() else [PY, "-m", "zenmux_emulator"]
    return [*head, *serve_arguments(scenarios), "--cache-dir", str(cache)]


def startups(
    argvs: dict[str, list[str]], server_cores: set[int] | None, runs: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Seconds from spawn to the first answered request, and the CPU seconds the process used until
    then, for `runs` fresh starts of each server, taken in turn (one sample is noisy, and a shared
    machine's load moves over a run; the CPU time moves far less with it than the wall time)."""
    times: dict[str, list[float]] = {name: [] for name in argvs}
    cpu: dict[str, list[float]] = {name: [] for name in argvs}
    for _ in range(runs):
        for name, argv in argvs.items():
            server = Server(name, argv, server_cores, PLAIN_PROMPT)
            try:
                times[name].append(server.start())
                if server.startup_cpu_s is not None:
                    cpu[name].append(server.startup_cpu_s)
            finally:
                server.stop()
    return times, cpu


def fmt(v: float | None, digits: int = 1) -> str:
    return "-" if v is None else f"{v:,.{digits}f}"


@dataclass(frozen=True)
class Config:
    """What to run, from the command line."""

    reps: int
    duration: float
    hold: float
    warmup: float
    starts: int
    streams: int
    paced: bool
    """Whether the paced streams run (not --no-streams)."""
    with_aimock: bool
    out: Path


def parse_config() -> Config:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1 s measurements, 1 repetition, 3 s of 1,000 streams")
    parser.add_argument("--reps", type=int, default=None, help="repetitions (default 3, quick 1)")
    parser.add_argument("--duration", type=float, default=None, help="seconds per measurement (default 5, quick 1)")
    parser.add_argument("--streams", type=int, default=1000, help="concurrent paced streams (default 1000)")
    parser.add_argument(
        "--hold", type=float, default=None, help="seconds the paced streams are held (default 10, quick 3)"
    )
    parser.add_argument("--no-streams", action="store_true", help="skip the 1,000 paced streams")
    parser.add_argument("--no-aimock", action="store_true", help="leave aimock out (it needs Node.js and npm)")
    parser.add_argument("--starts", type=int, default=None, help="fresh starts timed per server (default 5, quick 3)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "latest.json")
    args = parser.parse_args()
    return Config(
        reps=args.reps or (1 if args.quick else 3),
        duration=args.duration or (1.0 if args.quick else 5.0),
        hold=args.hold or (3.0 if args.quick else 10.0),
        warmup=0.3 if args.quick else 0.5,
        starts=args.starts or (3 if args.quick else 5),
        streams=args.streams,
        paced=not args.no_streams,
        with_aimock=not args.no_aimock,
        out=args.out,
    )


def raise_file_limit() -> None:
    """Open files enough for the paced streams; inherited by both servers and the load."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 65536) if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


Row = tuple[str, float | None, float | None, float | None, int]
"""A table row: label, the emulator's, the baseline's and aimock's values, digits shown."""


@dataclass(frozen=True)
class Results:
    """What one run measured."""

    startups: dict[str, list[float]]
    """Seconds from spawn to the first answer, per fresh start, per server."""
    startup_cpus: dict[str, list[float]]
    """CPU seconds each of those starts used until its first answer."""
    startup: dict[str, float | None]
    """The start of each measured server (the one its loads ran against)."""
    idle: dict[str, int | None]
    raw: dict[str, dict[str, list[dict[str, Any]]]]
    streams: dict[str, dict[str, Any]]
    with_aimock: bool

    def med(self, key: str, name: str, field: str) -> float | None:
        return median([r.get(field) for r in self.raw[key].get(name, [])])

    def cpu_us(self, key: str, name: str) -> float | None:
        """Server CPU µs per request (its CPU time over the run / the requests), the median over
        repetitions: what a request costs, whatever share of the core the server got on a shared machine."""
        return median([r.get("server_cpu_us") for r in self.raw[key].get(name, [])])

    def row(self, label: str, key: str, field: str, digits: int) -> Row:
        return (
            label,
            self.med(key, "emulator", field),
            self.med(key, "baseline", field),
            self.med(key, "aimock", field),
            digits,
        )

    def cpu_row(self, label: str, key: str) -> Row:
        return (label, self.cpu_us(key, "emulator"), self.cpu_us(key, "baseline"), self.cpu_us(key, "aimock"), 1)

    def stream_row(self, label: str, field: str, digits: int) -> Row:
        return (label, self.streams["emulator"].get(field), self.streams["baseline"].get(field), None, digits)

    def per_stream_kb(self, streams: int) -> dict[str, float | None]:
        """Memory each open paced stream took, per server."""
        return {
            name: ((r["rss_peak_kib"] - r["rss_before_kib"]) / streams)
            if r.get("rss_peak_kib") and r.get("rss_before_kib")
            else None
            for name, r in self.streams.items()
        }


def run_loads(
    config: Config, peers: list[Server], emu10k: Server, floor: Server, load_cpu: int | None, scripts: Path
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """The three loads against every peer in turn, rotating who goes first; the non-streamed c=64
    load also against the 10,000-rule emulator and the floor."""
    loads = {
        "plain_c1": Load("plain", PLAIN_PROMPT, 1, config.duration, config.warmup),
        "plain_c64": Load("plain", PLAIN_PROMPT, 64, config.duration, config.warmup),
        "stream_c64": Load("stream", STREAM_PROMPT, 64, config.duration, config.warmup),
    }
    raw: dict[str, dict[str, list[dict[str, Any]]]] = {k: {} for k in loads}
    raw["plain_c64_10k_rules"] = {}
    raw["plain_c64_floor"] = {}
    for rep in range(config.reps):
        for key, load in loads.items():
            turn = rep % len(peers)
            for s in peers[turn:] + peers[:turn]:  # rotate who goes first
                raw[key].setdefault(s.name, []).append(run_wrk(s.url, load, load_cpu, s, scripts))
                print(f"rep {rep + 1}/{config.reps} {key:<11} {s.name:<9} done", file=sys.stderr, flush=True)
            if key == "plain_c64":
                raw["plain_c64_10k_rules"].setdefault(emu10k.name, []).append(
                    run_wrk(emu10k.url, load, load_cpu, emu10k, scripts)
                )
                raw["plain_c64_floor"].setdefault(floor.name, []).append(
                    run_wrk(floor.url, load, load_cpu, floor, scripts)
                )
    return raw


def run_streams(config: Config, servers: tuple[Server, ...], load_cpu: int | None) -> dict[str, dict[str, Any]]:
    """The paced streams held open against each server, with its RSS before and at the peak."""
    streams: dict[str, dict[str, Any]] = {}
    paced = Load("stream", PACED_PROMPT, config.streams, config.hold, 2.0, float(PACED_CHUNK_MS))
    for s in servers:
        before = s.rss_kib()
        result = run_load(s.url, paced, load_cpu, s, rss=True)
        result["rss_before_kib"] = before
        streams[s.name] = result
        print(f"{config.streams} streams {s.name} done", file=sys.stderr, flush=True)
    return streams


def measure(config: Config, server_cores: set[int] | None, load_cpu: int | None) -> Results:
    """Start the servers, time their starts, run the loads (and the paced streams); every server is
    stopped and the temporary folder removed whatever happens."""
    tmp = Path(tempfile.mkdtemp(prefix="zenmux-bench-"))
    servers: list[Server] = []
    try:
        emu_argv = emulator_argv(write_scenarios(tmp / "rules10", 10), tmp / "cache")
        base_argv = [PY, str(HERE / "baseline.py"), "--port", "0"]
        argvs = {"emulator": emu_argv, "baseline": base_argv}
        if config.with_aimock:
            aimock.install()
            argvs["aimock"] = aimock.argv(aimock.write_fixture(tmp / "aimock"))
        compile_package()
        startup, startup_cpu = startups(argvs, server_cores, config.starts)
        print(f"timed {config.starts} starts of each server", file=sys.stderr, flush=True)
        emu = Server("emulator", emu_argv, server_cores, PLAIN_PROMPT)
        emu10k_argv = emulator_argv(write_scenarios(tmp / "rules10000", 10_000), tmp / "cache")
        first10k = Server("emulator-10k", emu10k_argv, server_cores, PLAIN_PROMPT)
        try:
            startup["emulator-10k-first"] = [first10k.start()]  # validates the file and keeps it
        finally:
            first10k.stop()
        emu10k = Server("emulator-10k", emu10k_argv, server_cores, PLAIN_PROMPT)
        base = Server("baseline", base_argv, server_cores, PLAIN_PROMPT)
        floor = Server("floor", [PY, str(HERE / "floor.py"), "--port", "0"], server_cores, PLAIN_PROMPT)
        aim = Server("aimock", argvs["aimock"], server_cores, PLAIN_PROMPT) if "aimock" in argvs else None
        peers = [emu, base] + ([aim] if aim is not None else [])
        servers = [*peers, emu10k, floor]
        for s in servers:
            s.start()
            print(f"started {s.name} in {s.startup_s:.3f} s at {s.url}", file=sys.stderr, flush=True)
        time.sleep(0.5)
        idle = {s.name: s.rss_kib() for s in servers}
        raw = run_loads(config, peers, emu10k, floor, load_cpu, tmp / "wrk")
        emu10k.stop()
        floor.stop()
        if aim is not None:
            aim.stop()  # not in the paced streams: its pacing flag would pace every stream it serves
        streams = run_streams(config, (emu, base), load_cpu) if config.paced else {}
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return Results(
        startups=startup,
        startup_cpus=startup_cpu,
        startup={s.name: s.startup_s for s in servers},
        idle=idle,
        raw=raw,
        streams=streams,
        with_aimock=aim is not None,
    )


def rate_rows(results: Results) -> list[Row]:
    """Latency, requests/s and CPU per request, non-streamed and streamed."""
    return [
        results.row("non-streamed c=1 p50 latency (ms)", "plain_c1", "p50_ms", 2),
        results.row("non-streamed c=1 p99 latency (ms)", "plain_c1", "p99_ms", 2),
        results.row("non-streamed c=64 requests/s", "plain_c64", "rps", 0),
        results.cpu_row("non-streamed c=64 server CPU µs per request", "plain_c64"),
        results.row("streamed 50 chunks c=64 requests/s", "stream_c64", "rps", 0),
        results.row("streamed 50 chunks c=64 chunks/s", "stream_c64", "chunks_per_s", 0),
        results.cpu_row("streamed c=64 server CPU µs per request", "stream_c64"),
        (
            "non-streamed c=64 requests/s, 10,000 rules",
            results.med("plain_c64_10k_rules", "emulator-10k", "rps"),
            None,
            None,
            0,
        ),
    ]


def stream_rows(results: Results, streams: int) -> list[Row]:
    """The paced streams: failures, chunks/s, inter-chunk gaps and their drift."""
    if not results.streams:
        return []
    e, b = results.streams["emulator"], results.streams["baseline"]
    return [
        (f"{streams} streams: failures", e.get("failures"), b.get("failures"), None, 0),
        (f"{streams} streams: chunks/s", e.get("chunks_per_s"), b.get("chunks_per_s"), None, 0),
        results.stream_row(f"{streams} streams: inter-chunk gap p50 (ms)", "gap_p50_ms", 2),
        results.stream_row(f"{streams} streams: inter-chunk gap p99 (ms)", "gap_p99_ms", 2),
        results.stream_row(f"{streams} streams: gap drift p50 (ms)", "gap_drift_p50_ms", 2),
        results.stream_row(f"{streams} streams: gap drift p99 (ms)", "gap_drift_p99_ms", 2),
    ]


def share_rows(results: Results, streams: int) -> list[Row]:
    """The share of a core the servers and the load generator used."""
    rows: list[Row] = []
    for key, label in (("plain_c64", "non-streamed c=64"), ("stream_c64", "streamed c=64")):
        rows.append(results.row(f"server CPU share, {label}", key, "server_cpu_share", 2))
        rows.append(results.row(f"load generator CPU share, {label}", key, "load_cpu_share", 2))
    if results.streams:
        rows.append(results.stream_row(f"server CPU share, {streams} streams", "server_cpu_share", 2))
        rows.append(results.stream_row(f"load generator CPU share, {streams} streams", "load_cpu_share", 2))
    return rows


def footprint_rows(results: Results, config: Config) -> list[Row]:
    """Start-up and memory."""
    rows: list[Row] = [
        (
            f"start to first answer (s, median of {config.starts})",
            median(results.startups["emulator"]),
            median(results.startups["baseline"]),
            median(results.startups.get("aimock", [])),
            3,
        ),
        (
            f"start to first answer, CPU s (median of {config.starts})",
            median(results.startup_cpus["emulator"]),
            median(results.startup_cpus["baseline"]),
            median(results.startup_cpus.get("aimock", [])),
            3,
        ),
        (
            "start to first answer, 10,000 rules, first start (s)",
            median(results.startups["emulator-10k-first"]),
            None,
            None,
            3,
        ),
        (
            "start to first answer, 10,000 rules, validated files kept (s)",
            results.startup["emulator-10k"],
            None,
            None,
            3,
        ),
        (
            "RSS idle (MB)",
            _mb(results.idle.get("emulator")),
            _mb(results.idle.get("baseline")),
            _mb(results.idle.get("aimock")),
            1,
        ),
    ]
    if results.streams:
        e, b = results.streams["emulator"], results.streams["baseline"]
        rows.append(
            (
                f"RSS peak under {config.streams} streams (MB)",
                _mb(e.get("rss_peak_kib")),
                _mb(b.get("rss_peak_kib")),
                None,
                1,
            )
        )
        per_stream = results.per_stream_kb(config.streams)
        rows.append(("memory per open stream (KB)", per_stream.get("emulator"), per_stream.get("baseline"), None, 1))
    return rows


Target = tuple[str, float | None, str, bool | None]
"""A target: label, the value measured, the bound wanted, and a verdict decided beforehand (or None)."""


def targets(results: Results, config: Config) -> list[Target]:
    rps10 = results.med("plain_c64", "emulator", "rps")
    found: list[Target] = [
        (
            "non-streamed requests/s ≥ 0.8× baseline",
            ratio(rps10, results.med("plain_c64", "baseline", "rps")),
            "≥ 0.80",
            None,
        ),
    ]
    if results.with_aimock:
        found += [
            (
                "non-streamed requests/s ≥ 1.0× aimock",
                ratio(rps10, results.med("plain_c64", "aimock", "rps")),
                "≥ 1.00",
                None,
            ),
            (
                "non-streamed CPU per request ≤ aimock's",
                ratio(results.cpu_us("plain_c64", "emulator"), results.cpu_us("plain_c64", "aimock")),
                "≤ 1.00",
                None,
            ),
            (
                "streamed chunks/s ≥ aimock's",
                ratio(
                    results.med("stream_c64", "emulator", "chunks_per_s"),
                    results.med("stream_c64", "aimock", "chunks_per_s"),
                ),
                "≥ 1.00",
                None,
            ),
        ]
    found += [
        (
            "streamed chunks/s ≥ 0.8× baseline",
            ratio(
                results.med("stream_c64", "emulator", "chunks_per_s"),
                results.med("stream_c64", "baseline", "chunks_per_s"),
            ),
            "≥ 0.80",
            None,
        ),
        # time per request with 10,000 rules / with 10
        (
            "10,000 rules ≤ 1.1× the time of 10 rules",
            ratio(rps10, results.med("plain_c64_10k_rules", "emulator-10k", "rps")),
            "≤ 1.10",
            None,
        ),
    ]
    found += stream_targets(results, config.streams)
    found.append(
        (
            "start to first answer ≤ 1.5× baseline's (its CPU time)",
            ratio(median(results.startup_cpus["emulator"]), median(results.startup_cpus["baseline"])),
            "≤ 1.50",
            None,
        )
    )
    found.append(("idle RSS ≤ 60 MB", _mb(results.idle.get("emulator")), "≤ 60", None))
    if results.streams:
        found.append(
            ("memory per open stream ≤ 20 KB", results.per_stream_kb(config.streams).get("emulator"), "≤ 20", None)
        )
    return found


def stream_targets(results: Results, streams: int) -> list[Target]:
    if not results.streams:
        return []
    e, b = results.streams["emulator"], results.streams["baseline"]
    stream_ratio = ratio(e.get("chunks_per_s"), b.get("chunks_per_s"))
    return [
        (
            f"{streams} streams: zero failures and chunks/s ≥ 0.9× baseline",
            stream_ratio,
            "≥ 0.90",
            e.get("failures") == 0 and stream_ratio is not None and stream_ratio >= 0.9,
        ),
        (
            f"{streams} streams: inter-chunk gap p99 ≤ 2× baseline",
            ratio(e.get("gap_p99_ms"), b.get("gap_p99_ms")),
            "≤ 2.00",
            None,
        ),
    ]


def verdict(value: float | None, wanted: str, forced: bool | None) -> bool:
    """Whether a target is met: its forced verdict, else its value against the bound in `wanted`."""
    if forced is not None:
        return forced
    bound = float(wanted.split()[1])
    return value is not None and (value >= bound if wanted.startswith("≥") else value <= bound)


def main() -> int:
    config = parse_config()
    raise_file_limit()
    server_cores, load_cpu = cores()
    started = time.perf_counter()
    results = measure(config, server_cores, load_cpu)

    rows = [
        *rate_rows(results),
        *stream_rows(results, config.streams),
        *share_rows(results, config.streams),
        *footprint_rows(results, config),
    ]
    table = [
        "| measurement | emulator | baseline | aimock | emulator / baseline | emulator / aimock |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, ev, bv, av, digits in rows:
        table.append(
            f"| {label} | {fmt(ev, digits)} | {fmt(bv, digits)} | {fmt(av, digits)} | "
            f"{fmt(ratio(ev, bv), 2)} | {fmt(ratio(ev, av), 2)} |"
        )
    verdicts: list[dict[str, Any]] = []
    tlines = ["| target | measured | wanted | verdict |", "|---|---:|---:|---|"]
    for label, value, wanted, forced in targets(results, config):
        met = verdict(value, wanted, forced)
        verdicts.append({"target": label, "value": value, "wanted": wanted, "met": met})
        tlines.append(f"| {label} | {fmt(value, 2)} | {wanted} | {'MET' if met else 'NOT MET'} |")

    rps10 = results.med("plain_c64", "emulator", "rps")
    rps_floor, rps_base = results.med("plain_c64_floor", "floor", "rps"), results.med("plain_c64", "baseline", "rps")
    floor_line = (
        f"reference, not a target: bench/floor.py (the contract's per-request work, none of the machinery) "
        f"{fmt(rps_floor, 0)} requests/s at c=64 = {fmt(ratio(rps_floor, rps_base), 2)}x the baseline; "
        f"the emulator does {fmt(ratio(rps10, rps_floor), 2)}x the floor"
    )
    m = machine()
    peer_line = (
        f"aimock: {aimock.PACKAGE}@{aimock.VERSION} (Node {node_version()}), one catch-all fixture of the same reply; "
        f"it streams {aimock.stream_chunks()} content chunks of {aimock.STREAM_CHUNK_CHARS} characters where the others send "
        f"50 of one word; not in the paced streams"
        if results.with_aimock
        else "aimock: left out (--no-aimock)"
    )
    header = (
        f"machine: {m['nproc']} cores, {m['cpu_model']}, Python {m['python']}; server cores {sorted(server_cores) if server_cores else 'any'}, "
        f"load (wrk, one thread; the paced streams bench/load.py) core {load_cpu if load_cpu is not None else 'any'}; {config.reps} repetition(s) of {config.duration:g} s (medians), "
        f"{config.streams} streams held {config.hold:g} s; total {time.perf_counter() - started:.0f} s"
    )
    print(header)
    print(peer_line)
    print()
    print("\n".join(table))
    print()
    print("\n".join(tlines))
    print()
    print(floor_line)
    config.out.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "machine": m,
        "config": {
            "reps": config.reps,
            "duration_s": config.duration,
            "warmup_s": config.warmup,
            "streams": config.streams,
            "hold_s": config.hold,
            "starts": config.starts,
            "server_cores": sorted(server_cores) if server_cores else None,
            "load_cpu": load_cpu,
        },
        "startup_s": results.startup,
        "startups_s": results.startups,
        "startup_cpus_s": results.startup_cpus,
        "idle_rss_kib": results.idle,
        "raw": results.raw,
        "streams": results.streams,
        "aimock": {
            "package": aimock.PACKAGE,
            "version": aimock.VERSION,
            "node": node_version(),
            "fixture": aimock.fixture(),
            "stream_chunks": aimock.stream_chunks(),
        }
        if results.with_aimock
        else None,
        "table": [
            {
                "measurement": r[0],
                "emulator": r[1],
                "baseline": r[2],
                "aimock": r[3],
                "ratio": ratio(r[1], r[2]),
                "ratio_aimock": ratio(r[1], r[3]),
            }
            for r in rows
        ],
        "targets": verdicts,
        "floor": {
            "rps": rps_floor,
            "floor_over_baseline": ratio(rps_floor, rps_base),
            "emulator_over_floor": ratio(rps10, rps_floor),
        },
    }
    config.out.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2))
    print(f"\nwritten {config.out}", file=sys.stderr)
    return 0


def node_version() -> str:
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _mb(kib: float | None) -> float | None:
    return None if kib is None else kib / 1024


if __name__ == "__main__":
    sys.exit(main())
