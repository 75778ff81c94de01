# Shared by scripts/start and scripts/test: settings with local defaults, and the install/build step.
# shellcheck shell=bash

export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432}"
export AMQP_URL="${AMQP_URL:-amqp://guest:guest@127.0.0.1:5672}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1

PNPM_VERSION=10.34.8

pnpm_cmd() {
  # corepack cannot verify pnpm's signatures offline, so pnpm comes from the npm registry.
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ]; then
    pnpm "$@"
  else
    npx --yes "pnpm@$PNPM_VERSION" "$@"
  fi
}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# The services run on Node 24 LTS (.nvmrc). When the machine's node is older, Node 24 comes from the
# npm registry's `node` package (the official binary, repackaged) into .tools/, ahead on PATH for
# everything this script runs: pnpm, jest, the services.
NODE_MAJOR="$(cut -d. -f1 "$(dirname "${BASH_SOURCE[0]}")/../.nvmrc")"
ensure_node() {
  local have
  have="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$have" -ge "$NODE_MAJOR" ]; then return 0; fi
  local dir="$PWD/.tools/node-$NODE_MAJOR"
  if [ ! -x "$dir/node_modules/node/bin/node" ]; then
    step "install Node $NODE_MAJOR (this machine has Node $have)"
    npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error --prefix "$dir" "node@$NODE_MAJOR" >/dev/null
  fi
  export PATH="$dir/node_modules/node/bin:$PATH"
  echo "using $(command -v node) $(node -v)"
}

# Install dependencies, generate the Prisma clients and compile every package to dist/.
prepare_workspace() {
  step "install dependencies"
  pnpm_cmd install --frozen-lockfile --reporter=append-only
  step "generate Prisma clients"
  pnpm_cmd run generate >/dev/null
  step "build (tsc -b)"
  pnpm_cmd run build
}

# Fail early, naming what to start, when PostgreSQL, RabbitMQ or Redis is not reachable.
check_services() {
  step "check PostgreSQL, RabbitMQ and Redis"
  node scripts/check-services.mjs
}

# The media library measures videos with ffprobe (Debian package ffmpeg; the tests also make fixtures
# with ffmpeg). Installed when missing and apt-get is usable, else a clear stop.
ensure_media_tools() {
  if command -v ffprobe >/dev/null 2>&1 && command -v ffmpeg >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    step "install ffmpeg (ffprobe measures uploaded videos)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ffmpeg >/dev/null
  fi
  if ! command -v ffprobe >/dev/null 2>&1; then
    echo "ffprobe is missing: install the Debian package ffmpeg (apt-get install -y ffmpeg); the media library needs it for video metadata." >&2
    exit 1
  fi
}

# The dashboard's browser tests drive Debian's chromium through playwright-core; no browser is ever
# downloaded.
ensure_browser() {
  if command -v chromium >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    step "install chromium (the dashboard's browser tests)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
  if ! command -v chromium >/dev/null 2>&1; then
    echo "chromium is missing: install the Debian package chromium (apt-get install -y chromium); the dashboard's browser tests need it." >&2
    exit 1
  fi
}

# The alert rules are checked with promtool (test/monitoring), from Debian's prometheus package. Only
# the binary is used: the package's services are disabled again where an init system started them.
ensure_promtool() {
  if command -v promtool >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    step "install prometheus (promtool checks the alert rules)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
    if [ -d /run/systemd/system ]; then
      systemctl disable --now prometheus >/dev/null 2>&1 || true
    fi
  fi
  if ! command -v promtool >/dev/null 2>&1; then
    echo "promtool is missing: install the Debian package prometheus (apt-get install -y prometheus); the alert rules' tests need it." >&2
    exit 1
  fi
}

# kubectl renders the Kubernetes overlays (`kubectl kustomize`) for test/deploy. Its kustomize must be
# v4.1 or later (components, replacements): kubectl 1.22 or later. Debian's kubernetes-client package
# is installed when kubectl is missing; bookworm's (1.20, kustomize v2) is too old for the overlays, and
# the check below says so instead of letting the tests fail on it.
ensure_kubectl() {
  if ! command -v kubectl >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    step "install kubernetes-client (kubectl kustomize renders k8s/overlays)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends kubernetes-client >/dev/null
  fi
  if ! command -v kubectl >/dev/null 2>&1; then
    echo "kubectl is missing: install Debian's kubernetes-client (apt-get install -y kubernetes-client); test/deploy renders k8s/overlays with it." >&2
    exit 1
  fi
  local version
  version=$(kubectl version --client 2>/dev/null | sed -n 's/^Kustomize Version: v\{0,1\}\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  if [ -z "$version" ] || [ "${version% *}" -lt 4 ] || { [ "${version% *}" = 4 ] && [ "${version#* }" -lt 1 ]; }; then
    echo "kubectl's kustomize is older than v4.1 (${version:-unknown}): k8s/overlays need kubectl 1.22 or later." >&2
    exit 1
  fi
}
