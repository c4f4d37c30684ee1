/**
 * The structured allocator (upstream: k8s.io/dynamic-resource-allocation/structured, the stable
 * channel: internal/stable/allocator_stable.go Allocate, validateDeviceRequest, allocateOne,
 * isSelectable, selectorsMatch, allocateDevice, matchAttributeConstraint, createNodeSelector).
 *
 * For one node it picks devices for every request of every claim by an exhaustive search that
 * stops at the first full solution: claims in order, requests in order, for each required device
 * every pool (driver/pool name order), slice and device in order; a device already allocated (or
 * picked for this pod) is skipped unless the request asks for admin access; the class's and the
 * request's CEL selectors must match; `matchAttribute` constraints are checked as devices are added
 * and undone on backtracking. `All` fixes its devices up front (every matching device of complete,
 * valid pools; none is an unsatisfiable request). A `firstAvailable` request tries its subrequests
 * in order. A claim gets at most 32 devices. The result per claim: the devices, the class's and
 * the claim's opaque config for the requests, and the node selector of node-local devices.
 *
 * v1.34's feature gates as shipped: admin access and prioritized lists on (beta); partitionable
 * devices, device taints, binding conditions and consumable capacity off (alpha) — devices that
 * consume counters or carry binding conditions are never picked, taints are ignored.
 *
 * Selector verdicts are cached per (slice object, device, expression) across pods and nodes (CEL
 * is pure); upstream caches per Allocate call. The result is the same.
 */
import type { Node, NodeSelector, NodeSelectorRequirement } from '../../../api/types.js';
import { compileSelector, deviceMatches, deviceVariable } from '../../../api/resource-cel.js';
import {
  ALLOCATION_RESULTS_MAX_SIZE,
  type AllocationResult,
  type Device,
  type DeviceAllocationConfiguration,
  type DeviceClass,
  type DeviceRequest,
  type DeviceSelector,
  deviceId,
  type ResourceClaim,
  type ResourceSlice,
} from '../../../api/resource-types.js';
import { gatherPools, type Pool, type SlicesOfPool } from './pools.js';
import type { RequestCensus } from '../../framework/explain.js';

/** An allocation that cannot succeed on any node (upstream: an error from Allocate). */
export class AllocationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AllocationError';
  }
}

/** upstream errAllocationResultMaxSizeExceeded: backtrack further */
const MAX_SIZE_EXCEEDED = Symbol('allocation max size exceeded');

/** requestAccessor: an exact request or a subrequest */
interface RequestAccessor {
  name: string;
  deviceClassName: string;
  allocationMode: string;
  count: number;
  adminAccess: boolean;
  hasAdminAccess: boolean;
  selectors: DeviceSelector[];
}

function exactAccessor(r: DeviceRequest): RequestAccessor {
  const e = r.exactly!;
  return {
    name: r.name,
    deviceClassName: e.deviceClassName ?? '',
    allocationMode: e.allocationMode ?? 'ExactCount',
    count: e.count ?? 1,
    adminAccess: e.adminAccess === true,
    hasAdminAccess: e.adminAccess != null,
    selectors: e.selectors ?? [],
  };
}

function subAccessor(s: NonNullable<DeviceRequest['firstAvailable']>[number]): RequestAccessor {
  return {
    name: s.name,
    deviceClassName: s.deviceClassName ?? '',
    allocationMode: s.allocationMode ?? 'ExactCount',
    count: s.count ?? 1,
    adminAccess: false,
    hasAdminAccess: false,
    selectors: s.selectors ?? [],
  };
}

interface Candidate {
  id: string;
  driver: string;
  pool: string;
  device: Device;
  slice: ResourceSlice;
  index: number;
}

interface RequestData {
  request: RequestAccessor;
  parent?: RequestAccessor;
  class?: DeviceClass;
  numDevices: number;
  selectedSub: number;
  allDevices?: Candidate[];
}

interface DeviceResult {
  request: string;
  parent: string;
  c: Candidate;
  adminAccess?: boolean;
}

/** upstream matchAttributeConstraint */
class MatchAttribute {
  private value: string | undefined;
  private n = 0;
  constructor(
    readonly requests: ReadonlySet<string>,
    readonly attribute: string,
  ) {}

  private applies(request: string, sub: string): boolean {
    if (this.requests.size === 0) return true;
    return this.requests.has(request) || (sub !== '' && this.requests.has(`${request}/${sub}`));
  }

  add(request: string, sub: string, c: Candidate): boolean {
    if (!this.applies(request, sub)) return true;
    const v = lookupAttribute(c, this.attribute);
    if (v === undefined) return false;
    if (this.n === 0) {
      this.value = v;
      this.n = 1;
      return true;
    }
    if (v !== this.value) return false;
    this.n++;
    return true;
  }

  remove(request: string, sub: string): void {
    if (this.applies(request, sub)) this.n--;
  }
}

/**
 * upstream lookupAttribute: the fully qualified name, or the bare id when the domain is the
 * driver's; the value typed (`i:1`, `s:a`) so that an int never equals a string
 */
function lookupAttribute(c: Candidate, name: string): string | undefined {
  const attrs = c.device.attributes ?? {};
  let a = attrs[name];
  if (a === undefined) {
    const i = name.indexOf('/');
    if (i < 0 || name.slice(0, i) !== c.driver) return undefined;
    a = attrs[name.slice(i + 1)];
  }
  if (a === undefined) return undefined;
  if (a.string != null) return `s:${a.string}`;
  if (a.int != null) return `i:${a.int}`;
  if (a.bool != null) return `b:${a.bool}`;
  if (a.version != null) return `v:${a.version}`;
  return undefined;
}

/** per slice and device: the CEL `device` variable and the verdicts of the expressions seen */
interface DeviceCache {
  variable?: Record<string, unknown>;
  verdicts: Map<string, boolean | Error>;
}
const selectorCache = new WeakMap<ResourceSlice, DeviceCache[]>();

function cached(slice: ResourceSlice, index: number): DeviceCache {
  let arr = selectorCache.get(slice);
  if (!arr) selectorCache.set(slice, (arr = []));
  return (arr[index] ??= { verdicts: new Map() });
}

/** A claim's allocation on one node, or undefined when it does not fit there. */
export type Allocation = AllocationResult;

export interface AllocatorOptions {
  claims: readonly ResourceClaim[];
  /** device ids allocated to other claims (admin-access results excluded) */
  allocated: ReadonlySet<string>;
  classes: (name: string) => DeviceClass | undefined;
  /** the slices that may serve `node` (node-local ones and those with a selector or allNodes) */
  slicesFor: (node: Node) => readonly ResourceSlice[];
  /**
   * the node's pools (gatherPools over slicesFor), when the caller keeps them across calls
   * (ClaimsView does: slices change far less often than pods are scheduled); read-only
   */
  poolsFor?: (node: Node) => readonly Pool[];
  /** every slice of a pool, for pools spread over several nodes (gatherPools' allOfPool) */
  slicesOfPool?: SlicesOfPool;
}

export class Allocator {
  constructor(private readonly opts: AllocatorOptions) {}

  get claims(): readonly ResourceClaim[] {
    return this.opts.claims;
  }

  /**
   * Allocate: one result per claim when every claim fits on the node, undefined when they do not.
   * @throws AllocationError when no node can satisfy the claims (a missing class, a CEL error, …)
   */
  allocate(node: Node): Allocation[] | undefined {
    return new Run(this.opts, node).allocate();
  }

  /**
   * For `kubesim explain`: per claim, per request (each subrequest of a firstAvailable request),
   * the node's devices in complete, valid pools, those the class's and request's selectors
   * select, and those of them not allocated to other claims.
   * @throws AllocationError as {@link allocate} does
   */
  census(node: Node): RequestCensus[][] {
    return new Run(this.opts, node).census();
  }
}

/** One Allocate call (upstream's `allocator`). */
class Run {
  private readonly claims: readonly ResourceClaim[];
  private pools: readonly Pool[] = [];
  private readonly requestData = new Map<string, RequestData>();
  private readonly constraints: MatchAttribute[][] = [];
  /** device id → claim indices it is being allocated for */
  private readonly allocating = new Map<string, Set<number>>();
  private readonly result: DeviceResult[][] = [];

  constructor(
    private readonly opts: AllocatorOptions,
    private readonly node: Node,
  ) {
    this.claims = opts.claims;
  }

  allocate(): Allocation[] | undefined {
    const pools = (this.pools =
      this.opts.poolsFor?.(this.node) ??
      gatherPools(this.opts.slicesFor(this.node), this.node, this.opts.slicesOfPool));
    this.claims.forEach((claim, ci) => {
      let minDevices = 0;
      const requests = claim.spec.devices?.requests ?? [];
      requests.forEach((r, ri) => {
        if (r.firstAvailable && r.firstAvailable.length > 0) {
          let min = Number.MAX_SAFE_INTEGER;
          r.firstAvailable.forEach((s, si) => {
            const d = this.validateRequest(claim, subAccessor(s), exactLike(r), pools);
            this.requestData.set(key(ci, ri, si), d);
            min = Math.min(min, d.numDevices);
          });
          minDevices += min;
        } else {
          const d = this.validateRequest(claim, exactAccessor(r), undefined, pools);
          this.requestData.set(key(ci, ri, 0), d);
          minDevices += d.numDevices;
        }
      });
      if (minDevices > ALLOCATION_RESULTS_MAX_SIZE)
        throw new AllocationError(
          `claim ${claimRef(claim)}: number of requested devices ${minDevices} exceeds the claim limit of ${ALLOCATION_RESULTS_MAX_SIZE}`,
        );
      this.result[ci] = [];
      this.constraints[ci] = (claim.spec.devices?.constraints ?? []).map((c, i) => {
        if (!c.matchAttribute)
          throw new AllocationError(
            `claim ${claimRef(claim)}, constraint #${i}: empty constraint (unsupported constraint type?)`,
          );
        return new MatchAttribute(new Set(c.requests ?? []), c.matchAttribute);
      });
    });
    const done = this.allocateOne(0, 0, 0, 0, false);
    if (done !== true) {
      if (pools.some((p) => p.invalid)) throw new AllocationError('invalid resource pools were encountered');
      return undefined;
    }
    return this.claims.map((claim, ci) => this.resultFor(claim, ci));
  }

  census(): RequestCensus[][] {
    const pools = gatherPools(this.opts.slicesFor(this.node), this.node, this.opts.slicesOfPool).filter(
      (p) => !p.incomplete && !p.invalid,
    );
    return this.claims.map((claim) =>
      (claim.spec.devices?.requests ?? []).flatMap((r) => {
        const accessors =
          r.firstAvailable && r.firstAvailable.length > 0
            ? r.firstAvailable.map((x) => [subAccessor(x), exactLike(r)] as const)
            : [[exactAccessor(r), undefined] as const];
        return accessors.map(([request, parent]) => {
          const data = this.validateRequest(claim, request, parent, []);
          const out: RequestCensus = {
            request: parent ? `${parent.name}/${request.name}` : request.name,
            deviceClassName: request.deviceClassName,
            wanted: request.allocationMode === 'All' ? 'All' : request.count,
            devices: 0,
            selectable: 0,
            free: 0,
          };
          for (const pool of pools)
            for (const slice of pool.slices)
              (slice.spec.devices ?? []).forEach((device, index) => {
                out.devices++;
                const c = candidate(pool, slice, device, index);
                if (!this.isSelectable(claim, data, c)) return;
                out.selectable++;
                if (!this.opts.allocated.has(c.id)) out.free++;
              });
          return out;
        });
      }),
    );
  }

  /** validateDeviceRequest */
  private validateRequest(
    claim: ResourceClaim,
    request: RequestAccessor,
    parent: RequestAccessor | undefined,
    pools: readonly Pool[],
  ): RequestData {
    for (const [i, s] of request.selectors.entries())
      if (!s.cel)
        throw new AllocationError(
          `claim ${claimRef(claim)}, request ${request.name}, selector #${i}: CEL expression empty (unsupported selector type?)`,
        );
    if (request.deviceClassName === '')
      throw new AllocationError(
        `claim ${claimRef(claim)}, request ${request.name}: missing device class name (unsupported request type?)`,
      );
    const cls = this.opts.classes(request.deviceClassName);
    if (!cls)
      throw new AllocationError(
        `claim ${claimRef(claim)}, request ${request.name}: could not retrieve device class ${request.deviceClassName}: deviceclass.resource.k8s.io "${request.deviceClassName}" not found`,
      );
    const data: RequestData = { request, parent, class: cls, numDevices: 0, selectedSub: 0 };
    if (request.allocationMode === 'ExactCount') data.numDevices = request.count;
    else if (request.allocationMode === 'All') {
      const all: Candidate[] = [];
      for (const pool of pools) {
        if (pool.incomplete)
          throw new AllocationError(
            `claim ${claimRef(claim)}, request ${request.name}: asks for all devices, but resource pool ${pool.driver}/${pool.pool} is currently being updated`,
          );
        if (pool.invalid)
          throw new AllocationError(
            `claim ${claimRef(claim)}, request ${request.name}: asks for all devices, but resource pool ${pool.driver}/${pool.pool} is currently invalid`,
          );
        for (const slice of pool.slices)
          (slice.spec.devices ?? []).forEach((device, index) => {
            const c = candidate(pool, slice, device, index);
            if (this.isSelectable(claim, data, c)) all.push(c);
          });
      }
      data.allDevices = all;
      data.numDevices = all.length;
    } else
      throw new AllocationError(
        `claim ${claimRef(claim)}, request ${request.name}: unsupported count mode ${request.allocationMode}`,
      );
    return data;
  }

  /** allocateOne: true when everything got allocated; MAX_SIZE_EXCEEDED to backtrack further */
  private allocateOne(
    ci: number,
    ri: number,
    si: number,
    di: number,
    inSub: boolean,
  ): boolean | typeof MAX_SIZE_EXCEEDED {
    if (ci >= this.claims.length) return true;
    const claim = this.claims[ci]!;
    const requests = claim.spec.devices?.requests ?? [];
    if (ri >= requests.length) {
      const r = this.allocateOne(ci + 1, 0, 0, 0, false);
      return r === MAX_SIZE_EXCEEDED ? false : r;
    }
    const k = key(ci, ri, si);
    const data = this.requestData.get(k)!;
    if (!inSub && data.parent) {
      let allExceeded = true;
      for (let sub = 0; ; sub++) {
        if (!this.requestData.has(key(ci, ri, sub))) return allExceeded ? MAX_SIZE_EXCEEDED : false;
        const r = this.allocateOne(ci, ri, sub, di, true);
        if (r === MAX_SIZE_EXCEEDED) continue;
        allExceeded = false;
        if (r) {
          data.selectedSub = sub;
          return true;
        }
      }
    }
    const request = data.request;
    const all = request.allocationMode === 'All';
    if (all && (data.allDevices?.length ?? 0) === 0) return false;
    if (di >= data.numDevices) return this.allocateOne(ci, ri + 1, 0, 0, false);
    if (this.result[ci]!.length + data.numDevices - di > ALLOCATION_RESULTS_MAX_SIZE)
      return MAX_SIZE_EXCEEDED;
    if (all) {
      const undo = this.allocateDevice(ci, data, data.allDevices![di]!, true);
      if (!undo) return false;
      const r = this.allocateOne(ci, ri, si, di + 1, inSub);
      if (r !== true) undo();
      return r;
    }
    for (const pool of this.pools) {
      if (pool.incomplete || pool.invalid) continue;
      for (const slice of pool.slices) {
        const devices = slice.spec.devices ?? [];
        const ids = deviceIds(slice);
        for (let index = 0; index < devices.length; index++) {
          const id = ids[index]!;
          if (request.adminAccess ? this.allocating.get(id)?.has(ci) : this.inUse(id)) continue;
          const c = candidate(pool, slice, devices[index]!, index);
          if (!this.isSelectable(claim, data, c)) continue;
          const undo = this.allocateDevice(ci, data, c, false);
          if (!undo) continue;
          const r = this.allocateOne(ci, ri, si, di + 1, inSub);
          if (r === true) return true;
          undo();
          if (r === MAX_SIZE_EXCEEDED) return r;
        }
      }
    }
    return false;
  }

  private inUse(id: string): boolean {
    return this.opts.allocated.has(id) || (this.allocating.get(id)?.size ?? 0) > 0;
  }

  /** isSelectable: the class's and the request's selectors match (binding conditions: off) */
  private isSelectable(claim: ResourceClaim, data: RequestData, c: Candidate): boolean {
    if (c.device.bindingConditions && c.device.bindingConditions.length > 0) return false;
    if (data.class && !this.selectorsMatch(claim, c, data.class, data.class.spec?.selectors ?? []))
      return false;
    return this.selectorsMatch(claim, c, undefined, data.request.selectors);
  }

  private selectorsMatch(
    claim: ResourceClaim,
    c: Candidate,
    cls: DeviceClass | undefined,
    selectors: readonly DeviceSelector[],
  ): boolean {
    if (selectors.length === 0) return true;
    const dc = cached(c.slice, c.index);
    for (const [i, s] of selectors.entries()) {
      const expr = s.cel!.expression;
      let v = dc.verdicts.get(expr);
      if (v === undefined) {
        const sel = compileSelector(expr);
        if (sel.error) v = new Error(`CEL compile error: ${sel.error}`);
        else
          try {
            dc.variable ??= deviceVariable(c.driver, c.device);
            v = deviceMatches(sel, dc.variable);
          } catch (e) {
            v = new Error(`CEL runtime error: ${(e as Error).message}`);
          }
        dc.verdicts.set(expr, v);
      }
      if (v instanceof Error) {
        const who = cls ? `class ${cls.metadata.name}` : `claim ${claimRef(claim)}`;
        const on = v.message.startsWith('CEL runtime') ? ` on device ${c.id}` : '';
        throw new AllocationError(`${who}: selector #${i}${on}: ${v.message}`);
      }
      if (!v) return false;
    }
    return true;
  }

  /** allocateDevice: the undo function when the device could be added, undefined otherwise */
  private allocateDevice(
    ci: number,
    data: RequestData,
    c: Candidate,
    must: boolean,
  ): (() => void) | undefined {
    const request = data.request;
    if (request.adminAccess ? this.allocating.get(c.id)?.has(ci) : this.inUse(c.id)) return undefined;
    // partitionable devices (alpha, off): a device that consumes counters is never picked
    if (c.device.consumesCounters && c.device.consumesCounters.length > 0) return undefined;
    const base = data.parent ? data.parent.name : request.name;
    const sub = data.parent ? request.name : '';
    const cs = this.constraints[ci]!;
    for (let i = 0; i < cs.length; i++) {
      if (cs[i]!.add(base, sub, c)) continue;
      if (must)
        throw new AllocationError(
          `claim ${claimRef(this.claims[ci]!)}, request ${request.name}: cannot add device ${c.id} because a claim constraint would not be satisfied`,
        );
      for (let e = 0; e < i; e++) cs[e]!.remove(base, sub);
      return undefined;
    }
    let set = this.allocating.get(c.id);
    if (!set) this.allocating.set(c.id, (set = new Set()));
    set.add(ci);
    const results = this.result[ci]!;
    const before = results.length;
    results.push({
      request: request.name,
      parent: data.parent?.name ?? '',
      c,
      ...(request.adminAccess ? { adminAccess: true } : {}),
    });
    return () => {
      for (const x of cs) x.remove(base, sub);
      this.allocating.get(c.id)!.delete(ci);
      results.length = before;
    };
  }

  /** the AllocationResult of one claim: devices, config, node selector */
  private resultFor(claim: ResourceClaim, ci: number): Allocation {
    const devices = this.result[ci]!;
    const requests = claim.spec.devices?.requests ?? [];
    const results = devices.map((d) => ({
      request: d.parent ? `${d.parent}/${d.request}` : d.request,
      driver: d.c.driver,
      pool: d.c.pool,
      device: d.c.device.name,
      ...(d.adminAccess ? { adminAccess: true } : {}),
    }));
    const config: DeviceAllocationConfiguration[] = [];
    const classRange = new Map<string, [number, number]>();
    requests.forEach((r, ri) => {
      let data = this.requestData.get(key(ci, ri, 0))!;
      if (data.parent) data = this.requestData.get(key(ci, ri, data.selectedSub))!;
      const cls = data.class;
      if (!cls) return;
      const name = data.parent ? `${data.parent.name}/${data.request.name}` : data.request.name;
      const range = classRange.get(cls.metadata.name ?? '');
      if (range) {
        for (let i = range[0]; i < range[1]; i++) config[i]!.requests!.push(name);
        return;
      }
      const start = config.length;
      for (const c of cls.spec?.config ?? []) config.push({ source: 'FromClass', requests: [name], ...c });
      classRange.set(cls.metadata.name ?? '', [start, config.length]);
    });
    for (const c of claim.spec.devices?.config ?? []) {
      const { requests: names, ...rest } = c;
      if (!names || names.length === 0) {
        config.push({ source: 'FromClaim', ...rest });
        continue;
      }
      requests.forEach((r, ri) => {
        if (names.includes(r.name))
          return void config.push({ source: 'FromClaim', requests: names, ...rest });
        const data = this.requestData.get(key(ci, ri, 0))!;
        if (!data.parent) return;
        const sub = r.firstAvailable![data.selectedSub]!;
        if (names.includes(`${r.name}/${sub.name}`))
          config.push({ source: 'FromClaim', requests: names, ...rest });
      });
    }
    const out: Allocation = { devices: { results, ...(config.length ? { config } : {}) } };
    const ns = nodeSelectorFor(devices);
    if (ns) out.nodeSelector = ns;
    return out;
  }
}

/** the parent of subrequests, as upstream's exactDeviceRequestAccessor over the request itself */
function exactLike(r: DeviceRequest): RequestAccessor {
  return {
    name: r.name,
    deviceClassName: '',
    allocationMode: '',
    count: 0,
    adminAccess: false,
    hasAdminAccess: false,
    selectors: [],
  };
}

const key = (c: number, r: number, s: number) => `${c}/${r}/${s}`;

/** klog.KObj: `<ns>/<name>`, or the bare name of an object without a namespace (as upstream's tests build claims) */
const claimRef = (c: ResourceClaim) =>
  c.metadata.namespace ? `${c.metadata.namespace}/${c.metadata.name}` : (c.metadata.name ?? '');

/** the device ids of a slice's devices, made once per slice object (objects are never changed in place) */
const idsBySlice = new WeakMap<ResourceSlice, string[]>();
function deviceIds(slice: ResourceSlice): string[] {
  let ids = idsBySlice.get(slice);
  if (!ids) {
    const { driver, pool } = slice.spec;
    ids = (slice.spec.devices ?? []).map((d) => deviceId(driver, pool.name, d.name));
    idsBySlice.set(slice, ids);
  }
  return ids;
}

function candidate(pool: Pool, slice: ResourceSlice, device: Device, index: number): Candidate {
  return {
    id: deviceIds(slice)[index] ?? deviceId(pool.driver, pool.pool, device.name),
    driver: pool.driver,
    pool: pool.pool,
    device,
    slice,
    index,
  };
}

/** createNodeSelector: the node of node-local devices, or the requirements of their selectors */
function nodeSelectorFor(devices: readonly DeviceResult[]): NodeSelector | undefined {
  const fields: NodeSelectorRequirement[] = [];
  const exprs: NodeSelectorRequirement[] = [];
  for (const d of devices) {
    const spec = d.c.slice.spec;
    if (spec.nodeName)
      return {
        nodeSelectorTerms: [
          { matchFields: [{ key: 'metadata.name', operator: 'In', values: [spec.nodeName] }] },
        ],
      };
    const terms = spec.nodeSelector?.nodeSelectorTerms ?? [];
    if (terms.length > 1)
      throw new AllocationError(`unsupported ResourceSlice.NodeSelector with ${terms.length} terms`);
    if (terms.length === 1) {
      addRequirements(terms[0]!.matchFields ?? [], fields);
      addRequirements(terms[0]!.matchExpressions ?? [], exprs);
    }
  }
  if (fields.length === 0 && exprs.length === 0) return undefined;
  return {
    nodeSelectorTerms: [
      {
        ...(fields.length ? { matchFields: fields } : {}),
        ...(exprs.length ? { matchExpressions: exprs } : {}),
      },
    ],
  };
}

function addRequirements(from: readonly NodeSelectorRequirement[], to: NodeSelectorRequirement[]): void {
  for (const r of from)
    if (
      !to.some((x) => x.key === r.key && x.operator === r.operator && sameSet(x.values ?? [], r.values ?? []))
    )
      to.push(r);
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
};
