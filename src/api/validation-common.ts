/**
 * What every kind family's validation shares: the rule-set shape a family exports, type checks
 * worded like upstream's decoding errors, and enum lists several families use.
 */
import { type FieldError, invalidValue } from './field.js';
import type { ResourceInfo } from './registry.js';

export type Obj = Record<string, any>;

/** One kind's rules: strategy.Validate on create and update, ValidateXUpdate on update only. */
export interface KindRules {
  validate?(o: Obj, out: FieldError[], info: ResourceInfo): void;
  validateUpdate?(next: Obj, old: Obj, out: FieldError[]): void;
}

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export function typeError(path: string, v: unknown, want: string): FieldError {
  return invalidValue(path, v, `must be ${want}`);
}

export function validateNameWith(
  fn: (s: string) => string[],
  path: string,
  name: string,
  out: FieldError[],
): void {
  for (const msg of fn(name)) out.push(invalidValue(path, name, msg));
}

export const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
export const TAINT_EFFECTS = ['NoExecute', 'NoSchedule', 'PreferNoSchedule'];
