/**
 * Seeded fuzzing: fixture objects with fields replaced by values of the wrong type must never
 * crash validation or the ApiServer — every outcome is a result or an ApiError.
 */
import { describe, expect, it } from 'vitest';
import { ApiServer } from '../../src/api/apiserver.js';
import { ApiError } from '../../src/api/errors.js';
import { checkObject } from '../../src/api/manifest-check.js';
import {
  ManifestError,
  loadManifests,
  parseManifests,
  prepareForCreate,
  type LoadedObject,
} from '../../src/api/manifest.js';
import { readdirSync, readFileSync } from 'node:fs';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';
import { Rng } from '../../src/util/rng.js';

const WEIRD: unknown[] = [null, 0, -1, 1.5, 'x', '', true, [], {}, [1, 'a'], { a: 1 }, '1.5x', 70000];

/** Every path (as key arrays) to a value inside obj. */
function paths(
  obj: unknown,
  prefix: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  if (obj && typeof obj === 'object') {
    for (const [k, v] of Object.entries(obj)) {
      const p = [...prefix, Array.isArray(obj) ? Number(k) : k];
      out.push(p);
      paths(v, p, out);
    }
  }
  return out;
}

function setAt(obj: any, path: (string | number)[], value: unknown): void {
  let cur = obj;
  for (let i = 0; i < path.length - 1; i++) cur = cur[path[i]!];
  cur[path[path.length - 1]!] = value;
}

describe('robustness', () => {
  it('truncated and corrupted manifest text: a result or a ManifestError, never another exception', () => {
    const dir = 'test/fixtures/manifests';
    const texts = readdirSync(dir)
      .filter((f) => /\.(ya?ml|json)$/.test(f))
      .map((f) => [f, readFileSync(`${dir}/${f}`, 'utf8')] as const);
    const rng = new Rng(99);
    const junk = [
      '{',
      '}',
      '[',
      ']',
      ':',
      '- ',
      '\n',
      '  ',
      '"',
      "'",
      '&a',
      '*a',
      '<<: *b',
      '!!binary',
      '---\n',
      '\t',
      ',',
      '#',
      '|',
      '>',
      '%YAML 1.2\n',
    ];
    let errors = 0;
    for (let i = 0; i < 1500; i++) {
      const [name, text] = texts[rng.int(texts.length)]!;
      let t = text.slice(0, rng.int(text.length + 1));
      for (let k = 0; k < rng.int(4); k++) {
        const at = rng.int(t.length + 1);
        t = t.slice(0, at) + junk[rng.int(junk.length)] + t.slice(at);
      }
      try {
        const objs = parseManifests(t, name, { fieldPositions: rng.int(2) === 0 });
        for (const o of objs) o.lineOf('spec.containers[0].image');
      } catch (e) {
        if (!(e instanceof ManifestError))
          throw new Error(`non-ManifestError for ${JSON.stringify(t.slice(0, 200))}: ${(e as Error).stack}`);
        expect(e.message.startsWith(`${name}`)).toBe(true);
        errors++;
      }
    }
    expect(errors).toBeGreaterThan(100);
  });

  it('type-confused updates and status updates of stored objects only fail with ApiErrors', async () => {
    const fixtures = await loadManifests(['test/fixtures/manifests']);
    const rng = new Rng(7);
    const clock = new ManualClock();
    const api = new ApiServer(new MemoryStore({ clock }), { clock });
    const stored: any[] = [];
    for (const f of fixtures) {
      try {
        stored.push(await api.create(prepareForCreate(f.object)));
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
      }
    }
    expect(stored.length).toBeGreaterThan(10);
    for (let i = 0; i < 1500; i++) {
      const cur = stored[rng.int(stored.length)];
      const obj = structuredClone(cur);
      const ps = paths(obj).filter((p) => !['kind', 'apiVersion', 'metadata'].includes(String(p[0])));
      if (ps.length) {
        try {
          setAt(obj, ps[rng.int(ps.length)]!, structuredClone(WEIRD[rng.int(WEIRD.length)]));
        } catch {
          /* ignore */
        }
      }
      delete obj.metadata.resourceVersion;
      try {
        await (rng.int(2) ? api.update(obj) : api.updateStatus(obj));
      } catch (e) {
        if (!(e instanceof ApiError)) throw new Error(`non-ApiError: ${(e as Error).stack}`);
        expect(e.code, `${e.message} for ${JSON.stringify(obj).slice(0, 400)}`).not.toBe(500);
      }
    }
  });

  it('6000 seeded type-confused objects: validation and create never throw anything but ApiError', async () => {
    const fixtures = await loadManifests(['test/fixtures/manifests']);
    const rng = new Rng(2026);
    const clock = new ManualClock();
    const api = new ApiServer(new MemoryStore({ clock }), { clock, fieldValidation: 'Strict' });
    let rejected = 0;
    let accepted = 0;
    for (let i = 0; i < 6000; i++) {
      const base = fixtures[rng.int(fixtures.length)]!;
      const obj = structuredClone(base.object) as any;
      const ps = paths(obj).filter((p) => p[0] !== 'kind' && p[0] !== 'apiVersion');
      for (let m = 0; m < 1 + rng.int(3); m++) {
        const p = ps[rng.int(ps.length)]!;
        try {
          setAt(obj, p, structuredClone(WEIRD[rng.int(WEIRD.length)]));
        } catch {
          /* the parent became a primitive in an earlier mutation */
        }
      }
      const loaded: LoadedObject = { ...base, object: obj, lineOf: () => base.source.line };
      const report = checkObject(loaded);
      expect(report.errors.every((e) => e.startsWith(`${base.source.file}:`))).toBe(true);
      try {
        obj.metadata = typeof obj.metadata === 'object' && obj.metadata ? obj.metadata : obj.metadata;
        await api.create(prepareForCreate(obj));
        accepted++;
      } catch (e) {
        if (!(e instanceof ApiError))
          throw new Error(`non-ApiError for ${JSON.stringify(obj).slice(0, 300)}: ${(e as Error).stack}`);
        expect(e.code).toBeGreaterThanOrEqual(400);
        expect(e.code).not.toBe(500);
        rejected++;
      }
    }
    expect(rejected).toBeGreaterThan(300);
    expect(accepted).toBeGreaterThan(0);
  });
});
