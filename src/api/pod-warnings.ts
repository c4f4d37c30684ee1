/**
 * The warnings kube-apiserver returns with a pod or pod template it accepts (upstream
 * pkg/api/pod/warnings.go GetWarningsForPodTemplate, v1.34), for what that file checks on list
 * items: duplicate env names and overlapping container ports.
 *
 *   spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply
 *   spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]
 *
 * Ports are compared across every container (init, regular, ephemeral: VisitContainersWithPath's
 * order) by containerPort/protocol, then hostIP and hostPort decide the wording.
 */
import { type FieldError, warningText } from './field.js';
import { isObj, type Obj } from './validation-common.js';

/** Where each kind holds a PodSpec. */
const POD_SPEC_AT: Record<string, string[]> = {
  Pod: ['spec'],
  PodTemplate: ['template', 'spec'],
  ReplicationController: ['spec', 'template', 'spec'],
  ReplicaSet: ['spec', 'template', 'spec'],
  Deployment: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'];

/** pods.VisitContainersWithPath */
function containersOf(spec: Obj, base: string): { c: Obj; path: string }[] {
  const out: { c: Obj; path: string }[] = [];
  for (const list of CONTAINER_LISTS) {
    const items = spec[list];
    if (!Array.isArray(items)) continue;
    items.forEach((c, i) => {
      if (isObj(c)) out.push({ c, path: `${base}.${list}[${i}]` });
    });
  }
  return out;
}

/** The warnings.go warnings on the env and ports of a kind's pod spec. */
export function podSpecWarnings(o: Obj, kind: string, out: FieldError[]): void {
  const at = POD_SPEC_AT[kind];
  if (!at) return;
  let spec: unknown = o;
  for (const s of at) spec = isObj(spec) ? spec[s] : undefined;
  if (!isObj(spec)) return;
  const containers = containersOf(spec, at.join('.'));
  for (const { c, path } of containers) envWarnings(c, path, out);
  portWarnings(containers, out);
}

/** duplicate containers[*].env: a later item hides an earlier one unless it builds on it */
function envWarnings(c: Obj, path: string, out: FieldError[]): void {
  if (!Array.isArray(c.env) || c.env.length < 2) return;
  const names = new Set<string>();
  c.env.forEach((item: unknown, i: number) => {
    if (!isObj(item) || typeof item.name !== 'string') return;
    if (!names.has(item.name)) {
      names.add(item.name);
      return;
    }
    const ref = `$(${item.name})`;
    const value = typeof item.value === 'string' ? item.value : '';
    if (item.valueFrom !== undefined || value === ref || !value.includes(ref))
      out.push(
        warningText(
          `${path}.env[${i}]`,
          `hides previous definition of ${JSON.stringify(item.name)}, which may be dropped when using apply`,
        ),
      );
  });
}

interface PortBlock {
  field: string;
  hostIP: string;
  hostPort: number;
}

/** Go's %+v of an api.ContainerPort */
const goPort = (p: Obj) =>
  `{Name:${p.name ?? ''} HostPort:${p.hostPort ?? 0} ContainerPort:${p.containerPort ?? 0} Protocol:${p.protocol ?? ''} HostIP:${p.hostIP ?? ''}}`;

function portWarnings(containers: { c: Obj; path: string }[], out: FieldError[]): void {
  const all = new Map<string, PortBlock[]>();
  for (const { c, path } of containers) {
    if (!Array.isArray(c.ports)) continue;
    c.ports.forEach((p: unknown, i: number) => {
      if (!isObj(p)) return;
      const field = `${path}.ports[${i}]`;
      const hostIP = typeof p.hostIP === 'string' ? p.hostIP : '';
      const hostPort = typeof p.hostPort === 'number' ? p.hostPort : 0;
      if (hostIP !== '' && hostPort === 0)
        out.push(warningText(field, `hostIP set without hostPort: ${goPort(p)}`));
      const k = `${p.containerPort}/${p.protocol ?? 'TCP'}`;
      const others = all.get(k);
      for (const other of others ?? []) {
        let what: string | undefined;
        if (hostIP === other.hostIP && hostPort === other.hostPort) what = 'duplicate';
        else if (hostPort === 0 || other.hostPort === 0) what = 'overlapping';
        else if (hostPort === other.hostPort && (hostIP === '') !== (other.hostIP === ''))
          what = 'dangerously ambiguous';
        if (what) out.push(warningText(field, `${what} port definition with ${other.field}`));
      }
      if (others) others.push({ field, hostIP, hostPort });
      else all.set(k, [{ field, hostIP, hostPort }]);
    });
  }
}
