/**
 * resource.k8s.io objects of the beta versions real clusters served before v1 (v1beta1, v1beta2)
 * brought to the v1 shape, and v1's defaults (upstream: pkg/apis/resource/v1beta1/conversion.go,
 * v1/defaults.go SetDefaults_ExactDeviceRequest, SetDefaults_DeviceSubRequest).
 *
 * v1beta2 has v1's shape. v1beta1 differs in two places:
 *   - a DeviceRequest holds the exact request's fields itself (deviceClassName, selectors,
 *     allocationMode, count, adminAccess, tolerations), where v1 nests them under `exactly`;
 *   - a Device keeps its fields under `basic`, where v1 has them on the device.
 *
 * kubesim stores such objects as v1, as upstream stores them at its storage version;
 * {@link resourceObjectFromV1} converts back when one is read through a beta version
 * (`kubesim serve --runtime-config`: docs/server.md).
 */
import { RESOURCE_API_VERSION, RESOURCE_GROUP, RESOURCE_KINDS } from './resource-types.js';

type Obj = Record<string, any>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** v1beta1 DeviceRequest fields that v1 keeps under `exactly` */
const EXACT_FIELDS = [
  'deviceClassName',
  'selectors',
  'allocationMode',
  'count',
  'adminAccess',
  'tolerations',
];

function requestToV1(r: Obj): void {
  if (!isObj(r) || r.exactly !== undefined) return;
  const hasFirst = Array.isArray(r.firstAvailable) && r.firstAvailable.length > 0;
  const exactly: Obj = {};
  let any = false;
  for (const f of EXACT_FIELDS) {
    if (r[f] === undefined) continue;
    exactly[f] = r[f];
    delete r[f];
    any = true;
  }
  if (!hasFirst || any) r.exactly = exactly;
}

function claimSpecToV1(spec: unknown): void {
  if (!isObj(spec) || !isObj(spec.devices) || !Array.isArray(spec.devices.requests)) return;
  for (const r of spec.devices.requests) requestToV1(r);
}

function sliceToV1(spec: unknown): void {
  if (!isObj(spec) || !Array.isArray(spec.devices)) return;
  for (const d of spec.devices) {
    if (!isObj(d) || !isObj(d.basic)) continue;
    const { basic, ...rest } = d;
    for (const k of Object.keys(d)) delete d[k];
    Object.assign(d, rest, basic);
  }
}

/** v1 SetDefaults for one exact request or subrequest */
function defaultRequest(r: unknown): void {
  if (!isObj(r)) return;
  if (r.allocationMode === undefined || r.allocationMode === '') r.allocationMode = 'ExactCount';
  if (r.allocationMode === 'ExactCount' && (r.count === undefined || r.count === 0)) r.count = 1;
}

function defaultClaimSpec(spec: unknown): void {
  if (!isObj(spec) || !isObj(spec.devices) || !Array.isArray(spec.devices.requests)) return;
  for (const r of spec.devices.requests) {
    if (!isObj(r)) continue;
    defaultRequest(r.exactly);
    if (Array.isArray(r.firstAvailable)) for (const s of r.firstAvailable) defaultRequest(s);
  }
}

/**
 * In place: a resource.k8s.io object of any served version in v1's shape with v1's defaults.
 * Other objects are left alone.
 */
export function resourceObjectToV1(obj: Obj): void {
  if (!RESOURCE_KINDS.has(obj.kind) || typeof obj.apiVersion !== 'string') return;
  const [group, version] = obj.apiVersion.split('/');
  if (group !== RESOURCE_GROUP) return;
  if (version === 'v1beta1') {
    if (obj.kind === 'ResourceClaim') claimSpecToV1(obj.spec);
    else if (obj.kind === 'ResourceClaimTemplate') claimSpecToV1(obj.spec?.spec);
    else if (obj.kind === 'ResourceSlice') sliceToV1(obj.spec);
  }
  if (version === 'v1beta1' || version === 'v1beta2') obj.apiVersion = RESOURCE_API_VERSION;
  if (obj.kind === 'ResourceClaim') defaultClaimSpec(obj.spec);
  else if (obj.kind === 'ResourceClaimTemplate') defaultClaimSpec(obj.spec?.spec);
}

function requestFromV1(r: unknown): void {
  if (!isObj(r) || !isObj(r.exactly)) return;
  const { exactly } = r;
  delete r.exactly;
  for (const f of EXACT_FIELDS) if (exactly[f] !== undefined) r[f] = exactly[f];
}

function claimSpecFromV1(spec: unknown): void {
  if (!isObj(spec) || !isObj(spec.devices) || !Array.isArray(spec.devices.requests)) return;
  for (const r of spec.devices.requests) requestFromV1(r);
}

function sliceFromV1(spec: unknown): void {
  if (!isObj(spec) || !Array.isArray(spec.devices)) return;
  spec.devices = spec.devices.map((d: unknown) => {
    if (!isObj(d)) return d;
    const { name, ...basic } = d;
    return Object.keys(basic).length > 0 ? { name, basic } : { name };
  });
}

/**
 * A stored (v1) resource.k8s.io object as `version` (v1beta1 or v1beta2) shows it: the reverse
 * of {@link resourceObjectToV1} (upstream: pkg/apis/resource/v1beta1/conversion.go, the
 * Convert_v1_* direction). Returns a copy; the stored object is not touched.
 */
export function resourceObjectFromV1(stored: Obj, version: string): Obj {
  const obj = structuredClone(stored);
  obj.apiVersion = `${RESOURCE_GROUP}/${version}`;
  if (version !== 'v1beta1') return obj;
  if (obj.kind === 'ResourceClaim') claimSpecFromV1(obj.spec);
  else if (obj.kind === 'ResourceClaimTemplate') claimSpecFromV1(obj.spec?.spec);
  else if (obj.kind === 'ResourceSlice') sliceFromV1(obj.spec);
  return obj;
}
