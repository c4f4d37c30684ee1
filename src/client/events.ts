/**
 * An event recorder (client-go's record.EventRecorder, simplified): writes core/v1 Events through
 * the ApiServer. Repeats of the same (object, reason, message) within 10 minutes bump `count` on
 * the existing Event instead of creating a new one, like the EventCorrelator's aggregation; like
 * the correlator's caches, a recorder remembers the last 4,096 distinct events only (so a run of
 * 150,000 pods does not keep an Event per pod for ten minutes).
 * Writes are fire-and-forget: a failed event write never fails the caller (as upstream).
 */
import { rfc3339 } from '../api/time.js';
import type { Event, KubeObject } from '../api/types.js';
import type { Clock } from '../util/clock.js';
import type { ApiClient } from './api.js';

export interface EventRecorder {
  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

const DEDUP_WINDOW_MS = 10 * 60_000;

/**
 * client-go tools/record/events_cache.go maxLruCacheEntries: the correlator remembers this many
 * recent events per recorder, least recently seen dropped first
 */
const MAX_REMEMBERED = 4096;

export class ApiEventRecorder implements EventRecorder {
  private seq = 0;
  /** the remembered events, least recently seen first (an LRU of {@link MAX_REMEMBERED}) */
  private readonly recent = new Map<string, { ev: Event; at: number; pending: boolean }>();

  constructor(
    private readonly api: ApiClient,
    private readonly clock: Clock,
    readonly component: string,
    readonly host?: string,
  ) {}

  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const now = this.clock.now();
    const ns = obj.metadata.namespace ?? 'default';
    const dk = `${obj.kind}/${ns}/${obj.metadata.name}/${reason}/${message}`;
    const prev = this.recent.get(dk);
    const ts = rfc3339(now);
    if (prev && !prev.pending && now - prev.at < DEDUP_WINDOW_MS) {
      const ev: Event = {
        ...prev.ev,
        count: (prev.ev.count ?? 1) + 1,
        lastTimestamp: ts,
        metadata: { ...prev.ev.metadata, resourceVersion: undefined },
      };
      prev.at = now;
      prev.ev = ev;
      // most recently seen: to the end of the LRU
      this.recent.delete(dk);
      this.recent.set(dk, prev);
      this.api.update('events', ev).then(
        (e) => {
          prev.ev = e as Event;
        },
        () => {},
      );
      return;
    }
    const ev: Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: `${obj.metadata.name}.${(now * 1000 + (this.seq++ % 1000)).toString(16)}`,
        namespace: ns,
      },
      involvedObject: {
        kind: obj.kind,
        namespace: obj.metadata.namespace,
        name: obj.metadata.name,
        uid: obj.metadata.uid,
        apiVersion: obj.apiVersion,
      },
      reason,
      message,
      type,
      source: { component: this.component, host: this.host },
      firstTimestamp: ts,
      lastTimestamp: ts,
      count: 1,
      reportingComponent: this.component,
    };
    const entry = { ev, at: now, pending: true };
    this.recent.delete(dk);
    this.recent.set(dk, entry);
    if (this.recent.size > MAX_REMEMBERED) this.recent.delete(this.recent.keys().next().value as string);
    this.api.create('events', ev).then(
      (e) => {
        entry.ev = e as Event;
        entry.pending = false;
      },
      () => {
        this.recent.delete(dk);
      },
    );
  }
}

/** Discards events (for components run without event recording). */
export const NO_EVENTS: EventRecorder = { event() {} };
