#!/usr/bin/env python3
"""A real cluster: a one-node Slurm on localhost (munged with a key made
here, slurmctld and slurmd with a slurm.conf in a temporary folder), an
array of 4 tasks running vkfx --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT
over 40 images made from images/:

1. every output is written by exactly one task (their --json reports) and
   has the bytes of one vkfx process over the same inputs;
2. with one task killed mid-way (its outputs written but the last, whose
   input is for now a FIFO that nothing writes, so the task waits on it
   however fast or slow the machine), the array submitted again with
   --skip-existing (the input back in place) completes the set, and the
   outputs written before the cancel keep their modification times.

The daemons are stopped at the end, also when the test fails. If Slurm
cannot start, the test fails with the reason; it is never skipped.

    python3 tests/test_slurm.py VKFX IMAGES_DIR"""
import json
import os
import pwd
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

import photo_tiles

CHAIN = "gauss:sigma=2"
TASKS = 4
IMAGES = 40
LAST = 37  # the killed task's last input, a FIFO while that task runs


class Failure(Exception):
    pass


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise Failure(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """munged, slurmctld and slurmd in the foreground, as children of this
    process, configured under root."""

    def __init__(self, root):
        self.root = root
        self.procs = []
        self.conf = os.path.join(root, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    def tail(self, name):
        path = os.path.join(self.root, name)
        if not os.path.exists(path):
            return f"({name}: none)"
        lines = open(path, errors="replace").read().splitlines()[-8:]
        return f"{name}:\n  " + "\n  ".join(lines)

    def daemon(self, name, cmd):
        if not shutil.which(cmd[0]):
            raise Failure(f"{cmd[0]} is not installed (Debian packages slurm-wlm, munge)")
        log = open(os.path.join(self.root, name + ".out"), "w")
        self.procs.append((name, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                                  env=self.env)))

    def start(self):
        r = self.root
        user = pwd.getpwuid(os.getuid()).pw_name
        host = socket.gethostname().split(".")[0]
        sock = os.path.join(r, "munge.socket")
        os.makedirs(os.path.join(r, "state"))
        os.makedirs(os.path.join(r, "spool"))
        key = os.path.join(r, "munge.key")
        run(["mungekey", "--create", "--keyfile", key])
        with open(self.conf, "w") as f:
            f.write(f"""ClusterName=vkfxtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser={user}
SlurmdUser={user}
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.pid
SlurmctldLogFile={r}/slurmctld.log
SlurmdLogFile={r}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
KillWait=1
NodeName=vkfxnode NodeHostname={host} NodeAddr=127.0.0.1 CPUs={TASKS} State=UNKNOWN
PartitionName=vkfx Nodes=vkfxnode Default=YES MaxTime=INFINITE State=UP
""")
        self.daemon("munged", ["munged", "--foreground", "--force", f"--socket={sock}",
                               f"--key-file={key}", f"--log-file={r}/munged.log",
                               f"--pid-file={r}/munged.pid", f"--seed-file={r}/munged.seed"])
        deadline = time.time() + 10
        while not os.path.exists(sock):
            if time.time() > deadline or self.procs[0][1].poll() is not None:
                raise Failure("munged did not start\n" + self.tail("munged.out") + "\n" +
                              self.tail("munged.log"))
            time.sleep(0.05)
        self.daemon("slurmctld", ["slurmctld", "-D", "-f", self.conf])
        self.daemon("slurmd", ["slurmd", "-D", "-f", self.conf, "-N", "vkfxnode"])
        deadline = time.time() + 30
        state = ""
        while time.time() < deadline:
            for name, p in self.procs:
                if p.poll() is not None:
                    raise Failure(f"{name} exited with {p.returncode}\n" +
                                  self.tail(name + ".out") + "\n" + self.tail(name + ".log"))
            r_ = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True,
                                env=self.env)
            state = (r_.stdout + r_.stderr).strip()
            if state == "idle":
                return
            time.sleep(0.2)
        raise Failure(f"the node did not become idle in 30 s (sinfo: {state})\n" +
                      self.tail("slurmctld.log") + "\n" + self.tail("slurmd.log"))

    def stop(self):
        if any(name == "slurmctld" and p.poll() is None for name, p in self.procs):
            subprocess.run(["scancel", "--full", "--partition", "vkfx"], env=self.env,
                           capture_output=True)
            deadline = time.time() + 15
            while time.time() < deadline and self.squeue(""):
                time.sleep(0.2)
        for name, p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.procs = []

    def sbatch(self, script, log):
        out = run(["sbatch", "--parsable", f"--array=0-{TASKS - 1}", "--cpus-per-task=1",
                   "--chdir", self.root, "-o", log, script], env=self.env)
        return out.strip().split(";")[0]

    def squeue(self, job):
        """The array tasks of job (all jobs if empty) still queued or running."""
        cmd = ["squeue", "-h", "-r", "-o", "%i %t"] + (["-j", job] if job else [])
        r = subprocess.run(cmd, capture_output=True, text=True, env=self.env)
        if r.returncode != 0 and "Invalid job id" not in r.stderr:
            raise Failure(f"squeue: {r.stderr.strip()}")
        return [line.split() for line in r.stdout.splitlines() if line.strip()]

    def wait(self, job, timeout=240):
        deadline = time.time() + timeout
        while self.squeue(job):
            if time.time() > deadline:
                raise Failure(f"job {job} still running after {timeout} s: {self.squeue(job)}")
            time.sleep(0.1)


def reports(log_dir, prefix):
    """Every JSON line of the tasks' reports, by task."""
    out = {}
    for t in range(TASKS):
        path = os.path.join(log_dir, f"{prefix}-{t}.jsonl")
        out[t] = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
    return out


def listing(d):
    """The names in d, less hidden ones (vkfx's temporaries)."""
    return sorted(n for n in os.listdir(d) if not n.startswith("."))


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def main():
    vkfx, images = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    work = tempfile.mkdtemp(prefix="vkfx-slurm-")
    os.chmod(work, 0o700)  # munged wants its folders private
    cluster = Cluster(work)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"))
    t0 = time.time()
    try:
        # The inputs: 40 crops of the photos.
        src, inp, ref = (os.path.join(work, d) for d in ("src", "in", "ref"))
        for d in (inp, ref, os.path.join(work, "log")):
            os.makedirs(d)
        photo_tiles.make(vkfx, images, src, inp, IMAGES,
                         lambda i: (96 + 8 * (i % 5), 64 + 8 * (i % 3)), env)
        names = [f"img{i:02d}.png" for i in range(IMAGES)]
        # --shard cuts the plan sorted by output name: LAST is the last of
        # its task's, after several others.
        victim = names.index(f"img{LAST:02d}.png") % TASKS
        mine = [n for k, n in enumerate(names) if k % TASKS == victim]
        assert mine[-1] == f"img{LAST:02d}.png" and len(mine) > 3
        run([vkfx, "-f", CHAIN, "-o", os.path.join(ref, "{stem}.png"), inp], env=env)

        cluster.start()
        print(f"slurm up after {time.time() - t0:.1f} s", flush=True)

        def submit(out, prefix, resume):
            script = os.path.join(work, prefix + ".sh")
            with open(script, "w") as f:
                f.write("#!/bin/sh\n"
                        f"exec '{vkfx}' -f '{CHAIN}' -o '{out}/{{stem}}.png' '{inp}' -j 2 "
                        "--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT "
                        f"--json='{work}/log/{prefix}-'$SLURM_ARRAY_TASK_ID.jsonl"
                        f"{' --skip-existing' if resume else ''}\n")
            os.chmod(script, 0o755)
            return cluster.sbatch(script, os.path.join(work, "log", prefix + "-%a.out"))

        # 1. The array writes every output once, with one process's bytes.
        out1 = os.path.join(work, "out1")
        os.makedirs(out1)
        job = submit(out1, "whole", False)
        cluster.wait(job)
        seen = {}
        for t, lines in reports(os.path.join(work, "log"), "whole").items():
            for l in lines:
                name = os.path.basename(l["output"])
                if l["status"] != "ok" or l["shard"] != f"{t}/{TASKS}":
                    raise Failure(f"task {t}: {l}")
                if name in seen:
                    raise Failure(f"{name} written by tasks {seen[name]} and {t}")
                seen[name] = t
        if sorted(seen) != names or listing(out1) != names:
            missing = sorted(set(names) - set(seen))
            raise Failure(f"outputs missing after the array: {missing}\n" +
                          "".join(open(os.path.join(work, "log", f"whole-{t}.out")).read()
                                  for t in range(TASKS)))
        for n in names:
            if not same_bytes(os.path.join(out1, n), os.path.join(ref, n)):
                raise Failure(f"{n} from the array differs from one process's")
        print(f"array of {TASKS}: {IMAGES} outputs, each once, same bytes "
              f"({time.time() - t0:.1f} s)", flush=True)

        # 2. One task cancelled mid-way, then the array again with --skip-existing.
        out2 = os.path.join(work, "out2")
        os.makedirs(out2)
        last = os.path.join(inp, f"img{LAST:02d}.bmp")
        os.rename(last, os.path.join(work, "last.bmp"))
        os.mkfifo(last)  # the task's second codec thread writes the others meanwhile
        job = submit(out2, "cut", True)
        deadline = time.time() + 120
        while not all(os.path.exists(os.path.join(out2, n)) for n in mine[:-1]):
            if time.time() > deadline or not cluster.squeue(f"{job}_{victim}"):
                raise Failure(f"task {victim} ended or stalled before its first outputs: "
                              f"{listing(out2)}")
            time.sleep(0.02)
        # As Slurm cancels: SIGTERM (vkfx finishes the images in hand, and
        # the one waiting on the FIFO never comes), then SIGKILL after
        # KillWait, as when a node dies (a temporary of an image in hand may
        # stay, a hidden name that no later run reads or counts).
        run(["scancel", f"{job}_{victim}"], env=cluster.env)
        cluster.wait(job)
        os.unlink(last)
        os.rename(os.path.join(work, "last.bmp"), last)
        before = {n: os.stat(os.path.join(out2, n)).st_mtime_ns for n in listing(out2)}
        if mine[-1] in before:
            raise Failure(f"task {victim} finished before it was cancelled")
        if not any(n in before for n in mine):
            raise Failure(f"task {victim} wrote nothing before it was cancelled")
        time.sleep(0.05)  # a rewritten file would get a later time
        job = submit(out2, "resume", True)
        cluster.wait(job)
        if listing(out2) != names:
            raise Failure(f"after the resume: {sorted(set(names) ^ set(listing(out2)))}")
        for n in names:
            if not same_bytes(os.path.join(out2, n), os.path.join(ref, n)):
                raise Failure(f"{n} after the resume differs from one process's")
        for n, t in before.items():
            if os.stat(os.path.join(out2, n)).st_mtime_ns != t:
                raise Failure(f"{n}, written before the cancel, was written again")
        redone = {os.path.basename(l["output"]): l["status"]
                  for lines in reports(os.path.join(work, "log"), "resume").values()
                  for l in lines}
        want = {n: "exists" if n in before else "ok" for n in names}
        if redone != want:
            raise Failure(f"the resume's reports: {redone}, expected {want}")
        print(f"cancelled task {victim} after {len([n for n in mine if n in before])} of "
              f"{len(mine)} outputs; the resume wrote {IMAGES - len(before)}, kept "
              f"{len(before)} ({time.time() - t0:.1f} s)", flush=True)
    except Failure as e:
        print(f"slurm test: {e}", file=sys.stderr)
        return 1
    finally:
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
