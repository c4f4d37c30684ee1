/**
 * Services and EndpointSlices (upstream: pkg/apis/core/validation ValidateService,
 * ValidateServiceUpdate; pkg/apis/discovery/validation ValidateEndpointSlice).
 */
import { ipv4ToInt } from './allocators.js';
import {
  type FieldError,
  duplicate,
  forbiddenField,
  invalidValue,
  notSupported,
  required,
  tooMany,
} from './field.js';
import {
  type KindRules,
  isObj,
  type Obj,
  PROTOCOLS,
  typeError,
  validateNameWith,
} from './validation-common.js';
import { validateLabels } from './validation-meta.js';
import { isDNS1123Label, isDNS1123Subdomain, isValidPortName, isValidPortNum } from './validation-names.js';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

function validateService(o: Obj, out: FieldError[]): void {
  const s = o.spec;
  if (!isObj(s)) {
    out.push(required('spec'));
    return;
  }
  const type = s.type ?? 'ClusterIP';
  if (!SERVICE_TYPES.includes(type)) out.push(notSupported('spec.type', type, SERVICE_TYPES));
  const headless = s.clusterIP === 'None';
  if (type === 'ExternalName') {
    if (!s.externalName) out.push(required('spec.externalName'));
    else
      for (const msg of isDNS1123Subdomain(String(s.externalName).replace(/\.$/, '')))
        out.push(invalidValue('spec.externalName', s.externalName, msg));
  }
  if (s.ports === undefined || (Array.isArray(s.ports) && s.ports.length === 0)) {
    if (!headless && type !== 'ExternalName') out.push(required('spec.ports'));
  } else if (!Array.isArray(s.ports)) out.push(typeError('spec.ports', s.ports, 'a list'));
  else {
    const requireName = s.ports.length > 1;
    const names = new Set<string>();
    const seen = new Set<string>();
    s.ports.forEach((p: Obj, i: number) => {
      const pp = `spec.ports[${i}]`;
      if (!isObj(p)) return;
      if (p.name !== undefined && p.name !== null && typeof p.name !== 'string')
        out.push(typeError(`${pp}.name`, p.name, 'a string'));
      else if (requireName && !p.name) out.push(required(`${pp}.name`));
      else if (p.name) {
        validateNameWith(isDNS1123Label, `${pp}.name`, String(p.name), out);
        if (names.has(p.name)) out.push(duplicate(`${pp}.name`, p.name));
        names.add(p.name);
      }
      for (const msg of isValidPortNum(p.port)) out.push(invalidValue(`${pp}.port`, p.port, msg));
      const proto = p.protocol ?? 'TCP';
      if (!PROTOCOLS.includes(proto)) out.push(notSupported(`${pp}.protocol`, proto, PROTOCOLS));
      const tp = p.targetPort;
      if (typeof tp === 'number') {
        for (const msg of isValidPortNum(tp)) out.push(invalidValue(`${pp}.targetPort`, tp, msg));
      } else if (typeof tp === 'string' && tp !== '') {
        for (const msg of isValidPortName(tp)) out.push(invalidValue(`${pp}.targetPort`, tp, msg));
      }
      if (p.nodePort !== undefined && p.nodePort !== 0) {
        if (type !== 'NodePort' && type !== 'LoadBalancer') {
          out.push(forbiddenField(`${pp}.nodePort`, `may not be used when \`type\` is '${type}'`));
        } else
          for (const msg of isValidPortNum(p.nodePort))
            out.push(invalidValue(`${pp}.nodePort`, p.nodePort, msg));
      }
      const id = `${p.port}/${proto}`;
      if (seen.has(id)) out.push(duplicate(pp, `${p.port}/${proto}`));
      seen.add(id);
    });
  }
  validateLabels(s.selector, 'spec.selector', out);
  if (s.sessionAffinity !== undefined && !['ClientIP', 'None'].includes(s.sessionAffinity)) {
    out.push(notSupported('spec.sessionAffinity', s.sessionAffinity, ['ClientIP', 'None']));
  }
  if (s.externalTrafficPolicy !== undefined) {
    if (type !== 'NodePort' && type !== 'LoadBalancer') {
      out.push(
        invalidValue(
          'spec.externalTrafficPolicy',
          s.externalTrafficPolicy,
          "may only be set when `type` is 'NodePort' or 'LoadBalancer'",
        ),
      );
    } else if (!['Cluster', 'Local'].includes(s.externalTrafficPolicy)) {
      out.push(notSupported('spec.externalTrafficPolicy', s.externalTrafficPolicy, ['Cluster', 'Local']));
    }
  }
  if (
    s.internalTrafficPolicy !== undefined &&
    !['Cluster', 'Local'].includes(s.internalTrafficPolicy) &&
    type !== 'ExternalName'
  ) {
    out.push(notSupported('spec.internalTrafficPolicy', s.internalTrafficPolicy, ['Cluster', 'Local']));
  }
  if (
    typeof s.clusterIP === 'string' &&
    s.clusterIP !== '' &&
    s.clusterIP !== 'None' &&
    ipv4ToInt(s.clusterIP) === undefined &&
    !s.clusterIP.includes(':')
  ) {
    out.push(
      invalidValue(
        'spec.clusterIPs[0]',
        s.clusterIP,
        'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      ),
    );
  }
}

function validateEndpointSlice(o: Obj, out: FieldError[]): void {
  const types = ['FQDN', 'IPv4', 'IPv6'];
  if (!o.addressType) out.push(required('addressType'));
  else if (!types.includes(o.addressType)) out.push(notSupported('addressType', o.addressType, types));
  if (o.endpoints !== undefined && o.endpoints !== null && !Array.isArray(o.endpoints))
    out.push(typeError('endpoints', o.endpoints, 'a list'));
  if (Array.isArray(o.endpoints)) {
    if (o.endpoints.length > 1000) out.push(tooMany('endpoints', o.endpoints.length, 1000));
    o.endpoints.forEach((e: Obj, i: number) => {
      const p = `endpoints[${i}]`;
      if (!isObj(e)) return;
      if (!Array.isArray(e.addresses) || e.addresses.length === 0)
        out.push(required(`${p}.addresses`, 'must contain at least 1 address'));
      else {
        if (e.addresses.length > 100) out.push(tooMany(`${p}.addresses`, e.addresses.length, 100));
        e.addresses.forEach((a: unknown, j: number) => {
          const ap = `${p}.addresses[${j}]`;
          if (o.addressType === 'IPv4' && (typeof a !== 'string' || ipv4ToInt(a) === undefined)) {
            out.push(invalidValue(ap, a, 'must be a valid IPv4 address'));
          } else if (o.addressType === 'IPv6' && (typeof a !== 'string' || !a.includes(':'))) {
            out.push(invalidValue(ap, a, 'must be a valid IPv6 address'));
          } else if (o.addressType === 'FQDN' && typeof a === 'string') {
            for (const msg of isDNS1123Subdomain(a)) out.push(invalidValue(ap, a, msg));
          }
        });
      }
      if (e.nodeName) validateNameWith(isDNS1123Subdomain, `${p}.nodeName`, String(e.nodeName), out);
      if (e.hostname) validateNameWith(isDNS1123Label, `${p}.hostname`, String(e.hostname), out);
    });
  }
  if (o.ports !== undefined && o.ports !== null) {
    if (!Array.isArray(o.ports)) out.push(typeError('ports', o.ports, 'a list'));
    else {
      if (o.ports.length > 20000) out.push(tooMany('ports', o.ports.length, 20000));
      const names = new Set<string>();
      o.ports.forEach((pt: Obj, i: number) => {
        const p = `ports[${i}]`;
        if (!isObj(pt)) return;
        const name = pt.name ?? '';
        if (typeof name !== 'string') out.push(typeError(`${p}.name`, name, 'a string'));
        else if (name !== '') validateNameWith(isDNS1123Label, `${p}.name`, String(name), out);
        if (names.has(name)) out.push(duplicate(`${p}.name`, name));
        names.add(name);
        if (pt.port !== undefined && pt.port !== null)
          for (const msg of isValidPortNum(pt.port)) out.push(invalidValue(`${p}.port`, pt.port, msg));
        if (pt.protocol !== undefined && !PROTOCOLS.includes(pt.protocol))
          out.push(notSupported(`${p}.protocol`, pt.protocol, PROTOCOLS));
      });
    }
  }
}

/** Service rules; an allocated ClusterIP may not change (ValidateServiceUpdate). */
export const serviceRules: KindRules = {
  validate: validateService,
  validateUpdate(n, o, out) {
    if (
      o.spec?.clusterIP &&
      n.spec?.clusterIP !== o.spec.clusterIP &&
      o.spec.type !== 'ExternalName' &&
      n.spec?.type !== 'ExternalName'
    ) {
      out.push(
        invalidValue(
          'spec.clusterIPs[0]',
          n.spec?.clusterIPs ?? [n.spec?.clusterIP ?? ''],
          'may not change once set',
        ),
      );
    }
  },
};

/** EndpointSlice rules; addressType is immutable. */
export const endpointSliceRules: KindRules = {
  validate: validateEndpointSlice,
  validateUpdate(n, o, out) {
    if (n.addressType !== o.addressType)
      out.push(invalidValue('addressType', n.addressType, 'field is immutable'));
  },
};
