#!/usr/bin/env bash
# Installs what one npm command needs, and does nothing where it is already done:
#
#   bash scripts/bootstrap.sh start|build|www|bench   what building pkg/ needs (npm start, npm run build, ...)
#   bash scripts/bootstrap.sh test                    that, and what the tests need (npm test, .ci/run)
#   bash scripts/bootstrap.sh                         the same as `test`: everything
#
# Building pkg/ (every command) needs:
#   - the Rust target wasm32-unknown-unknown (rustup);
#   - wasm-bindgen-cli at exactly the version of the wasm-bindgen crate in Cargo.lock, into the
#     git-ignored .tools/ (a mismatched CLI produces glue that does not load);
#   - the npm `dependencies` of package.json: binaryen's wasm-opt, and nothing else
#     (`npm ci --omit=dev`).
# The tests also need:
#   - wasm-pack at a pinned version, into .tools/ too: `npm test` builds pkg/ through it and runs
#     the binding's wasm-bindgen tests with it (always `--mode no-install`, so it finds the tools
#     above and never downloads). Without it, scripts/build.mjs runs the two commands wasm-pack
#     would (cargo build, wasm-bindgen) itself: the same files, minutes less to install;
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

# 2. wasm-bindgen-cli, pinned to the crate version in Cargo.lock. No --locked: the CLI's own
#    lockfile pins a webpki-roots version the registry index this project is built against lacks.
#    --no-default-features leaves out TLS (rustls and ring, C code among it): nothing here talks
#    to an https server (the test runner's webdriver is chromedriver on 127.0.0.1, over http).
#    About 2 minutes once on an idle two-core machine, by far the longest step of `npm start`.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(.tools/bin/wasm-bindgen --version 2>/dev/null || true)
if [ "$have" = "wasm-bindgen $want" ]; then
  step "wasm-bindgen-cli $want: present"
else
  timed "wasm-bindgen-cli $want: cargo install into .tools/ (about 2 minutes, once)" \
    cargo install --root .tools wasm-bindgen-cli --version "$want" --no-default-features
fi

# 3. wasm-pack, pinned; only for the tests (see above). --locked works for it here (its lockfile
#    resolves against this registry index, unlike wasm-bindgen-cli's); about 100 s once on an idle
#    two-core machine.
wasm_pack_version=0.15.1
if [ "$full" = 0 ]; then
  step "wasm-pack: not needed for \`$mode\` (without it, scripts/build.mjs runs cargo and wasm-bindgen itself)"
elif [ "$(.tools/bin/wasm-pack --version 2>/dev/null || true)" = "wasm-pack $wasm_pack_version" ]; then
  step "wasm-pack $wasm_pack_version: present"
else
  timed "wasm-pack $wasm_pack_version: cargo install into .tools/ (about 100 s, once)" \
    cargo install --locked --root .tools wasm-pack --version "$wasm_pack_version"
fi

# 4. npm packages, from package-lock.json: `dependencies` only (binaryen) unless the tests run.
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

# 5. Chromium + chromedriver for the wasm-bindgen browser tests (`wasm-pack test --chrome` is given
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
