/**
 * How the scenario parser reads what a scenario holds or names: counts and YAML within LIMITS, and
 * manifests through the one validating loader, every failure a ScenarioError naming where. Shared
 * by scenario.ts and scenario-timeline.ts.
 */
import { InvalidObjectsError, parseValidManifests } from '../api/manifest-check.js';
import { ManifestError, parseYamlDocuments } from '../api/manifest-read.js';
import type { KubeObject } from '../api/types.js';
import { checkCount, LIMITS, LimitError } from '../util/limits.js';
import { ScenarioError } from '../util/scenario-input.js';

/** `fn()`, with a {@link LimitError} or {@link ManifestError} turned into a ScenarioError. */
export function bounded<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof LimitError || e instanceof ManifestError) throw new ScenarioError(e.message);
    throw e;
  }
}

/** A count within [min, max] (LIMITS), as a ScenarioError otherwise. */
export const count = (where: string, v: unknown, max: number, min = 0): number =>
  bounded(() => checkCount(where, v, max, min));

/** YAML documents of a scenario or of a file it names: nesting and aliases bounded. */
export function yamlValues(text: string, where: string): unknown[] {
  const docs = bounded(() => parseYamlDocuments(text, where));
  return docs.map((d, i) => {
    if (d.errors.length)
      throw new ScenarioError(`${where}: document ${i + 1}: ${d.errors[0]!.message.split('\n')[0]}`);
    try {
      return d.toJS({ maxAliasCount: LIMITS.aliases }) as unknown;
    } catch (e) {
      throw new ScenarioError(`${where}: document ${i + 1}: ${(e as Error).message}`);
    }
  });
}

/**
 * The objects of a manifest text a scenario names, read through the one validating loader every
 * command uses (api/manifest-check.ts: multi-document YAML/JSON, Lists flattened, every object
 * checked as the apiserver checks it on create): an invalid object is an error naming `where`
 * (the file, or the scenario field of an inline manifest), line, object and field.
 */
export function scenarioObjects(text: string, where: string, forCreate = true): KubeObject[] {
  return bounded(() => {
    try {
      const objs = parseValidManifests(text, where);
      // what the apiserver's create refuses before validation (rest.BeforeCreate)
      const rv = forCreate ? objs.find((o) => o.object.metadata?.resourceVersion) : undefined;
      if (rv)
        throw new ScenarioError(
          `${where}:${rv.lineOf('metadata.resourceVersion')}: ${rv.object.kind} "${rv.object.metadata.name}": metadata.resourceVersion: resourceVersion should not be set on objects to be created (a snapshot goes in cluster.snapshot)`,
        );
      return objs.map((o) => o.object);
    } catch (e) {
      if (e instanceof InvalidObjectsError) throw new ScenarioError(e.message);
      throw e;
    }
  });
}

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
