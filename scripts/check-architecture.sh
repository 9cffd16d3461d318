#!/usr/bin/env bash
# Fails when ARCHITECTURE.md's module table and Package.swift disagree: every library target must have a row,
# the row's "depends on" must name exactly the target's dependencies, and a module may depend only on modules
# in rows above it (data flows down the table). "every module above" means exactly that. Also: each module's
# imports of project targets match its declared dependencies. And the folders table names exactly the folders
# inside the modules' sources (generated assets, C headers and DocC catalogs aside).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import re, sys

package = open("Package.swift").read()
targets = {}
for m in re.finditer(r'\.target\(\s*name:\s*"([^"]+)"(.*?)\)\s*,\s*(?://[^\n]*)?\n', package, re.S):
    name, rest = m.group(1), m.group(2)
    if 'path: "Tests/' in rest:
        continue  # test-support targets are not part of the map
    deps = re.search(r'dependencies:\s*\[(.*?)\]', rest, re.S)
    targets[name] = set(re.findall(r'"([^"]+)"', deps.group(1))) if deps else set()

doc = open("ARCHITECTURE.md").read()
table = re.search(r'<!-- modules:begin.*?-->(.*?)<!-- modules:end -->', doc, re.S)
if not table:
    sys.exit("check-architecture: ARCHITECTURE.md has no modules:begin/end table")
rows = []
for line in table.group(1).splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 3 or not cells[0].startswith("`"):
        continue
    rows.append((cells[0].strip("`"), cells[2]))

problems = []
seen = []
for name, deps_cell in rows:
    if name not in targets:
        problems.append(f"ARCHITECTURE.md lists {name}, which is not a library target in Package.swift")
        seen.append(name)
        continue
    actual = targets[name]
    if deps_cell == "every module above":
        listed = set(seen)
    elif deps_cell in ("—", "-", ""):
        listed = set()
    else:
        listed = set(re.findall(r'`([^`]+)`', deps_cell))
    if listed != actual:
        missing, extra = sorted(actual - listed), sorted(listed - actual)
        problems.append(f"{name}: Package.swift has {sorted(actual)}; ARCHITECTURE.md says {sorted(listed)}"
                        f" (missing {missing}, not in Package.swift {extra})")
    for dep in actual:
        if not dep.startswith("C") or dep in targets:
            if dep in targets and dep not in seen:
                problems.append(f"{name} depends on {dep}, which is not above it in the table")
    seen.append(name)

# Declared dependencies and imports agree: nothing imported undeclared, nothing declared unused.
import glob, os
all_targets = set(re.findall(r'\.(?:target|systemLibrary|executableTarget)\(\s*name:\s*"([^"]+)"', package))
for name, deps in targets.items():
    sources = glob.glob(f"Sources/{name}/**/*.swift", recursive=True)
    if not sources:
        continue
    imported = set()
    for f in sources:
        for m in re.finditer(r'^\s*(?:@testable\s+|@_exported\s+|public\s+|internal\s+|package\s+)?import\s+(\w+)', open(f).read(), re.M):
            if m.group(1) in all_targets:
                imported.add(m.group(1))
    if imported - deps:
        problems.append(f"{name} imports {sorted(imported - deps)} without declaring it in Package.swift")
    if deps - imported:
        problems.append(f"{name} declares {sorted(deps - imported)} in Package.swift but never imports it")

for name in targets:
    if name not in seen and not name.startswith("C") and name not in ("CommitStampTool",):
        problems.append(f"Package.swift target {name} has no row in ARCHITECTURE.md")

# The folders table: every folder inside a module's sources has a row, and every row names a folder that exists.
folders = re.search(r'<!-- folders:begin.*?-->(.*?)<!-- folders:end -->', doc, re.S)
if not folders:
    problems.append("ARCHITECTURE.md has no folders:begin/end table")
else:
    listed = set()
    for line in folders.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`"):
            listed.add(cells[0].strip("`").rstrip("/"))
    actual = set()
    for module in os.listdir("Sources"):
        base = os.path.join("Sources", module)
        for folder, dirs, _ in os.walk(base):
            for d in dirs:
                path = os.path.relpath(os.path.join(folder, d), "Sources")
                if not path.endswith((".docc", "include", "assets")) and "/assets/" not in path and ".docc/" not in path:
                    actual.add(path)
    for missing in sorted(actual - listed):
        problems.append(f"folder Sources/{missing} has no row in ARCHITECTURE.md's folders table")
    for gone in sorted(listed - actual):
        problems.append(f"ARCHITECTURE.md's folders table names Sources/{gone}, which does not exist")

if problems:
    print("check-architecture: ARCHITECTURE.md does not match Package.swift:", file=sys.stderr)
    for p in problems:
        print("  " + p, file=sys.stderr)
    sys.exit(1)
print(f"check-architecture: {len(rows)} modules match Package.swift")
PY
