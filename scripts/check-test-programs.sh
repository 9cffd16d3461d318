#!/usr/bin/env bash
# Fails when a test runs a program or Python module the test command does not install.
#   - tests name programs only through TestPrograms.path("x") / TestPrograms.python("module", ...), never as a
#     literal path (/usr/bin/curl) or through /usr/bin/env;
#   - every name they use is a row of scripts/test-programs.txt;
#   - every row's package is installed by the install step: Debian rows are installed (scripts/test.sh passes them
#     to scripts/deps.sh) and provide the program; PyPI rows are in scripts/pip-deps.sh and importable.
# Run by scripts/test.sh after the install step; exits non-zero listing every problem.
set -euo pipefail
cd "$(dirname "$0")/.."
TABLE=scripts/test-programs.txt
problems=()

row_source() { awk -v n="$1" '$1 !~ /^#/ && NF == 3 && $1 == n { print $2 }' "$TABLE" | head -n 1; }

# 1. Literal program paths and env/python3 indirections bypass the helper.
while IFS= read -r hit; do
    problems+=("$hit: runs a program by literal path; use TestPrograms.path(\"name\") or TestPrograms.python(...)")
done < <(grep -rnE '"/(usr/(local/)?)?s?bin/|"python3"|launchPath' Tests --include='*.swift' | grep -v '^Tests/TestPrograms/' || true)

# 2. Names used through the helper must be listed, with the right source.
while IFS=: read -r file line name; do
    [ "$(row_source "$name")" = debian ] || problems+=("$file:$line: program '$name' is not a Debian row of $TABLE")
done < <(grep -rnoE 'TestPrograms\.path\("[^"]+"\)' Tests --include='*.swift' | sed -E 's/TestPrograms\.path\("([^"]+)"\)/\1/')
while IFS=: read -r file line args; do
    for module in $(grep -oE '"[^"]+"' <<<"$args" | tr -d '"'); do
        [ "$(row_source "$module")" = pypi ] || problems+=("$file:$line: Python module '$module' is not a PyPI row of $TABLE")
    done
done < <(grep -rnoE 'TestPrograms\.python\([^)]*\)' Tests --include='*.swift')

# 3. Every row is really installed by the install step.
SEARCH="$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PIP_PKGS=$(sed -nE 's/^PKGS=\((.*)\)$/\1/p' scripts/pip-deps.sh | tr -d '"')
while read -r name source package; do
    case "$source" in
    debian)
        # triggers-pending/-awaited: installed, with a trigger (man-db, ldconfig) still to run.
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -qE "install ok (installed|triggers-pending|triggers-awaited)" \
            || problems+=("$TABLE: Debian package $package (for $name) is not installed")
        PATH="$SEARCH" command -v "$name" >/dev/null || problems+=("$TABLE: program $name not found after installing $package")
        ;;
    pypi)
        grep -qwF -- "$package" <<<"$PIP_PKGS" || problems+=("$TABLE: PyPI package $package (for $name) is missing from scripts/pip-deps.sh")
        python3 -c 'import importlib.util, sys; sys.exit(0 if importlib.util.find_spec(sys.argv[1]) else 1)' "$name" 2>/dev/null \
            || problems+=("$TABLE: Python module $name cannot be imported after scripts/pip-deps.sh")
        ;;
    *) problems+=("$TABLE: row '$name' has source '$source' (expected debian or pypi)") ;;
    esac
done < <(awk '$1 !~ /^#/ && NF == 3' "$TABLE")

if ((${#problems[@]})); then
    printf 'check-test-programs: %s\n' "${problems[@]}" >&2
    exit 1
fi
echo "check-test-programs: $(awk '$1 !~ /^#/ && NF == 3' "$TABLE" | wc -l) programs and modules, all installed and all used through TestPrograms" >&2
