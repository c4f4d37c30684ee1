/**
 * `kubesim snapshot --kubeconfig FILE [--context C] [-o yaml|json|table|wide] [--out FILE]`: a live
 * cluster's nodes, pods, workloads, services, storage and policy objects in one file that `plan`,
 * `simulate`, `proxy render` and `serve --cluster` read. Thin over src/server/live/snapshot.ts.
 */
import type { Command } from 'commander';
import { table } from '../report/table.js';
import { LiveClusterError, connect } from '../server/live/kube-client.js';
import { collectionPath, takeSnapshot } from '../server/live/snapshot.js';
import { CliError } from './errors.js';
import { type OutputFlags, addOutputOptions, emit, isStructured, structured } from './output.js';
import { progress } from './progress.js';

interface SnapshotOptions extends OutputFlags {
  kubeconfig?: string;
  context?: string;
  progress: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('snapshot')
    .description(
      'capture a live cluster (nodes, pods, workloads, services, storage, PDBs, …) into one snapshot file',
    )
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: its current context)')
    .option('--no-progress', 'no progress on stderr');
  addOutputOptions(cmd, ['yaml', 'json', 'table', 'wide'])
    .addHelpText(
      'after',
      `
Lists Namespaces, Nodes, PriorityClasses, StorageClasses, CSINodes, CSIDrivers,
CSIStorageCapacities, VolumeAttachments, PVs, PVCs, Deployments, ReplicaSets, StatefulSets,
DaemonSets, ReplicationControllers, Jobs, CronJobs, PDBs, Services, EndpointSlices, the DRA kinds
(DeviceClasses, ResourceSlices, ResourceClaimTemplates, ResourceClaims; skipped with a warning
where resource.k8s.io/v1 is not served) and Pods in every namespace, through @kubernetes/client-node (an optional
dependency), and drops what the server set (resourceVersion, uid, creationTimestamp, managedFields,
…). -o yaml|json writes the snapshot (a kind: List); -o table prints how many objects of each kind.

Examples:
  kubesim snapshot --kubeconfig kubeconfig --out snapshot.yaml   # e.g. kubesim serve's --kubeconfig-out
  kubesim snapshot --kubeconfig ~/.kube/config --context prod -o table
  kubesim plan --cluster snapshot.yaml --pod examples/snapshot/pod-api.yaml`,
    )
    .action(async (o: SnapshotOptions) => {
      const file = o.kubeconfig ?? defaultKubeconfig();
      const bar = progress('snapshot', o.progress);
      let snap: Awaited<ReturnType<typeof takeSnapshot>>;
      let server: string;
      try {
        const cluster = await connect(file, o.context);
        server = cluster.server;
        snap = await takeSnapshot(cluster, (kind, done, total) => bar.update(done, total, kind));
      } catch (e) {
        if (e instanceof LiveClusterError) throw new CliError(e.message);
        throw e;
      } finally {
        bar.finish();
      }
      const total = snap.counts.reduce((n, c) => n + c.count, 0);
      for (const s of snap.skipped)
        process.stderr.write(
          `warning: ${s.kind}: not served by this cluster (${s.path}: 404), none captured\n`,
        );
      process.stderr.write(`kubesim snapshot: ${total} objects from ${server}\n`);
      if (isStructured(o.output)) return emit(o, structured(o.output, snap.list));
      emit(
        o,
        table(
          ['KIND', 'OBJECTS', { header: 'PATH', wide: true }],
          snap.counts.map((c) => [c.kind, c.count, collectionPath(c.kind).path]),
          { wide: o.output === 'wide' },
        ),
      );
    });
}

/** client-go's default: the first file of $KUBECONFIG, then ~/.kube/config. */
export function defaultKubeconfig(): string {
  const env = process.env.KUBECONFIG?.split(':').find((f) => f);
  if (env) return env;
  const home = process.env.HOME;
  if (!home) throw new CliError('--kubeconfig: not given, and neither $KUBECONFIG nor $HOME is set');
  return `${home}/.kube/config`;
}
