#!/usr/bin/env bash
# Every COPY (and ADD) source of every Dockerfile under deploy/ is in its build
# context: it exists there and the context's .dockerignore does not exclude it (a
# source that is excluded stops the image build with '"/path" not found', after the
# minutes the stages before it took). Copies from another stage or image (--from=)
# are not files of the context and are left alone.
#
#   tests/deploy/dockerfile_context_check.sh     # seconds; a CTest test (deploy)
#
# Each Dockerfile names its context, relative to the repository root, on a line
# "# context: DIR" (the DIR its `docker build` is given); one without it fails.
# .dockerignore is read as Docker reads it: patterns in Go's filepath.Match syntax
# plus "**", a pattern excludes a path when it matches the path or one of its parent
# directories, "!" re-includes, and the last matching line wins.
set -euo pipefail
cd "$(dirname "$0")/../.."

exec python3 - "$@" <<'EOF'
import glob, os, re, sys

def pattern_regex(pattern):
    """A .dockerignore pattern (cleaned, relative) as a regular expression."""
    out, i = "", 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**", i):
            i += 2
            if pattern.startswith("/", i):  # "**/": any number of directories
                i += 1
                out += "(?:.*/)?"
            else:
                out += ".*"
            continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j < 0:
                out += re.escape(c)
            else:
                body = pattern[i + 1:j].replace("\\", "\\\\")
                if body.startswith("^"):
                    body = "^" + body[1:]
                out += "[" + body + "]"
                i = j
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out += re.escape(pattern[i])
        else:
            out += re.escape(c)
        i += 1
    return re.compile(out + "$")

def read_ignore(context):
    rules = []
    path = os.path.join(context, ".dockerignore")
    if not os.path.exists(path):
        return rules
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keep = line.startswith("!")
        if keep:
            line = line[1:].strip()
        line = os.path.normpath(line).lstrip("/")
        if line == ".":
            continue
        rules.append((keep, pattern_regex(line)))
    return rules

def excluded(rules, rel):
    """Whether the context path rel (no leading ./) is left out of the context."""
    parts = rel.split("/")
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    out = False
    for keep, rx in rules:
        if any(rx.match(p) for p in prefixes):
            out = not keep
    return out

def instructions(text):
    """(line number, instruction, arguments) with continuation lines joined."""
    lines, start, buf = [], None, ""
    for n, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not buf and (not s or s.startswith("#")):
            continue
        if buf and s.startswith("#"):
            continue
        if start is None:
            start = n
        if s.endswith("\\"):
            buf += s[:-1] + " "
            continue
        buf += s
        word, _, rest = buf.partition(" ")
        lines.append((start, word.upper(), rest.strip()))
        start, buf = None, ""
    return lines

def sources(args):
    """The sources of a COPY/ADD, or None when it copies from a stage or image."""
    words = []
    if args.startswith("["):
        import json
        words = json.loads(args)
    else:
        words = args.split()
    while words and words[0].startswith("--"):
        if words[0].startswith("--from="):
            return None
        words = words[1:]
    return words[:-1]

failures = 0
def fail(msg):
    global failures
    failures += 1
    print("dockerfile_context_check: FAIL: " + msg)

dockerfiles = sorted(
    os.path.join(d, f) for d, _, fs in os.walk("deploy") if "node_modules" not in d
    for f in fs if f == "Dockerfile" or f.endswith(".Dockerfile"))
if not dockerfiles:
    fail("no Dockerfile under deploy/")
for df in dockerfiles:
    text = open(df).read()
    m = re.search(r"^# context: (\S+)\s*$", text, re.M)
    if not m:
        fail(f"{df}: no '# context: DIR' line")
        continue
    context = m.group(1)
    if not os.path.isdir(context):
        fail(f"{df}: context {context} is not a directory")
        continue
    rules = read_ignore(context)
    checked = 0
    for n, word, args in instructions(text):
        if word not in ("COPY", "ADD"):
            continue
        srcs = sources(args)
        if srcs is None:
            continue
        for src in srcs:
            rel = os.path.normpath(src).lstrip("/")
            if rel == ".":
                checked += 1
                continue
            matches = glob.glob(os.path.join(context, rel))
            if not matches:
                fail(f"{df}:{n}: COPY source {src} does not exist in context {context}")
                continue
            kept = []
            for path in matches:
                prel = os.path.relpath(path, context)
                if os.path.isdir(path):
                    files = [os.path.relpath(os.path.join(d, f), context)
                             for d, _, fs in os.walk(path) for f in fs]
                    kept += [f for f in files if not excluded(rules, f)]
                elif not excluded(rules, prel):
                    kept.append(prel)
            if not kept:
                fail(f"{df}:{n}: COPY source {src} is excluded by {context}/.dockerignore")
            checked += 1
    print(f"dockerfile_context_check: {df} (context {context}): {checked} COPY sources checked")
sys.exit(1 if failures else 0)
EOF
