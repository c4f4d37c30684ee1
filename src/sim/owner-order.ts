/**
 * Loading objects that reference each other by ownerReferences: the ApiServer gives every created
 * object a new uid (as kube-apiserver does), so a snapshot's `ownerReferences[].uid` would point
 * at nothing and the garbage collector would delete every dependent. Objects are therefore created
 * owners first, in waves, and each dependent's references are rewritten to the uid its owner got.
 *
 * Example: rs (uid a) and pods p1, p2 (owner uid a) → waves [[rs], [p1, p2]]; rs is created as
 * uid x, so p1 and p2 are created with owner uid x. A reference to an object that is not in the
 * input is kept as it is and its uid reported as outside the input: a snapshot often lacks the
 * owners (`kubectl get pods -o yaml`), and the garbage collector is told not to take those owners
 * for deleted ones — nothing loaded is lost, ownership included.
 */
import type { KubeObject } from '../api/types.js';

/** `objs` in waves: every object comes after the objects of the input it names as owners */
export function ownersFirst(objs: KubeObject[]): KubeObject[][] {
  const byUid = new Map<string, KubeObject>();
  for (const o of objs) if (o.metadata.uid) byUid.set(o.metadata.uid, o);
  const depth = new Map<KubeObject, number>();
  const depthOf = (o: KubeObject, seen: Set<KubeObject>): number => {
    const known = depth.get(o);
    if (known !== undefined) return known;
    let d = 0;
    seen.add(o);
    for (const r of o.metadata.ownerReferences ?? []) {
      const owner = byUid.get(r.uid);
      if (owner && !seen.has(owner)) d = Math.max(d, depthOf(owner, seen) + 1); // a cycle is cut
    }
    seen.delete(o);
    depth.set(o, d);
    return d;
  };
  const waves: KubeObject[][] = [];
  for (const o of objs) {
    const d = depthOf(o, new Set());
    (waves[d] ??= []).push(o);
  }
  return waves.filter((w) => w !== undefined);
}

/**
 * Point `o`'s owner references at the uids their owners were created with (`created`: input uid →
 * new uid); the uids of owners outside the input are added to `outside`.
 */
export function rewriteOwnerUids(
  o: KubeObject,
  created: ReadonlyMap<string, string>,
  outside: Set<string>,
): void {
  for (const r of o.metadata.ownerReferences ?? []) {
    const uid = created.get(r.uid);
    if (uid !== undefined) r.uid = uid;
    else outside.add(r.uid);
  }
}
