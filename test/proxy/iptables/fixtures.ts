// Builders mirroring kube-proxy's proxier_test.go helpers (makeTestService, makeTestEndpointSlice)
// and its NewFakeProxier settings, so upstream test cases can be reproduced verbatim.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EndpointSlice, Service } from '../../../src/api/types.js';
import { type IPFamily, type ProxyNode, ProxyState } from '../../../src/proxy/model/index.js';
import {
  IptablesProxier,
  type IptablesProxierOptions,
} from '../../../src/proxy/renderers/iptables/proxier.js';

export const testNodeName = 'test-node';
export const testNodeIP = '192.168.0.2';
export const fakeNode = { name: testNodeName, ips: { IPv4: testNodeIP } } as const;

/** NewFakeProxier: podCIDR detector 10.0.0.0/8, mark 0x4000, fake iptables without --random-fully. */
export const fakeProxierOptions: IptablesProxierOptions = {
  clusterCIDR: '10.0.0.0/8',
  masqueradeMark: '0x4000',
  randomFully: false,
  nfacct: true,
  localhostNodePorts: true,
};

export function makeTestService(namespace: string, name: string, fn: (svc: Service) => void): Service {
  const svc: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace, name, annotations: {} },
    spec: {},
    status: {},
  };
  fn(svc);
  return svc;
}

export function makeTestEndpointSlice(
  namespace: string,
  name: string,
  sliceNum: number,
  fn: (eps: EndpointSlice) => void,
): EndpointSlice {
  const eps: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace, name: `${name}-${sliceNum}`, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4',
    endpoints: [],
    ports: [],
  };
  fn(eps);
  return eps;
}

export function fixture(name: string): string {
  return readFileSync(join(__dirname, '../../fixtures/proxy/iptables', name), 'utf8');
}

/** An iptables proxier over a fresh ProxyState of `node` and `family`. */
export function newIptablesProxier(
  node: ProxyNode,
  opts: IptablesProxierOptions = {},
  family: IPFamily = 'IPv4',
): IptablesProxier {
  return new IptablesProxier(new ProxyState(node, family), opts);
}
