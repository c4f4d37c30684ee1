/**
 * Optional dependencies: packages only some uses of kubesim need (etcd3 to talk to a real etcd,
 * @kubernetes/client-node to read a live cluster). They are `optionalDependencies` in package.json
 * and loaded on first use, so a user who never touches them neither installs nor loads them, and
 * one who does without having them installed gets one sentence instead of a module-resolution stack
 * trace. A module missing *inside* an installed optional package (a broken install) is not this
 * case and keeps Node's own error.
 */
import { createRequire } from 'node:module';

/** The optional package `name`, which `feature` needs, is not installed. */
export class MissingDependencyError extends Error {
  constructor(
    readonly dependency: string,
    feature: string,
  ) {
    super(
      `${feature} needs ${dependency}, an optional dependency of kubesim that is not installed ` +
        `(installs without --omit=optional include it; or: npm install ${dependency})`,
    );
    this.name = 'MissingDependencyError';
  }
}

/** Node's resolution error for the package itself (require: MODULE_NOT_FOUND, import: ERR_MODULE_NOT_FOUND). */
function isPackageMissing(e: unknown, name: string): boolean {
  const { code, message } = e as { code?: string; message?: string };
  return (
    (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes(`'${name}'`)
  );
}

/** A CommonJS optional package, synchronously (so a constructor that needs it can stay synchronous). */
export function requireOptional<T>(name: string, feature: string): T {
  try {
    return createRequire(import.meta.url)(name) as T;
  } catch (e) {
    if (isPackageMissing(e, name)) throw new MissingDependencyError(name, feature);
    throw e;
  }
}

/** An optional package through import() (ES modules such as @kubernetes/client-node). */
export async function importOptional<T>(name: string, feature: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (e) {
    if (isPackageMissing(e, name)) throw new MissingDependencyError(name, feature);
    throw e;
  }
}
