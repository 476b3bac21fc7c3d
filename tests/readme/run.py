#!/usr/bin/env python3
"""The README is a test: run every shell example of README.md in a scratch copy
of the repository, compare every documented output block, check the numbers the
prose quotes, and require `git status` clean afterwards.

Usage (from anywhere): tests/readme/run.py [--bin DIR] [--keep]

* The scratch copy holds the files git tracks or would track (`git ls-files
  --cached --others --exclude-standard`), committed into a fresh repository so
  that `git status` there shows what the examples wrote outside ignored paths.
  `data/facebook_combined.txt` (ignored, not shipped) is linked in when present;
  blocks that need it run only then.
* `privdiffuse` is `DIR/privdiffuse` (default: target/debug, which the
  README's test command `cargo test` builds), put first on PATH.
  `cargo run [--release] -- ARGS` runs as `privdiffuse ARGS`, `cargo run
  [--release] [--no-default-features] --example NAME` as the example binary the
  test command built; other cargo and pip lines are the CI's own steps and are
  not repeated here.
* A fenced block of language `sh` runs with `bash -euo pipefail` and must exit 0.
  A fenced block without a language (or `text`) directly after it, separated by
  blank lines only, is its expected output, compared byte for byte (stdout; or
  stderr when the block is marked to fail). Markers in an HTML comment on the
  line before a block: `<!-- readme: skip REASON -->` (not run: a cluster, a
  batch system), `<!-- readme: exit N -->` (the block must exit N and print the
  output block on stderr), `<!-- readme: needs facebook -->`.
* Quoted numbers: tests/readme/claims.py lists text the README quotes and the
  result file it must come from.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FACEBOOK = "data/facebook_combined.txt"


def blocks(text):
    """Fenced blocks: (line, lang, body, marker) in order."""
    out = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        lang = m.group(1)
        start = i
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        marker = ""
        k = start - 1
        while k >= 0 and lines[k].strip() == "":
            k -= 1
        if k >= 0:
            mm = re.match(r"^<!-- readme: (.*?) -->$", lines[k].strip())
            if mm:
                marker = mm.group(1)
        out.append((start + 1, lang, "\n".join(lines[start + 1 : j]) + "\n", marker, j))
        i = j + 1
    return out


def translate(body, examples):
    """The block as it runs here: cargo run lines become the built binaries;
    other cargo and pip lines are the CI's own steps."""
    out = []
    for line in body.split("\n"):
        s = line.strip()
        m = re.match(r"^cargo run (?:--release )?-- (.*)$", s)
        if m:
            out.append("privdiffuse " + m.group(1))
            continue
        m = re.match(r"^cargo run (?:--release |--no-default-features )*--example (\w+)(.*)$", s)
        if m:
            out.append(os.path.join(examples, m.group(1)) + m.group(2))
            continue
        if re.match(r"^(cargo|pip|python3? -m pip) ", s):
            out.append("# (CI step, not repeated) " + s)
            continue
        out.append(line)
    return "\n".join(out)


def scratch_copy(dest):
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.split(b"\0")
    for f in files:
        if not f:
            continue
        rel = f.decode()
        src = os.path.join(ROOT, rel)
        if not os.path.lexists(src):
            continue  # deleted in the work tree
        dst = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)
    git = lambda *a: subprocess.run(["git", *a], cwd=dest, check=True, capture_output=True)
    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=readme", "-c", "user.email=readme@test", "commit", "-q", "-m", "scratch")
    fb = os.path.join(ROOT, FACEBOOK)
    if os.path.exists(fb):
        os.symlink(os.path.realpath(fb), os.path.join(dest, FACEBOOK))


def main():
    args = sys.argv[1:]
    bindir = os.path.join(ROOT, "target", "debug")
    if "--bin" in args:
        bindir = os.path.abspath(args[args.index("--bin") + 1])
    keep = "--keep" in args
    exe = os.path.join(bindir, "privdiffuse")
    if not os.access(exe, os.X_OK):
        sys.exit(f"readme: {exe} not found: run the README's test command (cargo test) first")
    tmp = tempfile.mkdtemp(prefix="privdiffuse-readme.")
    work = os.path.join(tmp, "privdiffuse")
    os.makedirs(work)
    pathdir = os.path.join(tmp, "bin")
    os.makedirs(pathdir)
    os.symlink(exe, os.path.join(pathdir, "privdiffuse"))
    scratch_copy(work)
    have_fb = os.path.exists(os.path.join(work, FACEBOOK))
    env = dict(os.environ)
    env["PATH"] = pathdir + os.pathsep + env.get("PATH", "")
    env.pop("RUST_BACKTRACE", None)
    env["TMPDIR"] = tmp
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    bs = blocks(text)
    failures = []
    ran = skipped = compared = 0
    for idx, (line, lang, body, marker, end) in enumerate(bs):
        if lang != "sh":
            continue
        if marker.startswith("skip"):
            skipped += 1
            continue
        if "needs facebook" in marker and not have_fb:
            print(f"README.md:{line}: skipped (no {FACEBOOK})")
            skipped += 1
            continue
        want_exit = 0
        m = re.match(r"exit (\d+)", marker)
        if m:
            want_exit = int(m.group(1))
        expected = None
        if idx + 1 < len(bs):
            nline, nlang, nbody, _nmarker, _nend = bs[idx + 1]
            between = text.split("\n")[end + 1 : nline - 1]
            if nlang in ("", "text") and all(l.strip() == "" for l in between):
                expected = nbody
        script = translate(body, os.path.join(bindir, "examples"))
        p = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=work, env=env, capture_output=True, text=True, timeout=900,
        )
        ran += 1
        if p.returncode != want_exit:
            failures.append(
                f"README.md:{line}: exit {p.returncode}, expected {want_exit}\n{script}\n--- stderr:\n{p.stderr[-3000:]}"
            )
            continue
        if expected is not None:
            got = p.stderr if want_exit else p.stdout
            compared += 1
            if got != expected:
                failures.append(
                    f"README.md:{line}: output differs from the block at line {bs[idx + 1][0]}\n--- expected:\n{expected}--- got:\n{got}"
                )
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=work, capture_output=True, text=True
    ).stdout
    if status:
        failures.append("git status is not clean after the examples:\n" + status)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import claims

    claim_failures, checked = claims.check(text, ROOT, have_fb)
    failures += claim_failures
    print(
        f"readme: {ran} shell blocks run, {compared} outputs compared, {skipped} skipped, "
        f"{checked} quoted numbers checked; {len(failures)} failures"
    )
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    if keep:
        print(f"scratch kept in {work}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
