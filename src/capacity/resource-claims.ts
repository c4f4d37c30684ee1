/**
 * The ResourceClaims a planned pod will have (upstream: the ResourceClaim controller,
 * pkg/controller/resourceclaim/controller.go handleClaim): for each `spec.resourceClaims` entry with
 * a `resourceClaimTemplateName`, a claim made from the template, owned by the pod, and the pod's
 * `status.resourceClaimStatuses` naming it. Each planned replica thus asks for its own devices,
 * which is what stops a plan at "cannot allocate all claims". The claim is named `<pod>-<entry>`
 * (upstream adds a random suffix; a plan's names are fixed).
 */
import { claimFromTemplate, podResourceClaims, podResourceClaimStatuses } from '../api/resource-claims.js';
import type { ResourceObjects, ResourceSlice } from '../api/resource-types.js';
import type { Pod } from '../api/types.js';
import type { ClusterFile } from '../scheduler/framework/cluster-file.js';
import type { SchedulerCore } from '../scheduler/scheduler.js';

/**
 * The snapshot's resource.k8s.io objects, with a claim list copy the planner may add to. A node an
 * `add-nodes` what-if cloned (`clones`: new node → template) gets a copy of each of the template's
 * node-local ResourceSlices, as its DRA driver would publish them: the same devices, `nodeName` the
 * new node, and the pool renamed after it (a pool named after the template node) or suffixed with it,
 * so that no two nodes share a pool.
 */
export function resourcesOf(cluster: ClusterFile, clones?: ReadonlyMap<string, string>): ResourceObjects {
  const r = cluster.resources ?? {};
  let slices = r.resourceSlices ?? [];
  if (clones?.size && slices.length) {
    const byNode = new Map<string, ResourceSlice[]>();
    for (const s of slices)
      if (s.spec.nodeName) byNode.set(s.spec.nodeName, [...(byNode.get(s.spec.nodeName) ?? []), s]);
    const added: ResourceSlice[] = [];
    for (const [node, template] of clones)
      for (const s of byNode.get(template) ?? []) {
        const pool = s.spec.pool.name === template ? node : `${s.spec.pool.name}-${node}`;
        added.push({
          ...s,
          metadata: {
            name: `${s.metadata.name}-${node}`,
            uid: `whatif-resourceslice-${s.metadata.name}-${node}`,
          },
          spec: { ...s.spec, nodeName: node, pool: { ...s.spec.pool, name: pool } },
        });
      }
    if (added.length) slices = [...slices, ...added];
  }
  return {
    deviceClasses: r.deviceClasses ?? [],
    resourceClaims: [...(r.resourceClaims ?? [])],
    resourceClaimTemplates: r.resourceClaimTemplates ?? [],
    resourceSlices: slices,
  };
}

/** Adds the claims `pod` will get from its templates (and names them in its status). */
export function ensureResourceClaims(core: SchedulerCore, pod: Pod): void {
  const entries = podResourceClaims(pod);
  if (entries.length === 0) return;
  const resources = (core.objects.resources ??= {});
  const claims = (resources.resourceClaims ??= []);
  const ns = pod.metadata.namespace ?? 'default';
  const statuses = [...podResourceClaimStatuses(pod)];
  for (const e of entries) {
    if (!e.resourceClaimTemplateName || statuses.some((s) => s.name === e.name)) continue;
    const t = (resources.resourceClaimTemplates ?? []).find(
      (x) => x.metadata.name === e.resourceClaimTemplateName && (x.metadata.namespace ?? 'default') === ns,
    );
    if (!t) continue; // the plugin reports "ResourceClaim not created yet"
    const name = `${pod.metadata.name ?? ''}-${e.name}`;
    const claim = claimFromTemplate(pod, e.name, t);
    delete claim.metadata.generateName;
    claim.metadata.name = name;
    claim.metadata.uid = `planned-resourceclaim-${ns}-${name}`;
    claims.push(claim);
    statuses.push({ name: e.name, resourceClaimName: name });
  }
  pod.status = { ...(pod.status ?? {}), resourceClaimStatuses: statuses };
}
