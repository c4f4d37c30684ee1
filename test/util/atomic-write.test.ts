import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/util/atomic-write.js';

describe('writeFileAtomic', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubesim-atomic-'));

  it('writes a new file and replaces an existing one, leaving no temporary file', () => {
    const f = join(dir, 'report.json');
    writeFileAtomic(f, '{"a":1}\n');
    expect(readFileSync(f, 'utf8')).toBe('{"a":1}\n');
    writeFileSync(f, 'old contents that are longer than the new ones');
    writeFileAtomic(f, new TextEncoder().encode('new'));
    expect(readFileSync(f, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['report.json']);
  });

  it('fails like writeFileSync and leaves neither target nor temporary file', () => {
    expect(() => writeFileAtomic(join(dir, 'missing', 'x.json'), 'x')).toThrow(/ENOENT/);
    const target = join(dir, 'is-a-dir');
    mkdirSync(join(target, 'inside'), { recursive: true });
    expect(() => writeFileAtomic(target, 'x')).toThrow();
    expect(existsSync(join(target, 'inside'))).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
