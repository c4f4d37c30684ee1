/**
 * Controller expectations (pkg/controller/controller_utils.go ControllerExpectations /
 * UIDTrackingControllerExpectations): after a ReplicaSet controller asks for N creations it must
 * not act on that ReplicaSet again until its informer has seen those N pods (or 5 minutes have
 * passed), otherwise a stale cache would make it create the same pods twice. Deletions are tracked
 * by pod key so that a pod seen terminating and then deleted is counted once.
 *
 * Over time for rs "a": expectCreations(a, 3) → satisfied(a) false; creationObserved(a) ×3 →
 * satisfied(a) true.
 */
import type { Clock } from '../util/clock.js';

/** ExpectationsTimeout: 5 minutes */
export const EXPECTATIONS_TTL_MS = 5 * 60_000;

interface Expectation {
  add: number;
  del: Set<string>;
  at: number;
}

export class Expectations {
  private readonly m = new Map<string, Expectation>();
  constructor(private readonly clock: Clock) {}

  /** true when the controller may sync `key`: nothing expected, all observed, or expired */
  satisfied(key: string): boolean {
    const e = this.m.get(key);
    if (!e) return true;
    if (e.add <= 0 && e.del.size === 0) return true;
    return this.clock.now() - e.at > EXPECTATIONS_TTL_MS;
  }

  expectCreations(key: string, n: number): void {
    this.m.set(key, { add: n, del: new Set(), at: this.clock.now() });
  }

  expectDeletions(key: string, podKeys: string[]): void {
    this.m.set(key, { add: 0, del: new Set(podKeys), at: this.clock.now() });
  }

  /** SetExpectations: creations and deletions at once (a DaemonSet sync does both) */
  expect(key: string, creations: number, deletionKeys: string[]): void {
    this.m.set(key, { add: creations, del: new Set(deletionKeys), at: this.clock.now() });
  }

  creationObserved(key: string): void {
    const e = this.m.get(key);
    if (e) e.add--;
  }

  /** lower the creation expectation without an observation (a create that failed or was skipped) */
  lowerCreations(key: string, n: number): void {
    const e = this.m.get(key);
    if (e) e.add -= n;
  }

  deletionObserved(key: string, podKey: string): void {
    this.m.get(key)?.del.delete(podKey);
  }

  delete(key: string): void {
    this.m.delete(key);
  }
}
