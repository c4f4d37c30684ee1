/**
 * kube-proxy's service/endpoint model (see types.ts for the data flow). Import from here:
 *
 * ```ts
 * import { buildProxyState, categorizeEndpoints } from '../model/index.js';
 * const state = buildProxyState(services, slices, { name: 'node-1', ips: { IPv4: '10.0.0.1' } });
 * for (const [key, svc] of state.servicePorts) {
 *   const cat = categorizeEndpoints(state.endpoints.get(key), svc, state.node.name, state.node.topologyLabels);
 * }
 * ```
 */
export * from './types.js';
export * from './ip.js';
export * from './service.js';
export * from './endpoints.js';
export { EndpointList, EndpointListMap, endpointCount, READY } from './endpoint-columns.js';
export * from './topology.js';
export * from './tracker.js';
export * from './manifests.js';
export * from './local-detector.js';
export * from './nodeport-addresses.js';
