/**
 * The attach/detach controller skips nodes with nothing to reconcile (no pod using a claim, no
 * VolumeAttachment): two controllers, one queueing every node on every pod event as before
 * (`skipIdleNodes` off), each against its own API, get the same seeded stream of pods with and
 * without claims, claims bound late, volumes created late, finished and deleted pods, and
 * attachments deleted by someone else; after every step the VolumeAttachments (names, nodes,
 * status), the writes made and the attach/detach counts must be the same in both.
 */
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/types.js';
import type {
  PersistentVolume,
  PersistentVolumeClaim,
  VolumeAttachment,
} from '../../src/api/storage-types.js';
import { AttachDetachController } from '../../src/controllers/attach-detach.js';
import { Rng } from '../../src/util/rng.js';
import { bed, settleN } from './harness.js';
import { makePod } from '../helpers/builders.js';

type Bed = ReturnType<typeof bed> & { c: AttachDetachController };

const NODES = ['n0', 'n1', 'n2', 'n3', 'n4'];
const CLAIMS = 6;

function pv(i: number): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `pv${i}` },
    // csi.b does not attach (its CSIDriver says attachRequired: false)
    spec: { csi: { driver: i % 3 === 2 ? 'csi.b' : 'csi.a', volumeHandle: `vol-${i}` } },
  } as PersistentVolume;
}

function claim(i: number, bound: boolean): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: `c${i}`, namespace: 'default' },
    spec: bound ? { volumeName: `pv${i}` } : {},
  } as PersistentVolumeClaim;
}

function pod(i: number, rng: Rng): Pod {
  const p = makePod(`p${String(i).padStart(4, '0')}`)
    .uid(undefined)
    .node(NODES[rng.int(NODES.length)]!)
    .obj();
  if (rng.int(3) === 0)
    (p.spec as { volumes?: unknown[] }).volumes = [
      { name: 'data', persistentVolumeClaim: { claimName: `c${rng.int(CLAIMS)}` } },
    ];
  else if (rng.int(4) === 0) (p.spec as { volumes?: unknown[] }).volumes = [{ name: 'tmp', emptyDir: {} }];
  return p;
}

async function setUp(skip: boolean): Promise<Bed> {
  const b = bed();
  await b.api.create('csidrivers', {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIDriver',
    metadata: { name: 'csi.b' },
    spec: { attachRequired: false },
  });
  // volumes 0-3 exist from the start, 4-5 come later; claims 0-2 are bound from the start
  for (let i = 0; i < 4; i++) await b.api.create('persistentvolumes', pv(i));
  for (let i = 0; i < CLAIMS; i++) await b.api.create('persistentvolumeclaims', claim(i, i < 3));
  const c = new AttachDetachController(b.deps, skip);
  await b.informers.start();
  c.run();
  return { ...b, c };
}

async function step(beds: Bed[], rng: Rng, next: { i: number; pv: number }): Promise<void> {
  const op = rng.int(100);
  const live = (await beds[0]!.api.list<Pod>('pods')).items.map((p) => p.metadata.name!).sort();
  const victim = live.length ? live[rng.int(live.length)]! : undefined;
  const created = op < 50 ? pod(next.i++, rng) : undefined;
  const c = rng.int(CLAIMS);
  const vas = (await beds[0]!.api.list<VolumeAttachment>('volumeattachments')).items
    .map((v) => v.metadata.name!)
    .sort();
  const va = vas.length ? vas[rng.int(vas.length)]! : undefined;
  const newPv = op >= 90 && op < 93 && next.pv < CLAIMS ? next.pv++ : undefined;
  const phase = rng.int(2) === 0 ? 'Succeeded' : 'Running';
  for (const b of beds) {
    const { api } = b;
    if (created) await api.create('pods', structuredClone(created));
    else if (op < 65 && victim) await api.delete('pods', 'default', victim);
    else if (op < 75 && victim) {
      const p = await api.get<Pod>('pods', 'default', victim);
      p.status = { ...(p.status ?? {}), phase };
      await api.updateStatus('pods', p);
    } else if (op < 85) {
      const cl = await api.get<PersistentVolumeClaim>('persistentvolumeclaims', 'default', `c${c}`);
      cl.spec = { volumeName: `pv${c}` };
      await api.update('persistentvolumeclaims', cl);
    } else if (op < 90 && va) await api.delete('volumeattachments', undefined, va);
    else if (newPv !== undefined) await api.create('persistentvolumes', pv(newPv));
  }
  for (const b of beds) {
    await settleN(8);
    b.clock.advance(100);
    await settleN(8);
  }
}

async function attachments(b: Bed) {
  return (await b.api.list<VolumeAttachment>('volumeattachments')).items
    .map((v) => ({ name: v.metadata.name, node: v.spec.nodeName, attached: v.status?.attached }))
    .sort((x, y) => (x.name! < y.name! ? -1 : 1));
}

describe('attach/detach: skipping nodes with nothing to reconcile changes nothing', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: 300 steps`, async () => {
      const beds = [await setUp(false), await setUp(true)];
      const rng = new Rng(seed);
      const next = { i: 0, pv: 4 };
      let seen = 0;
      for (let s = 0; s < 300; s++) {
        await step(beds, rng, next);
        const [all, skipping] = await Promise.all(beds.map(attachments));
        expect(skipping).toEqual(all);
        expect(beds[1]!.api.writes).toBe(beds[0]!.api.writes);
        expect([beds[1]!.c.attached, beds[1]!.c.detached]).toEqual([
          beds[0]!.c.attached,
          beds[0]!.c.detached,
        ]);
        seen = Math.max(seen, all!.length);
      }
      // the churn did attach and detach volumes
      expect(seen).toBeGreaterThan(0);
      expect(beds[0]!.c.detached).toBeGreaterThan(0);
      for (const b of beds) {
        await b.c.stop();
        b.informers.stop();
      }
    }, 240_000);
  }
});
