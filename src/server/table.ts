/**
 * metav1.Table responses (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`): the rows
 * `kubectl get` prints, computed by the server as kube-apiserver does (upstream:
 * staging/src/k8s.io/apiserver/pkg/registry/rest/table.go for the default convertor,
 * pkg/printers/internalversion/printers.go for the built-in kinds, see printers.ts). Rows always
 * carry every column; kubectl shows priority-1 columns only with `-o wide`.
 */
import type { KubeObject } from '../api/types.js';
import { rfc3339 } from '../api/time.js';
import { printerFor, type Column, type Printer } from './printers.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  /** virtual now (ms) for Age columns */
  now: number;
  includeObject: IncludeObject;
  /** meta.k8s.io version the client asked for (`v1` or `v1beta1`) */
  version: string;
  /** omit columnDefinitions (watch events after the first) */
  noHeaders?: boolean;
  /** the columns of a custom kind (crd-table.ts), instead of the built-in printer's */
  printer?: Printer;
  /**
   * the stored object as the requested version shows it, for the rows' `object` (an HPA asked
   * at autoscaling/v1, a custom resource at another served version); the cells are printed from
   * the stored object, as upstream's printers print the internal version whatever was asked
   */
  served?: (o: KubeObject) => unknown;
}

/** The default convertor's columns for kinds without a printer (rest.NewDefaultTableConvertor). */
const DEFAULT_COLUMNS: Column[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.' },
  {
    name: 'Created At',
    type: 'date',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created.',
  },
];

function rowObject(obj: KubeObject, opts: TableOptions): object | undefined {
  const { includeObject: include, version } = opts;
  if (include === 'None') return undefined;
  if (include === 'Object') return (opts.served?.(obj) ?? obj) as object;
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

export function toTable(
  kind: string,
  objects: KubeObject[],
  listMeta: { resourceVersion?: string; continue?: string; remainingItemCount?: number },
  opts: TableOptions,
): object {
  const printer = opts.printer ?? printerFor(kind);
  const columns = printer?.columns ?? DEFAULT_COLUMNS;
  const rows = objects.map((o) => {
    const cells = printer
      ? printer.row(o as never, opts.now)
      : [o.metadata.name ?? '', o.metadata.creationTimestamp ?? rfc3339(opts.now)];
    const object = rowObject(o, opts);
    return object ? { cells, object } : { cells };
  });
  const table: Record<string, unknown> = {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${opts.version}`,
    metadata: listMeta,
  };
  if (!opts.noHeaders)
    table.columnDefinitions = columns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    }));
  table.rows = rows;
  return table;
}
