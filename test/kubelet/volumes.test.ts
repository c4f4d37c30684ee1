// The kubelet's volume wait (src/kubelet/volumes.ts): a claim the API server does not have yet (404)
// or one not bound yet is waited on; any other error of the kubelet's reads is reported as
// upstream's populator reports it, in the FailedMount event text real kubelets print (the message
// below is one seen from a v1.3x kubelet that the node authorizer refused a PVC read).
import { describe, expect, it } from 'vitest';
import { ApiServer } from '../../src/api/apiserver.js';
import { ApiError, forbidden } from '../../src/api/errors.js';
import type { KubeObject, Pod } from '../../src/api/types.js';
import type { ApiClient } from '../../src/client/api.js';
import { ServerClient } from '../../src/client/server-client.js';
import { failedMountMessage, unboundVolumes } from '../../src/kubelet/volumes.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';

const NS = 'namespace';

function cluster() {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const server = new ApiServer(new MemoryStore({ clock }), { clock });
  const api = new ServerClient(server, { clock });
  return { api };
}

/**
 * The client a kubelet would have, with the API server answering `fail(resource, name)`'s error
 * instead of the object (the node authorizer's 403, a 500): the rest goes to the real server.
 */
function failing(api: ApiClient, fail: (resource: string, name: string) => Error | undefined): ApiClient {
  return new Proxy(api, {
    get(target, prop, recv) {
      if (prop !== 'get') return Reflect.get(target, prop, recv);
      return async (resource: string, ns: string | undefined, name: string) => {
        const e = fail(resource, name);
        if (e) throw e;
        return target.get(resource, ns, name);
      };
    },
  });
}

const pod = (claims: Record<string, string>): Pod =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: NS },
    spec: {
      containers: [{ name: 'c', image: 'x' }],
      volumes: [
        { name: 'config', configMap: { name: 'cfg' } },
        ...Object.entries(claims).map(([v, c]) => ({ name: v, persistentVolumeClaim: { claimName: c } })),
      ],
    },
  }) as unknown as Pod;

async function boundClaim(api: ApiClient, claim: string, pv: string): Promise<void> {
  await api
    .create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } as KubeObject)
    .catch(() => undefined);
  const pvc = await api.create('persistentvolumeclaims', {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: claim, namespace: NS },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: pv },
  } as unknown as KubeObject);
  await api.updateStatus('persistentvolumeclaims', { ...pvc, status: { phase: 'Bound' } } as KubeObject);
  await api.create('persistentvolumes', {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: pv },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      hostPath: { path: '/x' },
      claimRef: { namespace: NS, name: claim, uid: pvc.metadata.uid },
    },
  } as unknown as KubeObject);
}

const nodeAuthorizer = (claim: string) =>
  forbidden(
    { group: '', name: 'persistentvolumeclaims' },
    claim,
    `User "system:node:node-name" cannot get resource "persistentvolumeclaims" in API group "" in the namespace "${NS}": no relationship found between node 'node-name' and this object`,
  );

describe('kubelet volume wait: 404 is "not yet", other read errors are reported', () => {
  it('a claim that does not exist yet is waited on silently', async () => {
    const { api } = cluster();
    const w = await unboundVolumes(api, pod({ 'secrets-data': 'pvc-name' }));
    expect(w).toEqual({ waiting: ['secrets-data'], errors: [], failed: [] });
  });

  it('a bound claim and its volume: nothing to wait for', async () => {
    const { api } = cluster();
    await boundClaim(api, 'pvc-name', 'pv-1');
    expect(await unboundVolumes(api, pod({ 'secrets-data': 'pvc-name' }))).toEqual({
      waiting: [],
      errors: [],
      failed: [],
    });
  });

  it("the node authorizer's 403 on the claim: the FailedMount text a real kubelet prints", async () => {
    const { api } = cluster();
    await boundClaim(api, 'pvc-name', 'pv-1');
    const kubelet = failing(api, (r, name) =>
      r === 'persistentvolumeclaims' && name === 'pvc-name' ? nodeAuthorizer(name) : undefined,
    );
    const w = await unboundVolumes(kubelet, pod({ 'secrets-data': 'pvc-name' }));
    expect(w.waiting).toEqual(['secrets-data']);
    expect(failedMountMessage(w)).toBe(
      'Unable to attach or mount volumes: unmounted volumes=[secrets-data], unattached volumes=[], ' +
        'failed to process volumes=[secrets-data]: error processing PVC namespace/pvc-name: ' +
        'failed to fetch PVC from API server: persistentvolumeclaims "pvc-name" is forbidden: ' +
        'User "system:node:node-name" cannot get resource "persistentvolumeclaims" in API group "" ' +
        'in the namespace "namespace": no relationship found between node \'node-name\' and this object',
    );
  });

  it("a failed read of the claim's volume names the volume; a claim not yet there beside it only waits", async () => {
    const { api } = cluster();
    await boundClaim(api, 'a', 'pv-a');
    const kubelet = failing(api, (r) =>
      r === 'persistentvolumes'
        ? new ApiError(500, 'InternalError', 'etcdserver: request timed out')
        : undefined,
    );
    const w = await unboundVolumes(kubelet, pod({ one: 'a', two: 'missing' }));
    expect(w).toEqual({
      waiting: ['one', 'two'],
      failed: ['one'],
      errors: [
        'error processing PVC namespace/a: failed to fetch PV pv-a from API server: etcdserver: request timed out',
      ],
    });
    expect(failedMountMessage(w)).toBe(
      'Unable to attach or mount volumes: unmounted volumes=[one two], unattached volumes=[], failed to process volumes=[one]: ' +
        'error processing PVC namespace/a: failed to fetch PV pv-a from API server: etcdserver: request timed out',
    );
  });
});
