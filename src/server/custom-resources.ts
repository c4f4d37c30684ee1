/**
 * What serving a custom resource needs from its CRD beyond the ApiServer's kind registry: the CRD
 * version the path names (schema, subresources, printer columns), and the scale subresource's
 * JSON paths (upstream: apiextensions-apiserver/pkg/registry/customresource's ScaleREST, which
 * reads `specReplicasPath`, `statusReplicasPath` and `labelSelectorPath`).
 */
import type { ApiServer } from '../api/apiserver.js';
import type { ResourceInfo } from '../api/registry.js';
import { crdPrinter, jsonPath } from './crd-table.js';
import type { Printer } from './printers.js';
import { pathNotFound } from './respond.js';

// biome-ignore lint/suspicious/noExplicitAny: CRDs and custom resources are arbitrary JSON
type Obj = any;

/** The `spec.versions[]` entry of the CRD behind `info` at `info.version`; 404 once it is gone. */
export async function customVersion(api: ApiServer, info: ResourceInfo): Promise<Obj> {
  const crd: Obj = await api.get('customresourcedefinitions', '', info.crd!).catch(() => undefined);
  const v = crd?.spec?.versions?.find((x: Obj) => x?.name === info.version);
  if (!v) throw pathNotFound();
  return v;
}

export const tablePrinter = (r: { custom?: Obj }): Printer | undefined =>
  r.custom ? crdPrinter(r.custom) : undefined;

const steps = (path: string) => path.replace(/^\./, '').split('.');

/** replicas wanted, replicas observed and the label selector, read through the scale paths */
export function readScale(version: Obj, obj: Obj): { spec: number; status: number; selector?: string } {
  const scale = version.subresources?.scale ?? {};
  const spec = jsonPath(obj, String(scale.specReplicasPath ?? '.spec.replicas'));
  const status = jsonPath(obj, String(scale.statusReplicasPath ?? '.status.replicas'));
  const selector = scale.labelSelectorPath ? jsonPath(obj, String(scale.labelSelectorPath)) : undefined;
  return {
    spec: typeof spec === 'number' ? spec : 0,
    status: typeof status === 'number' ? status : 0,
    selector: typeof selector === 'string' ? selector : undefined,
  };
}

/** Set the replicas wanted at `specReplicasPath`, creating the objects on the way. */
export function writeScale(version: Obj, obj: Obj, replicas: number): void {
  const path = steps(String(version.subresources?.scale?.specReplicasPath ?? '.spec.replicas'));
  let cur = obj;
  for (const k of path.slice(0, -1)) {
    if (typeof cur[k] !== 'object' || cur[k] === null) cur[k] = {};
    cur = cur[k];
  }
  cur[path[path.length - 1]!] = replicas;
}
