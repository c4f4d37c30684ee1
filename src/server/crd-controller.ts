/**
 * The part of apiextensions-apiserver that runs beside the REST handlers: it keeps the map of
 * stored CRDs the HTTP layer reads (subresources, printer columns, schemas) and gives each CRD the
 * status its controllers give it (upstream: apiextensions-apiserver/pkg/controller/status
 * NamingConditionController and establish.EstablishingController):
 *
 *  - `NamesAccepted` True (`NoConflicts`) with `status.acceptedNames` = `spec.names`;
 *  - `Established` True (`InitialNamesAccepted`), after which upstream serves the kind (kubesim's
 *    ApiServer serves it as soon as the CRD is stored, so `kubectl wait --for
 *    condition=Established` returns at once);
 *  - `status.storedVersions` with the storage version.
 *
 * Simplified: names are never refused for conflicting with another CRD's (the ApiServer's registry
 * keeps the first owner of a short name).
 */
import type { ApiServer } from '../api/apiserver.js';
import type { WatchHandle } from '../api/apiserver.js';
import type { KubeObject } from '../api/types.js';

// biome-ignore lint/suspicious/noExplicitAny: CRD objects are arbitrary JSON
type Obj = any;

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

function wantedStatus(crd: Obj, now: number): Obj | undefined {
  const names = crd.spec?.names ?? {};
  const st = crd.status ?? {};
  const conds: Obj[] = Array.isArray(st.conditions) ? st.conditions : [];
  const isTrue = (t: string) => conds.some((c) => c?.type === t && c.status === 'True');
  const storage = (crd.spec?.versions ?? []).find((v: Obj) => v?.storage)?.name;
  const stored: string[] = Array.isArray(st.storedVersions) ? st.storedVersions : [];
  const namesSame = JSON.stringify(st.acceptedNames ?? {}) === JSON.stringify(names);
  if (isTrue('NamesAccepted') && isTrue('Established') && namesSame && (!storage || stored.includes(storage)))
    return undefined;
  const at = rfc3339(now);
  const keep = conds.filter((c) => c?.type !== 'NamesAccepted' && c?.type !== 'Established');
  return {
    ...st,
    conditions: [
      ...keep,
      {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: at,
        reason: 'NoConflicts',
        message: 'no conflicts found',
      },
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: at,
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ],
    acceptedNames: names,
    storedVersions: storage && !stored.includes(storage) ? [...stored, storage] : stored,
  };
}

/** Follow the CRDs of `api` into `crds` and set their conditions; returns the stop function. */
export async function startCrdController(
  api: ApiServer,
  crds: Map<string, Obj>,
): Promise<() => Promise<void>> {
  const settle = async (crd: Obj) => {
    const status = wantedStatus(crd, api.clock.now());
    if (!status) return;
    try {
      await api.updateStatus({ ...crd, status } as KubeObject);
    } catch {
      // a newer version of the CRD is on its way through the watch; it is settled then
    }
  };
  const list = await api.list('customresourcedefinitions');
  for (const c of list.items) crds.set(c.metadata.name!, c);
  const handle: WatchHandle = await api.watch(
    'customresourcedefinitions',
    { resourceVersion: list.metadata.resourceVersion },
    (ev) => {
      const crd = ev.object as Obj;
      if (ev.type === 'DELETED') crds.delete(crd.metadata.name);
      else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
        crds.set(crd.metadata.name, crd);
        void settle(crd);
      }
    },
  );
  for (const c of list.items) void settle(c);
  return () => handle.stop();
}
