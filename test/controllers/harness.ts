/** A controller test bed: FakeApi + ManualClock + informer factory + a kubelet stand-in that readies pods. */
import type { Deployment, Pod } from '../../src/api/types.js';
import { InformerFactory } from '../../src/client/factory.js';
import { NO_EVENTS } from '../../src/client/events.js';
import { ManualClock } from '../../src/util/clock.js';
import { Rng } from '../../src/util/rng.js';
import { FakeApi, settle } from '../client/fake-api.js';

export function bed() {
  const api = new FakeApi();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const informers = new InformerFactory(api, clock);
  const deps = { api, clock, informers, recorder: NO_EVENTS, rng: new Rng(7), workers: 5 };
  return { api, clock, informers, deps };
}

/** mark every pod Running+Ready (a perfect kubelet); returns how many changed */
export async function readyAll(
  api: FakeApi,
  now: number,
  filter: (p: Pod) => boolean = () => true,
): Promise<number> {
  const pods = (await api.list<Pod>('pods')).items;
  let n = 0;
  for (const p of pods) {
    if (!filter(p) || p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) continue;
    p.status = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(now).toISOString() }],
    };
    await api.updateStatus('pods', p);
    n++;
  }
  return n;
}

export async function settleN(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await settle();
}

export function deployment(
  name: string,
  replicas: number,
  image: string,
  strategy?: Deployment['spec']['strategy'],
): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      strategy,
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } },
    },
  };
}
