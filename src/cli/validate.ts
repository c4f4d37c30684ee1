/**
 * `kubesim validate <files|dirs…>`: load manifests like `kubectl apply -f` and validate every
 * object as the apiserver would on create. Thin over src/api/manifest.ts + manifest-check.ts.
 */
import type { Command } from 'commander';
import { CliError } from './errors.js';
import { json, parseOutputFormat } from './output.js';
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
    throw new CliError(`invalid --max-file-size "${v}" (expected a quantity such as 64Mi)`);
  }
}

export function register(program: Command): void {
  program
    .command('validate')
    .description(
      'validate Kubernetes manifests (YAML/JSON, multi-document, List) as the apiserver would on create',
    )
    .argument('<paths...>', 'files, directories (.yaml/.yml/.json) or - for stdin')
    .option('-o, --output <format>', 'table or json', 'table')
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
    )
    .addHelpText(
      'after',
      `
Each object is checked with the apiserver's rules for its kind (names, labels, quantities,
container names and ports, Service ports/nodePorts, selectors matching templates, unknown
fields, …). Errors name the file, line, object and field:

  pods.yaml:14: Pod "web-0": spec.containers[0].resources.requests[cpu]: Invalid value: "1.5x": quantities must match …

Exit status: 0 when every object is valid, 1 otherwise (also for unreadable or malformed files).

Examples:
  kubesim validate deploy/                      # every .yaml/.yml/.json in deploy/
  kubectl get pods -A -o yaml | kubesim validate -
  kubesim validate snapshot.json -o json`,
    )
    .action(
      async (
        paths: string[],
        opts: { output: string; recursive: boolean; unknownFields: string; maxFileSize: string },
      ) => {
        const format = parseOutputFormat(opts.output);
        const policy = opts.unknownFields;
        if (!['Strict', 'Warn', 'Ignore'].includes(policy))
          throw new CliError(`invalid --unknown-fields "${policy}" (expected Strict, Warn or Ignore)`);
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
        if (format === 'json') {
          process.stdout.write(json({ objects: reports, valid: reports.length - failed, invalid: failed }));
        } else {
          const rows = reports.map((r) => [
            `${r.source.file}:${r.source.line}`,
            r.kind || '<none>',
            r.namespace ? `${r.namespace}/${r.name}` : r.name,
            r.ok
              ? r.warnings.length
                ? `OK (${r.warnings.length} warning${r.warnings.length > 1 ? 's' : ''})`
                : 'OK'
              : `${r.errors.length} error${r.errors.length > 1 ? 's' : ''}`,
          ]);
          process.stdout.write(table(['SOURCE', 'KIND', 'NAME', 'RESULT'], rows));
          const details = reports.flatMap((r) => [...r.errors, ...r.warnings.map((w) => `warning: ${w}`)]);
          if (details.length) process.stdout.write('\n' + details.join('\n') + '\n');
          process.stdout.write(
            `\n${reports.length} object${reports.length === 1 ? '' : 's'}: ${reports.length - failed} valid, ${failed} invalid\n`,
          );
        }
        if (failed > 0) process.exitCode = 1;
      },
    );
}
