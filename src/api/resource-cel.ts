/**
 * DRA's CEL environment for device selectors (upstream: k8s.io/dynamic-resource-allocation/cel
 * compile.go, with the Kubernetes CEL libraries k8s.io/apiserver/pkg/cel/library quantity.go and
 * semverlib.go), over a maintained CEL evaluator (@marcbachmann/cel-js, pinned in package.json).
 *
 * The expression sees one variable, `device`:
 *   device.driver                               string
 *   device.attributes["<domain>"].<id>          int, bool, string or semver
 *   device.capacity["<domain>"].<id>            quantity
 * An attribute or capacity name without a domain gets the device's driver as domain
 * (`model` of driver gpu.example.com is `device.attributes["gpu.example.com"].model`). Looking up a
 * domain the device does not have gives an empty map, a missing name inside a domain is a runtime
 * error ("no such key"), as upstream. Libraries: quantity (`quantity()`, `isQuantity()`, `sign`,
 * `isInteger`, `asInteger`, `asApproximateFloat`, `add`, `sub`, `isLessThan`, `isGreaterThan`,
 * `compareTo`), semver (`semver()`, `isSemver()`, `major`, `minor`, `patch`, `isLessThan`,
 * `isGreaterThan`, `compareTo`), `cel.bind`.
 *
 * Not modelled: CEL cost estimation and the runtime cost limit (an expression is never rejected as
 * too expensive); the default empty map for a domain applies to domains written as string
 * literals (`device.attributes["x"]`), which is how selectors are written; a computed domain that
 * the device lacks is a "no such key" error. Error texts are the evaluator's, not cel-go's.
 */
import { Environment } from '@marcbachmann/cel-js';
import { parseQuantity, Quantity, QuantityParseError } from './quantity.js';
import type { Device } from './resource-types.js';

/** A quantity value inside CEL (apiserver cel.Quantity). */
export class CelQuantity {
  constructor(readonly q: Quantity) {}
}

/** A semantic version inside CEL (apiserver cel.Semver, blang/semver's strict parse). */
export class CelSemver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly string[],
  ) {}
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** a semver 2.0.0 string, or undefined when it is not one */
export function parseSemver(s: string): CelSemver | undefined {
  const m = SEMVER.exec(s);
  if (!m) return undefined;
  return new CelSemver(BigInt(m[1]!), BigInt(m[2]!), BigInt(m[3]!), m[4] ? m[4].split('.') : []);
}

/** semver precedence (semver.org §11) */
export function compareSemver(a: CelSemver, b: CelSemver): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  if (a.pre.length === 0 || b.pre.length === 0)
    return b.pre.length - a.pre.length === 0 ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!,
      y = b.pre[i]!;
    if (x === y) continue;
    const xn = /^\d+$/.test(x),
      yn = /^\d+$/.test(y);
    if (xn && yn) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.pre.length - b.pre.length);
}

const sign = (n: number): bigint => BigInt(Math.sign(n));

function quantityOf(s: string): CelQuantity {
  try {
    return new CelQuantity(parseQuantity(s));
  } catch (e) {
    if (e instanceof QuantityParseError) throw new Error(`quantity: ${e.message}`);
    throw e;
  }
}

function semverOf(s: string): CelSemver {
  const v = parseSemver(s);
  if (!v) throw new Error(`could not parse semver: ${s}`);
  return v;
}

function buildEnvironment(): Environment {
  return (
    withQuantityAndSemver(new Environment())
      // upstream's kubernetes.DRADevice object type: a non-bool expression fails type checking
      .registerType('DRADevice', {
        fields: {
          driver: 'string',
          attributes: 'map<string, map<string, dyn>>',
          capacity: 'map<string, map<string, Quantity>>',
        },
      })
      .registerVariable('device', 'DRADevice')
  );
}

/**
 * The Kubernetes CEL libraries quantity and semver (k8s.io/apiserver/pkg/cel/library quantity.go,
 * semverlib.go) registered on `env`; CRD validation rules (api/crd-cel.ts) use them too.
 */
export function withQuantityAndSemver(base: Environment): Environment {
  const env = base
    .registerType('Quantity', CelQuantity)
    .registerType('Semver', CelSemver)
    // library.Quantity
    .registerFunction('quantity(string): Quantity', quantityOf)
    .registerFunction('isQuantity(string): bool', (s: string) => {
      try {
        parseQuantity(s);
        return true;
      } catch {
        return false;
      }
    })
    .registerFunction('Quantity.sign(): int', (a: CelQuantity) => BigInt(a.q.sign()))
    .registerFunction('Quantity.isInteger(): bool', (a: CelQuantity) => a.q.exponent >= 0)
    .registerFunction('Quantity.asInteger(): int', (a: CelQuantity) => {
      if (a.q.exponent < 0) throw new Error('cannot convert value to integer');
      return a.q.value();
    })
    .registerFunction(
      'Quantity.asApproximateFloat(): double',
      (a: CelQuantity) => Number(a.q.unscaled) * 10 ** a.q.exponent,
    )
    .registerFunction(
      'Quantity.add(Quantity): Quantity',
      (a: CelQuantity, b: CelQuantity) => new CelQuantity(a.q.add(b.q)),
    )
    .registerFunction(
      'Quantity.add(int): Quantity',
      (a: CelQuantity, b: bigint) => new CelQuantity(a.q.add(new Quantity(b, 0, a.q.format))),
    )
    .registerFunction(
      'Quantity.sub(Quantity): Quantity',
      (a: CelQuantity, b: CelQuantity) => new CelQuantity(a.q.sub(b.q)),
    )
    .registerFunction(
      'Quantity.sub(int): Quantity',
      (a: CelQuantity, b: bigint) => new CelQuantity(a.q.sub(new Quantity(b, 0, a.q.format))),
    )
    .registerFunction(
      'Quantity.isLessThan(Quantity): bool',
      (a: CelQuantity, b: CelQuantity) => a.q.cmp(b.q) < 0,
    )
    .registerFunction(
      'Quantity.isGreaterThan(Quantity): bool',
      (a: CelQuantity, b: CelQuantity) => a.q.cmp(b.q) > 0,
    )
    .registerFunction('Quantity.compareTo(Quantity): int', (a: CelQuantity, b: CelQuantity) =>
      BigInt(a.q.cmp(b.q)),
    )
    // library.SemverLib
    .registerFunction('semver(string): Semver', semverOf)
    .registerFunction('isSemver(string): bool', (s: string) => parseSemver(s) !== undefined)
    .registerFunction('Semver.major(): int', (a: CelSemver) => a.major)
    .registerFunction('Semver.minor(): int', (a: CelSemver) => a.minor)
    .registerFunction('Semver.patch(): int', (a: CelSemver) => a.patch)
    .registerFunction(
      'Semver.isLessThan(Semver): bool',
      (a: CelSemver, b: CelSemver) => compareSemver(a, b) < 0,
    )
    .registerFunction(
      'Semver.isGreaterThan(Semver): bool',
      (a: CelSemver, b: CelSemver) => compareSemver(a, b) > 0,
    )
    .registerFunction('Semver.compareTo(Semver): int', (a: CelSemver, b: CelSemver) =>
      sign(compareSemver(a, b)),
    );
  return env;
}

let environment: Environment | undefined;
const env = (): Environment => (environment ??= buildEnvironment());

/** A compiled selector (upstream cel.CompilationResult): evaluate with {@link deviceMatches}. */
export interface CompiledSelector {
  expression: string;
  /** the compile error text (upstream CompilationResult.Error), if any */
  error?: string;
  program?: (ctx: Record<string, unknown>) => unknown;
  /** the domains written as literals after device.attributes / device.capacity */
  attributeDomains: string[];
  capacityDomains: string[];
}

const LITERAL_DOMAIN = /device\s*\.\s*(attributes|capacity)\s*\[\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*\]/g;

/** upstream GetCompiler().CompileCELExpression, cached by expression (upstream cel.Cache) */
export function compileSelector(expression: string): CompiledSelector {
  let c = cache.get(expression);
  if (c) return c;
  c = compileUncached(expression);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(expression, c);
  return c;
}

/** compiled expressions kept (CEL is pure: one compile serves every device and pod) */
const CACHE_SIZE = 1024;
const cache = new Map<string, CompiledSelector>();

function compileUncached(expression: string): CompiledSelector {
  const out: CompiledSelector = { expression, attributeDomains: [], capacityDomains: [] };
  let program: ReturnType<Environment['parse']>;
  try {
    program = env().parse(expression);
    const t = program.check();
    if (!t.valid) {
      out.error = `compilation failed: ${firstLine(t.error?.message ?? 'type check failed')}`;
      return out;
    }
    if (t.type !== 'bool' && t.type !== 'dyn') {
      out.error = 'must evaluate to bool';
      return out;
    }
  } catch (e) {
    out.error = `compilation failed: ${firstLine((e as Error).message)}`;
    return out;
  }
  out.program = program;
  for (const m of expression.matchAll(LITERAL_DOMAIN)) {
    const d = m[2] ?? m[3] ?? '';
    (m[1] === 'attributes' ? out.attributeDomains : out.capacityDomains).push(d);
  }
  return out;
}

const firstLine = (s: string): string => s.split('\n')[0]!.trim();

/** the CEL value of one attribute (upstream getAttributeValue) */
function attributeValue(
  a: Device['attributes'] extends Record<string, infer V> | undefined ? V : never,
): unknown {
  if (a.int !== undefined) return BigInt(a.int);
  if (a.bool !== undefined) return a.bool;
  if (a.string !== undefined) return a.string;
  if (a.version !== undefined) {
    const v = parseSemver(a.version);
    if (!v) throw new Error(`parse semantic version: ${a.version}`);
    return v;
  }
  throw new Error('unsupported attribute value');
}

/** `domain/id` → [domain, id]; a name without domain gets the driver (upstream parseQualifiedName) */
export function splitQualifiedName(name: string, driver: string): [string, string] {
  const i = name.indexOf('/');
  return i < 0 ? [driver, name] : [name.slice(0, i), name.slice(i + 1)];
}

/** The `device` variable for one device (built once per device and reused by every selector). */
export function deviceVariable(driver: string, device: Device): Record<string, unknown> {
  const attributes: Record<string, Record<string, unknown>> = {};
  for (const [name, attr] of Object.entries(device.attributes ?? {})) {
    const [d, id] = splitQualifiedName(name, driver);
    (attributes[d] ??= {})[id] = attributeValue(attr);
  }
  const capacity: Record<string, Record<string, unknown>> = {};
  for (const [name, cap] of Object.entries(device.capacity ?? {})) {
    const [d, id] = splitQualifiedName(name, driver);
    (capacity[d] ??= {})[id] = new CelQuantity(parseQuantity(cap.value));
  }
  return { driver, attributes, capacity };
}

/**
 * upstream CompilationResult.DeviceMatches: the selector's verdict on one device.
 * @throws Error with the runtime error's text (the allocator reports it as a CEL runtime error)
 */
export function deviceMatches(sel: CompiledSelector, dev: Record<string, unknown>): boolean {
  // literal domains the device lacks read as empty maps (upstream's mapper with a default), on a
  // copy so that `"x" in device.attributes` stays false for the next selector
  const attributes = withDomains(dev.attributes as Record<string, unknown>, sel.attributeDomains);
  const capacity = withDomains(dev.capacity as Record<string, unknown>, sel.capacityDomains);
  const device =
    attributes === dev.attributes && capacity === dev.capacity ? dev : { ...dev, attributes, capacity };
  let r: unknown;
  try {
    r = sel.program!({ device });
  } catch (e) {
    throw new Error(firstLine((e as Error).message));
  }
  if (typeof r !== 'boolean')
    throw new Error(`CEL result of type ${typeof r} could not be converted to bool`);
  return r;
}

function withDomains(m: Record<string, unknown>, domains: readonly string[]): Record<string, unknown> {
  let out = m;
  for (const d of domains) {
    if (Object.hasOwn(out, d)) continue;
    if (out === m) out = { ...m };
    out[d] = {};
  }
  return out;
}
