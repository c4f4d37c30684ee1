/**
 * Differential test of the incremental syncs: in every mode, a proxier that caches per-service-port
 * render fragments and diffs only the changed Services (the default) must write exactly what the
 * reference proxier writes (`incremental: false`: every sync renders from the whole model, the
 * renderers as they were before the incremental ones) — sync after sync, through seeded random
 * churn: endpoints replaced, turned local / not ready, slices deleted and re-created, Services
 * deleted, re-created and updated (ports, type, policies, affinity, an external IP shared with
 * another Service), forced full syncs, failed restores and a clock that moves.
 */
import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '../../src/api/types.js';
import { changeOneEndpoint, generateServices, type GeneratedServices } from '../../src/proxy/gen.js';
import { ProxyState } from '../../src/proxy/model/index.js';
import { IptablesProxier } from '../../src/proxy/renderers/iptables/proxier.js';
import { IpvsProxier } from '../../src/proxy/renderers/ipvs/proxier.js';
import { NftablesProxier } from '../../src/proxy/renderers/nftables/proxier.js';
import type { Proxier, ProxyMode, ProxySyncResult } from '../../src/proxy/renderers/types.js';
import { ManualClock } from '../../src/util/clock.js';
import { Rng } from '../../src/util/rng.js';

const NODE_IP = '192.168.0.10';

interface Pair {
  clock: ManualClock;
  fail: { next: boolean };
  ref: Proxier;
  inc: Proxier;
}

function newPair(mode: ProxyMode, c: GeneratedServices): Pair {
  const clock = new ManualClock(0);
  const fail = { next: false };
  const make = (incremental: boolean): Proxier => {
    const state = new ProxyState({ name: c.nodeName, ips: { IPv4: NODE_IP } });
    for (const s of c.services) state.onServiceAdd(s);
    for (const s of c.endpointSlices) state.onEndpointSliceAdd(s);
    if (mode === 'iptables')
      return new IptablesProxier(state, {
        clusterCIDR: c.clusterCIDR,
        clock,
        incremental,
        // small enough that large-cluster mode (comments dropped, cleanup once per period) comes and goes
        largeClusterEndpointsThreshold: 900,
        syncPeriodMs: 5000,
        apply: () => {
          if (fail.next) throw new Error('iptables-restore: simulated failure');
        },
      });
    if (mode === 'nftables')
      return new NftablesProxier(state, {
        clusterCIDR: c.clusterCIDR,
        serviceCIDRs: [c.serviceCIDR],
        clock,
        incremental,
      });
    return new IpvsProxier(state, { clusterCIDR: c.clusterCIDR, incremental });
  };
  return { clock, fail, ref: make(false), inc: make(true) };
}

/** Everything a sync returns that does not depend on timing. */
function comparable(r: ProxySyncResult): unknown {
  const stats = Object.fromEntries(Object.entries(r.stats).filter(([k]) => !k.startsWith('render')));
  return { kind: r.kind, text: r.text, artifacts: r.artifacts.map((a) => [a.name, a.text]), stats };
}

const clone = <T>(x: T): T => structuredClone(x);

/** One random watch event applied to the cluster; returns it for both proxiers to replay. */
function randomEvent(c: GeneratedServices, rng: Rng): (p: Proxier) => void {
  const r = rng.next();
  if (r < 0.35) {
    const before = c.endpointSlices.slice();
    const ch = changeOneEndpoint(c, rng);
    const old = before[ch.sliceIndex];
    return (p) => p.state.onEndpointSliceUpdate(old, ch.slice);
  }
  if (r < 0.5) {
    // an endpoint moves to this node, or its readiness flips
    const i = rng.int(c.endpointSlices.length);
    const old = c.endpointSlices[i];
    const next = clone(old);
    if (next.endpoints.length > 0) {
      const ep = next.endpoints[rng.int(next.endpoints.length)];
      if (rng.next() < 0.5) ep.nodeName = c.nodeName;
      else ep.conditions = { ready: !ep.conditions?.ready, serving: true, terminating: false };
    }
    c.endpointSlices[i] = next;
    return (p) => p.state.onEndpointSliceUpdate(old, next);
  }
  if (r < 0.58) {
    // a slice deleted, then re-created empty
    const i = rng.int(c.endpointSlices.length);
    const old = c.endpointSlices[i];
    const next: EndpointSlice = { ...clone(old), endpoints: [] };
    c.endpointSlices[i] = next;
    return (p) => {
      p.state.onEndpointSliceDelete(old);
      p.state.onEndpointSliceAdd(next);
    };
  }
  const i = rng.int(c.services.length);
  const old = c.services[i];
  if (r < 0.66) {
    // deleted, and maybe back at once
    const back = rng.next() < 0.5;
    return (p) => {
      p.state.onServiceDelete(old);
      if (back) p.state.onServiceAdd(old);
    };
  }
  const next: Service = clone(old);
  const spec = next.spec;
  const k = rng.int(6);
  if (k === 0)
    spec.ports = [...(spec.ports ?? []), { name: 'extra', protocol: 'TCP', port: 7000 + rng.int(5) }];
  else if (k === 1) spec.ports = (spec.ports ?? []).slice(0, 1).map((p) => ({ ...p, port: p.port + 1 }));
  else if (k === 2) {
    spec.sessionAffinity = spec.sessionAffinity === 'ClientIP' ? 'None' : 'ClientIP';
    if (spec.sessionAffinity === 'ClientIP')
      spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 60 } };
    else delete spec.sessionAffinityConfig;
  } else if (k === 3) {
    // an external IP another Service may already use (shared map keys and virtual servers: the
    // incremental syncs fall back to the walk while it lasts), or none
    if (rng.next() < 0.1) spec.externalIPs = [`192.0.2.${rng.int(4)}`];
    else delete spec.externalIPs;
  } else if (k === 4)
    spec.internalTrafficPolicy = spec.internalTrafficPolicy === 'Local' ? 'Cluster' : 'Local';
  else if (spec.type !== 'ClusterIP')
    spec.externalTrafficPolicy = spec.externalTrafficPolicy === 'Local' ? 'Cluster' : 'Local';
  c.services[i] = next;
  return (p) => p.state.onServiceUpdate(old, next);
}

function churn(mode: ProxyMode, seed: number, services: number, syncs: number): void {
  const c = generateServices({ services, endpoints: 6, seed });
  const pair = newPair(mode, c);
  const rng = new Rng(`incremental-${mode}-${seed}`);
  const both = (f: (p: Proxier) => void) => {
    f(pair.ref);
    f(pair.inc);
  };
  const check = (step: string) => {
    const a = pair.ref.sync();
    const b = pair.inc.sync();
    expect(comparable(b), `${mode} seed ${seed}: ${step}`).toEqual(comparable(a));
  };
  check('first sync');
  for (let s = 0; s < syncs; s++) {
    const events = 1 + rng.int(4);
    for (let e = 0; e < events; e++) both(randomEvent(c, rng));
    pair.clock.advance(rng.int(3000));
    const roll = rng.next();
    if (roll < 0.05) both((p) => p.forceFullSync());
    pair.fail.next = mode === 'iptables' && roll > 0.95;
    check(`sync ${s + 1}`);
    pair.fail.next = false;
  }
  both((p) => p.forceFullSync());
  check('final full sync');
}

describe('incremental syncs write what a render from the whole model writes', () => {
  for (const mode of ['iptables', 'ipvs', 'nftables'] as const) {
    for (const seed of [1, 2, 3]) {
      it(`${mode}, seed ${seed}: 60 syncs of random churn over 120 services`, () => {
        churn(mode, seed, 120, 60);
      });
    }
  }
});
