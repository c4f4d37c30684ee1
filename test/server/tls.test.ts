// `kubesim serve --tls`: the real kubectl verifies the self-signed certificate through the written
// kubeconfig's certificate-authority-data, and a client that is not given it refuses the server.
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type ServeProcess, builtCli, kubectlPath, startServe } from './serve-process.js';

const kubectl = kubectlPath();

describe.skipIf(!builtCli || !kubectl)('kubesim serve --tls with kubectl', () => {
  let srv: ServeProcess;
  const k = (...args: string[]) =>
    spawnSync(kubectl!, args, {
      encoding: 'utf8',
      timeout: 60_000,
      input: '',
      env: { ...process.env, KUBECONFIG: srv.kubeconfig },
    });

  beforeAll(async () => {
    srv = await startServe(['--tls']);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('serves https on 127.0.0.1 with a certificate for 127.0.0.1 that the kubeconfig trusts', () => {
    expect(srv.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const kc = parseYaml(readFileSync(srv.kubeconfig, 'utf8'));
    const cluster = kc.clusters[0].cluster;
    expect(cluster.server).toBe(srv.url);
    const cert = new X509Certificate(Buffer.from(cluster['certificate-authority-data'], 'base64'));
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.verify(cert.publicKey)).toBe(true);
  });

  it('kubectl gets, applies and reads back over TLS without prompting', () => {
    const nodes = k('get', 'nodes', '-o', 'name');
    expect(nodes.stderr).toBe('');
    expect(nodes.stdout).toBe('node/node-0000\nnode/node-0001\nnode/node-0002\n');
    const apply = spawnSync(kubectl!, ['apply', '-f', '-'], {
      encoding: 'utf8',
      input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tls}\ndata: {a: "1"}\n',
      env: { ...process.env, KUBECONFIG: srv.kubeconfig },
    });
    expect(apply.stdout).toBe('configmap/tls created\n');
    expect(k('get', 'cm', 'tls', '-o', 'jsonpath={.data.a}').stdout).toBe('1');
  });

  it('a client without the certificate refuses the server', () => {
    const plain = k('--kubeconfig=/dev/null', `--server=${srv.url}`, '--token=x', 'get', 'nodes');
    expect(plain.status).toBe(1);
    expect(plain.stderr).toMatch(/certificate signed by unknown authority/);
  });
});
