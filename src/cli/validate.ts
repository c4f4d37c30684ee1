/**
 * `kubesim validate <files|dirs…>`: load manifests like `kubectl apply -f` and validate every
 * object as the apiserver would on create. Thin over src/api/manifest.ts + manifest-check.ts.
 */
import type { Command } from 'commander';
import { CliError, UsageError } from './errors.js';
import { addOutputOptions, emit, isStructured, type OutputFlags, structured } from './output.js';
import { table } from '../report/table.js';
import { checkManifests } from '../api/manifest-check.js';
import { DEFAULT_MAX_FILE_BYTES, ManifestError, loadManifests } from '../api/manifest.js';
import { parseQuantity } from '../api/quantity.js';

function parseSize(v: string): number {
  try {
    const n = Number(parseQuantity(v).value());
    if (!Number.isSafeInteger(n) || n <= 0) throw new Error('not positive');
    return n;
  } catch {
    throw new UsageError(`invalid --max-file-size "${v}" (expected a quantity such as 64Mi)`);
  }
}

export function register(program: Command): void {
  const cmd = program
    .command('validate')
    .description(
      'validate Kubernetes manifests (YAML/JSON, multi-document, List) as the apiserver would on create',
    )
    .argument('<paths...>', 'files, directories (.yaml/.yml/.json) or - for stdin')
    .option('-R, --recursive', 'walk directories recursively', false)
    .option(
      '--unknown-fields <policy>',
      'Strict (errors, like kubectl --validate=strict), Warn, or Ignore',
      'Strict',
    )
    .option(
      '--max-file-size <quantity>',
      'refuse files larger than this',
      `${DEFAULT_MAX_FILE_BYTES / 1048576}Mi`,
    );
  addOutputOptions(cmd)
    .addHelpText(
      'after',
      `
Each object is checked with the apiserver's rules for its kind (names, labels, quantities,
container names and ports, Service ports/nodePorts, selectors matching templates, unknown
fields, …). Errors name the file, line, object and field:

  pods.yaml:14: Pod "web-0": spec.containers[0].resources.requests[cpu]: Invalid value: "1.5x": quantities must match …

Examples:
  kubesim validate deploy/                      # every .yaml/.yml/.json in deploy/
  kubectl get pods -A -o yaml | kubesim validate -
  kubesim validate snapshot.json -o json

Any invalid object (or an unreadable or malformed file) makes the exit status 1.`,
    )
    .action(
      async (
        paths: string[],
        opts: OutputFlags & { recursive: boolean; unknownFields: string; maxFileSize: string },
      ) => {
        const format = opts.output;
        const policy = opts.unknownFields;
        if (!['Strict', 'Warn', 'Ignore'].includes(policy))
          throw new UsageError(`invalid --unknown-fields "${policy}" (expected Strict, Warn or Ignore)`);
        let loaded;
        try {
          loaded = await loadManifests(paths, {
            recursive: opts.recursive,
            maxFileBytes: parseSize(opts.maxFileSize),
            fieldPositions: true,
          });
        } catch (e) {
          if (e instanceof ManifestError) throw new CliError(e.message);
          throw e;
        }
        const reports = checkManifests(loaded, { unknownFields: policy as 'Strict' | 'Warn' | 'Ignore' });
        const failed = reports.filter((r) => !r.ok).length;
        if (isStructured(format)) {
          emit(
            opts,
            structured(format, { objects: reports, valid: reports.length - failed, invalid: failed }),
          );
        } else {
          const rows = reports.map((r) => [
            `${r.source.file}:${r.source.line}`,
            r.apiVersion || '<none>',
            r.kind || '<none>',
            r.namespace ? `${r.namespace}/${r.name}` : r.name,
            r.ok
              ? r.warnings.length
                ? `OK (${r.warnings.length} warning${r.warnings.length > 1 ? 's' : ''})`
                : 'OK'
              : `${r.errors.length} error${r.errors.length > 1 ? 's' : ''}`,
          ]);
          const details = reports.flatMap((r) => [...r.errors, ...r.warnings.map((w) => `warning: ${w}`)]);
          emit(
            opts,
            table(['SOURCE', { header: 'API VERSION', wide: true }, 'KIND', 'NAME', 'RESULT'], rows, {
              wide: format === 'wide',
            }) +
              (details.length ? `\n${details.join('\n')}\n` : '') +
              `\n${reports.length} object${reports.length === 1 ? '' : 's'}: ${reports.length - failed} valid, ${failed} invalid\n`,
          );
        }
        if (failed > 0) process.exitCode = 1;
      },
    );
}
