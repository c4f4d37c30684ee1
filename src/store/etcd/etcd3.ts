/**
 * The etcd3 client package, loaded on first use. It is an optional dependency (with grpc-js and
 * protobufjs about 10 MB): kubesim users who never talk to a real etcd neither install nor load
 * it, and one who does gets this error instead of a module-resolution stack trace.
 */
import { createRequire } from 'node:module';
import type * as Etcd3Module from 'etcd3';

let loaded: typeof Etcd3Module | undefined;

/** The etcd3 module (a CommonJS package, so a synchronous require keeps EtcdStore's constructor synchronous). */
export function etcd3(): typeof Etcd3Module {
  if (loaded) return loaded;
  try {
    loaded = createRequire(import.meta.url)('etcd3') as typeof Etcd3Module;
  } catch (e) {
    if ((e as { code?: string }).code !== 'MODULE_NOT_FOUND') throw e;
    throw new Error(
      'EtcdStore needs etcd3, an optional dependency of kubesim that is not installed (installs without --omit=optional include it; or: npm install etcd3)',
    );
  }
  return loaded;
}
