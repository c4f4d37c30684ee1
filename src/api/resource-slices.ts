/**
 * The devices a node offers and the ResourceSlice its DRA driver publishes for them (upstream: a
 * driver's kubelet plugin, k8s.io/dynamic-resource-allocation/kubeletplugin PublishResources and the
 * resourceslice controller): one slice per node and driver, in a pool named after the node
 * (generation 1, one slice), owned by the Node so that it goes when the node is deleted.
 *
 * Scenario pools, autoscaler node groups and what-if node templates describe their devices as
 *
 * ```yaml
 * devices:
 *   - driver: gpu.example.com      # the DRA driver
 *     count: 8                     # devices gpu-0 … gpu-7
 *     namePrefix: gpu              # (default "dev")
 *     attributes: { model: H100, cores: 16896, nvlink: true }   # string, int or bool
 *     capacity: { memory: 80Gi }
 * ```
 */
import { parseQuantity } from './quantity.js';
import { RESOURCE_SLICE_MAX_DEVICES, type DeviceAttribute, type ResourceSlice } from './resource-types.js';
import type { Node } from './types.js';
import { checkKnownFields } from '../util/scenario-input.js';

/** One driver's devices on a node. */
export interface NodeDevices {
  driver: string;
  count: number;
  namePrefix: string;
  attributes: Record<string, DeviceAttribute>;
  capacity: Record<string, string>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * A `devices:` list, checked; `fail(path, message)` throws the caller's error (scenario or CLI),
 * `where` is the list's path (`cluster.pools[0].devices`).
 */
export function parseNodeDevices(
  v: unknown,
  where: string,
  fail: (path: string, msg: string) => never,
): NodeDevices[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return fail(where, 'expected a list like [{driver: gpu.example.com, count: 8}]');
  return v.map((d, i) => {
    const w = `${where}[${i}]`;
    if (!isObj(d)) return fail(w, 'expected a mapping like {driver: gpu.example.com, count: 8}');
    checkKnownFields(d, ['driver', 'count', 'namePrefix', 'attributes', 'capacity'], w, fail);
    if (typeof d.driver !== 'string' || !d.driver) return fail(`${w}.driver`, 'expected a driver name');
    const count = d.count ?? 1;
    if (
      typeof count !== 'number' ||
      !Number.isInteger(count) ||
      count < 1 ||
      count > RESOURCE_SLICE_MAX_DEVICES
    )
      return fail(`${w}.count`, `expected an integer from 1 to ${RESOURCE_SLICE_MAX_DEVICES}`);
    const namePrefix = d.namePrefix ?? 'dev';
    if (typeof namePrefix !== 'string' || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namePrefix))
      return fail(`${w}.namePrefix`, 'expected a DNS label such as "gpu"');
    const attributes: Record<string, DeviceAttribute> = {};
    if (d.attributes !== undefined && !isObj(d.attributes))
      return fail(`${w}.attributes`, 'expected a mapping');
    for (const [k, a] of Object.entries(d.attributes ?? {})) {
      if (typeof a === 'boolean') attributes[k] = { bool: a };
      else if (typeof a === 'number' && Number.isInteger(a)) attributes[k] = { int: a };
      else if (typeof a === 'string') attributes[k] = { string: a };
      else return fail(`${w}.attributes.${k}`, 'expected a string, an integer or a boolean');
    }
    const capacity: Record<string, string> = {};
    if (d.capacity !== undefined && !isObj(d.capacity)) return fail(`${w}.capacity`, 'expected a mapping');
    for (const [k, q] of Object.entries(d.capacity ?? {})) {
      try {
        parseQuantity(String(q));
      } catch (e) {
        return fail(`${w}.capacity.${k}`, (e as Error).message);
      }
      capacity[k] = String(q);
    }
    return { driver: d.driver, count, namePrefix, attributes, capacity };
  });
}

/** The ResourceSlice the driver of `devices` publishes for `node` (named `<node>-<driver>`). */
export function resourceSliceFor(node: Node, devices: NodeDevices): ResourceSlice {
  const nodeName = node.metadata.name ?? '';
  const attrs = Object.keys(devices.attributes).length ? devices.attributes : undefined;
  const caps = Object.keys(devices.capacity).length
    ? Object.fromEntries(Object.entries(devices.capacity).map(([k, value]) => [k, { value }]))
    : undefined;
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: {
      name: `${nodeName}-${devices.driver}`.slice(0, 253),
      ownerReferences: node.metadata.uid
        ? [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: node.metadata.uid, controller: true }]
        : undefined,
    },
    spec: {
      driver: devices.driver,
      pool: { name: nodeName, generation: 1, resourceSliceCount: 1 },
      nodeName,
      devices: Array.from({ length: devices.count }, (_, i) => ({
        name: `${devices.namePrefix}-${i}`,
        attributes: attrs && structuredClone(attrs),
        capacity: caps && structuredClone(caps),
      })),
    },
  };
}
