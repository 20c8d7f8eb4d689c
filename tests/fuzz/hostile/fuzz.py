#!/usr/bin/env python3
"""The hostile-config fuzzer (tests/fuzz/hostile/run.sh runs it; README there).

Mutates the engines' real config.json documents (podman 4.3.1, containerd
1.6.20: tests/unit/data/) and `sbrun spec`'s, runs each with the built sbrun
under the standard or the strict floor, with a probe as the process
(probe.sh), and judges what came out with oracles inside (capabilities,
seccomp, no_new_privs, namespaces, tmpfs ceilings, read-only mounts, device
nodes, the host canaries it could read) and on the host (canaries, the
seccomp cache, another container's state, the audit log, leftovers).

A refusal by sbrun (an error, a non-zero exit) is a fine outcome. A finding
is printed with the config that caused it, saved with placeholders for the
run's paths so that `--replay FILE` runs it again.

Everything the fuzzer writes is in its own work directory, its canary
directory /var/tmp/sbrun-fuzz-SEED-PID and the canary /etc/MARK.canary (and
MARK.written where a broken floor lets the probe write one); all are removed
at the end. State roots are private (--root in the work directory).
"""
import argparse
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# Docker's default set minus NET_RAW, MKNOD, AUDIT_WRITE, SETFCAP
# (docs/policy.md, standard): CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID
# SETUID SETPCAP NET_BIND_SERVICE SYS_CHROOT.
STANDARD_CAPS = sum(1 << b for b in (0, 1, 3, 4, 5, 6, 7, 8, 10, 18))
CEILINGS = {  # tmpfs size (KiB, as the kernel shows it) and nr_inodes
    "standard": (1 << 20, 1 << 20),
    "strict": (64 << 10, 16384),
}
ALLOWED_DEVICES = {(1, 3), (1, 5), (1, 7), (1, 8), (1, 9), (5, 0), (5, 2)}

# Categories whose operators can be selected with --only / --exclude.
CATEGORIES = ["root", "root-bundle", "bind", "options", "system", "state", "seccomp-cache",
              "tmpfs", "ns", "caps", "seccomp", "devices", "hooks", "annotations", "sizes",
              "paths"]

ALL_CAPS = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
            "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
            "CAP_NET_BIND_SERVICE", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_SYS_MODULE",
            "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_ADMIN", "CAP_SYS_BOOT",
            "CAP_MKNOD", "CAP_AUDIT_WRITE", "CAP_SETFCAP", "CAP_MAC_ADMIN", "CAP_SYSLOG",
            "CAP_BPF", "CAP_CHECKPOINT_RESTORE"]


def sha(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def realpath(p):
    """os.path.realpath, or the path as given where it cannot be resolved
    (/proc/1/root without CAP_SYS_PTRACE)."""
    try:
        return os.path.realpath(p)
    except OSError:
        return os.path.normpath(p)


def log(msg):
    print(msg, flush=True)


class Fuzzer:
    def __init__(self, a):
        self.a = a
        self.sbrun = os.path.abspath(a.sbrun)
        self.work = os.path.realpath(
            a.keep or tempfile.mkdtemp(prefix="sbrun-hostile.", dir=a.tmpdir))
        os.makedirs(self.work, exist_ok=True)
        os.chmod(self.work, 0o755)
        self.mark = "sbrun-fuzz-%d-%d" % (a.seed, os.getpid())
        self.secrets = {}
        self.canary_dir = "/var/tmp/" + self.mark
        self.etc_canary = "/etc/%s.canary" % self.mark
        self.state = os.path.join(self.work, "state")
        self.cache = os.path.join(self.state, ".seccomp-cache")
        self.audit = os.path.join(self.work, "audit", "audit.jsonl")
        self.userdata = os.path.join(self.work, "userdata")
        self.forge = os.path.join(self.work, "forge")
        self.victim = "fzvictim-%d" % os.getpid()
        self.victim_pid = None
        self.findings = 0
        self.tried = 0
        self.refused = 0
        self.ran = 0
        self.host_ns = {n: os.readlink("/proc/self/ns/" + n) for n in
                        ("pid", "mnt", "ipc", "uts", "cgroup", "net")}
        with open(os.path.join(HERE, "probe.sh")) as f:
            self.probe_template = f.read()
        self.bases = {}

    # --- set-up ------------------------------------------------------------

    def setup(self):
        os.makedirs(self.state, mode=0o700)
        os.makedirs(self.cache, mode=0o700)
        os.makedirs(os.path.dirname(self.audit), mode=0o700)
        os.makedirs(os.path.join(self.userdata, "shm"))
        for f in ("resolv.conf", "hosts", "hostname", ".containerenv"):
            with open(os.path.join(self.userdata, f), "w") as fh:
                fh.write("# %s from the fuzzer\n" % f)
        shutil.copy(self.a.forge, self.forge)
        os.makedirs(self.canary_dir, mode=0o755)
        for name in ("standard", "strict"):
            pol = {"cgroups": {"enforce": False}, "audit": {"log": self.audit},
                   "floor": {"profile": name}}
            p = os.path.join(self.work, "policy-%s.json" % name)
            with open(p, "w") as fh:
                json.dump(pol, fh)
            os.chmod(p, 0o644)
        spec_dir = os.path.join(self.work, "spec")
        os.makedirs(spec_dir)
        subprocess.run([self.sbrun, "spec"], cwd=spec_dir, check=True)
        with open(os.path.join(spec_dir, "config.json")) as f:
            self.bases["spec"] = json.load(f)
        data = os.path.join(self.a.srcdir, "tests", "unit", "data")
        for name, doc in (("podman", "podman-4.3.1-config.json"),
                          ("containerd", "containerd-1.6.20-config.json")):
            with open(os.path.join(data, doc)) as f:
                self.bases[name] = json.load(f)
        self.make_victim()
        self.write_canaries()
        # The floor's programs are in the cache before the first mutant runs:
        # a forged entry is then a changed file, seen at once.
        self.sentinel("set-up")
        self.snapshot = self.host_snapshot()

    def write_canaries(self):
        for d in self.canary_dirs():
            p = os.path.join(d, self.mark + ".canary")
            # Each its own text, never in a config: seen in the probe's
            # output, it names the canary that was read.
            self.secrets[d] = os.urandom(16).hex()
            with open(p, "w") as fh:
                fh.write(self.secrets[d] + "\n")
            os.chmod(p, 0o644)
            w = os.path.join(d, self.mark + ".written")
            if os.path.lexists(w):
                os.unlink(w)

    def canary_dirs(self):
        """Directories holding the marker: (path, protected). A protected one
        no config may reach; the canary directory may be bound."""
        return [self.canary_dir, "/etc", self.state, self.cache,
                os.path.join(self.state, self.victim)]

    def make_victim(self):
        b = os.path.join(self.work, "victim")
        self.make_rootfs(b)
        cfg = json.loads(json.dumps(self.bases["spec"]))
        cfg["process"]["terminal"] = False
        cfg["process"]["args"] = ["sleep", "100000"]
        with open(os.path.join(b, "config.json"), "w") as fh:
            json.dump(cfg, fh)
        self.sb("standard", "create", "-b", b, self.victim, check=True)
        self.sb("standard", "start", self.victim, check=True)
        st = json.loads(self.sb("standard", "state", self.victim, check=True).stdout)
        self.victim_pid = st["pid"]

    def sb(self, profile, *args, check=False, timeout=30):
        """sbrun ARGS under PROFILE's policy. Its output goes through files, not
        pipes: a container made by create holds them open."""
        cmd = [self.sbrun, "--root", self.state, "--policy",
               os.path.join(self.work, "policy-%s.json" % profile),
               "--log", os.path.join(self.work, "sbrun.log")] + list(args)
        with tempfile.TemporaryFile(dir=self.work) as o, tempfile.TemporaryFile(dir=self.work) as e:
            rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=o, stderr=e,
                                timeout=timeout).returncode
            o.seek(0)
            e.seek(0)
            r = subprocess.CompletedProcess(cmd, rc, o.read().decode(errors="replace"),
                                            e.read().decode(errors="replace"))
        if check and r.returncode != 0:
            raise RuntimeError("%s: %s" % (" ".join(cmd), r.stderr))
        return r

    def make_rootfs(self, bundle):
        os.makedirs(bundle, exist_ok=True)
        subprocess.run(["cp", "-a", self.a.rootfs, os.path.join(bundle, "rootfs")], check=True)
        done = os.path.join(bundle, "rootfs", ".sbrun-rootfs-complete")
        if os.path.exists(done):
            os.unlink(done)
        shutil.copy(self.forge, os.path.join(bundle, "rootfs", "bin", "sbfuzz-forge"))

    def probe(self):
        hosts = " ".join(d for d in self.canary_dirs())
        return (self.probe_template.replace("@MARK@", self.mark)
                .replace("@HOSTPATHS@", hosts).replace("@FORGE@", self.forge))

    # --- the host's side ------------------------------------------------------

    def host_snapshot(self):
        s = {"cache": {}, "canaries": {}}
        for n in sorted(os.listdir(self.cache)):
            s["cache"][n] = sha(os.path.join(self.cache, n))
        for d in self.canary_dirs():
            s["canaries"][d] = sha(os.path.join(d, self.mark + ".canary"))
        s["victim"] = sha(os.path.join(self.state, self.victim, "state.json"))
        s["audit_size"] = os.path.getsize(self.audit) if os.path.exists(self.audit) else 0
        with open(self.audit, "rb") as f:
            s["audit_prefix"] = hashlib.sha256(f.read(s["audit_size"])).hexdigest()
        return s

    def host_oracles(self, before, granted_read, granted_write):
        bad = []
        for n, h in before["cache"].items():
            if not n.endswith(".bpf"):
                continue  # the marker: a canary like the others
            now = sha(os.path.join(self.cache, n))
            if now != h:
                bad.append("seccomp cache entry %s changed (sha256 %s -> %s)" % (n, h, now))
        for d in self.canary_dirs():
            c = os.path.join(d, self.mark + ".canary")
            w = os.path.join(d, self.mark + ".written")
            ok_write = d == self.canary_dir and granted_write
            if sha(c) != before["canaries"][d] and not ok_write:
                bad.append("host canary %s was modified" % c)
            if os.path.lexists(w) and not ok_write:
                bad.append("the container wrote %s on the host" % w)
        if sha(os.path.join(self.state, self.victim, "state.json")) != before["victim"]:
            bad.append("another container's state.json (%s) changed" % self.victim)
        if not os.path.exists("/proc/%d" % self.victim_pid):
            bad.append("another container (%s, pid %d) is gone" % (self.victim, self.victim_pid))
        size = os.path.getsize(self.audit)
        with open(self.audit, "rb") as f:
            prefix = hashlib.sha256(f.read(before["audit_size"])).hexdigest()
        if size < before["audit_size"] or prefix != before["audit_prefix"]:
            bad.append("the audit log was changed, not only appended to")
        return bad

    def leftovers(self, cid, bundle):
        bad = []
        if os.path.lexists(os.path.join(self.state, cid)):
            bad.append("state directory %s left" % os.path.join(self.state, cid))
        with open("/proc/self/mountinfo") as f:
            for line in f:
                mp = line.split()[4]
                if mp.startswith(self.work + "/") and not mp.startswith(
                        os.path.join(self.work, "victim")):
                    bad.append("mount left at %s" % mp)
        for _ in range(30):
            procs = []
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    with open("/proc/%s/cmdline" % pid, "rb") as f:
                        cmd = f.read()
                except OSError:
                    continue
                if bundle.encode() + b"/" in cmd or cid.encode() in cmd:
                    procs.append(pid)
            if not procs:
                break
            time.sleep(0.1)
        else:
            bad.append("processes left: %s" % " ".join(procs))
        return bad

    def sentinel(self, when):
        """A plain container under each profile after a mutant: its seccomp
        filter must still be in force (a forged cache entry is loaded by the
        next container with the same profile)."""
        bad = []
        for profile in ("standard", "strict"):
            b = os.path.join(self.work, "sentinel")
            self.make_rootfs(b)
            cfg = json.loads(json.dumps(self.bases["spec"]))
            cfg["process"]["terminal"] = False
            cfg["process"]["args"] = ["busybox", "sh", "-c",
                                      "busybox grep ^Seccomp: /proc/self/status; "
                                      "busybox unshare -U true 2>/dev/null && echo UNSHARE-OK; true"]
            with open(os.path.join(b, "config.json"), "w") as fh:
                json.dump(cfg, fh)
            r = self.sb(profile, "run", "-b", b, "fzsentinel-%d" % os.getpid())
            self.sb(profile, "delete", "--force", "fzsentinel-%d" % os.getpid())
            shutil.rmtree(b)
            if r.returncode != 0 or not re.search(r"^Seccomp:\s*2$", r.stdout, re.M):
                bad.append("sentinel (%s, %s): no seccomp filter in a plain container: %s%s"
                           % (profile, when, r.stdout, r.stderr[-300:]))
            if "UNSHARE-OK" in r.stdout:
                bad.append("sentinel (%s, %s): a plain container can unshare -U" % (profile, when))
        return bad

    def repair(self):
        """After a finding: a fresh cache (the floor's programs again), the
        canaries rewritten, the victim made again if it was touched."""
        for n in os.listdir(self.cache):
            if n.endswith(".bpf"):
                os.unlink(os.path.join(self.cache, n))
        if sha(os.path.join(self.state, self.victim, "state.json")) != self.snapshot["victim"] \
                or not os.path.exists("/proc/%d" % self.victim_pid):
            self.remove_victim()
            shutil.rmtree(os.path.join(self.work, "victim"), ignore_errors=True)
            self.make_victim()
        self.write_canaries()
        self.sentinel("repair")
        self.snapshot = self.host_snapshot()

    def remove_victim(self):
        c = os.path.join(self.state, self.victim, self.mark + ".canary")
        for p in (c, os.path.join(self.state, self.victim, self.mark + ".written")):
            if os.path.lexists(p):
                os.unlink(p)
        self.sb("standard", "delete", "--force", self.victim)

    # --- mutations --------------------------------------------------------------

    def base_config(self, rng, name, profile, bundle):
        cfg = json.loads(json.dumps(self.bases[name]))
        cfg["root"] = {"path": "rootfs", "readonly": cfg.get("root", {}).get("readonly", False)}
        for m in cfg.get("mounts", []):
            if m.get("type") == "bind":
                m["source"] = os.path.join(self.userdata, m["source"].split("/")[-1])
        for ns in cfg.get("linux", {}).get("namespaces", []):
            if ns.get("type") == "network" and "path" in ns:
                if profile == "strict":
                    del ns["path"]  # strict refuses joining by path: by design
                else:
                    ns["path"] = "/proc/%d/ns/net" % self.victim_pid
        p = cfg.setdefault("process", {})
        p["terminal"] = False
        p["args"] = ["busybox", "sh", "-c", self.probe()]
        p.setdefault("env", ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"])
        p["cwd"] = "/"
        return cfg

    def operators(self):
        ops = []
        for cat in CATEGORIES:
            for fn in getattr(self, "ops_" + cat.replace("-", "_"))():
                ops.append((cat, fn))
        return ops

    # root: the bugs of issue #32's first half; never the host's / for a
    # destination that does not exist there (see run_one).
    def ops_root(self):
        def host_root(rng, cfg, ctx):
            kind = rng.choice(["/", "//", "/tmp/..", "rel", "symlink", "symlink-rel", "/usr"])
            if kind == "rel":
                path = "../" * 16
            elif kind == "symlink":
                os.symlink("/", os.path.join(ctx["bundle"], "hostroot"))
                path = "hostroot"
            elif kind == "symlink-rel":
                os.symlink("../" * 16, os.path.join(ctx["bundle"], "hostroot"))
                path = "hostroot/"
            else:
                path = kind
            cfg["root"] = {"path": path, "readonly": rng.random() < 0.3}
            ctx["host_root"] = "/usr" if kind == "/usr" else "/"
            return "root.path=%s readonly=%s" % (path, cfg["root"]["readonly"])
        return [host_root]

    def ops_root_bundle(self):
        def bundle_root(rng, cfg, ctx):
            kind = rng.choice(["rootfs/", "./rootfs", "abs", "link", "rootfs/../rootfs", "flip"])
            if kind == "abs":
                cfg["root"]["path"] = os.path.join(ctx["bundle"], "rootfs")
            elif kind == "link":
                os.symlink("rootfs", os.path.join(ctx["bundle"], "rootlink"))
                cfg["root"]["path"] = "rootlink"
            elif kind != "flip":
                cfg["root"]["path"] = kind
            cfg["root"]["readonly"] = not cfg["root"].get("readonly", False)
            return "root=%s" % json.dumps(cfg["root"])
        return [bundle_root]

    def dest(self, rng):
        if rng.random() < 0.05:
            return "fzrel"  # refused: not absolute
        return rng.choice(["/mnt", "/fz", "/tmp/fz", "/mnt/a/b", "/opt/fz", "/var/fz",
                           "/home/user/fz", "/fz/../fz2"])

    def add_bind(self, cfg, src, dest, options):
        m = {"destination": dest, "type": "bind", "source": src, "options": options}
        cfg.setdefault("mounts", []).append(m)
        return "bind %s -> %s %s" % (src, dest, json.dumps(options))

    def ops_bind(self):
        def canary_bind(rng, cfg, ctx):
            src = rng.choice([self.canary_dir, self.canary_dir + "/", "link", "/var/tmp"])
            if src == "link":
                os.symlink(self.canary_dir, os.path.join(ctx["bundle"], "canarylink"))
                src = os.path.join(ctx["bundle"], "canarylink")
            opts = rng.choice([["rbind"], ["rbind", "rw"], ["bind", "ro"], ["rbind", "ro"],
                               ["bind", "nosuid", "nodev"], []])
            return self.add_bind(cfg, src, self.dest(rng), opts)
        return [canary_bind]

    def ops_options(self):
        def ro_options(rng, cfg, ctx):
            opts = rng.choice([["rbind", "rro"], ["rro"], ["bind", "ro"], ["ro", "rbind"],
                               ["rbind", "rw", "rro"], ["rbind", "ro,nosuid"],
                               ["rbind", "rrw"], ["rbind", "rnosuid", "rnodev"],
                               ["rbind", "ro", "ro"], ["bind,ro"], ["rbind", "rro", "rnoexec"]])
            return self.add_bind(cfg, self.canary_dir, rng.choice(["/mnt", "/fz", "/opt/ro"]), opts)
        return [ro_options]

    def ops_system(self):
        def system_bind(rng, cfg, ctx):
            src = rng.choice(["/etc", "/proc/1/root", "/proc/self/root", "/", "/run", "/var/run",
                              "/dev", "/boot", "/sys", "/proc", "/var/tmp/../../etc", "etclink",
                              "/proc/1/cwd", "/var/tmp/../../", "/usr/.."])
            if src == "etclink":
                os.symlink("/etc", os.path.join(ctx["bundle"], "etclink"))
                src = os.path.join(ctx["bundle"], "etclink")
            opts = rng.choice([["rbind"], ["rbind", "ro"], ["bind", "rw"]])
            return self.add_bind(cfg, src, self.dest(rng), opts)
        return [system_bind]

    def ops_state(self):
        def state_bind(rng, cfg, ctx):
            v = os.path.join(self.state, self.victim)
            src = rng.choice([self.state, v, v + "/", self.state + "/./" + self.victim,
                              os.path.join(self.state, "..", "state", self.victim), "link",
                              os.path.dirname(self.state)])
            if src == "link":
                os.symlink(v, os.path.join(ctx["bundle"], "victimlink"))
                src = os.path.join(ctx["bundle"], "victimlink")
            opts = rng.choice([["rbind"], ["rbind", "rw"], ["bind"]])
            return self.add_bind(cfg, src, self.dest(rng), opts)
        return [state_bind]

    def ops_seccomp_cache(self):
        def cache_bind(rng, cfg, ctx):
            src = rng.choice([self.cache, self.cache + "/", self.state + "/./.seccomp-cache",
                              os.path.join(self.state, "..", "state", ".seccomp-cache"), "link"])
            if src == "link":
                os.symlink(self.cache, os.path.join(ctx["bundle"], "cachelink"))
                src = os.path.join(ctx["bundle"], "cachelink")
            opts = rng.choice([["rbind"], ["rbind", "rw"], ["bind"]])
            return self.add_bind(cfg, src, self.dest(rng), opts)
        return [cache_bind]

    TMPFS_OPTS = ["size=4g", "size=0", "nr_inodes=0", "size=100%", "nr_blocks=0",
                  "uid=0,size=4g,nr_inodes=0", "size=1m,size=8g", "nr_inodes=1k,nr_inodes=0",
                  "size=-1", "size=8g", "nr_inodes=99999999", "mode=1777", "size=1k",
                  "huge=always", "size=64m", "nr_inodes=16k", "size=2147483648"]

    def ops_tmpfs(self):
        def tmpfs_opts(rng, cfg, ctx):
            opts = ["nosuid"] + rng.sample(self.TMPFS_OPTS, rng.randint(1, 3))
            tm = [m for m in cfg.get("mounts", []) if m.get("type") == "tmpfs"]
            if tm and rng.random() < 0.5:
                m = rng.choice(tm)
                m["options"] = opts
                return "tmpfs %s options %s" % (m["destination"], json.dumps(opts))
            dest = rng.choice(["/fztmp", "/tmp", "/dev/shm", "/run"])
            cfg.setdefault("mounts", []).append(
                {"destination": dest, "type": "tmpfs", "source": "tmpfs", "options": opts})
            return "tmpfs at %s %s" % (dest, json.dumps(opts))
        return [tmpfs_opts]

    def ops_ns(self):
        def ns(rng, cfg, ctx):
            nss = cfg.setdefault("linux", {}).setdefault("namespaces", [])
            kind = rng.choice(["drop", "host-path", "self-path", "victim-path", "dup", "user",
                               "time", "bogus"])
            t = rng.choice(["pid", "network", "ipc", "uts", "mount", "cgroup"])
            short = {"network": "net", "mount": "mnt"}.get(t, t)
            if kind == "drop":
                nss[:] = [n for n in nss if n.get("type") != t]
            elif kind in ("host-path", "self-path", "victim-path"):
                who = {"host-path": "1", "self-path": "self",
                       "victim-path": str(self.victim_pid)}[kind]
                nss[:] = [n for n in nss if n.get("type") != t]
                nss.append({"type": t, "path": "/proc/%s/ns/%s" % (who, short)})
            elif kind == "dup":
                nss.append({"type": t})
            elif kind == "user":
                nss.append({"type": "user"})
                cfg["linux"]["uidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 65536}]
                cfg["linux"]["gidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 65536}]
            elif kind == "time":
                nss.append({"type": "time"})
            else:
                nss.append({"type": "bogus"})
            return "namespaces %s %s" % (kind, t)
        return [ns]

    def ops_caps(self):
        def caps(rng, cfg, ctx):
            add = rng.sample(ALL_CAPS, rng.randint(1, len(ALL_CAPS)))
            if rng.random() < 0.1:
                add.append("CAP_NOSUCH")  # refused: unknown
            c = cfg["process"].setdefault("capabilities", {})
            for s in rng.sample(["bounding", "effective", "permitted", "inheritable", "ambient"],
                                rng.randint(1, 5)):
                c[s] = sorted(set(c.get(s, [])) | set(add))
            if rng.random() < 0.5:
                cfg["process"]["noNewPrivileges"] = False
            if rng.random() < 0.3:
                cfg["process"]["user"] = {"uid": rng.choice([0, 1000]), "gid": 0}
            return "capabilities + %s" % " ".join(add)
        return [caps]

    def ops_seccomp(self):
        def seccomp(rng, cfg, ctx):
            lx = cfg.setdefault("linux", {})
            kind = rng.choice(["drop", "allow", "allow-unshare", "bad-arch", "log"])
            if kind == "drop":
                lx.pop("seccomp", None)
            elif kind == "allow":
                lx["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW"}
            elif kind == "allow-unshare":
                lx["seccomp"] = {"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
                    {"names": ["unshare", "setns", "clone", "clone3", "mount", "keyctl", "bpf"],
                     "action": "SCMP_ACT_ALLOW"}]}
                lx["seccomp"]["defaultAction"] = "SCMP_ACT_ALLOW"
            elif kind == "bad-arch":
                lx["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_NOPE"]}
            else:
                lx["seccomp"] = {"defaultAction": "SCMP_ACT_LOG"}
            return "seccomp %s" % kind
        return [seccomp]

    def ops_devices(self):
        def devices(rng, cfg, ctx):
            d = rng.choice([("b", 8, 0), ("c", 1, 1), ("c", 1, 3), ("c", 10, 200), ("p", 0, 0),
                            ("c", 1, 9), ("b", 7, 0), ("c", 4, 1)])
            path = rng.choice(["/dev/fzdev", "/dev/fzdev2", "/dev/../dev/fzdev3"])
            dev = {"path": path, "type": d[0], "major": d[1], "minor": d[2], "fileMode": 0o666}
            cfg.setdefault("linux", {}).setdefault("devices", []).append(dev)
            if rng.random() < 0.5:
                cfg["linux"].setdefault("resources", {}).setdefault("devices", []).append(
                    {"allow": True, "access": "rwm"})
            return "device %s" % json.dumps(dev)
        return [devices]

    def ops_hooks(self):
        # Hooks run on the host, as root, by design (docs/design.md): only
        # harmless ones, for the code paths (a crash, a leftover).
        def hooks(rng, cfg, ctx):
            h = rng.choice(["prestart", "createRuntime", "createContainer", "startContainer",
                            "poststart", "poststop"])
            path = rng.choice(["/bin/true", "/bin/false", "/nonexistent/hook", "true", ""])
            hook = {"path": path, "args": ["true", "x" * rng.choice([0, 1, 5000])]}
            if rng.random() < 0.5:
                hook["timeout"] = rng.choice([0, 1, -1, 1 << 40])
            cfg.setdefault("hooks", {}).setdefault(h, []).append(hook)
            return "hook %s %s" % (h, path)
        return [hooks]

    def ops_annotations(self):
        def ann(rng, cfg, ctx):
            a = cfg.setdefault("annotations", {})
            k = rng.choice(["run.sbrun.policy", "run.sbrun.workspace", "run.sbrun.timeout",
                            "io.podman.annotations.privileged"])
            v = rng.choice({"run.sbrun.policy": ["standard", "strict", "lax", "", "STRICT", "none"],
                            "run.sbrun.workspace": ["/work", "/", "/proc/x", "../x", "/tmp",
                                                    "/work/../etc", "/dev/shm", "/mnt"],
                            "run.sbrun.timeout": ["1", "0", "-1", "99999999999", "abc", "2.5"],
                            "io.podman.annotations.privileged": ["TRUE", "true", "FALSE"]}[k])
            a[k] = v
            return "annotation %s=%s" % (k, v)
        return [ann]

    def ops_sizes(self):
        def sizes(rng, cfg, ctx):
            r = cfg.setdefault("linux", {}).setdefault("resources", {})
            kind = rng.choice(["memory", "pids", "cpu", "rlimits", "oom"])
            if kind == "memory":
                r["memory"] = {"limit": rng.choice([-1, 0, 1 << 62, 4096, 1 << 20]),
                               "swap": rng.choice([-1, 0, 1 << 62])}
            elif kind == "pids":
                r["pids"] = {"limit": rng.choice([-1, 0, 1, 1 << 40])}
            elif kind == "cpu":
                r["cpu"] = {"quota": rng.choice([-1, 0, 1 << 40]), "period": rng.choice([0, 1000, 100000])}
            elif kind == "rlimits":
                cfg["process"]["rlimits"] = [
                    {"type": rng.choice(["RLIMIT_NOFILE", "RLIMIT_FSIZE", "RLIMIT_CORE", "RLIMIT_NOPE"]),
                     "hard": rng.choice([0, 1 << 63, 1 << 40]), "soft": rng.choice([0, 1 << 40])}]
            else:
                cfg["process"]["oomScoreAdj"] = rng.choice([-1000, 1000, 5000])
            return "sizes %s" % kind
        return [sizes]

    def ops_paths(self):
        def paths(rng, cfg, ctx):
            lx = cfg.setdefault("linux", {})
            kind = rng.choice(["no-masked", "no-readonly", "masked-odd", "sysctl"])
            if kind == "no-masked":
                lx["maskedPaths"] = []
            elif kind == "no-readonly":
                lx["readonlyPaths"] = []
            elif kind == "masked-odd":
                lx["maskedPaths"] = lx.get("maskedPaths", []) + ["/proc/../etc", "/nonexistent"] + (
                    ["relative"] if rng.random() < 0.1 else [])
            else:
                lx["sysctl"] = {rng.choice(["kernel.hostname", "kernel.core_pattern", "net.ipv4.ip_forward",
                                            "vm.overcommit_memory"]): "1"}
            return "paths %s" % kind
        return [paths]

    # --- one run --------------------------------------------------------------

    def profile_for(self, index):
        if self.a.profile != "both":
            return self.a.profile
        return "standard" if index % 2 == 0 else "strict"

    def mutate(self, index, bundle, profile):
        rng = random.Random("%d:%d" % (self.a.seed, index))
        base = rng.choice(["spec", "spec", "podman", "containerd"])
        cfg = self.base_config(rng, base, profile, bundle)
        ops = [o for o in self.operators() if self.enabled(o[0])]
        ctx = {"bundle": bundle, "host_root": None}
        done = ["base " + base]
        for cat, fn in rng.sample(ops, min(len(ops), rng.randint(1, 3))):
            try:
                done.append("%s: %s" % (cat, fn(rng, cfg, ctx)))
            except FileExistsError:
                pass
        return cfg, ctx, done

    def enabled(self, cat):
        if self.a.only:
            return cat in self.a.only
        return cat not in self.a.exclude

    def host_root_of(self, cfg, bundle):
        """The host directory the root resolves to when it is not the bundle's."""
        p = cfg.get("root", {}).get("path", "")
        full = realpath(os.path.join(bundle, p))
        if full == os.path.realpath(bundle) or full.startswith(os.path.realpath(bundle) + "/"):
            return None
        return full

    def confine_to_host_root(self, cfg, root):
        """A mutant whose root is a host directory: its mounts and workspace
        only where the host already has that path, so that a floor that lets
        it run makes no directory on the host (bwrap makes missing mount
        points)."""
        keep = []
        for m in cfg.get("mounts", []):
            d = m.get("destination", "")
            if d.startswith("/") and os.path.lexists(root.rstrip("/") + d):
                keep.append(m)
        cfg["mounts"] = keep
        a = cfg.get("annotations", {})
        w = a.get("run.sbrun.workspace")
        if w is not None and not (w.startswith("/") and os.path.isdir(root.rstrip("/") + w)):
            del a["run.sbrun.workspace"]
        for d in cfg.get("linux", {}).get("devices", []):
            pass  # /dev is the container's own tmpfs

    def run_one(self, index, cfg=None, profile=None, done=None, links=None):
        profile = profile or self.profile_for(index)
        cid = "fz-%d-%d" % (os.getpid(), index)
        bundle = os.path.join(self.work, "b%d" % index)
        self.make_rootfs(bundle)
        for name, target in (links or {}).items():
            os.symlink(self.unplaceholders(target), os.path.join(bundle, name))
        if cfg is None:
            cfg, ctx, done = self.mutate(index, bundle, profile)
        hr = self.host_root_of(cfg, bundle)
        wrap = []
        if hr is not None:
            self.confine_to_host_root(cfg, hr)
            if hr == "/usr":
                # Under an overlay in a mount namespace of its own: what
                # bwrap makes there (/usr/proc, ...) goes to the overlay.
                up = os.path.join(self.work, "ovl-%d" % index)
                os.makedirs(up + "/u")
                os.makedirs(up + "/w")
                wrap = ["unshare", "-m", "--propagation", "private", "--", "sh", "-c",
                        'mount -t overlay overlay -o lowerdir=/usr,upperdir="$0/u",workdir="$0/w" '
                        '/usr && exec "$@"', up]
            elif hr != "/":
                shutil.rmtree(bundle)
                return "skipped"
        with open(os.path.join(bundle, "config.json"), "w") as fh:
            json.dump(cfg, fh, indent=1)
        before = self.snapshot
        granted_read, granted_write = self.grants(cfg, bundle, hr)
        cmd = wrap + [self.sbrun, "--root", self.state, "--policy",
                      os.path.join(self.work, "policy-%s.json" % profile),
                      "--log", os.path.join(self.work, "sbrun.log"), "run", "-b", bundle, cid]
        t0 = time.monotonic()
        bad = []
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = p.communicate(timeout=self.a.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            bad.append("sbrun run did not end within %ds" % self.a.timeout)
        out = out.decode(errors="replace")
        err = err.decode(errors="replace")
        elapsed = time.monotonic() - t0
        self.sb(profile, "delete", "--force", cid)
        if p.returncode < 0 and not bad:
            bad.append("sbrun was killed by signal %d" % -p.returncode)
        if "Sanitizer" in err or "runtime error:" in err:
            bad.append("sanitizer report: %s" % err[-500:])
        started = "FZ begin" in out
        # A failing poststart hook stops the container by design (runtime-spec
        # 1.3, as runc): the probe is cut short, so what it did not print is
        # no finding; what it did print is still judged.
        cut = p.returncode > 0 and "hooks.poststart[" in err
        if started:
            inside = self.inside_oracles(cfg, out, profile, granted_read, hr)
            if cut:
                inside = [b for b in inside
                          if not b.startswith("the probe did not finish")
                          and "unreadable: None" not in b and ": None, not " not in b]
            bad += inside
        else:
            self.refused += 1
        bad += self.host_oracles(before, granted_read, granted_write)
        bad += self.leftovers(cid, bundle)
        if self.a.sentinel_every and index % self.a.sentinel_every == self.a.sentinel_every - 1:
            bad += self.sentinel("after #%d" % index)
        self.tried += 1
        if any(b.startswith("seccomp cache entry") for b in bad):
            # What the forged cache does to the next, unrelated container.
            bad += self.sentinel("after #%d, before the cache is rebuilt" % index)
        if bad:
            self.report(index, profile, cfg, done, bad, out, err, bundle)
            self.repair()
        else:
            # Writes the config was granted are put back for the next run.
            self.write_canaries()
            self.snapshot = self.host_snapshot()
        if not any(ln.startswith("mount left") for ln in bad):
            shutil.rmtree(bundle, ignore_errors=True)
            if wrap:
                shutil.rmtree(os.path.join(self.work, "ovl-%d" % index), ignore_errors=True)
        if self.a.verbose > 1:
            for ln in out.splitlines():
                if not ln.startswith("FZ mi "):
                    log("#     " + ln)
        if self.a.verbose:
            log("# %d %s %s %.2fs %s: %s" % (index, profile, "ran" if started else "refused",
                                             elapsed, "; ".join(done or []),
                                             (err.strip().splitlines() or [""])[-1][:200]))
        if started:
            self.ran += 1
        return "finding" if bad else ("ran" if started else "refused")

    def grants(self, cfg, bundle, host_root):
        """What the config itself gives of the canary directory: a bind of it
        (or of an ancestor below /: /var/tmp) reads it, a bind not asked
        read-only writes it. A root that is the host's is no grant: the
        floor refuses it."""
        r = w = False
        for m in cfg.get("mounts", []):
            if m.get("type") not in (None, "bind") and "bind" not in m.get("options", []) \
                    and "rbind" not in m.get("options", []):
                continue
            src = m.get("source", "")
            if not src.startswith("/"):
                src = os.path.join(bundle, src)
            src = realpath(src)
            if src != "/" and (self.canary_dir == src or self.canary_dir.startswith(src + "/")):
                r = True
                if not self.asked_ro(m.get("options", [])):
                    w = True
        return r, w

    @staticmethod
    def asked_ro(opts):
        ro = False
        for o in opts:
            if o == "ro":
                ro = True
            elif o == "rw":
                ro = False
        return ro or "rro" in opts

    def inside_oracles(self, cfg, out, profile, granted_read, host_root):
        bad = []
        ann = cfg.get("annotations", {}).get("run.sbrun.policy")
        eff = "strict" if (profile == "strict" or ann == "strict") else "standard"
        allowed = STANDARD_CAPS if eff == "standard" else 0
        status, ns, mounts = {}, {}, []
        for ln in out.splitlines():
            f = ln.split(" ", 3)
            if len(f) < 3 or f[0] != "FZ":
                continue
            if f[1] == "status":
                status[f[2]] = f[3] if len(f) > 3 else ""
            elif f[1] == "ns":
                ns[f[2]] = f[3] if len(f) > 3 else ""
            elif f[1] == "mi":
                mounts.append(ln[6:].split())
            elif f[1] == "read":
                for d, secret in self.secrets.items():
                    if secret in ln and not (d == self.canary_dir and granted_read):
                        bad.append("the container read the host canary in %s (through %s)" % (d, f[2]))
            elif f[1] == "unshare-user":
                bad.append("unshare -U succeeded inside (the floor's seccomp filter is not in force)")
            elif f[1] == "dev":
                m = re.search(r"([0-9a-f]+):([0-9a-f]+)$", ln)
                if m and (int(m.group(1), 16), int(m.group(2), 16)) not in ALLOWED_DEVICES:
                    bad.append("device node inside: %s" % ln[7:])
        if "FZ end" not in out:
            bad.append("the probe did not finish (no 'FZ end')")
        for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
            try:
                v = int(status.get(k, ""), 16)
            except ValueError:
                bad.append("%s unreadable: %r" % (k, status.get(k)))
                continue
            if v & ~allowed:
                bad.append("%s %016x beyond the %s ceiling %016x" % (k, v, eff, allowed))
        if status.get("Seccomp") != "2":
            bad.append("Seccomp: %r, not 2" % status.get("Seccomp"))
        if status.get("NoNewPrivs") != "1":
            bad.append("NoNewPrivs: %r, not 1" % status.get("NoNewPrivs"))
        for n, h in self.host_ns.items():
            if ns.get(n) == h:
                bad.append("the host's %s namespace (%s)" % (n, h))
        if host_root is None:
            # On the host's own tree, its mounts are in the table too: the
            # root is the finding, its tmpfs sizes would be noise.
            bad += self.mount_oracles(cfg, mounts, eff)
        return sorted(set(bad), key=bad.index)

    def mount_oracles(self, cfg, mounts, eff):
        bad = []
        size_max, inodes_max = CEILINGS[eff]
        last = {}
        tmpfs = {}
        for m in mounts:
            # mountinfo: id parent dev root mountpoint opts [tags] - fstype source superopts
            try:
                sep = m.index("-")
            except ValueError:
                continue
            mp, opts, fstype, sopts = m[4], m[5].split(","), m[sep + 1], m[sep + 3].split(",")
            last[mp] = opts
            # The last mount at a path is the one the container sees. A
            # read-only one cannot be filled, whatever its superblock says
            # (in a user namespace the host's own /sys/fs/cgroup tmpfs of a
            # hybrid host shows through /sys, read-only, owned by no one
            # the container maps).
            tmpfs[mp] = sopts if fstype == "tmpfs" and m[3] == "/" and "ro" not in sopts \
                and "ro" not in opts else None
        for mp, sopts in tmpfs.items():
            if sopts is None:
                continue
            kv = dict(o.split("=", 1) for o in sopts if "=" in o)
            size = kv.get("size")
            if size is None or not size.endswith("k") or int(size[:-1]) > size_max:
                bad.append("tmpfs %s: size %s beyond the %s ceiling of %dk" % (mp, size, eff, size_max))
            ino = kv.get("nr_inodes")
            if ino is None or int(ino) == 0 or int(ino) > inodes_max:
                bad.append("tmpfs %s: nr_inodes %s beyond the %s ceiling of %d" % (mp, ino, eff, inodes_max))
        for m in cfg.get("mounts", []):
            opts = m.get("options", [])
            if m.get("type") not in (None, "bind") or not self.asked_ro(opts):
                continue
            d = os.path.normpath(m.get("destination", ""))
            if d in last and "ro" not in last[d]:
                bad.append("mount %s asked read-only (%s) is writable inside" % (d, json.dumps(opts)))
        if cfg.get("root", {}).get("readonly") or eff == "strict":
            if "/" in last and "ro" not in last["/"]:
                bad.append("the root, asked or forced read-only, is writable inside")
        return bad

    # --- findings ---------------------------------------------------------------

    def placeholders(self, text):
        for k, v in (("@WORK@", self.work), ("@MARK@", self.mark), ("@VICTIM@", self.victim),
                     ("@VICTIMPID@", "/%d/" % self.victim_pid)):
            text = text.replace(v, k)
        return text

    def unplaceholders(self, text):
        for k, v in (("@WORK@", self.work), ("@MARK@", self.mark), ("@VICTIM@", self.victim),
                     ("@VICTIMPID@", "/%d/" % self.victim_pid)):
            text = text.replace(k, v)
        return text

    def report(self, index, profile, cfg, done, bad, out, err, bundle):
        self.findings += 1
        doc = self.placeholders(json.dumps(cfg, indent=1))
        name = "finding-seed%d-%d-%s.json" % (self.a.seed, index, profile)
        os.makedirs(self.a.out, exist_ok=True)
        path = os.path.join(self.a.out, name)
        with open(path, "w") as fh:
            fh.write(doc)
        # The symlinks a mutation made in the bundle, for --replay.
        links = {n: self.placeholders(os.readlink(os.path.join(bundle, n)))
                 for n in os.listdir(bundle) if os.path.islink(os.path.join(bundle, n))}
        if links:
            with open(path[:-len(".json")] + ".links", "w") as fh:
                json.dump(links, fh)
        log("# FINDING seed %d index %d profile %s (replay: run.sh --replay %s --profile %s)"
            % (self.a.seed, index, profile, path, profile))
        for d in done or []:
            log("#   mutation %s" % d)
        for b in bad:
            log("#   oracle: %s" % b)
        if self.a.print_config:
            short = json.loads(doc)
            short["process"]["args"][-1] = "<probe.sh>"
            for ln in json.dumps(short, indent=1).splitlines():
                log("#   | " + ln)
        if err.strip():
            log("#   sbrun: %s" % err.strip().splitlines()[-1][:300])

    # --- the whole run --------------------------------------------------------------

    def cleanup(self):
        try:
            self.remove_victim()
        except Exception as e:  # the work dir is still removed below
            log("# cannot delete the victim: %s" % e)
        for d in self.canary_dirs():
            for n in (".canary", ".written"):
                p = os.path.join(d, self.mark + n)
                if os.path.lexists(p):
                    os.unlink(p)
        shutil.rmtree(self.canary_dir, ignore_errors=True)
        with open("/proc/self/mountinfo") as f:
            busy = [ln.split()[4] for ln in f if ln.split()[4].startswith(self.work + "/")]
        if busy:
            log("# keeping %s: mounted below it: %s" % (self.work, " ".join(busy)))
        elif not self.a.keep:
            subprocess.run(["rm", "-rf", "--one-file-system", self.work])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sbrun", required=True)
    ap.add_argument("--rootfs", required=True)
    ap.add_argument("--forge", required=True)
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--start", type=int, default=0, help="first index")
    ap.add_argument("--profile", choices=["standard", "strict", "both"], default="both")
    ap.add_argument("--only", type=lambda s: s.split(","), default=[])
    ap.add_argument("--exclude", type=lambda s: [c for c in s.split(",") if c], default=[])
    ap.add_argument("--replay", help="a saved finding's config.json")
    ap.add_argument("--out", default=os.environ.get("TMPDIR", "/tmp") + "/sbrun-hostile-findings")
    ap.add_argument("--keep", help="work directory to use and keep")
    ap.add_argument("--tmpdir", default=os.environ.get("TMPDIR", "/tmp"))
    ap.add_argument("--timeout", type=int, default=30)
    ap.add_argument("--sentinel-every", type=int, default=25)
    ap.add_argument("--print-config", action="store_true")
    ap.add_argument("--verbose", "-v", action="count", default=0)
    a = ap.parse_args()
    for c in a.only + a.exclude:
        if c not in CATEGORIES:
            ap.error("unknown category %s (known: %s)" % (c, ",".join(CATEGORIES)))
    if not a.count and not a.seconds and not a.replay:
        a.count = 100
    fz = Fuzzer(a)
    t0 = time.monotonic()
    results = {}
    try:
        fz.setup()
        if a.replay:
            with open(a.replay) as f:
                cfg = json.loads(fz.unplaceholders(f.read()))
            cfg["process"]["args"][-1] = fz.probe()
            links = None
            if os.path.exists(a.replay[:-len(".json")] + ".links"):
                with open(a.replay[:-len(".json")] + ".links") as f:
                    links = json.load(f)
            profiles = ["standard", "strict"] if a.profile == "both" else [a.profile]
            for i, prof in enumerate(profiles):
                r = fz.run_one(a.start + i, cfg=json.loads(json.dumps(cfg)), profile=prof,
                               done=["replay " + a.replay], links=links)
                results[r] = results.get(r, 0) + 1
        else:
            i = a.start
            while True:
                if a.count and i - a.start >= a.count:
                    break
                if a.seconds and time.monotonic() - t0 >= a.seconds:
                    break
                r = fz.run_one(i)
                results[r] = results.get(r, 0) + 1
                i += 1
        bad = fz.sentinel("the end")
        if bad:
            fz.findings += 1
            for b in bad:
                log("# FINDING %s" % b)
    finally:
        fz.cleanup()
    dt = time.monotonic() - t0
    per = dt / fz.tried if fz.tried else 0
    log("# hostile: seed %d, %d configs in %.0fs (%.2fs each): %d ran, %d refused by sbrun, %d skipped, "
        "%d findings%s" % (a.seed, fz.tried, dt, per, fz.ran, fz.refused,
                            results.get("skipped", 0), fz.findings,
                            "" if not fz.findings else " (configs in %s)" % a.out))
    return 1 if fz.findings else 0


if __name__ == "__main__":
    sys.exit(main())
