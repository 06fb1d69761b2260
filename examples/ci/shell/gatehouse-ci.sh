#!/bin/sh
# gatehouse in any CI: the GitOps loop as three stages of one script.
#
#   gatehouse-ci.sh plan    review stage: validate, plan, save the plan to $PLAN_FILE and the
#                           Markdown to plan.md (post it where reviewers look); exit 0 either
#                           way, 1 on a failure (the error is in plan.md too)
#   gatehouse-ci.sh apply   after approval: apply exactly the saved $PLAN_FILE, which your CI
#                           carries from the plan stage (an artifact); refused when stale
#   gatehouse-ci.sh drift   nightly: exit 2 when live differs from the manifests
#
# An emergency change to a few objects: set GATEHOUSE_TARGETS to their addresses, separated by
# spaces (GATEHOUSE_TARGETS='HTTPSEdge/api Backend/maintenance'; globs such as 'Backend/*' are
# gatehouse's, never the shell's), and the plan stage saves a targeted plan (those objects,
# their children and what they depend on; never a delete), which the apply stage applies as
# it is. Run a full plan once the emergency is over.
#
# Needs Node.js 20.19+, GATEHOUSE_API_URL and GATEHOUSE_API_KEY (an explicit target: with CI
# set, gatehouse never falls back to its embedded server), and every ${env:NAME} secret the
# manifests reference.
#
# gatehouse comes from the registry (@gatehouse/cli at GATEHOUSE_VERSION), or from a release
# tarball when GATEHOUSE_TARBALL names one: the path or https:// URL of gatehouse-cli-<version>.tgz
# (`npm run release`; docs/install.md).
set -eu

GATEHOUSE_VERSION="${GATEHOUSE_VERSION:-0.1.0}"
MANIFESTS="${MANIFESTS:-manifests}"
PLAN_FILE="${PLAN_FILE:-gatehouse-plan.json}"
PREFIX="${GATEHOUSE_PREFIX:-.gatehouse-cli}"

SOURCE="${GATEHOUSE_TARBALL:-@gatehouse/cli@$GATEHOUSE_VERSION}"
case "$SOURCE" in
  http:*) echo "GATEHOUSE_TARBALL must be a path or an https:// URL, not $SOURCE" >&2; exit 1 ;;
esac
# Installed once per source (cache $PREFIX between runs; it records what it holds, so a new
# version or tarball installs again); --omit=optional: nothing to compile.
if [ ! -x "$PREFIX/node_modules/.bin/gatehouse" ] || [ "$(cat "$PREFIX/.installed-from" 2>/dev/null)" != "$SOURCE" ]; then
  npm install --prefix "$PREFIX" --omit=optional --no-save --no-audit --no-fund "$SOURCE"
  printf '%s\n' "$SOURCE" > "$PREFIX/.installed-from"
fi
case "$PREFIX" in
  /*) PATH="$PREFIX/node_modules/.bin:$PATH" ;;
  *) PATH="$PWD/$PREFIX/node_modules/.bin:$PATH" ;;
esac

stage="${1:-}"
# --target for each address of GATEHOUSE_TARGETS, with pathname expansion off while splitting.
set -f
set --
for target in ${GATEHOUSE_TARGETS:-}; do set -- "$@" --target "$target"; done
set +f

case "$stage" in
  plan)
    set +e
    gatehouse validate "$MANIFESTS" > gatehouse.log 2>&1
    code=$?
    if [ "$code" -eq 0 ]; then
      gatehouse plan "$MANIFESTS" "$@" --format markdown --out "$PLAN_FILE" --detailed-exitcode > plan.md 2>> gatehouse.log
      code=$?
    fi
    set -e
    cat gatehouse.log
    if [ "$code" -ne 0 ] && [ "$code" -ne 2 ]; then
      { echo "**gatehouse validate or plan failed** (exit $code)"; echo; echo '```text'; cat gatehouse.log; echo '```'; } > plan.md
      exit 1
    fi
    ;;
  apply)
    if [ ! -f "$PLAN_FILE" ]; then
      echo "no saved plan at $PLAN_FILE: carry it from the plan stage (never recompute it here)" >&2
      exit 1
    fi
    # --prune runs the deletes the reviewed plan shows, and no other: the plan of "$MANIFESTS"
    # (the whole manifest directory) lists the owned objects applied from under it that the
    # manifests no longer declare; objects applied from elsewhere are outside its scope and only
    # counted (README "Prune scope"). Give MANIFESTS one file and nothing else is ever deleted.
    gatehouse apply --plan "$PLAN_FILE" --yes --prune
    ;;
  drift)
    gatehouse drift "$MANIFESTS" --format json > drift.json
    ;;
  *)
    echo "usage: $0 plan|apply|drift" >&2
    exit 1
    ;;
esac
