"""Processes the tests start and look for: is a pid alive, what a command started (its descendants and process
group), and starting a command as a terminal starts a job. Shared by the worker, cluster and generator tests."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie still answers kill(0): look at its state (after the command's name, which may hold spaces)
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def processes() -> list[tuple[int, int, int, str, str]]:
    """(pid, ppid, pgid, state, command) of every process."""
    listing = subprocess.run(
        ["ps", "-ww", "-eo", "pid=,ppid=,pgid=,stat=,args="], check=False, capture_output=True, text=True
    ).stdout
    rows = []
    for line in listing.splitlines():
        pid, ppid, pgid, stat, *command = line.split(None, 4)
        rows.append((int(pid), int(ppid), int(pgid), stat, " ".join(command)))
    return rows


def family_of(root: int) -> set[int]:
    """The process `root`, its descendants (Ray's actors start sessions of their own) and its process group."""
    rows = processes()
    family = {root} | {pid for pid, _, pgid, _, _ in rows if pgid == root}
    grew = True
    while grew:
        more = {pid for pid, ppid, _, _, _ in rows if ppid in family} - family
        family |= more
        grew = bool(more)
    return family


def alive(pids: set[int]) -> list[str]:
    """'pid command' of those of `pids` still running (zombies are not)."""
    return [f"{pid} {command}" for pid, _, _, stat, command in processes() if pid in pids and not stat.startswith("Z")]


def start_in_own_group(argv: list[str], sigint_ignored: bool = False) -> subprocess.Popen:
    """Start a command from the project's folder in a process group of its own, as a terminal starts a job (Ctrl+C
    there is SIGINT to the group: os.killpg), its output read as text. `sigint_ignored`: as a shell without job
    control starts a job in the background (`command &` in a script), SIGINT ignored from the start."""
    return subprocess.Popen(
        argv,
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None,
    )
