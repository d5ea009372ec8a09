#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The installed layout and the Debian packages work from where they are installed.

From an already built tree (nothing is rebuilt): `cmake --install` into a temporary prefix,
`cpack -G DEB` into a temporary directory, every .deb extracted with `dpkg-deb -x` into one
scratch root (no root rights, no container), then from that root only:
  - warpscope-cli --version and `info` on the installed demo session;
  - the section files are the installed ones: a section added to the scratch root's
    share/warpscope/sections is listed by `profile --list-sections` (the source tree's copy,
    the fallback of a build tree, does not have it);
  - warpscope --screenshot on the installed demo (offscreen) writes a full window PNG;
  - the desktop entry names the icon and the MIME type that the shared-mime-info file declares
    for *.wscope (and update-mime-database, where installed, maps the glob to it);
  - each package's Depends covers the Debian packages owning every library its programs link.
No LD_LIBRARY_PATH and no WS_SECTIONS_DIR: the programs must find their files by themselves.
"""
import argparse
import gzip
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)
    return ok


def run(argv, env=None, cwd=None, timeout=120):
    r = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)
    if r.returncode != 0:
        print(f"$ {' '.join(argv)}\n{r.stdout}{r.stderr}")
    return r


def clean_env():
    env = {k: v for k, v in os.environ.items() if k not in ("WS_SECTIONS_DIR", "LD_LIBRARY_PATH", "WS_CLI")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def files_under(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


def check_prefix(prefix, a):
    """cmake --install: the programs, their files, the desktop integration."""
    expected = ["bin/warpscope-cli", "share/man/man1/warpscope-cli.1.gz", "share/warpscope/demo/h200-gemm-relu.wscope",
                "share/doc/warpscope-cli/copyright"]
    expected += ["share/warpscope/sections/" + f for f in os.listdir(os.path.join(a.source_dir, "resources/sections"))]
    if a.gui:
        expected += ["bin/warpscope", "share/applications/warpscope.desktop", "share/icons/hicolor/scalable/apps/warpscope.svg",
                     "share/icons/hicolor/256x256/apps/warpscope.png", "share/mime/packages/warpscope.xml",
                     "share/man/man1/warpscope.1.gz", "share/doc/warpscope/copyright"]
    # The recorder libraries exist only in builds with the CUDA toolkit.
    for lib in ("libwarpscope-inject.so", "libwarpscope-profiler.so"):
        if os.path.exists(os.path.join(a.build_dir, "lib", lib)):
            expected.append("lib/" + lib)
    present = set(files_under(prefix))
    missing = [f for f in expected if f not in present]
    check(not missing, f"cmake --install put {len(expected)} expected files in the prefix" + (f"; missing {missing}" if missing else ""))
    r = run([os.path.join(prefix, "bin/warpscope-cli"), "--version"], env=clean_env())
    check(r.returncode == 0 and r.stdout.strip() == a.version, f"installed warpscope-cli --version says {a.version!r} (got {r.stdout.strip()!r})")


def control(deb):
    fields = {}
    for key in ("Package", "Version", "Depends", "Architecture"):
        fields[key] = subprocess.run(["dpkg-deb", "-f", deb, key], capture_output=True, text=True).stdout.strip()
    return fields


def needed_libraries(elf):
    r = subprocess.run(["readelf", "-d", elf], capture_output=True, text=True)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", r.stdout)


def resolved_paths(elf):
    r = subprocess.run(["ldd", elf], capture_output=True, text=True)
    return dict(re.findall(r"^\s*(\S+) => (/\S+)", r.stdout, re.M))


def owner(path):
    # dpkg records /lib/... or /usr/lib/... depending on the package (merged /usr), so ask for both.
    candidates = {path, os.path.realpath(path)}
    for p in list(candidates):
        candidates.add(p[4:] if p.startswith("/usr/") else "/usr" + p)
    for p in sorted(candidates):
        r = subprocess.run(["dpkg-query", "-S", p], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout.split(":")[0].strip()
    return None


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def check_depends(root, debs):
    for deb, fields in debs.items():
        listed = {d.split("(")[0].strip() for d in fields["Depends"].split(",") if d.strip()}
        contents = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True).stdout
        paths = [m for m in re.findall(r"\./(usr/\S+)$", contents, re.M)]
        uncovered, unowned = set(), set()
        for rel in paths:
            path = os.path.join(root, rel)
            if not os.path.isfile(path) or not is_elf(path):
                continue
            where = resolved_paths(path)
            for lib in needed_libraries(path):
                if lib not in where:
                    continue  # not on this machine (libcuda without a driver): not a Debian package
                pkg = owner(where[lib])
                if pkg is None:
                    unowned.add(f"{lib} ({where[lib]})")  # the CUDA toolkit's, left out on purpose
                elif pkg.split(":")[0] not in listed:
                    uncovered.add(f"{rel} needs {lib} from {pkg}")
        check(not uncovered, f"{fields['Package']}: Depends covers every linked library's package" + (f"; missing {sorted(uncovered)}" if uncovered else ""))
        if unowned:
            print(f"      ({fields['Package']}: not from a Debian package, not in Depends: {', '.join(sorted(unowned))})")
        ours = {d["Package"] for d in debs.values()}
        unknown = [p for p in listed - ours if run(["dpkg-query", "-W", p]).returncode != 0]
        check(not unknown, f"{fields['Package']}: every Depends entry is a real package" + (f"; unknown {unknown}" if unknown else ""))


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def check_root(root, a, tmp):
    env = clean_env()
    usr = os.path.join(root, "usr")
    cli = os.path.join(usr, "bin/warpscope-cli")
    demo = os.path.join(usr, "share/warpscope/demo/h200-gemm-relu.wscope")

    r = run([cli, "--version"], env=env)
    check(r.returncode == 0 and r.stdout.strip() == a.version, f"extracted warpscope-cli --version says {a.version!r}")
    r = run([cli, "info", demo], env=env)
    check(r.returncode == 0 and "Schema" in r.stdout and "Runs" in r.stdout, "extracted warpscope-cli info on the installed demo session")

    # A section only the installed directory has: listed means the installed files were read.
    sections = os.path.join(usr, "share/warpscope/sections")
    with open(os.path.join(sections, "launchstats.section")) as f:
        text = f.read()
    with open(os.path.join(sections, "zzinstallcheck.section"), "w") as f:
        f.write(text.replace("section LaunchStats", "section InstallCheck", 1))
    r = run([cli, "profile", "--list-sections"], env=env)
    listed = re.findall(r"^(\S+)\s", r.stdout, re.M)
    check(r.returncode == 0 and "InstallCheck" in listed, f"extracted warpscope-cli reads the sections beside it (listed: {listed})")

    man = os.path.join(usr, "share/man/man1/warpscope-cli.1.gz")
    page = gzip.open(man, "rt").read() if os.path.exists(man) else ""
    check(".SH COMMANDS" in page and ".SS warpscope-cli record" in page, "warpscope-cli(1) documents every subcommand")

    if not a.gui:
        return
    app = os.path.join(usr, "bin/warpscope")
    shot = os.path.join(tmp, "installed.png")
    r = run([app, demo, "--screenshot", shot], env=env, timeout=120)
    size = png_size(shot) if os.path.exists(shot) else None
    # A drawn 1920x1080 window compresses to hundreds of KB; an empty one to a few KB.
    nbytes = os.path.getsize(shot) if size else 0
    check(r.returncode == 0 and size is not None and size[0] >= 800 and size[1] >= 500 and nbytes > 50_000,
          f"extracted warpscope --screenshot on the installed demo: {size} {nbytes} bytes")

    desktop = open(os.path.join(usr, "share/applications/warpscope.desktop")).read()
    keys = dict(re.findall(r"^(\w+)=(.*)$", desktop, re.M))
    check(keys.get("Exec", "").split()[0] == "warpscope" and "%f" in keys.get("Exec", ""), "desktop entry runs warpscope with the file")
    check(keys.get("Icon") == "warpscope" and os.path.exists(os.path.join(usr, "share/icons/hicolor/scalable/apps/warpscope.svg")),
          "desktop entry's icon is installed")
    mime = open(os.path.join(usr, "share/mime/packages/warpscope.xml")).read()
    declared = re.findall(r'<mime-type type="([^"]+)">', mime)
    check("application/x-warpscope-session" in keys.get("MimeType", "").split(";") and declared == ["application/x-warpscope-session"]
          and '<glob pattern="*.wscope"' in mime, "desktop entry opens the MIME type declared for *.wscope")
    if shutil.which("update-mime-database"):
        r = run(["update-mime-database", os.path.join(usr, "share/mime")])
        globs = open(os.path.join(usr, "share/mime/globs2")).read() if r.returncode == 0 else ""
        check(re.search(r"^\d+:application/x-warpscope-session:\*\.wscope$", globs, re.M) is not None,
              "update-mime-database maps *.wscope to application/x-warpscope-session")
    else:
        print("      (update-mime-database not installed: MIME database check skipped)")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--cmake", required=True)
    p.add_argument("--cpack", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--gui", action="store_true")
    a = p.parse_args()
    for tool in ("dpkg-deb", "dpkg-query", "readelf", "ldd"):
        if not shutil.which(tool):
            print(f"{tool} not found: cannot check the Debian packages")
            return 1

    tmp = tempfile.mkdtemp(prefix="ws-install-")
    try:
        prefix = os.path.join(tmp, "prefix")
        r = run([a.cmake, "--install", a.build_dir, "--prefix", prefix])
        if check(r.returncode == 0, "cmake --install into a temporary prefix"):
            check_prefix(prefix, a)

        out = os.path.join(tmp, "packages")
        r = run([a.cpack, "-G", "DEB", "--config", os.path.join(a.build_dir, "CPackConfig.cmake"), "-B", out], timeout=600)
        debs = {os.path.join(out, f): None for f in sorted(os.listdir(out)) if f.endswith(".deb")} if r.returncode == 0 else {}
        want = {"warpscope-cli"} | ({"warpscope"} if a.gui else set())
        for deb in debs:
            debs[deb] = control(deb)
        check({f["Package"] for f in debs.values()} == want, f"cpack -G DEB wrote the packages {sorted(want)}: {[os.path.basename(d) for d in debs]}")
        check(all(f["Version"] == a.version for f in debs.values()), f"package versions are the project's {a.version}")
        if a.gui and debs:
            app = next(f for f in debs.values() if f["Package"] == "warpscope")
            check(f"warpscope-cli (= {a.version})" in app["Depends"], "warpscope depends on the same version of warpscope-cli")

        root = os.path.join(tmp, "root")
        for deb in debs:
            check(run(["dpkg-deb", "-x", deb, root]).returncode == 0, f"dpkg-deb -x {os.path.basename(deb)}")
        if debs:
            check_depends(root, debs)
            check_root(root, a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'FAILED: ' + str(len(failures)) if failures else 'all checks passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
