import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../src/cli/validate.js';
import { CliError } from '../../src/cli/errors.js';

async function run(args: string[]): Promise<{ out: string; code: number | undefined }> {
  const program = new Command('kubesim').exitOverride();
  register(program);
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s: any) => {
    out += String(s);
    return true;
  });
  process.exitCode = undefined;
  try {
    await program.parseAsync(['node', 'kubesim', 'validate', ...args]);
  } finally {
    spy.mockRestore();
  }
  const code = process.exitCode as number | undefined;
  process.exitCode = undefined;
  return { out, code };
}

afterEach(() => {
  process.exitCode = undefined;
});

describe('kubesim validate', () => {
  it('prints a table and exits 0 for valid manifests', async () => {
    const { out, code } = await run(['test/fixtures/manifests']);
    expect(code).toBeUndefined();
    expect(out).toContain('SOURCE');
    expect(out).toMatch(/test\/fixtures\/manifests\/node\.yaml:1\s+Node\s+worker-1\s+OK/);
    expect(out).toMatch(/pods\.yaml:118\s+Pod\s+shop\/batch-0\s+OK/);
    expect(out).toContain('16 objects: 16 valid, 0 invalid');
  });

  it('reports errors with file:line, object and field, exit 1', async () => {
    const { out, code } = await run(['test/fixtures/manifests/invalid/bad-pod.yaml']);
    expect(code).toBe(1);
    expect(out).toContain(
      `test/fixtures/manifests/invalid/bad-pod.yaml:13: Pod "web-0": spec.containers[0].resources.requests[cpu]: Invalid value: "1.5x": quantities must match the regular expression`,
    );
    expect(out).toContain('bad-pod.yaml:21: Pod "web-0": spec.containers[1].foo: unknown field');
    expect(out).toContain(
      'bad-pod.yaml:41: Widget "w": no matches for kind "Widget" in version "example.com/v1"',
    );
    expect(out).toContain('4 objects: 0 valid, 4 invalid');
  });

  it('json output and Warn policy', async () => {
    const { out, code } = await run([
      'test/fixtures/manifests/invalid/bad-pod.yaml',
      '-o',
      'json',
      '--unknown-fields',
      'Warn',
    ]);
    expect(code).toBe(1);
    const doc = JSON.parse(out);
    expect(doc.invalid).toBe(4);
    expect(doc.objects[0].warnings).toEqual([
      'test/fixtures/manifests/invalid/bad-pod.yaml:21: Pod "web-0": spec.containers[1].foo: unknown field',
    ]);
    expect(doc.objects[0].errors).toHaveLength(4);
  });

  it('malformed files are one-line CLI errors', async () => {
    await expect(run(['test/fixtures/manifests/invalid/malformed.yaml'])).rejects.toThrow(CliError);
    await expect(run(['test/fixtures/manifests/invalid/malformed.yaml'])).rejects.toThrow(
      /malformed\.yaml:8:\d+: error parsing YAML/,
    );
    await expect(run(['test/fixtures/manifests', '--max-file-size', '1Ki'])).rejects.toThrow(
      /file is .* larger than the 1\.0 KiB limit/,
    );
  });
});
