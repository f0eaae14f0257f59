#!/usr/bin/env bash
# Installs what one npm command needs, and does nothing where it is already done:
#
#   bash scripts/bootstrap.sh start|build|www|bench   what building pkg/ needs (npm start, npm run build, ...)
#   bash scripts/bootstrap.sh test                    that, and what the tests need (npm test, .ci/run)
#   bash scripts/bootstrap.sh                         the same as `test`: everything
#
# Building pkg/ (every command) needs:
#   - the Rust target wasm32-unknown-unknown (rustup);
#   - tc-wasm-bindgen (scripts/bindgen/, into the git-ignored .tools/): the one wasm-bindgen
#     command the build runs, on wasm-bindgen-cli-support at exactly the version of the
#     wasm-bindgen crate in Cargo.lock (glue from another version does not load the module). The
#     wasm-bindgen CLI package also builds a test runner with an HTTP server and client, twice
#     the CPU to compile (4 min 53 s without its TLS, against 2 min 18 s, measured side by side);
#   - the npm `dependencies` of package.json: binaryen's wasm-opt, and nothing else
#     (`npm ci --omit=dev`).
# The tests also need:
#   - wasm-bindgen-cli (wasm-bindgen and wasm-bindgen-test-runner) at that version, and wasm-pack
#     at a pinned version, into .tools/ too: `npm test` builds pkg/ through wasm-pack and runs the
#     binding's wasm-bindgen tests with it (always `--mode no-install`, so it finds the tools above
#     and never downloads). Without wasm-pack, scripts/build.mjs runs cargo and tc-wasm-bindgen
#     itself: the same files (`npm test` compares them), minutes less to install;
#   - the npm `devDependencies` (typescript, deno, bun, workerd, playwright-core, attw: a few
#     hundred MB, which `npm start` does not download);
#   - Chromium and chromedriver from apt, for the browser tests, when missing and apt is usable.
#
# Prints one line per step with the seconds it took, and the total. Safe to run any number of times.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-test}
case "$mode" in
  start | build | www | bench) full=0 ;;
  test) full=1 ;;
  *)
    echo "usage: bash scripts/bootstrap.sh [start|build|www|bench|test] (default: test, which installs everything)" >&2
    exit 2
    ;;
esac

step() { printf '[bootstrap] %s\n' "$*"; }
started=$EPOCHREALTIME
since() { awk -v from="$1" -v now="$EPOCHREALTIME" 'BEGIN { printf "%.1f s", now - from }'; }
# timed LABEL COMMAND...: runs the command and says how long it took.
timed() {
  local label=$1 from=$EPOCHREALTIME
  shift
  step "$label ..."
  "$@"
  step "$label: done in $(since "$from")"
}

command -v cargo >/dev/null || { echo "cargo is required: install Rust from https://rustup.rs" >&2; exit 1; }
command -v node >/dev/null || { echo "node (>= 20) is required" >&2; exit 1; }
step "installing what \`$mode\` needs$([ "$full" = 1 ] && echo ' (everything)' || echo ' (what building pkg/ needs)')"

# 1. Rust target.
if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  step "rust target wasm32-unknown-unknown: present"
else
  timed "rust target wasm32-unknown-unknown: rustup target add" rustup target add wasm32-unknown-unknown
fi

# 2. tc-wasm-bindgen, rebuilt when its sources change (.tools/tc-wasm-bindgen.stamp); about a
#    minute once on an idle two-core machine, the longest install step of `npm start`.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
pinned=$(sed -n 's/^wasm-bindgen-cli-support = "=\(.*\)"$/\1/p' scripts/bindgen/Cargo.toml)
if [ "$pinned" != "$want" ] || ! grep -qx "version = \"$want\"" scripts/bindgen/Cargo.toml; then
  echo "scripts/bindgen/Cargo.toml builds wasm-bindgen ${pinned:-?}, Cargo.lock has wasm-bindgen $want:" \
    "set its version and its wasm-bindgen-cli-support pin to $want, then run cargo update in scripts/bindgen" >&2
  exit 1
fi
sources=$(cat scripts/bindgen/Cargo.toml scripts/bindgen/Cargo.lock scripts/bindgen/src/*.rs | cksum)
if [ "$(.tools/bin/tc-wasm-bindgen --version 2>/dev/null || true)" = "tc-wasm-bindgen $want" ] &&
  [ "$(cat .tools/tc-wasm-bindgen.stamp 2>/dev/null || true)" = "$sources" ]; then
  step "tc-wasm-bindgen $want: present"
else
  timed "tc-wasm-bindgen $want: cargo install into .tools/ (about a minute, once)" \
    cargo install --locked --force --root .tools --path scripts/bindgen --target-dir target/bindgen-tool
  echo "$sources" >.tools/tc-wasm-bindgen.stamp
fi

# 3. wasm-bindgen-cli, pinned to the same version; only for the tests. No --locked: the CLI's own
#    lockfile pins a webpki-roots version the registry index this project is built against lacks.
#    --no-default-features leaves out TLS (rustls and ring, C code among it; 15 % of its build):
#    nothing here talks to an https server (the test runner's webdriver is chromedriver on
#    127.0.0.1, over http). About 2 minutes once on an idle two-core machine.
have=$(.tools/bin/wasm-bindgen --version 2>/dev/null || true)
if [ "$full" = 0 ]; then
  step "wasm-bindgen-cli: not needed for \`$mode\`"
elif [ "$have" = "wasm-bindgen $want" ]; then
  step "wasm-bindgen-cli $want: present"
else
  timed "wasm-bindgen-cli $want: cargo install into .tools/ (about 2 minutes, once)" \
    cargo install --root .tools wasm-bindgen-cli --version "$want" --no-default-features
fi

# 4. wasm-pack, pinned; only for the tests (see above). --locked works for it here (its lockfile
#    resolves against this registry index, unlike wasm-bindgen-cli's); about 100 s once on an idle
#    two-core machine.
wasm_pack_version=0.15.1
if [ "$full" = 0 ]; then
  step "wasm-pack: not needed for \`$mode\` (without it, scripts/build.mjs runs cargo and tc-wasm-bindgen itself)"
elif [ "$(.tools/bin/wasm-pack --version 2>/dev/null || true)" = "wasm-pack $wasm_pack_version" ]; then
  step "wasm-pack $wasm_pack_version: present"
else
  timed "wasm-pack $wasm_pack_version: cargo install into .tools/ (about 100 s, once)" \
    cargo install --locked --root .tools wasm-pack --version "$wasm_pack_version"
fi

# 5. npm packages, from package-lock.json: `dependencies` only (binaryen) unless the tests run.
#    node_modules/.bootstrap-npm records which set is installed ("build" or "all"); it is redone
#    when package.json or package-lock.json is newer than it, or when the tests need more than is
#    there. (`npm ci` starts from an empty node_modules either way.)
marker=node_modules/.bootstrap-npm
set_name=$([ "$full" = 1 ] && echo all || echo build)
installed=$(cat "$marker" 2>/dev/null || true)
if [ -n "$installed" ] && [ "$marker" -nt package.json ] && [ "$marker" -nt package-lock.json ] &&
  { [ "$installed" = all ] || [ "$set_name" = build ]; }; then
  step "npm packages ($installed): up to date"
else
  if [ "$full" = 1 ]; then
    timed "npm packages (all): npm ci" npm ci --no-audit --no-fund --loglevel=error
  else
    timed "npm packages (build: binaryen): npm ci --omit=dev" npm ci --omit=dev --no-audit --no-fund --loglevel=error
  fi
  echo "$set_name" >"$marker"
fi

# 6. Chromium + chromedriver for the wasm-bindgen browser tests (`wasm-pack test --chrome` is given
#    /usr/bin/chromedriver; it would otherwise download one) and the page tests. Only for the
#    tests. Skipped (and said so) where apt cannot be used; the test runner then reports the
#    browser tests as not run.
if [ "$full" = 0 ]; then
  step "chromium + chromedriver: not needed for \`$mode\`"
elif [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  step "chromium + chromedriver: present"
elif command -v apt-get >/dev/null && { [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; }; then
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo -n"
  apt_install() {
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium chromium-driver >/dev/null
  }
  timed "chromium + chromedriver: apt-get install (about a minute, once)" apt_install
else
  step "chromium + chromedriver: missing and apt is not usable here; browser tests will be skipped"
fi

step "ready for \`$mode\` in $(since "$started")"
