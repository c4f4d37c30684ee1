/**
 * Table columns of a custom kind from its CRD version's `additionalPrinterColumns` (upstream:
 * apiextensions-apiserver/pkg/registry/customresource/tableconvertor): Name first, then each
 * column's JSONPath evaluated on the object; without columns, an Age column on
 * `.metadata.creationTimestamp`. JSONPath: dotted fields, `[n]` indexes and `[?(@.f=="v")]`
 * filters, which is what CRDs' printer columns use; a path that finds nothing prints as empty.
 */
import type { Cell, Column, Printer } from './printers.js';

// biome-ignore lint/suspicious/noExplicitAny: custom resources are arbitrary JSON
type Obj = any;

const NAME: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
};
const AGE = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** Evaluate the JSONPath subset printer columns use; undefined when nothing matches. */
export function jsonPath(obj: unknown, path: string): unknown {
  const steps = path.replace(/^\{|\}$/g, '').match(/\.[^.[]+|\[\?\(@\.[^)]+\)\]|\[\d+\]/g) ?? [];
  let cur: unknown[] = [obj];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const c of cur) {
      if (c === null || typeof c !== 'object') continue;
      if (step.startsWith('.')) next.push((c as Obj)[step.slice(1)]);
      else if (step.startsWith('[?')) {
        const m = /^\[\?\(@\.([\w.]+)\s*==\s*["']?([^"']*)["']?\)\]$/.exec(step);
        if (m && Array.isArray(c)) next.push(...c.filter((x) => String(jsonPath(x, `.${m[1]}`)) === m[2]));
      } else if (Array.isArray(c)) next.push(c[Number(step.slice(1, -1))]);
    }
    cur = next.filter((x) => x !== undefined);
  }
  return cur[0];
}

/** The table printer of a custom kind at one version. */
export function crdPrinter(version: Obj): Printer {
  const defs: Obj[] =
    Array.isArray(version?.additionalPrinterColumns) && version.additionalPrinterColumns.length
      ? version.additionalPrinterColumns
      : [AGE];
  const columns: Column[] = [
    NAME,
    ...defs.map((c) => ({
      name: String(c.name),
      type: c.type ?? 'string',
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
  ];
  return {
    columns,
    row: (obj: Obj) => [
      obj.metadata?.name ?? '',
      ...defs.map((c): Cell => {
        const v = jsonPath(obj, String(c.jsonPath ?? ''));
        if (v === undefined || v === null) return null as unknown as Cell;
        return (typeof v === 'object' ? JSON.stringify(v) : v) as Cell;
      }),
    ],
  };
}
