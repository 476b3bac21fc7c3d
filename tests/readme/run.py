#!/usr/bin/env python3
"""The documentation is a test: run every shell example of README.md and of
docs/**/*.md (CHANGELOG.md is history, not run), each file in its own fresh
scratch copy of the repository, compare every documented output block, check
the numbers the prose quotes and the links it gives, and require `git status`
clean afterwards.

Usage (from anywhere): tests/readme/run.py [--bin DIR] [--keep] [FILE ...]
(FILEs, relative to the repository root, restrict the run to those documents;
the link and quoted-number checks always cover all of them.)

* A scratch copy holds the files git tracks or would track (`git ls-files
  --cached --others --exclude-standard`), committed into a fresh repository so
  that `git status` there shows what the examples wrote outside ignored paths.
  One copy per document: a document's blocks run in order in its copy, so a
  block may use what an earlier block of the same document wrote, never what
  another document's did. `data/facebook_combined.txt` (ignored, not shipped)
  is linked in when present; blocks that need it run only then.
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
  line before a block: `<!-- readme: skip KIND: REASON -->` with KIND one of
  `network` (downloads), `cluster` (several processes talking over TCP) or
  `batch` (a batch system's job script) — no other block is skipped;
  `<!-- readme: exit N -->` (the block must exit N and print the output block
  on stderr); `<!-- readme: needs facebook -->`.
* Checks beyond the blocks: every document under docs/ is linked from
  README.md (its table of guides); every relative link of every document
  names a file that exists (and a heading of it, for `FILE.md#anchor`); the SHA-256 the README quotes for
  data/facebook_combined.txt is that file's, when it is present; and the
  quoted numbers of tests/readme/claims.py.
* Prints one line per document (blocks run, outputs compared, skipped) and a
  total.
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


SKIP_KINDS = ("network", "cluster", "batch")
FACEBOOK_SUM = re.compile(r'([0-9a-f]{64})  ' + re.escape(FACEBOOK))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def documents():
    """README.md, then every Markdown file under docs/ in path order."""
    docs = []
    for base, _dirs, files in os.walk(os.path.join(ROOT, "docs")):
        for f in files:
            if f.endswith(".md"):
                docs.append(os.path.relpath(os.path.join(base, f), ROOT))
    return ["README.md"] + sorted(docs)


def anchors(text):
    """GitHub's anchors of a Markdown text's headings (outside code blocks)."""
    out = set()
    fence = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^#{1,6} (.*)$", line)
        if m:
            out.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return out


def check_links(name, text):
    """Relative links that name no file, or a heading the file does not have."""
    bad = []
    here = os.path.dirname(os.path.join(ROOT, name))
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = os.path.normpath(os.path.join(here, path)) if path else os.path.join(ROOT, name)
        if not os.path.exists(file):
            bad.append(f"{name}: link to {target}: no such file")
        elif anchor and file.endswith(".md"):
            with open(file, encoding="utf-8") as f:
                if anchor not in anchors(f.read()):
                    bad.append(f"{name}: link to {target}: no heading #{anchor} there")
    return bad


def check_guides_listed(readme, docs):
    """Every document under docs/ is linked from README.md."""
    linked = {os.path.normpath(t.split("#", 1)[0]) for t in LINK.findall(readme)}
    return [
        f"README.md does not link {d} (add it to the table of guides)"
        for d in docs
        if d != "README.md" and os.path.normpath(d) not in linked
    ]


def check_facebook_sum(readme, have_fb):
    """(failures, checked): the quoted SHA-256 against the file, when present."""
    quoted = FACEBOOK_SUM.findall(readme)
    if not quoted:
        return [f"README.md quotes no SHA-256 for {FACEBOOK}"], 0
    if not have_fb:
        print(f"README.md: SHA-256 of {FACEBOOK} not checked (no {FACEBOOK})")
        return [], 0
    import hashlib

    h = hashlib.sha256()
    with open(os.path.join(ROOT, FACEBOOK), "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    got = h.hexdigest()
    bad = [q for q in quoted if q != got]
    return [f"README.md quotes SHA-256 {q} for {FACEBOOK}, which has {got}" for q in bad], len(quoted)


def run_document(name, text, exe, bindir, keep):
    """Runs one document's blocks in a fresh scratch copy: (ran, compared,
    skipped, failures)."""
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
    bs = blocks(text)
    failures = []
    ran = skipped = compared = 0
    for idx, (line, lang, body, marker, end) in enumerate(bs):
        if lang != "sh":
            continue
        where = f"{name}:{line}"
        if marker.startswith("skip"):
            m = re.match(r"skip (\w+):", marker)
            if not m or m.group(1) not in SKIP_KINDS:
                failures.append(
                    f"{where}: '{marker}': a block is skipped only as `skip KIND: reason`, "
                    f"KIND one of {', '.join(SKIP_KINDS)}"
                )
            skipped += 1
            continue
        if "needs facebook" in marker and not have_fb:
            print(f"{where}: skipped (no {FACEBOOK})")
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
                f"{where}: exit {p.returncode}, expected {want_exit}\n{script}\n--- stderr:\n{p.stderr[-3000:]}"
            )
            continue
        if expected is not None:
            got = p.stderr if want_exit else p.stdout
            compared += 1
            if got != expected:
                failures.append(
                    f"{where}: output differs from the block at line {bs[idx + 1][0]}\n--- expected:\n{expected}--- got:\n{got}"
                )
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=work, capture_output=True, text=True
    ).stdout
    if status:
        failures.append(f"{name}: git status is not clean after its examples:\n" + status)
    if keep:
        print(f"{name}: scratch kept in {work}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return ran, compared, skipped, failures


def main():
    args = sys.argv[1:]
    bindir = os.path.join(ROOT, "target", "debug")
    if "--bin" in args:
        i = args.index("--bin")
        bindir = os.path.abspath(args[i + 1])
        del args[i : i + 2]
    keep = "--keep" in args
    only = [a for a in args if a != "--keep"]
    exe = os.path.join(bindir, "privdiffuse")
    if not os.access(exe, os.X_OK):
        sys.exit(f"readme: {exe} not found: run the README's test command (cargo test) first")
    docs = documents()
    for o in only:
        if o not in docs:
            sys.exit(f"readme: {o} is not one of the documents run ({', '.join(docs)})")
    texts = {d: open(os.path.join(ROOT, d), encoding="utf-8").read() for d in docs}
    have_fb = os.path.exists(os.path.join(ROOT, FACEBOOK))
    failures = []
    totals = [0, 0, 0]
    for name in docs:
        if only and name not in only:
            continue
        ran, compared, skipped, fails = run_document(name, texts[name], exe, bindir, keep)
        totals[0] += ran
        totals[1] += compared
        totals[2] += skipped
        failures += fails
        print(f"readme: {name}: {ran} run, {compared} outputs compared, {skipped} skipped")
    for name in docs:
        failures += check_links(name, texts[name])
    failures += check_guides_listed(texts["README.md"], docs)
    sum_failures, sums = check_facebook_sum(texts["README.md"], have_fb)
    failures += sum_failures
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import claims

    claim_failures, checked = claims.check(texts, ROOT, have_fb)
    failures += claim_failures
    print(
        f"readme: {len(docs) if not only else len(only)} documents, {totals[0]} shell blocks run, "
        f"{totals[1]} outputs compared, {totals[2]} skipped, {checked} quoted numbers and "
        f"{sums} checksum checked; {len(failures)} failures"
    )
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
