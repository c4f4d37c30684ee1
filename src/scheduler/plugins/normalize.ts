/** NormalizeScore for user plugins: none, or scaling by the maximum (reversed or not) to 0..100. */
import type { Pod } from '../../api/types.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { NodeInfo } from '../framework/snapshot.js';
import type { MaybeStatus } from '../framework/status.js';
import { MAX_NODE_SCORE } from '../framework/types.js';
import { defaultNormalizeScore } from './node-local.js';

export type Normalization = 'none' | 'default' | 'reverse';

const KINDS: readonly unknown[] = [undefined, 'none', 'default', 'reverse'];

/** `v` as a Normalization, or an Error saying what is allowed. */
export function normalization(v: unknown): Normalization | undefined {
  if (!KINDS.includes(v))
    throw new Error(`normalize must be "none", "default" or "reverse", got ${JSON.stringify(v)}`);
  return v as Normalization | undefined;
}

export function normalizer(kind: Normalization | undefined) {
  return (_s: CycleState, _p: Pod, _n: readonly NodeInfo[], scores: number[]): MaybeStatus => {
    if (kind === 'default' || kind === 'reverse')
      defaultNormalizeScore(MAX_NODE_SCORE, kind === 'reverse', scores);
    return null;
  };
}
