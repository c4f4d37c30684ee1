// `kubesim plan` with CSIStorageCapacity (test/fixtures/storage/local-capacity.yaml): a local-storage
// CSI driver publishes 25Gi on l1 and 30Gi on l2; each planned replica provisions one 10Gi volume,
// which the driver then reports as used. By hand: 2 on l1 (5Gi left), 3 on l2 (0 left) — 5, and the
// next replica meets v1.34's VolumeBinding reason on both nodes. Without the capacity check every
// replica would fit (220 by CPU and memory).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubesimInProcess } from '../cli/harness.js';

const dir = join(import.meta.dirname, '..', 'fixtures', 'storage');
const cluster = join(dir, 'local-capacity.yaml');
const pod = join(dir, 'worker-pod.yaml');

describe('plan bounded by CSI storage capacity', () => {
  it('fits 2 + 3 replicas and names VolumeBinding as what stops the next', async () => {
    const r = await kubesimInProcess([
      'plan',
      '--cluster',
      cluster,
      '--pod',
      pod,
      '--no-progress',
      '-o',
      'json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const s = JSON.parse(r.stdout).shapes[0];
    expect(s.fits).toBe(5);
    expect(
      Object.fromEntries(s.perNode.map((n: { node: string; count: number }) => [n.node, n.count])),
    ).toEqual({
      l1: 2,
      l2: 3,
    });
    expect(s.stopReason).toBe(
      '0/2 nodes are available: 2 node(s) did not have enough free storage. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    );
    expect(s.volumeStop).toEqual([
      '2 node(s) did not have enough free storage — VolumeBinding (CSI storage capacity)',
    ]);
  });
});

describe('CSIStorageCapacity validation (storage/validation ValidateCSIStorageCapacity)', () => {
  it('kubesim validate names the bad fields', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'kubesim-csc-'));
    try {
      const f = join(tmp, 'c.yaml');
      writeFileSync(
        f,
        `apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: { name: bad, namespace: kube-system }
storageClassName: Local_SSD
nodeTopology: { matchExpressions: [{ key: zone, operator: In }] }
capacity: -1Gi
extra: 1
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: { name: good, namespace: kube-system }
storageClassName: local
nodeTopology: { matchLabels: { kubernetes.io/hostname: l1 } }
capacity: 25Gi
maximumVolumeSize: 5Gi
`,
      );
      const r = await kubesimInProcess(['validate', f]);
      expect(r.status).not.toBe(0);
      const out = r.stdout + r.stderr;
      expect(out).toContain('nodeTopology.matchExpressions[0].values: Required value');
      expect(out).toContain('storageClassName: Invalid value: "Local_SSD": a lowercase RFC 1123 subdomain');
      expect(out).toContain('capacity: Invalid value: "-1Gi": must be greater than or equal to 0');
      expect(out).toContain('extra');
      expect(out).not.toContain('"good"');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
