/**
 * storage.k8s.io kinds (upstream: pkg/apis/storage/validation/validation.go, v1.34).
 *
 * CSIStorageCapacity (ValidateCSIStorageCapacity): nodeTopology is a valid label selector,
 * storageClassName a DNS subdomain (ValidateClassName), capacity not negative. Its name is a DNS
 * subdomain (ValidateStorageCapacityName), checked with the other metadata.
 */
import { type FieldError, invalidValue } from './field.js';
import { tryParseQuantity } from './quantity.js';
import type { KindRules, Obj } from './validation-common.js';
import { isDNS1123Subdomain } from './validation-names.js';
import { validateLabelSelector } from './validation-selector.js';

function validateCSIStorageCapacity(o: Obj, out: FieldError[]): void {
  validateLabelSelector(o.nodeTopology, 'nodeTopology', out);
  const cls = typeof o.storageClassName === 'string' ? o.storageClassName : '';
  for (const msg of isDNS1123Subdomain(cls)) out.push(invalidValue('storageClassName', cls, msg));
  for (const f of ['capacity', 'maximumVolumeSize']) {
    if (o[f] === undefined || o[f] === null) continue;
    // a quantity that does not parse is refused while decoding upstream
    const q = tryParseQuantity(o[f]);
    if (typeof q === 'string') out.push(invalidValue(f, o[f], q));
    else if (f === 'capacity' && q.sign() < 0)
      out.push(invalidValue(f, q.toString(), 'must be greater than or equal to 0'));
  }
}

export const csiStorageCapacityRules: KindRules = { validate: validateCSIStorageCapacity };
