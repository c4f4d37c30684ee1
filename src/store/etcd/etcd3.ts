/**
 * The etcd3 client package, loaded on first use. It is an optional dependency (with grpc-js and
 * protobufjs about 10 MB): kubesim users who never talk to a real etcd neither install nor load
 * it, and one who does gets a MissingDependencyError instead of a module-resolution stack trace.
 */
import type * as Etcd3Module from 'etcd3';
import { requireOptional } from '../../util/optional-dependency.js';

let loaded: typeof Etcd3Module | undefined;

/** The etcd3 module (a CommonJS package, so a synchronous require keeps EtcdStore's constructor synchronous). */
export function etcd3(): typeof Etcd3Module {
  loaded ??= requireOptional<typeof Etcd3Module>('etcd3', 'EtcdStore');
  return loaded;
}
