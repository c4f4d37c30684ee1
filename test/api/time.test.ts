// metav1.Time and metav1.MicroTime as the apiserver writes them (src/api/time.ts), and the
// components that stamp times through them.
import { describe, expect, it } from 'vitest';
import { rfc3339, rfc3339Micro } from '../../src/api/time.js';
import type { Event } from '../../src/api/types.js';
import { ApiEventRecorder } from '../../src/client/events.js';
import { ManualClock } from '../../src/util/clock.js';
import { FakeApi, settle } from '../client/fake-api.js';

describe('timestamps (metav1.Time, metav1.MicroTime)', () => {
  it('Time drops the fraction; MicroTime keeps six digits', () => {
    expect(rfc3339(Date.UTC(2023, 10, 14, 22, 13, 20, 999))).toBe('2023-11-14T22:13:20Z');
    expect(rfc3339(0)).toBe('1970-01-01T00:00:00Z');
    expect(rfc3339Micro(Date.UTC(2023, 10, 14, 22, 13, 20, 123))).toBe('2023-11-14T22:13:20.123000Z');
  });

  it('events carry second-precision first/lastTimestamp', async () => {
    const api = new FakeApi();
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 1, 500));
    const rec = new ApiEventRecorder(api, clock, 'test');
    rec.event(
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' } },
      'Normal',
      'Pulled',
      'image pulled',
    );
    await settle();
    const ev = (await api.list<Event>('events')).items[0]!;
    expect(ev.firstTimestamp).toBe('2026-01-01T00:00:01Z');
    expect(ev.lastTimestamp).toBe('2026-01-01T00:00:01Z');
  });
});
