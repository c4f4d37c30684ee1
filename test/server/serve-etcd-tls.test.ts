// `kubesim serve` on an etcd that speaks TLS with client-certificate auth, through kube-apiserver's
// flags --etcd-cafile, --etcd-certfile, --etcd-keyfile. The certificates are made here with openssl
// at run time (a throw-away CA, a server certificate for 127.0.0.1, a client certificate).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LaunchedEtcdCluster, launchEtcdCluster } from '../../src/store/etcd/cluster.js';
import { EtcdStore } from '../../src/store/etcd/etcd-store.js';
import { describeEtcd } from '../helpers/etcd.js';
import { builtCli, cli, startServe } from './serve-process.js';

function openssl(dir: string, args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

/** CA, server certificate (SAN IP:127.0.0.1) and client certificate, EC P-256, valid one day */
function makeCerts(dir: string) {
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(dir, [
    'req',
    '-x509',
    ...key,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '1',
    '-subj',
    '/CN=kubesim-test-ca',
  ]);
  for (const [name, usage] of [
    ['server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n'],
    ['client', 'extendedKeyUsage=clientAuth\n'],
  ] as const) {
    writeFileSync(join(dir, `${name}.ext`), usage);
    openssl(dir, [
      'req',
      '-new',
      ...key,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=kubesim-${name}`,
    ]);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
    ]);
  }
  const f = (n: string) => join(dir, n);
  return {
    caFile: f('ca.crt'),
    certFile: f('server.crt'),
    keyFile: f('server.key'),
    clientCertFile: f('client.crt'),
    clientKeyFile: f('client.key'),
  };
}

describeEtcd(
  'kubesim serve on an etcd with TLS',
  () => {
    let dir: string;
    let certs: ReturnType<typeof makeCerts>;
    let etcd: LaunchedEtcdCluster;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'kubesim-etcd-tls-'));
      certs = makeCerts(dir);
      etcd = await launchEtcdCluster({ members: 1, tls: certs });
    }, 240_000);
    afterAll(async () => {
      await etcd?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it.skipIf(!builtCli)(
      '--etcd-cafile/--etcd-certfile/--etcd-keyfile: the cluster lives in the TLS etcd',
      async () => {
        const s = await startServe([
          '--etcd-servers',
          etcd.endpoints[0]!,
          '--etcd-cafile',
          certs.caFile,
          '--etcd-certfile',
          certs.clientCertFile,
          '--etcd-keyfile',
          certs.clientKeyFile,
        ]);
        try {
          const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'tls' },
              data: {},
            }),
          });
          expect(res.status).toBe(201);
          const rv = ((await res.json()) as { metadata: { resourceVersion: string } }).metadata
            .resourceVersion;
          const raw = new EtcdStore({
            endpoints: etcd.endpoints,
            tls: {
              ca: readFileSync(certs.caFile),
              cert: readFileSync(certs.clientCertFile),
              key: readFileSync(certs.clientKeyFile),
            },
          });
          try {
            const kv = await raw.range({ key: '/registry/configmaps/default/tls' });
            expect(kv.kvs[0]?.modRevision).toBe(Number(rv));
          } finally {
            await raw.close();
          }
        } finally {
          await s.stop();
        }
      },
      240_000,
    );

    it.skipIf(!builtCli)(
      'without a client certificate, or with half a key pair: a one-line error',
      () => {
        const run = (...args: string[]) =>
          spawnSync(process.execPath, [cli, 'serve', '--etcd-servers', etcd.endpoints[0]!, ...args], {
            encoding: 'utf8',
            timeout: 20_000,
          });
        const noCert = run('--etcd-cafile', certs.caFile);
        expect(noCert.status).not.toBe(0);
        expect(noCert.stderr).toMatch(/--etcd-servers https:\/\/127\.0\.0\.1:\d+: etcd is unreachable/);
        expect(noCert.stderr).not.toMatch(/\n\s+at /);
        const half = run('--etcd-cafile', certs.caFile, '--etcd-certfile', certs.clientCertFile);
        expect(half.status).not.toBe(0);
        expect(half.stderr).toContain('--etcd-certfile and --etcd-keyfile: give both');
        const missing = run('--etcd-cafile', join(dir, 'nope.crt'));
        expect(missing.stderr).toContain(`--etcd-cafile ${join(dir, 'nope.crt')}: ENOENT`);
      },
      240_000,
    );
  },
  { shared: false },
);
