/**
 * A score plugin in plain JavaScript: bin-packing on the CPU its containers request, so fuller nodes score higher
 * (MostAllocated on cpu alone, like examples/plugins/wasm-binpack but without a build step).
 *
 *   score = (milli-CPU requested on the node + the pod's) × 100 / allocatable milli-CPU   (0..100)
 *
 *   kubesim strategies --cluster examples/snapshot/cluster.yaml --pod examples/snapshot/pod-api.yaml --replicas 10 --strategy LeastAllocated plugin:examples/plugins/binpack.mjs:5
 *   kubesim plan --cluster examples/snapshot/cluster.yaml --pod examples/snapshot/pod-api.yaml --plugin examples/plugins/binpack.mjs:5
 */
import { api } from 'kubesim';

const milliCpu = (requests) => (requests?.cpu === undefined ? 0 : api.cpuMillis(requests.cpu));
const podMilliCpu = (pod) => pod.spec.containers.reduce((sum, c) => sum + milliCpu(c.resources?.requests), 0);

/** @type {import('kubesim/scheduler').ScorePluginDef} */
export default {
  name: 'BinPackCpu',
  score(pod, node, pods) {
    const allocatable = milliCpu(node.status?.allocatable);
    if (allocatable <= 0) return 0;
    const requested = pods.reduce((sum, p) => sum + podMilliCpu(p), podMilliCpu(pod));
    return Math.min(100, Math.floor((requested * 100) / allocatable));
  },
};
