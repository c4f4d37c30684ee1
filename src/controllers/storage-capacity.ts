/**
 * The storage capacity a CSI driver reports, as the PV controller's provisioning sees it (the
 * external-provisioner's part: its capacity controller publishes one CSIStorageCapacity per storage
 * class and topology segment from the driver's GetCapacity, and refreshes it after each volume it
 * creates or deletes). Only drivers whose CSIDriver says `storageCapacity: true` are tracked, as in
 * the scheduler's VolumeBinding.
 *
 * Simplified (docs/controllers.md): the refresh is immediate and exact — creating a volume takes its
 * size from the capacity object that admitted it, deleting it gives the size back — and a driver
 * with no capacity left refuses the volume (CreateVolume's ResourceExhausted).
 */
import { capacityAfter, capacityFor } from '../api/storage.js';
import { parseQuantity, type Quantity } from '../api/quantity.js';
import type { CSIDriver, CSIStorageCapacity, StorageClass } from '../api/storage-types.js';
import type { Labels } from '../api/types.js';
import { keyOf } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import type { ControllerDeps } from './replicaset.js';

export class StorageCapacity {
  private readonly drivers: Informer<CSIDriver>;
  private readonly capacities: Informer<CSIStorageCapacity>;
  /** volume name → the capacity object (namespace/name) its size was taken from, and the size */
  private readonly takenBy = new Map<string, { key: string; size: Quantity }>();

  constructor(private readonly deps: ControllerDeps) {
    this.drivers = deps.informers.for<CSIDriver>('csidrivers');
    this.capacities = deps.informers.for<CSIStorageCapacity>('csistoragecapacities');
  }

  onChange(fn: () => void): void {
    this.capacities.addEventHandler({ onAdd: fn, onUpdate: fn });
  }

  /** the class's provisioner is a CSI driver that publishes its capacity */
  tracked(sc: StorageClass): boolean {
    return this.drivers.get(undefined, sc.provisioner)?.spec?.storageCapacity === true;
  }

  /**
   * Takes `request` for volume `pv` from a capacity object of the class that reaches the node
   * (any segment when no node was selected). False when none holds it: the driver refuses.
   */
  async take(pv: string, sc: StorageClass, request: string, node: Labels | undefined): Promise<boolean> {
    if (this.takenBy.has(pv)) return true; // taken by an earlier attempt at the same volume
    const size = parseQuantity(request);
    const c = capacityFor(this.capacities.list(), sc.metadata.name ?? '', size, node);
    if (!c) return false;
    await this.adjust(c, size.neg());
    this.takenBy.set(pv, { key: keyOf(c), size });
    return true;
  }

  /** gives a deleted volume's size back to the capacity object it was taken from */
  async giveBack(pv: string): Promise<void> {
    const t = this.takenBy.get(pv);
    if (!t) return;
    const c = this.capacities.getByKey(t.key);
    if (c) await this.adjust(c, t.size);
    this.takenBy.delete(pv);
  }

  private async adjust(c: CSIStorageCapacity, delta: Quantity): Promise<void> {
    const next = capacityAfter(c, delta);
    if (next) await this.deps.api.update('csistoragecapacities', next);
  }
}
