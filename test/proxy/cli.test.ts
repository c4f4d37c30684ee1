// `kubesim proxy render`: manifests in, iptables-restore text and stats out, errors as one line.
import { Command } from 'commander';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../src/cli/proxy.js';
import { packageRoot } from '../../src/util/paths.js';
import {
  upstreamServices,
  upstreamServicesDual,
  upstreamSlices,
  upstreamSlicesDual,
} from './upstream-fixture.js';

const fx = (f: string) => join(__dirname, '../fixtures/proxy/manifests', f);
let out = '';
let err = '';

beforeEach(() => {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    out += typeof s === 'string' ? s : Buffer.from(s).toString();
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    err += String(s);
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

async function cli(...args: string[]): Promise<void> {
  const p = new Command('kubesim').exitOverride();
  register(p);
  await p.parseAsync(['node', 'kubesim', 'proxy', ...args]);
}

describe('kubesim proxy render', () => {
  it('renders the iptables-restore input for a manifest', async () => {
    await cli('render', '--cluster', fx('shop.yaml'), '--cluster-cidr', '10.244.0.0/16');
    expect(out.startsWith('*filter\n')).toBe(true);
    expect(out).toContain(
      '-A KUBE-SVL-67NZLRHBNDSAWJRO -m comment --comment "shop/web:http -> 10.244.1.5:8080" -j KUBE-SEP-34ZZ2QFGO32YYXXO',
    );
    expect(out).toContain(
      '-A KUBE-NODEPORTS -m comment --comment "shop/web:http health check node port" -m tcp -p tcp --dport 32000 -j ACCEPT',
    );
    // the terminating endpoint on node-2 is not used while ready ones exist
    expect(out).not.toContain('10.244.2.8');
    expect(out.endsWith('COMMIT\n')).toBe(true);
  });

  it('node decides Local policy: node-3 has no local endpoints for eTP=Local', async () => {
    await cli('render', '--cluster', fx('shop.yaml'), '--node', 'node-3');
    expect(out).toContain(
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "shop/web:http has no local endpoints" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j DROP',
    );
  });

  it('--update prints the partial sync with only the changed service chains and the -X of the old endpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-proxy-'));
    const file = join(dir, 'rules.txt');
    await cli(
      'render',
      '--cluster',
      fx('shop.yaml'),
      '--update',
      fx('shop-update.yaml'),
      '--out',
      file,
      '--stats',
      '--format',
      'json',
    );
    const stats = JSON.parse(out);
    expect(stats.syncs.map((s: { kind: string }) => s.kind)).toEqual(['full', 'partial']);
    expect(stats.syncs[1].deletedChains).toBe(1);
    const text = readFileSync(file, 'utf8');
    const partial = text.split('# kubesim: partial sync\n')[1];
    expect(partial).toContain('--to-destination 10.244.2.9:8080');
    expect(partial).toMatch(/^-X KUBE-SEP-DYSIX5QMVXZZP7LU$/m);
  });

  it('a single sync written to --out as byte chunks is the text stdout gets, in every mode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-proxy-'));
    for (const mode of ['iptables', 'nftables']) {
      const file = join(dir, `${mode}.rules`);
      await cli('render', '--cluster', fx('shop.yaml'), '--mode', mode, '--out', file, '-o', 'rules');
      out = '';
      await cli('render', '--cluster', fx('shop.yaml'), '--mode', mode, '-o', 'rules');
      expect(out.length).toBeGreaterThan(100);
      expect(readFileSync(file, 'utf8')).toBe(out);
    }
  });

  it('unreadable manifests are an error naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-proxy-'));
    const bad = join(dir, 'bad.yaml');
    await expect(cli('render', '--cluster', join(dir, 'missing.yaml'))).rejects.toThrow(
      'missing.yaml: no such file or directory',
    );
    writeFileSync(bad, 'kind: [unclosed\n');
    await expect(cli('render', '--cluster', bad)).rejects.toThrow(/bad\.yaml:1:\d+: /);
  });

  it('an object the API server rejects is an error naming file, line, object and field, as validate reports it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-proxy-'));
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      [
        'apiVersion: v1\nkind: Service\nmetadata: {name: good}\nspec: {clusterIP: 10.96.0.1, ports: [{name: p, port: 80}]}',
        'apiVersion: v1\nkind: Service\nmetadata: {name: badip}\nspec: {clusterIP: 999.1.1.1, ports: [{port: 80}]}',
        'apiVersion: v1\nkind: Service\nmetadata: {name: port0}\nspec: {clusterIP: 10.96.0.3, ports: [{port: 0}]}',
        'apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: x-1, labels: {kubernetes.io/service-name: x}}\naddressType: IPv4\nports: [{name: p, port: x}]\nendpoints: [{addresses: [10.244.1.2]}]',
        'apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: v5-1, labels: {kubernetes.io/service-name: x}}\naddressType: IPv5\nendpoints: []',
      ].join('\n---\n') + '\n',
    );
    const e = await cli('render', '--cluster', bad).then(
      () => undefined,
      (x: Error) => x.message,
    );
    expect(e).toBeDefined();
    expect(e).toContain(`${bad}:9: Service "badip": spec.clusterIPs[0]: Invalid value: "999.1.1.1"`);
    expect(e).toContain(`${bad}:14: Service "port0": spec.ports[0].port: Invalid value: 0`);
    expect(e).toContain(`${bad}:20: EndpointSlice "x-1": ports[0].port: Invalid value: "x"`);
    expect(e).toContain(`${bad}:26: EndpointSlice "v5-1": addressType: Unsupported value: "IPv5"`);
    expect(out).toBe('');
  });

  it("objects the API server accepts but kube-proxy's own checks skip are skipped with one warning; the rest renders", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-proxy-'));
    const f = join(dir, 'skip.yaml');
    writeFileSync(
      f,
      [
        'apiVersion: v1\nkind: Service\nmetadata: {name: good}\nspec: {clusterIP: 10.96.0.1, ports: [{name: p, port: 80}]}',
        'apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: good-1, labels: {kubernetes.io/service-name: good}}\naddressType: IPv4\nports: [{name: p, port: 8080}]\nendpoints: [{addresses: [10.244.1.3]}]',
        'apiVersion: v1\nkind: Service\nmetadata: {name: badext}\nspec: {clusterIP: 10.96.0.4, externalIPs: [nope], ports: [{port: 80}]}',
      ].join('\n---\n') + '\n',
    );
    await cli('render', '--cluster', f);
    expect(out).toContain('--to-destination 10.244.1.3:8080'); // the valid Service renders
    expect(out).not.toMatch(/10\.96\.0\.4|nope/);
    const warnings = err.split('\n').filter((l) => l.startsWith('kubesim: warning: skipped'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      `${f}:13: Service default/badext: spec.externalIPs[0]: "nope" is not an IP address`,
    );
  });

  it('input kube-proxy does not use is named in a warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-proxy-'));
    const f = join(dir, 'mixed.yaml');
    writeFileSync(
      f,
      [
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}',
        'apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: orphan}\naddressType: IPv4\nendpoints: []',
        'apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: v6-1, labels: {kubernetes.io/service-name: v6}}\naddressType: IPv6\nendpoints: []',
      ].join('\n---\n') + '\n',
    );
    await cli('render', '--cluster', f, '--service-cidrs', '10.96.0.0/12');
    expect(err).toContain(
      'kubesim: warning: --service-cidrs is not used by --mode iptables (only by nftables)',
    );
    expect(err).toContain(
      'kubesim: warning: not used by kube-proxy (it watches Services, EndpointSlices and Nodes): 1 ConfigMap',
    );
    expect(err).toContain('without a kubernetes.io/service-name label: default/orphan');
    expect(err).toContain('of the other IP family (render it with --family IPv6 or dual): default/v6-1');
  });

  it('unknown mode is a clear error', async () => {
    await expect(cli('render', '--mode', 'userspace', '--cluster', fx('shop.yaml'))).rejects.toThrow(
      /'userspace' is invalid. Allowed choices are iptables, ipvs, nftables/,
    );
  });

  it('--generate with --sorted gives upstream-normalised output', async () => {
    await cli('render', '--generate', '20x2', '--sorted');
    const nat = out.split('*nat\n')[1];
    expect(nat.startsWith(':KUBE-NODEPORTS - [0:0]\n:KUBE-SERVICES - [0:0]\n')).toBe(true);
  });
});

describe('kubesim proxy render --delete', () => {
  it('deleting the Service leaves a partial sync that deletes all its chains', async () => {
    await cli(
      'render',
      '--cluster',
      fx('shop.yaml'),
      '--delete',
      fx('shop.yaml'),
      '--stats',
      '--format',
      'json',
    );
    const stats = JSON.parse(out);
    expect(stats.syncs[1].kind).toBe('partial');
    // EXT, FW, SVC, SVL and 2 SEP chains of shop/web
    expect(stats.syncs[1].deletedChains).toBe(6);
  });
});

// The flags that reproduce kube-proxy's own test setups (NewFakeProxier: node IP, pod CIDR,
// ServiceCIDRs, mark 0x4000) from manifests.
describe('kubesim proxy render: kube-proxy configuration flags', () => {
  const manifest = () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-proxy-'));
    const f = join(dir, 'upstream.json');
    writeFileSync(
      f,
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...upstreamServices, ...upstreamSlices] }),
    );
    return f;
  };
  /** nftables on the fixture's node, as NewFakeProxier places it */
  const nftOnTestNode = () => [
    'render',
    '--mode',
    'nftables',
    '--cluster',
    manifest(),
    '--node',
    'test-node',
    '--node-ip',
    '192.168.0.2',
  ];

  it("reproduces TestOverallNFTablesRules' setup: node IP, cluster CIDR, ServiceCIDRs, mark", async () => {
    await cli(
      ...nftOnTestNode(),
      '--cluster-cidr',
      '10.0.0.0/8',
      '--service-cidrs',
      '172.30.0.0/16',
      '--masquerade-mark',
      '0x4000',
    );
    const lines = out.split('\n');
    for (const l of [
      'add rule ip kube-proxy cluster-ips-check ip daddr { 172.30.0.0/16 } drop comment "Drop traffic to unallocated ClusterIPs"',
      'add rule ip kube-proxy masquerading mark and 0x4000 == 0 return',
      'add element ip kube-proxy nodeport-ips { 192.168.0.2 }',
      'add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 ip daddr 172.30.0.41 ip saddr != 10.0.0.0/8 jump mark-for-masquerade',
    ])
      expect(lines).toContain(l);
    expect(err).toBe('');
  });

  it('--node-addresses and --nodeport-addresses: every node address in the CIDRs takes NodePorts', async () => {
    await cli(
      ...nftOnTestNode(),
      '--node-addresses',
      '192.168.0.2,192.168.1.2,192.168.99.11,10.1.1.1',
      '--nodeport-addresses',
      '192.168.0.0/24,192.168.1.0/24',
    );
    const elements = out.split('\n').filter((l) => l.startsWith('add element ip kube-proxy nodeport-ips'));
    expect(elements).toEqual([
      'add element ip kube-proxy nodeport-ips { 192.168.0.2 }',
      'add element ip kube-proxy nodeport-ips { 192.168.1.2 }',
    ]);
  });

  it('--detect-local-mode InterfaceNamePrefix and BridgeInterface', async () => {
    await cli(
      'render',
      '--mode',
      'nftables',
      '--cluster',
      manifest(),
      '--detect-local-mode',
      'InterfaceNamePrefix',
      '--pod-interface-name-prefix',
      'veth',
    );
    expect(out).toContain('ip daddr 172.30.0.41 iifname != veth* jump mark-for-masquerade');
    out = '';
    await cli(
      'render',
      '--cluster',
      manifest(),
      '--detect-local-mode',
      'BridgeInterface',
      '--pod-bridge-interface',
      'cbr0',
    );
    expect(out).toContain('-d 172.30.0.41 --dport 80 ! -i cbr0 -j KUBE-MARK-MASQ');
    await expect(
      cli('render', '--cluster', manifest(), '--detect-local-mode', 'BridgeInterface'),
    ).rejects.toThrow('detect-local-mode BridgeInterface needs a bridge interface');
  });

  it('--family dual renders both families, each with its own objects', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-proxy-'));
    const f = join(dir, 'dual.json');
    writeFileSync(
      f,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [...upstreamServicesDual, ...upstreamSlicesDual],
      }),
    );
    await cli(
      'render',
      '--mode',
      'ipvs',
      '--family',
      'dual',
      '--cluster',
      f,
      '--node-ip',
      '192.168.0.2,2001:db8::1',
    );
    const [v4, v6] = out.split('# kubesim: IPv6 full sync\n');
    expect(v4.startsWith('# kubesim: IPv4 full sync\n')).toBe(true);
    expect(v4).toContain('-A -t 172.30.0.41:80 -s rr');
    expect(v4).not.toContain('fd00:');
    expect(v6).toContain('-A -t [fd00:172:30::41]:80 -s rr');
    expect(v6).toContain('create KUBE-6-CLUSTER-IP hash:ip,port family inet6');
    expect(v6).not.toContain('172.30.0.41');
  });

  it('bad flag values are one clear error', async () => {
    await expect(cli('render', '--generate', '2x1', '--node-ip', '1.2.3.4,5.6.7.8')).rejects.toThrow(
      '--node-ip: two IPv4 addresses (1.2.3.4, 5.6.7.8); give one per family',
    );
    await expect(cli('render', '--generate', '2x1', '--masquerade-mark', '16384')).rejects.toThrow(
      'masqueradeMark must be a hex number like 0x4000, got "16384"',
    );
    await expect(
      cli('render', '--generate', '2x1', '--mode', 'ipvs', '--ipvs-scheduler', 'fifo'),
    ).rejects.toThrow('options.scheduler "fifo" is not an IPVS scheduler');
  });
});

describe('a Service as written, without the addresses the apiserver allocates (issue 29, class 2)', () => {
  const manifest = `apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec:
  selector: { app: web }
  ports: [{ name: http, port: 80, targetPort: 8080 }]
---
apiVersion: v1
kind: Service
metadata: { name: api, namespace: shop }
spec:
  clusterIP: 10.96.0.1
  selector: { app: api }
  ports: [{ name: http, port: 80, targetPort: 8080 }]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: web-1, namespace: shop, labels: { kubernetes.io/service-name: web } }
addressType: IPv4
ports: [{ name: http, port: 8080, protocol: TCP }]
endpoints: [{ addresses: [10.244.1.5], conditions: { ready: true } }]
`;

  it('gets a clusterIP as on create (not the one another manifest names), and a warning naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-proxy-alloc-'));
    writeFileSync(join(dir, 'c.yaml'), manifest);
    await cli('render', '--cluster', join(dir, 'c.yaml'));
    // 10.96.0.1 is api's: web gets the next free address and the first node port
    expect(out).toContain(
      '-A KUBE-SERVICES -m comment --comment "shop/web:http cluster IP" -m tcp -p tcp -d 10.96.0.2 --dport 80',
    );
    expect(out).toContain('"shop/web:http -> 10.244.1.5:8080"');
    expect(err).toContain(
      '1 Service(s) without a clusterIP got one as kube-apiserver allocates it on create (from 10.96.0.0/12): shop/web: clusterIP 10.96.0.2',
    );
  });
});

// --all-nodes: every node's ruleset, rendered in the worker pool, is byte for byte what
// `proxy render --node <name>` writes for that node alone.
// The pool runs the compiled worker (dist/); `npm test` builds it first.
const built = existsSync(join(packageRoot(), 'dist', 'src', 'proxy', 'all-nodes-worker.js'));

/** What `proxy render --node <name> <args>` writes to --out. */
async function oneNode(dir: string, node: string, args: string[]): Promise<string> {
  const file = join(dir, `one-${node}.rules`);
  await cli('render', ...args, '--node', node, '--out', file);
  return readFileSync(file, 'utf8');
}

/** A cluster of three Nodes (shop.yaml's node-1 and two more, with their own addresses). */
function threeNodes(dir: string): string {
  const file = join(dir, 'cluster.yaml');
  const extra = ['node-2', 'node-3']
    .map(
      (n, i) =>
        `---\napiVersion: v1\nkind: Node\nmetadata: {name: ${n}, labels: {topology.kubernetes.io/zone: b}}\n` +
        `status: {addresses: [{type: InternalIP, address: 192.168.0.${3 + i}}, {type: ExternalIP, address: 203.0.113.${9 + i}}]}\n`,
    )
    .join('');
  writeFileSync(file, `${readFileSync(fx('shop.yaml'), 'utf8')}\n${extra}`);
  return file;
}

describe.skipIf(!built)(
  `proxy render --all-nodes${built ? '' : ' (skipped: run npm run build first)'}`,
  () => {
    const cases: { name: string; args: (dir: string) => string[]; nodes: string[] }[] = [
      ...['iptables', 'ipvs', 'nftables'].map((mode) => ({
        name: `${mode}, generated 150x6 over 3 nodes`,
        args: () => [
          '--generate',
          '150x6x3',
          '--seed',
          '7',
          '--mode',
          mode,
          '--cluster-cidr',
          '100.64.0.0/10',
        ],
        nodes: ['node-0', 'node-1', 'node-2'],
      })),
      {
        name: 'iptables --sorted, dual-stack, manifests with three Nodes (their own addresses)',
        args: (dir: string) => ['--cluster', threeNodes(dir), '--family', 'dual', '--sorted'],
        nodes: ['node-1', 'node-2', 'node-3'],
      },
      {
        name: 'ipvs (ipset artifacts), manifests with three Nodes, --nodeport-addresses',
        args: (dir: string) => [
          '--cluster',
          threeNodes(dir),
          '--mode',
          'ipvs',
          '--nodeport-addresses',
          '192.168.0.0/16',
        ],
        nodes: ['node-1', 'node-2', 'node-3'],
      },
    ];

    for (const c of cases) {
      it(`${c.name}: each node's file equals its one-node render`, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'kubesim-all-nodes-'));
        const args = c.args(dir);
        await cli('render', ...args, '--all-nodes', '--threads', '2', '--out', join(dir, 'rules'));
        expect(readdirSync(join(dir, 'rules')).sort()).toEqual(c.nodes.map((n) => `${n}.rules`));
        const texts = new Set<string>();
        for (const n of c.nodes) {
          const all = readFileSync(join(dir, 'rules', `${n}.rules`), 'utf8');
          expect(all.length).toBeGreaterThan(100);
          expect(all).toBe(await oneNode(dir, n, args));
          texts.add(all);
        }
        // the nodes' rulesets differ (local endpoints, addresses): the test compares different texts
        expect(texts.size).toBe(c.nodes.length);
      });
    }

    it('stdout: one stream with a "# kubesim: node" header before each node, same bytes with 1 or 2 threads', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'kubesim-all-nodes-'));
      const args = ['--generate', '120x5x3', '--mode', 'nftables'];
      await cli('render', ...args, '--all-nodes', '--threads', '2');
      const two = out;
      out = '';
      await cli('render', ...args, '--all-nodes', '--threads', '1');
      expect(out).toBe(two);
      const parts = two.split(/^# kubesim: node (\S+)\n/m);
      expect(parts[0]).toBe('');
      const nodes = ['node-0', 'node-1', 'node-2'];
      expect(parts.filter((_, i) => i % 2 === 1)).toEqual(nodes);
      for (const [i, n] of nodes.entries()) expect(parts[2 + 2 * i]).toBe(await oneNode(dir, n, args));
    });

    it('-o json: one summary row per node', async () => {
      await cli('render', '--generate', '100x5x4', '--all-nodes', '--threads', '2', '-o', 'json');
      const s = JSON.parse(out);
      expect(s.nodes.map((r: { node: string }) => r.node)).toEqual(['node-0', 'node-1', 'node-2', 'node-3']);
      expect(s.nodes.every((r: { rules: number }) => r.rules > 0)).toBe(true);
    });
  },
);

describe('proxy render --all-nodes: flags that cannot apply', () => {
  it('one-node flags are usage errors', async () => {
    await expect(cli('render', '--generate', '10x2', '--all-nodes', '--node', 'node-1')).rejects.toThrow(
      '--node renders one node; it cannot be used with --all-nodes',
    );
    await expect(cli('render', '--generate', '10x2', '--all-nodes', '--churn', '1')).rejects.toThrow(
      '--churn renders one node',
    );
    await expect(cli('render', '--generate', '10x2', '--threads', '2')).rejects.toThrow(
      '--threads is for --all-nodes',
    );
    await expect(cli('render', '--generate', '10x2', '--all-nodes', '--threads', '0')).rejects.toThrow(
      '--threads must be a whole number',
    );
    await expect(cli('render', '--generate', '10x2x0', '--all-nodes')).rejects.toThrow('0 nodes is outside');
  });

  it('manifests without Nodes are an error naming the problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-all-nodes-'));
    const file = join(dir, 'no-nodes.yaml');
    writeFileSync(file, readFileSync(fx('shop.yaml'), 'utf8').split('---\n').slice(1).join('---\n'));
    await expect(cli('render', '--cluster', file, '--all-nodes')).rejects.toThrow(
      'the manifests have no Node objects',
    );
  });
});
