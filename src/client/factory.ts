/**
 * One informer per resource shared by every component of a process (client-go's
 * SharedInformerFactory): a controller-manager's Deployment, ReplicaSet and EndpointSlice
 * controllers all read the same pod cache and the ApiServer serves one watch per resource.
 */
import type { KubeObject } from '../api/types.js';
import type { Clock } from '../util/clock.js';
import type { ApiClient } from './api.js';
import { Informer } from './informer.js';

export class InformerFactory {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  constructor(
    readonly api: ApiClient,
    readonly clock: Clock,
  ) {}

  /** the shared informer for `resource` (created on first use, started by {@link start}) */
  for<T extends KubeObject>(resource: string): Informer<T> {
    let inf = this.informers.get(resource);
    if (!inf) {
      inf = new Informer<KubeObject>(this.api, resource, { clock: this.clock });
      this.informers.set(resource, inf);
    }
    return inf as unknown as Informer<T>;
  }

  /** start every informer not yet started and wait until all have synced */
  async start(): Promise<void> {
    await Promise.all([...this.informers.values()].filter((i) => !i.hasSynced).map((i) => i.start()));
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
  }

  /** total relists across informers (410s survived) */
  get relists(): number {
    let n = 0;
    for (const i of this.informers.values()) n += i.relists;
    return n;
  }
}
