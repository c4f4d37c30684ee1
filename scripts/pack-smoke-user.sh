#!/usr/bin/env bash
# The user's side of scripts/pack-smoke.sh, run in an empty folder holding the tarball
# ($KUBESIM_TGZ): install it and use every command, every library entry point, the published
# types and the shipped examples. Every expected number is hand-checked in a comment.
set -euo pipefail
t0=$(date +%s%N)
step() {
  local t=$(date +%s%N)
  echo "pack-smoke: ✓ $* ($(((t - t0) / 1000000)) ms)"
  t0=$t
}
fail() {
  echo "pack-smoke: ✗ $*" >&2
  exit 1
}
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected $2, got $1"; }

echo '{ "name": "kubesim-smoke", "private": true, "type": "module" }' >package.json
npm install --no-audit --no-fund --prefer-offline --loglevel=error \
  "$KUBESIM_TGZ" "typescript@$TS_VERSION" "@types/node@$TYPES_NODE_VERSION" >npm-install.log 2>&1 ||
  { cat npm-install.log >&2; fail "npm install of the tarball"; }
step "npm install $(basename "$KUBESIM_TGZ") on node $(node --version)"
pkg=node_modules/kubesim
if grep -rl --exclude='*.map' "$KUBESIM_REPO" "$pkg" >/dev/null 2>&1; then
  fail "the installed package names the repository path: $(grep -rl --exclude='*.map' "$KUBESIM_REPO" "$pkg" | head -3)"
fi

# --- the CLI ---------------------------------------------------------------------------------
npx kubesim --help >help.txt || fail "kubesim --help"
grep -q '^Usage: kubesim' help.txt || fail "kubesim --help prints no usage"
commands=$(sed -n '/^Commands:/,/^$/p' help.txt | awk '/^  [a-z]/ && $1 != "help" { print $1 }')
[ -n "$commands" ] || fail "kubesim --help lists no commands"
# (the bin itself rather than npx for each: npx's own start-up would double the time)
for c in $commands; do node_modules/.bin/kubesim "$c" --help >/dev/null || fail "kubesim $c --help"; done
step "npx kubesim --help, and --help of every command: $(echo $commands)"

# A small snapshot, hand-checked: three nodes of 4 CPU / 8Gi; "busy" requests 2 CPU on n-slow.
# A replica requests 1 CPU / 1Gi: n-fast 4 + n-slow 2 + n-drain 4 = 10 (CPU binds before memory).
cat >cluster.yaml <<'EOF'
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: { name: n-fast, labels: { kubesim.io/tier: fast, topology.kubernetes.io/zone: z1 } }
  status: { allocatable: { cpu: '4', memory: 8Gi, pods: '110' } }
- apiVersion: v1
  kind: Node
  metadata: { name: n-slow, labels: { topology.kubernetes.io/zone: z1 } }
  status: { allocatable: { cpu: '4', memory: 8Gi, pods: '110' } }
- apiVersion: v1
  kind: Node
  metadata: { name: n-drain, labels: { kubesim.io/draining: 'true', topology.kubernetes.io/zone: z2 } }
  status: { allocatable: { cpu: '4', memory: 8Gi, pods: '110' } }
- apiVersion: v1
  kind: Pod
  metadata: { name: busy, namespace: default }
  spec:
    nodeName: n-slow
    containers: [{ name: c, image: busy, resources: { requests: { cpu: '2', memory: 1Gi } } }]
EOF
cat >deployment.yaml <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: shop }
spec:
  replicas: 3
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers: [{ name: web, image: web:1, resources: { requests: { cpu: '1', memory: 1Gi } } }]
EOF
fits=$(npx kubesim plan --cluster cluster.yaml --pod deployment.yaml --kernel wasm -o json |
  node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(r.kernel, r.shapes[0].shape, r.shapes[0].fits)')
expect_eq "$fits" "wasm shop/web 10" "kubesim plan --kernel wasm (kernel, shape, fits)"
step "kubesim plan --kernel wasm on a 3-node snapshot, a Deployment as the shape: $fits fit (hand-checked 10)"

# --- the library: every entry point ------------------------------------------------------------
cat >library.mjs <<'EOF'
import { readFileSync } from 'node:fs';
import * as kubesim from 'kubesim';
const { exports } = JSON.parse(readFileSync(new URL('./node_modules/kubesim/package.json', import.meta.url), 'utf8'));
const subpaths = Object.keys(exports).filter((p) => p !== './package.json' && p !== '.');
const counts = [`kubesim ${Object.keys(kubesim).length}`];
for (const p of subpaths) {
  const name = `kubesim/${p.slice(2)}`;
  const mod = await import(name);
  if (Object.keys(mod).length === 0) throw new Error(`${name} exports nothing`);
  counts.push(`${name} ${Object.keys(mod).length}`);
}
const { api, capacity, scheduler } = kubesim;
const cluster = await scheduler.loadClusterFiles(['cluster.yaml']);
const [{ object: deployment }] = await api.loadManifests(['deployment.yaml']);
const pod = api.podFromWorkload(deployment);
const report = capacity.planCapacity(cluster, [pod], { kernel: 'wasm' });
let rejected = '';
try {
  capacity.planCapacity(cluster, [deployment], { kernel: 'wasm' });
} catch (e) {
  rejected = e.message;
}
console.log(JSON.stringify({ counts, fits: report.shapes[0].fits, kernel: report.kernel, rejected }));
EOF
lib=$(node library.mjs) || fail "library.mjs"
expect_eq "$(node -p "const r = $lib; r.kernel + ' ' + r.fits")" "wasm 10" "planCapacity(kernel wasm) on podFromWorkload(deployment)"
node -p "($lib).rejected" | grep -q 'Deployment "web" is not a Pod; podFromWorkload()' ||
  fail "planCapacity with the Deployment object itself: $(node -p "($lib).rejected")"
step "import 'kubesim' and every subpath export ($(node -p "($lib).counts.join(', ')") exports)"
step "capacity.planCapacity(cluster, [api.podFromWorkload(deployment)], { kernel: 'wasm' }): 10 fit; the Deployment itself is refused"

# --- the published types ---------------------------------------------------------------------
cat >types.ts <<'EOF'
import type { Deployment, Node, Pod } from 'kubesim/api';
import type { PlanReport } from 'kubesim/capacity';
import type { ScorePluginDef } from 'kubesim/scheduler';
import { api, capacity, scheduler } from 'kubesim';

const node: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: {}, status: { allocatable: { cpu: '4' } } };
const deployment: Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
};
const pod: Pod = api.podFromWorkload(deployment);
const plugin: ScorePluginDef = { name: 'Zero', score: () => 0 };
export async function plan(file: string): Promise<number> {
  const cluster = await scheduler.loadClusterFiles([file]);
  const report: PlanReport = capacity.planCapacity(cluster, [pod], { kernel: 'wasm' });
  return report.shapes[0].fits + node.metadata.name!.length + plugin.name.length;
}
EOF
tsc_check() { npx tsc --noEmit --strict --types node "$@" types.ts || fail "tsc $*"; }
# skipLibCheck false: every published declaration file must type-check too
tsc_check --module nodenext --moduleResolution nodenext --target es2022 --skipLibCheck false
step "types.ts type-checks against the published types (module nodenext)"
# older resolvers read "types" and "typesVersions" instead of "exports"
sed -e "s/import { api, capacity, scheduler } from 'kubesim';/import type * as K from 'kubesim';\ndeclare const api: typeof K.api, capacity: typeof K.capacity, scheduler: typeof K.scheduler;/" types.ts >types-node10.ts
mv types-node10.ts types.ts
tsc_check --module commonjs --moduleResolution node10 --target es2022 --ignoreDeprecations 5.0 --skipLibCheck true
step "types.ts type-checks with moduleResolution node10 (types / typesVersions)"

# --- the shipped examples, from the package --------------------------------------------------
out=$(node $pkg/examples/library/capacity.mjs) || fail "examples/library/capacity.mjs"
echo "$out" | grep -q '^shop/api: 15 more replicas fit (eu-west-1a=4, eu-west-1b=10, eu-west-1c=1)$' ||
  fail "examples/library/capacity.mjs printed: $out"
step "node $pkg/examples/library/capacity.mjs: $(echo "$out" | head -1)"

cat >pod.yaml <<'EOF'
apiVersion: v1
kind: Pod
metadata: { name: one, namespace: default }
spec:
  containers: [{ name: c, image: one, resources: { requests: { cpu: '1', memory: 1Gi } } }]
EOF
# a user's own TypeScript plugin beside the snapshot, importing kubesim at run time
cat >my-plugin.ts <<'EOF'
import { cpuMillis } from 'kubesim/api';
import type { ScorePluginDef } from 'kubesim/scheduler';
const plugin: ScorePluginDef = {
  name: 'MostFreeCpu',
  score: (_pod, node) => Math.min(100, Math.floor(cpuMillis(node.status?.allocatable?.cpu ?? 0) / 100)),
};
export default plugin;
EOF
explain() {
  npx kubesim explain --cluster cluster.yaml --pod pod.yaml --plugin "$1" -o json |
    node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
      const raw = (n) => n.scores?.find((s) => s.plugin === process.argv[1])?.raw;
      const byName = [...r.nodes].sort((a, b) => (a.name < b.name ? -1 : 1));
      console.log(r.chosen, byName.map((n) => `${n.name}=${n.feasible ? raw(n) : "filtered"}`).join(","))' "$2"
}
# prefer-label: n-fast 100, n-slow 0, n-drain filtered (draining) → n-fast chosen
expect_eq "$(explain $pkg/examples/plugins/prefer-label/index.ts:3 PreferLabel)" \
  "n-fast n-drain=filtered,n-fast=100,n-slow=0" "--plugin examples/plugins/prefer-label/index.ts"
step "--plugin $pkg/examples/plugins/prefer-label/index.ts:3 (TypeScript, compiled at load)"
# bin-packing: (requested + 1000m) × 100 / 4000m → n-fast 25, n-slow 75, n-drain 25
expect_eq "$(explain $pkg/examples/plugins/binpack.mjs:5 BinPackCpu | cut -d' ' -f2)" \
  "n-drain=25,n-fast=25,n-slow=75" "--plugin examples/plugins/binpack.mjs"
expect_eq "$(explain $pkg/examples/plugins/wasm-binpack/build/binpack.wasm:5 binpack | cut -d' ' -f2)" \
  "n-drain=25,n-fast=25,n-slow=75" "--plugin examples/plugins/wasm-binpack/build/binpack.wasm"
step "--plugin binpack.mjs and the shipped binpack.wasm: the same hand-checked scores 25/75/25"
# 4000m / 100 = 40 on every node
expect_eq "$(explain my-plugin.ts MostFreeCpu | cut -d' ' -f2)" "n-drain=40,n-fast=40,n-slow=40" "--plugin my-plugin.ts"
step "--plugin my-plugin.ts (a user's TypeScript importing kubesim/api at run time)"

for f in $pkg/examples/scenarios/pending-unschedulable.yaml; do
  name=$(npx kubesim simulate "$f" -o json --no-progress | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).scenario)') ||
    fail "kubesim simulate $f"
  expect_eq "$name" "pending-unschedulable" "kubesim simulate $f"
done
step "kubesim simulate $pkg/examples/scenarios/pending-unschedulable.yaml"

# --- kubesim serve's /ui from the package: one page, nothing fetched from elsewhere ------------
# the shipped snapshot: 6 nodes; the page draws its first screen from /kubesim/v1/node-summary
ui=$(node --input-type=module -e '
import { spawn } from "node:child_process";
const child = spawn("node_modules/.bin/kubesim", ["serve", "--port", "0", "--cluster", process.argv[1]], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolve, reject) => {
  let out = "";
  child.stdout.on("data", (d) => { out += d; const m = /kubesim serve: (http:\/\/127\.0\.0\.1:[0-9]+)/.exec(out); if (m) resolve(m[1]); });
  child.on("exit", (c) => reject(new Error("kubesim serve exited with " + c)));
});
try {
  const page = await (await fetch(url + "/ui")).text();
  const external = /(src|href)=["\x27]?(https?:)?\/\//.test(page);
  const summary = await (await fetch(url + "/kubesim/v1/node-summary")).json();
  console.log([page.includes("kubesimUi"), external, summary.nodes.length].join(" "));
} finally { child.kill(); }
' "$pkg/examples/snapshot/cluster.yaml") || fail "kubesim serve /ui"
expect_eq "$ui" "true false 6" "kubesim serve: /ui (the page, no outside reference) and /kubesim/v1/node-summary (6 nodes)"
step "kubesim serve: /ui is one page with nothing fetched from elsewhere; its node summary lists the 6 nodes"

# --- an optional part left out: a clear error, nothing else affected -------------------------
rm -rf node_modules/etcd3
msg=$(node -e "import('kubesim/store/etcd').then((m) => new m.EtcdStore({ endpoints: 'http://127.0.0.1:1' })).catch((e) => console.log(e.message))")
echo "$msg" | grep -q '^EtcdStore needs etcd3, an optional dependency of kubesim that is not installed' ||
  fail "EtcdStore without etcd3: $msg"
npx kubesim --help >/dev/null || fail "kubesim --help without etcd3"
step "without the optional etcd3: EtcdStore says so, the CLI still runs"

rm -rf node_modules/@kubernetes/client-node
printf 'apiVersion: v1\nkind: Config\n' > kc.yaml
rc=0
out=$(npx kubesim snapshot --kubeconfig kc.yaml 2>&1) || rc=$?
[ "$rc" = 1 ] || fail "kubesim snapshot without @kubernetes/client-node: exit $rc: $out"
expect_eq "$out" "kubesim: reading a live cluster needs @kubernetes/client-node, an optional dependency of kubesim that is not installed (installs without --omit=optional include it; or: npm install @kubernetes/client-node)" "kubesim snapshot without @kubernetes/client-node"
npx kubesim plan --cluster $pkg/examples/snapshot/cluster.yaml --pod $pkg/examples/snapshot/pod-api.yaml -o json >/dev/null ||
  fail "kubesim plan without @kubernetes/client-node"
step "without the optional @kubernetes/client-node: kubesim snapshot says so, the CLI still runs"
