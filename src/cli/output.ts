/** Output helpers shared by commands (text tables live in src/report/table.ts). */

export type OutputFormat = 'table' | 'json';

export function parseOutputFormat(value: string, allowed: readonly string[] = ['table', 'json']): string {
  if (!allowed.includes(value))
    throw new Error(`unknown output format "${value}" (expected ${allowed.join(', ')})`);
  return value;
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}
