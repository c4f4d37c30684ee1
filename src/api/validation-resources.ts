/**
 * ResourceList validation (upstream: pkg/apis/core/validation ValidateResourceQuantityValue,
 * validateContainerResourceName): resource names, non-negative quantities, integers for
 * extended resources and hugepages in containers.
 */
import { type FieldError, invalidValue } from './field.js';
import { tryParseQuantity, type Quantity } from './quantity.js';
import { isObj, typeError } from './validation-common.js';
import { isQualifiedName } from './validation-names.js';

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

function isIntegerResource(name: string): boolean {
  return (
    name.startsWith('hugepages-') ||
    (!STANDARD_CONTAINER_RESOURCES.has(name) && !name.startsWith('requests.') && name.includes('/'))
  );
}

/** Parse a quantity field, pushing upstream's error; returns undefined when invalid. */
function quantityAt(path: string, v: unknown, out: FieldError[]): Quantity | undefined {
  const q = tryParseQuantity(v);
  if (typeof q === 'string') {
    out.push(invalidValue(path, v, q));
    return undefined;
  }
  return q;
}

/** A ResourceList (capacity, allocatable, requests, limits, overhead): names and non-negative quantities. */
export function validateResourceList(
  list: unknown,
  path: string,
  out: FieldError[],
  forContainer: boolean,
): Map<string, Quantity> {
  const parsed = new Map<string, Quantity>();
  if (list === undefined || list === null) return parsed;
  if (!isObj(list)) {
    out.push(typeError(path, list, 'a map of resource names to quantities'));
    return parsed;
  }
  for (const [name, v] of Object.entries(list)) {
    const p = `${path}[${name}]`;
    for (const msg of isQualifiedName(name)) out.push(invalidValue(p, name, msg));
    // upstream validateContainerResourceName: a name without a domain is a standard one
    if (
      forContainer &&
      !name.includes('/') &&
      !STANDARD_CONTAINER_RESOURCES.has(name) &&
      !name.startsWith('hugepages-')
    )
      out.push(invalidValue(p, name, 'must be a standard resource for containers'));
    const q = quantityAt(p, v, out);
    if (!q) continue;
    if (q.sign() < 0) {
      out.push(invalidValue(p, q.toString(), 'must be greater than or equal to 0'));
      continue;
    }
    // upstream validateResourceQuantityValue: IsIntegerResourceName (pods and extended resources
    // wherever a ResourceList is validated; hugepages too in a container)
    const integer = forContainer
      ? isIntegerResource(name)
      : name === 'pods' || (isIntegerResource(name) && !name.startsWith('hugepages-'));
    if (integer && q.milliValue() % 1000n !== 0n) {
      out.push(invalidValue(p, q.toString(), 'must be an integer'));
    }
    parsed.set(name, q);
  }
  return parsed;
}
