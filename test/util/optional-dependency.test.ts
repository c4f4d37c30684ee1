// Optional dependencies load on first use and, when absent, fail with one sentence naming the
// package and what needs it (the installed-package case without etcd3 is scripts/pack-smoke-user.sh).
import { describe, expect, it } from 'vitest';
import {
  importOptional,
  MissingDependencyError,
  requireOptional,
} from '../../src/util/optional-dependency.js';

const absent = 'kubesim-test-no-such-package';
const sentence =
  `reading a live cluster needs ${absent}, an optional dependency of kubesim that is not installed ` +
  `(installs without --omit=optional include it; or: npm install ${absent})`;

describe('optional dependencies', () => {
  it('an installed CommonJS one is required synchronously (etcd3)', () => {
    const etcd3 = requireOptional<{ Etcd3: unknown }>('etcd3', 'EtcdStore');
    expect(typeof etcd3.Etcd3).toBe('function');
  });

  it('an installed ES module one is imported (@kubernetes/client-node)', async () => {
    const k8s = await importOptional<{ KubeConfig: unknown }>(
      '@kubernetes/client-node',
      'reading a live cluster',
    );
    expect(typeof k8s.KubeConfig).toBe('function');
  });

  it('a missing one is a MissingDependencyError naming it and what needs it, both ways', async () => {
    expect(() => requireOptional(absent, 'reading a live cluster')).toThrow(MissingDependencyError);
    expect(() => requireOptional(absent, 'reading a live cluster')).toThrow(sentence);
    await expect(importOptional(absent, 'reading a live cluster')).rejects.toThrow(MissingDependencyError);
    await expect(importOptional(absent, 'reading a live cluster')).rejects.toThrow(sentence);
  });

  it("another module that does not resolve keeps Node's own error", async () => {
    // a relative specifier that does not resolve: Node's own error, not "npm install …"
    await expect(importOptional('./no-such-module.js', 'x')).rejects.toThrow(/Cannot find module/);
    await expect(importOptional('./no-such-module.js', 'x')).rejects.not.toThrow(MissingDependencyError);
  });
});
