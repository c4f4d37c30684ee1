/**
 * The scheduling framework's Status value (kube-scheduler pkg/scheduler/framework, `Status`):
 * expected outcomes such as "this node does not fit" are values, not exceptions.
 *
 * `null` stands for Success everywhere a Status is returned, so the common case allocates nothing.
 * Plugins return shared constant Status objects for their constant reasons (formatting a message
 * per node would dominate a simulation of thousands of nodes).
 */
import { KernelLoadError } from '../../util/wasm.js';

/** Status codes, in upstream's order and with upstream's names. */
export enum Code {
  Success = 0,
  Error = 1,
  Unschedulable = 2,
  UnschedulableAndUnresolvable = 3,
  Wait = 4,
  Skip = 5,
  Pending = 6,
}

export const CODE_NAMES: readonly string[] = [
  'Success',
  'Error',
  'Unschedulable',
  'UnschedulableAndUnresolvable',
  'Wait',
  'Skip',
  'Pending',
];

export class Status {
  /** name of the plugin that produced this status (set by the framework) */
  plugin: string;

  constructor(
    readonly code: Code,
    readonly reasons: readonly string[] = [],
    plugin = '',
  ) {
    this.plugin = plugin;
  }

  /** upstream's Status.Message(): reasons joined by ", " */
  message(): string {
    return this.reasons.join(', ');
  }

  isSuccess(): boolean {
    return this.code === Code.Success;
  }

  /** Unschedulable, UnschedulableAndUnresolvable or Pending (upstream IsRejected) */
  isRejected(): boolean {
    return (
      this.code === Code.Unschedulable ||
      this.code === Code.UnschedulableAndUnresolvable ||
      this.code === Code.Pending
    );
  }

  isSkip(): boolean {
    return this.code === Code.Skip;
  }

  /** a copy attributed to `plugin` (constant statuses are shared, so never mutate them) */
  withPlugin(plugin: string): Status {
    return this.plugin === plugin ? this : new Status(this.code, this.reasons, plugin);
  }

  toJSON(): { code: string; reasons: readonly string[]; plugin?: string } {
    return {
      code: CODE_NAMES[this.code],
      reasons: this.reasons,
      ...(this.plugin ? { plugin: this.plugin } : {}),
    };
  }
}

/** A status that may be null (= Success). */
export type MaybeStatus = Status | null;

/**
 * A plugin's exception as an Error status. A kernel that cannot be loaded is rethrown: it is a broken
 * installation, and as a status it would become an answer ("0 nodes fit") instead of an error.
 */
export function errorStatus(err: unknown): Status {
  if (err instanceof KernelLoadError) throw err;
  return new Status(Code.Error, [err instanceof Error ? err.message : String(err)]);
}

export const SKIP = new Status(Code.Skip);
