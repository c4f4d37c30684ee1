// validate, plan and simulate read their inputs through the one validating loader
// (api/manifest-check.ts): a CustomResourceDefinition in the input applies its version's
// structural schema and x-kubernetes-validations rules to the custom resources of the same input
// (api/crd-schema.ts, crd-cel.ts), as kube-apiserver would on create — with the file:line of
// each failure. Fixture: test/fixtures/crd-input/widgets.yaml (a CRD, one valid Widget, one
// breaking a CEL rule, one with schema errors and an undeclared field).
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  InvalidObjectsError,
  loadValidManifests,
  parseValidManifests,
} from '../../src/api/manifest-check.js';
import { builtCli, cli } from '../server/serve-process.js';

const FILE = 'test/fixtures/crd-input/widgets.yaml';
const ERRORS = [
  `${FILE}:36: Widget "big": spec: Invalid value: "object": size must not exceed max`,
  `${FILE}:39: Widget "bad": <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
  `${FILE}:43: Widget "bad": spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`,
  `${FILE}:44: Widget "bad": spec.color: Unsupported value: "pink": supported values: "red", "blue"`,
  `${FILE}:45: Widget "bad": spec.colour: unknown field`,
];

describe('CRD schemas and rules applied to custom resources of the same input', () => {
  it.skipIf(!builtCli)('kubesim validate reports every schema and rule failure at its line, exit 1', () => {
    const r = spawnSync(process.execPath, [cli, 'validate', FILE], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/widgets\.yaml:28\s+Widget\s+default\/ok\s+OK/);
    for (const e of ERRORS) expect(r.stdout).toContain(e);
    expect(r.stdout).toContain('4 objects: 2 valid, 2 invalid');
  });

  it('plan and simulate refuse the input the same way (loadValidManifests, parseValidManifests)', async () => {
    const loaded = await loadValidManifests([FILE]).catch((e) => e);
    expect(loaded).toBeInstanceOf(InvalidObjectsError);
    expect((loaded as InvalidObjectsError).errors).toEqual(ERRORS);
    const parsed = (() => {
      try {
        return parseValidManifests(readFileSync(FILE, 'utf8'), FILE);
      } catch (e) {
        return e;
      }
    })();
    expect((parsed as InvalidObjectsError).errors).toEqual(ERRORS);
    // only the CRD and the valid Widget: accepted, as given (the schema's default is not written back)
    const valid = readFileSync(FILE, 'utf8').split('\n---\n').slice(0, 2).join('\n---\n');
    const objs = parseValidManifests(valid, FILE);
    expect(objs.map((o) => o.object.kind)).toEqual(['CustomResourceDefinition', 'Widget']);
    expect((objs[1]!.object as any).spec).toEqual({ size: 3 });
  });
});
