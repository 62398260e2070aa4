"""``python -m ember.distributed.run``, ember's torchrun: environment, output, failure, signals.

Every launcher runs under a timeout, and every worker a test starts writes ``RANK-PID`` into
``tmp_path/pids``; the ``pids`` fixture SIGKILLs whatever of those is still alive afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ember.distributed import run as launcher

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 30
ENV_KEYS = (
    "RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE GROUP_RANK GROUP_WORLD_SIZE ROLE_NAME ROLE_RANK "
    "ROLE_WORLD_SIZE MASTER_ADDR MASTER_PORT TORCHELASTIC_RESTART_COUNT TORCHELASTIC_MAX_RESTARTS "
    "TORCHELASTIC_RUN_ID OMP_NUM_THREADS PYTHONUNBUFFERED EMBER_LAUNCHER"
).split()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie nobody has reaped yet is dead
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


@pytest.fixture
def pids(tmp_path: Path):
    """The directory workers write their pids into; kills any survivor at teardown."""
    directory = tmp_path / "pids"
    directory.mkdir()
    yield directory
    for entry in directory.iterdir():
        pid = int(entry.name.split("-")[1])
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _read_pids(directory: Path) -> dict[int, int]:
    return {int(p.name.split("-")[0]): int(p.name.split("-")[1]) for p in directory.iterdir()}


def _script(tmp_path: Path, pids: Path, body: str, name: str = "worker.py") -> Path:
    preamble = (
        "import json, os, signal, subprocess, sys, time\n"
        f"open(os.path.join({str(pids)!r}, os.environ['RANK'] + '-' + str(os.getpid())), 'w')"
        ".close()\n"
        "RANK = int(os.environ['RANK'])\n"
    )
    path = tmp_path / name
    path.write_text(preamble + textwrap.dedent(body))
    return path


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("OMP_NUM_THREADS", None)
    env.update(extra)
    return env


def _launch(*args: str, cwd: Path | None = None, timeout: float = TIMEOUT, **env: str):
    cmd = [sys.executable, "-m", "ember.distributed.run", *args]
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=_env(**env)
    )


def _rank_lines(text: str) -> dict[int, list[str]]:
    lines: dict[int, list[str]] = {}
    for line in text.splitlines():
        if line.startswith("[rank"):
            head, _, rest = line.partition("]: ")
            lines.setdefault(int(head[5:]), []).append(rest)
    return lines


def _envs(stdout: str) -> dict[int, dict[str, str]]:
    return {rank: json.loads(lines[0]) for rank, lines in _rank_lines(stdout).items()}


PRINT_ENV = f"print(json.dumps({{k: os.environ.get(k) for k in {ENV_KEYS!r}}}))\n"


@pytest.mark.parametrize("nproc", [2, 4])
def test_every_rank_sees_torchruns_environment(tmp_path, pids, nproc):
    script = _script(tmp_path, pids, PRINT_ENV)
    result = _launch("--nproc-per-node", str(nproc), "--max-restarts", "2", str(script))
    assert result.returncode == 0, result.stderr
    envs = _envs(result.stdout)
    assert sorted(envs) == list(range(nproc))
    ports = {env["MASTER_PORT"] for env in envs.values()}
    run_ids = {env["TORCHELASTIC_RUN_ID"] for env in envs.values()}
    assert len(ports) == 1 and len(run_ids) == 1 and 0 < int(ports.pop()) < 65536
    for rank, env in envs.items():
        assert env == {
            **env,
            "RANK": str(rank),
            "LOCAL_RANK": str(rank),
            "WORLD_SIZE": str(nproc),
            "LOCAL_WORLD_SIZE": str(nproc),
            "GROUP_RANK": "0",
            "GROUP_WORLD_SIZE": "1",
            "ROLE_NAME": "default",
            "ROLE_RANK": str(rank),
            "ROLE_WORLD_SIZE": str(nproc),
            "MASTER_ADDR": "127.0.0.1",
            "TORCHELASTIC_RESTART_COUNT": "0",
            "TORCHELASTIC_MAX_RESTARTS": "2",
            "OMP_NUM_THREADS": "1",
            "PYTHONUNBUFFERED": "1",
            "EMBER_LAUNCHER": "1",
        }
    assert "Setting OMP_NUM_THREADS environment variable" in result.stderr


def test_environment_matches_torchrun(tmp_path, pids):
    script = _script(tmp_path, pids, PRINT_ENV)
    with socket.socket() as sock:  # torchrun's agent binds the port: take a free one
        sock.bind(("127.0.0.1", 0))
        port = str(sock.getsockname()[1])
    args = ("--nproc-per-node", "2", "--master-port", port, str(script))
    ours = _envs(_launch(*args).stdout)
    theirs = _envs(
        subprocess.run(
            [
                sys.executable,
                "-m",
                "torch.distributed.run",
                "--tee",
                "3",
                "--log-dir",
                str(tmp_path / "torchrun_logs"),
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env=_env(),
        )
        .stdout.replace("[default0]:", "[rank0]: ")
        .replace("[default1]:", "[rank1]: ")
    )
    assert sorted(theirs) == [0, 1]
    for env in theirs.values():
        assert env.pop("EMBER_LAUNCHER") is None
    for env in ours.values():
        assert env.pop("EMBER_LAUNCHER") == "1"
    assert ours == theirs


def test_explicit_master_and_a_fixed_port_and_run_id(tmp_path, pids):
    script = _script(tmp_path, pids, PRINT_ENV)
    result = _launch(
        "--nproc-per-node",
        "1",
        "--master-addr",
        "localhost",
        "--master-port",
        "29533",
        "--rdzv-id",
        "job7",
        str(script),
    )
    env = _envs(result.stdout)[0]
    assert (env["MASTER_ADDR"], env["MASTER_PORT"], env["TORCHELASTIC_RUN_ID"]) == (
        "localhost",
        "29533",
        "job7",
    )
    assert env["OMP_NUM_THREADS"] is None  # nproc 1: torchrun leaves it unset too


def test_second_node_gets_global_ranks(tmp_path, pids):
    script = _script(tmp_path, pids, PRINT_ENV)
    result = _launch("--nnodes", "2", "--node-rank", "1", "--nproc-per-node", "2", str(script))
    assert result.returncode == 0, result.stderr
    envs = _envs(result.stdout)
    assert sorted(envs) == [2, 3]
    for rank, env in envs.items():
        assert (env["RANK"], env["LOCAL_RANK"], env["WORLD_SIZE"], env["GROUP_RANK"]) == (
            str(rank),
            str(rank - 2),
            "4",
            "1",
        )
        assert (env["LOCAL_WORLD_SIZE"], env["MASTER_PORT"]) == ("2", "29500")


def test_output_is_prefixed_per_rank_and_stream(tmp_path, pids):
    body = """
    print(f"out {RANK}")
    print(f"err {RANK}", file=sys.stderr)
    sys.stdout.write(f"partial {RANK}")
    """
    result = _launch("--nproc-per-node", "2", str(_script(tmp_path, pids, body)), "a", "b")
    assert result.returncode == 0, result.stderr
    out, err = _rank_lines(result.stdout), _rank_lines(result.stderr)
    assert out == {0: ["out 0", "partial 0"], 1: ["out 1", "partial 1"]}
    assert err == {0: ["err 0"], 1: ["err 1"]}
    assert result.stdout.endswith("\n")


def test_script_arguments_and_module_mode(tmp_path, pids):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    _script(package, pids, "print(sys.argv[1:], __name__)\n", name="job.py")
    result = _launch("--nproc-per-node", "2", "-m", "pkg.job", "--lr", "0.1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert _rank_lines(result.stdout) == {r: ["['--lr', '0.1'] __main__"] for r in (0, 1)}


def test_run_path_and_no_python(tmp_path, pids):
    script = _script(tmp_path, pids, "print(sys.argv, __name__)\n")
    result = _launch("--run-path", str(script), "x")
    assert _rank_lines(result.stdout) == {0: [f"[{str(script)!r}, 'x'] __main__"]}
    result = _launch("--nproc-per-node", "2", "--no-python", "sh", "-c", 'echo "$RANK"')
    assert _rank_lines(result.stdout) == {0: ["0"], 1: ["1"]}


def test_failed_rank_is_reported_and_the_others_stopped(tmp_path, pids):
    body = """
    if RANK == 1:
        time.sleep(0.5)
        sys.exit(3)
    time.sleep(60)
    """
    start = time.monotonic()
    result = _launch("--nproc-per-node", "3", str(_script(tmp_path, pids, body)))
    assert time.monotonic() - start < 10
    assert result.returncode == 1
    ranks = _read_pids(pids)
    assert "Root Cause (first observed failure):" in result.stderr
    assert "  rank      : 1 (local_rank: 1, node_rank: 0)" in result.stderr
    assert f"  exitcode  : 3 (pid: {ranks[1]})" in result.stderr
    stopped = "stopped by the launcher with SIGTERM (exitcode: -15 (SIGTERM)"
    assert f"rank 0: {stopped}, pid: {ranks[0]})" in result.stderr
    assert f"rank 2: {stopped}, pid: {ranks[2]})" in result.stderr
    assert not [pid for pid in ranks.values() if _alive(pid)]


def test_signal_death_and_traceback_tail_are_reported(tmp_path, pids):
    body = """
    if RANK == 0:
        for i in range(40):
            print(f"noise {i}", file=sys.stderr)
        def deep():
            raise ValueError("boom marker")
        deep()
    if RANK == 1:
        time.sleep(60)
    """
    result = _launch("--nproc-per-node", "2", str(_script(tmp_path, pids, body)))
    assert result.returncode == 1
    report = result.stderr[result.stderr.index("Root Cause") :]
    assert "exitcode  : 1 " in report
    assert "last 20 line(s) of rank 0:" in report
    assert "    Traceback (most recent call last):" in report
    assert "    ValueError: boom marker" in report
    assert "noise 19" not in report and "noise 39" in report

    body = """
    if RANK == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)
    """
    result = _launch("--nproc-per-node", "2", str(_script(tmp_path, pids, body, "kill.py")))
    assert result.returncode == 1
    assert "  exitcode  : -9 (SIGKILL) (pid: " in result.stderr
    assert "  stderr    : (empty)" in result.stderr
    assert not [pid for pid in _read_pids(pids).values() if _alive(pid)]


def test_sigterm_ignored_by_a_worker_is_followed_by_sigkill(tmp_path, pids):
    body = f"""
    if RANK == 1:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the grandchild inherits SIG_IGN
        grandchild = "import os, time; open(os.path.join({str(pids)!r}, '99-' + str(os.getpid())), 'w'); time.sleep(60)"
        subprocess.Popen([sys.executable, "-c", grandchild])
        time.sleep(60)
    deadline = time.monotonic() + 20
    while len(os.listdir({str(pids)!r})) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    sys.exit(2)
    """  # noqa: E501
    start = time.monotonic()
    result = _launch(
        "--nproc-per-node", "2", "--shutdown-timeout", "1", str(_script(tmp_path, pids, body))
    )
    assert 1 <= time.monotonic() - start < 10
    assert "exitcode  : 2 " in result.stderr
    assert "rank 1: stopped by the launcher with SIGTERM (exitcode: -9 (SIGKILL)" in result.stderr
    ranks = _read_pids(pids)
    assert sorted(ranks) == [0, 1, 99]
    assert not [pid for pid in ranks.values() if _alive(pid)]


def test_max_restarts_restarts_the_group(tmp_path, pids):
    body = """
    attempt = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
    print(f"attempt {attempt} port {os.environ['MASTER_PORT']}")
    if attempt == 0 and RANK == 1:
        sys.exit(5)
    time.sleep(0.3 if attempt == 0 else 0)
    """
    result = _launch(
        "--nproc-per-node", "2", "--max-restarts", "1", str(_script(tmp_path, pids, body))
    )
    assert result.returncode == 0, result.stderr
    assert "rank 1 failed (exitcode: 5" in result.stderr
    assert "restarting the worker group (1 of --max-restarts 1)" in result.stderr
    lines = _rank_lines(result.stdout)
    assert [line.split(" port")[0] for line in lines[1]] == ["attempt 0", "attempt 1"]
    assert "FAILED" not in result.stderr

    body = "sys.exit(4)\n"
    result = _launch("--max-restarts", "1", str(_script(tmp_path, pids, body, "always.py")))
    assert result.returncode == 1
    assert "restarts  : 1 (--max-restarts 1)" in result.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_to_the_launcher_stops_every_worker(tmp_path, pids, sig):
    script = _script(tmp_path, pids, "time.sleep(60)\n")
    cmd = [sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", "3", str(script)]
    proc = subprocess.Popen(
        cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        while len(list(pids.iterdir())) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
    assert proc.returncode == 128 + sig
    assert f"received {sig.name}: stopping the workers" in err.decode()
    ranks = _read_pids(pids)
    assert sorted(ranks) == [0, 1, 2]
    assert not [pid for pid in ranks.values() if _alive(pid)]


def test_filters_and_log_files(tmp_path, pids):
    script = _script(tmp_path, pids, 'print(f"hi {RANK}")\nprint("e", file=sys.stderr)\n')
    logs = tmp_path / "logs"
    result = _launch(
        "--nproc-per-node",
        "2",
        "--local-ranks-filter",
        "1",
        "--log-dir",
        str(logs),
        "--tee",
        "1",
        "--redirects",
        "0:2",
        "--rdzv-id",
        "job",
        str(script),
    )
    assert result.returncode == 0, result.stderr
    assert _rank_lines(result.stdout) == {1: ["hi 1"]}
    assert _rank_lines(result.stderr) == {1: ["e"]}
    (job,) = logs.iterdir()
    assert job.name.startswith("job_")
    assert (job / "attempt_0" / "0" / "stdout.log").read_text() == "hi 0\n"
    assert (job / "attempt_0" / "0" / "stderr.log").read_text() == "e\n"
    assert not (job / "attempt_0" / "1" / "stderr.log").exists()


def test_a_missing_program_is_reported():
    result = _launch("--no-python", "/nonexistent/program")
    assert result.returncode == 1
    assert "cannot start '/nonexistent/program'" in result.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--nnodes", "1:2", "x.py"], "elastic ranges need a rendezvous"),
        (["--nproc-per-node", "gpu", "x.py"], "takes an int, 'cpu' or 'auto'"),
        (["--nproc-per-node", "0", "x.py"], "must be at least 1"),
        (["--nnodes", "2", "--node-rank", "2", "x.py"], r"must be in \[0, --nnodes 2\)"),
        (["--nnodes", "2", "--master-port", "0", "x.py"], "known to one node only"),
        (["--nnodes", "2", "--standalone", "x.py"], "--standalone is for one node"),
        (["--rdzv-backend", "etcd", "x.py"], "knows 'static' and 'c10d'"),
        (["--numa-binding", "node", "x.py"], "--numa-binding is not supported"),
        (["--rdzv-conf", "a=1", "x.py"], "--rdzv-conf is not supported"),
        (["--no-python", "-m", "x"], "both --no-python and --module"),
        (["--tee", "5", "x.py"], "--tee '5': expected 0-3"),
        (["--signals-to-handle", "SIGNOPE", "x.py"], "unknown signal 'SIGNOPE'"),
    ],
)
def test_refused_flags_say_why(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        launcher.config_from_args(launcher.parse_args(argv))
    assert exit_info.value.code == 2
    assert __import__("re").search(message, capsys.readouterr().err)


def test_flags_map_onto_a_config():
    args = [
        "--nproc_per_node=cpu",
        "--rdzv-backend",
        "c10d",
        "--rdzv-endpoint",
        "node0",
        "--start-method",
        "fork",
        "--role",
        "trainer",
        "--shutdown-timeout",
        "2",
        "t.py",
        "-v",
    ]
    config = launcher.config_from_args(launcher.parse_args(args))
    assert config.nproc_per_node == os.cpu_count()
    assert (config.master_addr, config.master_port, config.role) == ("node0", 29400, "trainer")
    assert config.cmd == (sys.executable, "-u", "t.py", "-v")
    assert config.shutdown_timeout == 2.0
    config = launcher.config_from_args(launcher.parse_args(["--rdzv-endpoint", "[::1]:7", "t.py"]))
    assert (config.master_addr, config.master_port) == ("[::1]", 7)
    config = launcher.config_from_args(launcher.parse_args(["--standalone", "t.py"]))
    assert config.master_port == 0 and config.run_id != "none"


CASCADE = """
def gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True

deadline = time.monotonic() + 20
while len(os.listdir(PIDS)) < 3 and time.monotonic() < deadline:
    time.sleep(0.005)
if RANK == 1:
    DIE()
pid1 = next(int(n.split("-")[1]) for n in os.listdir(PIDS) if n.startswith("1-"))
while not gone(pid1) and time.monotonic() < deadline:  # as a collective would notice
    time.sleep(0.005)
time.sleep(GAP)
sys.exit(1)  # as a DistBackendError would end it
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="the workers read /proc")
@pytest.mark.parametrize(
    "die, gap, exitcode",
    [
        # seen dead in one poll with the others, a death by a signal is the root cause
        pytest.param("os.kill(os.getpid(), signal.SIGKILL)", 0.0, "-9 (SIGKILL)", id="sigkill"),
        # all exit 1: only the time each exit was seen tells them apart
        pytest.param(
            "sys.exit(1)",
            0.05,
            "1",
            id="exit-1",
            marks=pytest.mark.skipif(
                not hasattr(os, "pidfd_open"), reason="telling exits 50 ms apart needs pidfds"
            ),
        ),
    ],
)
def test_the_root_cause_is_the_rank_that_died_first(tmp_path, pids, die, gap, exitcode):
    # rank 1 dies; ranks 0 and 2 exit 1 shortly after, as they would of the DistBackendError
    # their collective raises: the report must blame rank 1, not the lowest rank seen dead
    body = CASCADE.replace("PIDS", repr(str(pids))).replace("DIE()", die)
    body = body.replace("GAP", repr(gap))
    for attempt in range(5):
        for entry in pids.iterdir():
            entry.unlink()
        script = _script(tmp_path, pids, body, f"cascade{attempt}.py")
        result = _launch("--nproc-per-node", "3", str(script))
        assert result.returncode == 1, result.stderr
        report = result.stderr[result.stderr.index("Root Cause") :]
        ranks = _read_pids(pids)
        assert "  rank      : 1 (local_rank: 1, node_rank: 0)" in report, (attempt, report)
        assert f"  exitcode  : {exitcode} (pid: {ranks[1]})" in report, (attempt, report)
        assert not [pid for pid in ranks.values() if _alive(pid)]
