#!/usr/bin/env bash
# Reports every Swift file in Sources/ longer than 300 lines and every function, initializer, subscript,
# accessor, computed property or closure whose body is longer than 60 lines (house style in the brief).
#
#   scripts/check-sizes.sh [--max-file N] [--max-body N] [DIR...]     (default DIR: Sources)
#
# Exit status: 0 when nothing is too large, 1 when something is (one line each), 2 on bad arguments.
#
# How it counts (approximate, but it never leaves a body out):
# - A file's size is its number of lines, blank lines and comments included, as `wc -l` counts them.
# - A body runs from the line of its opening `{` to the line of its closing `}`, both included. Braces are
#   matched with string literals (also multi-line `"""` and raw `#"..."#` ones, interpolations included) and
#   comments skipped. What opened a brace is read from the text between it and the previous `{`, `}` or `;`:
#   type bodies (struct, class, enum, extension, protocol, actor) and statement bodies (if, guard, for,
#   while, switch, do, catch, else, repeat, defer) are not bodies of their own, they count towards the
#   function they stand in; everything else is a function-like body (func, init, deinit, subscript,
#   get/set/willSet/didSet, a computed `var`, a closure) and is reported when too long. A nested body also
#   counts towards the body around it.
# - Nothing is excluded: files that scripts/embed-webapp.py generates are written small enough by it.
set -euo pipefail

max_file=300
max_body=60
dirs=()
while (($#)); do
    case "$1" in
        --max-file) max_file="${2:?--max-file takes a number}"; shift 2 ;;
        --max-body) max_body="${2:?--max-body takes a number}"; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "check-sizes.sh: unknown option $1" >&2; exit 2 ;;
        *) dirs+=("$1"); shift ;;
    esac
done
[[ "$max_file" =~ ^[0-9]+$ && "$max_body" =~ ^[0-9]+$ ]] || { echo "check-sizes.sh: limits must be whole numbers" >&2; exit 2; }
cd "$(dirname "$0")/.."
((${#dirs[@]})) || dirs=(Sources)

exec python3 - "$max_file" "$max_body" "${dirs[@]}" <<'PY'
import os
import re
import sys

max_file, max_body = int(sys.argv[1]), int(sys.argv[2])
roots = sys.argv[3:]

STATEMENT = re.compile(r"^(if|guard|for|while|switch|do|catch|else|repeat|defer)\b|^(case\b.*|default\s*):|^\}?\s*else\b|^let\s+\w+\s*=\s*(if|switch)\b|^return\s+(if|switch)\b")
TYPE = re.compile(r"(?<![.\w])(struct|class|enum|extension|protocol|actor)\s+[A-Za-z_]")
FUNCTION = re.compile(r"(?<![.\w])(func\s+([^\s(<]+)|init[?!]?\s*[(<]|deinit\b|subscript\s*[(<])")
ACCESSOR = re.compile(r"^(?:(?:mutating|nonmutating|_modify|_read)\s+)?(get|set|willSet|didSet)\b")
VAR = re.compile(r"(?<![.\w])var\s+(\w+)")
CONTINUES = re.compile(r"([,(\[:=]|->|&&|\|\|)\s*$")
CONTINUATION = re.compile(r"^\s*([.)\]?:]|->|&&|\|\||throws\b|rethrows\b|async\b|where\b|else\b)")


def statement(header):
    """The statement a `{` belongs to: the header's last line, with the lines it continues."""
    lines = [l for l in header.split("\n") if l.strip()]
    if not lines:
        return ""
    taken = [lines.pop()]
    while lines:
        joined = " ".join(taken)
        open_parens = joined.count("(") - joined.count(")") + joined.count("[") - joined.count("]")
        if open_parens < 0 or CONTINUATION.match(taken[0]) or CONTINUES.search(lines[-1]):
            taken.insert(0, lines.pop())
        else:
            break
    return " ".join(l.strip() for l in taken)


def classify(header):
    """'type', 'statement' or a short description of a function-like body, from the text before its `{`."""
    s = statement(header)
    # Attributes come first and never decide.
    s = re.sub(r"^(@\w+(\([^)]*\))?\s*)+", "", s)
    f = FUNCTION.search(s)
    t = TYPE.search(s)
    if f and (not t or f.start() < t.start()) and not re.search(r"[=({]", s[:f.start()]):
        return f"func {f.group(2)}" if f.group(2) else f.group(1).rstrip("(<?! ")
    if t and not re.search(r"[=({]", s[:t.start()]):
        return "type"
    a = ACCESSOR.match(s)
    if a:
        return a.group(1)
    if STATEMENT.match(s):
        return "statement"
    v = VAR.search(s)
    if v and "=" not in s[v.end():] and not re.search(r"[=(]", s[:v.start()]):
        return f"var {v.group(1)}"
    return "closure"


def sanitized(text):
    """The text with comments blanked and each string literal an `S` and blanks (newlines kept), so braces and
    words in them do not count."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j); i = j
        elif text.startswith("/*", i):
            depth, j = 0, i
            while j < n:
                if text.startswith("/*", j):
                    depth += 1; j += 2
                elif text.startswith("*/", j):
                    depth -= 1; j += 2
                    if depth == 0:
                        break
                else:
                    j += 1
            blank(i, j); i = j
        elif text[i] in "#\"":
            j = i
            while j < n and text[j] == "#":
                j += 1
            if j >= n or text[j] != '"':
                i = max(j, i + 1)
                continue
            hashes = j - i
            delim = '"""' if text.startswith('"""', j) else '"'
            close = delim + "#" * hashes
            k = j + len(delim)
            while k < n and not text.startswith(close, k):
                # An escaped character (`\"`) never closes; interpolations are blanked with the string.
                k += 2 if text[k] == "\\" and hashes == 0 else 1
            k = min(n, k + len(close))
            blank(i, k)
            out[i] = "S"  # a literal stays a value, so a line ending in one does not look continued
            i = k
        else:
            i += 1
    return "".join(out)


def scan(path):
    """Returns the file's line count and (kind, first line, last line) of every braced body in it."""
    text = open(path, encoding="utf-8", errors="replace").read()
    clean = sanitized(text)
    line, header_start = 1, 0
    stack, bodies = [], []
    for i, c in enumerate(clean):
        if c == "\n":
            line += 1
        elif c == "{":
            stack.append((classify(clean[header_start:i]), line))
            header_start = i + 1
        elif c == "}":
            if stack:
                kind, start = stack.pop()
                bodies.append((kind, start, line))
            header_start = i + 1
        elif c == ";":
            header_start = i + 1
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1), bodies


findings = []
for root in roots:
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            lines, bodies = scan(path)
            if lines > max_file:
                findings.append(f"{path}: file has {lines} lines (limit {max_file})")
            for kind, start, end in bodies:
                if kind in ("type", "statement"):
                    continue
                size = end - start + 1
                if size > max_body:
                    findings.append(f"{path}:{start}: {kind} body has {size} lines (limit {max_body})")
for f in sorted(findings):
    print(f)
sys.stdout.flush()
print(f"check-sizes: {len(findings)} over the limits (files > {max_file} lines, bodies > {max_body} lines)", file=sys.stderr)
sys.exit(1 if findings else 0)
PY
