/**
 * `GET /kubesim/v1/explain?namespace=NS&name=POD`: the scheduler's explanation for one pod against
 * the served cluster as it is now — every filter's verdict and every score plugin's score per
 * node, the FitError — what `kubesim explain` prints for a snapshot, as JSON (the Explanation of
 * src/scheduler/framework/explain.ts). The /ui page shows it for the pod a user picks.
 *
 * The cycle runs on a fresh SchedulerCore (the default profile, the JS kernel) over the nodes,
 * bound pods, Services, ReplicaSets, StatefulSets, ReplicationControllers and Namespaces listed from
 * the ApiServer. A bound pod is explained as if it were being scheduled now, without itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiServer } from '../api/apiserver.js';
import { badRequest } from '../api/errors.js';
import type { KubeObject, Namespace, Node, Pod, ReplicaSet, Service } from '../api/types.js';
import { SchedulerCore, explainPod } from '../scheduler/index.js';
import { sendJson } from './respond.js';

export function explainRoute(api: ApiServer) {
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    if (url.pathname !== '/kubesim/v1/explain' || req.method !== 'GET') return false;
    const namespace = url.searchParams.get('namespace') ?? 'default';
    const name = url.searchParams.get('name');
    if (!name) throw badRequest('name: Required value (the pod to explain)');
    const pod = structuredClone(await api.get<Pod>('pods', namespace, name));
    const list = async <T extends KubeObject>(r: string) => (await api.list<T>(r)).items;
    const [nodes, pods, services, replicaSets, statefulSets, rcs, namespaces] = await Promise.all([
      list<Node>('nodes'),
      list<Pod>('pods'),
      list<Service>('services'),
      list<ReplicaSet>('replicasets'),
      list('statefulsets'),
      list('replicationcontrollers'),
      list<Namespace>('namespaces'),
    ]);
    const self = (p: Pod) => p.metadata.namespace === namespace && p.metadata.name === name;
    const core = new SchedulerCore({
      kernel: 'js',
      nodes,
      pods: pods.filter((p) => !self(p)),
      namespaces,
      objects: { services, replicaSets, others: [...statefulSets, ...rcs] as never },
    });
    delete pod.spec.nodeName;
    const fwk = core.frameworkFor(pod);
    if (!fwk)
      throw badRequest(`pod ${namespace}/${name}: no scheduler profile named "${pod.spec.schedulerName}"`);
    sendJson(res, 200, explainPod(core.algo, fwk, core.snapshot, pod));
    return true;
  };
}
