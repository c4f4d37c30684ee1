// `kubesim proxy render`: manifests in, iptables-restore text and stats out, errors as one line.
import { Command } from 'commander';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../src/cli/proxy.js';
import { CliError } from '../../src/cli/errors.js';

const fx = (f: string) => join(__dirname, '../fixtures/proxy/manifests', f);
let out = '';

beforeEach(() => {
  out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    out += String(s);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
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

  it('bad manifests give one line naming file, document and field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-proxy-'));
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {clusterIP: 10.0.0.1, ports: [{port: 80}]}\n---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: a-1, labels: {kubernetes.io/service-name: a}}\naddressType: IPv5\n',
    );
    await expect(cli('render', '--cluster', bad)).rejects.toThrow(
      new CliError(
        `${bad}:6: document 2 (EndpointSlice default/a-1): addressType: expected IPv4, IPv6 or FQDN, got "IPv5"`,
      ),
    );
    writeFileSync(
      bad,
      'kind: Service\nmetadata: {name: a, namespace: x}\nspec: {clusterIP: 10.0.0.1, externalIPs: [nope], ports: [{port: 80}]}\n',
    );
    await expect(cli('render', '--cluster', bad)).rejects.toThrow(
      'Service x/a: spec.externalIPs[0]: "nope" is not an IP address',
    );
    await expect(cli('render', '--cluster', join(dir, 'missing.yaml'))).rejects.toThrow(
      'missing.yaml: no such file or directory',
    );
    writeFileSync(bad, 'kind: [unclosed\n');
    await expect(cli('render', '--cluster', bad)).rejects.toThrow(/bad\.yaml:1:\d+: /);
  });

  it('unknown mode is a clear error', async () => {
    await expect(cli('render', '--mode', 'userspace', '--cluster', fx('shop.yaml'))).rejects.toThrow(
      /unknown proxy mode "userspace"/,
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
