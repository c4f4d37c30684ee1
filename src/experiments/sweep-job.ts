/**
 * A sweep too big for one machine, as a Kubernetes Indexed Job (batch/v1, completionMode Indexed):
 * pod I runs `kubesim sweep … --shards N`, which reads its index from JOB_COMPLETION_INDEX (the
 * Job controller sets it in every pod of an Indexed Job), and writes its shard's JSON to stdout
 * (collected with `kubectl logs`, see {@link collectCommands}) or, given a ReadWriteMany claim, to
 * the results volume; `kubesim sweep merge` then combines the files (sweep.ts). The scenario file
 * travels in a ConfigMap mounted at /scenario; a scenario that names other files (`file:`) needs
 * them in the image or in the ConfigMap too.
 */
import { basename } from 'node:path';
import type { SweepParameter } from './sweep.js';

export interface SweepJobOptions {
  /** Job and ConfigMap name (a DNS label) */
  name: string;
  namespace?: string;
  /** an image with kubesim on its PATH */
  image: string;
  /** the scenario file: its name and text (put in the ConfigMap) */
  scenarioFile: string;
  scenarioText: string;
  /** the files the scenario names: path relative to the scenario's folder → text */
  files?: Record<string, string>;
  parameters: SweepParameter[];
  seeds: number;
  /** completions: one pod per shard */
  shards: number;
  /** pods at once (default: shards) */
  parallelism?: number;
  /** a PersistentVolumeClaim for the results (ReadWriteMany); default none: each pod's log is its result */
  resultsClaim?: string;
  /** per-pod requests (the pool uses every core it is given) */
  cpu: string;
  memory: string;
}

const RESULTS = '/results';

/** The ConfigMap with the scenario and the Indexed Job, as a v1 List. */
export function sweepJobManifest(o: SweepJobOptions): Record<string, unknown> {
  const file = basename(o.scenarioFile);
  const meta = { name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}) };
  const labels = { 'app.kubernetes.io/name': 'kubesim-sweep', 'kubesim.io/sweep': o.name };
  const args = [
    'sweep',
    `/scenario/${file}`,
    ...o.parameters.flatMap((p) => ['--set', `${p.path}=${p.values.map(String).join(',')}`]),
    '--seeds',
    String(o.seeds),
    '--shards',
    String(o.shards),
    '--no-progress',
    '-o',
    'json',
    // the kubelet expands $(VAR) from the container's environment, which holds the index
    ...(o.resultsClaim ? ['--out', `${RESULTS}/shard-$(JOB_COMPLETION_INDEX).json`] : []),
  ];
  // a ConfigMap key holds no '/': a file in a subfolder gets a flat key and its path as the item path
  const extra = Object.entries(o.files ?? {});
  const keyOf = (p: string) => p.replace(/[^-._a-zA-Z0-9]/g, '_');
  const items = [{ key: file, path: file }, ...extra.map(([p]) => ({ key: keyOf(p), path: p }))];
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { ...meta, name: `${o.name}-scenario`, labels },
    data: { [file]: o.scenarioText, ...Object.fromEntries(extra.map(([p, t]) => [keyOf(p), t])) },
  };
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { ...meta, labels },
    spec: {
      completionMode: 'Indexed',
      completions: o.shards,
      parallelism: Math.min(o.parallelism ?? o.shards, o.shards),
      // a shard is deterministic: a failed pod is retried as it is, per index
      backoffLimitPerIndex: 2,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'sweep',
              image: o.image,
              command: ['kubesim'],
              args,
              resources: { requests: { cpu: o.cpu, memory: o.memory } },
              volumeMounts: [
                { name: 'scenario', mountPath: '/scenario', readOnly: true },
                ...(o.resultsClaim ? [{ name: 'results', mountPath: RESULTS }] : []),
              ],
            },
          ],
          volumes: [
            { name: 'scenario', configMap: { name: `${o.name}-scenario`, items } },
            ...(o.resultsClaim
              ? [{ name: 'results', persistentVolumeClaim: { claimName: o.resultsClaim } }]
              : []),
          ],
        },
      },
    },
  };
  return { apiVersion: 'v1', kind: 'List', items: [configMap, job] };
}

/** The shell commands that wait for the Job, collect the shards' results and merge them. */
export function collectCommands(
  o: Pick<SweepJobOptions, 'name' | 'namespace' | 'shards' | 'resultsClaim'>,
): string[] {
  const ns = o.namespace ? ` -n ${o.namespace}` : '';
  const wait = `kubectl wait${ns} --for=condition=complete --timeout=24h job/${o.name}`;
  if (o.resultsClaim)
    return [
      wait,
      `# copy ${RESULTS}/shard-*.json from the claim ${o.resultsClaim}, then:`,
      'kubesim sweep merge shard-*.json',
    ];
  return [
    wait,
    // the succeeded pod of each index (a retried index has failed pods too)
    `for i in $(seq 0 ${o.shards - 1}); do kubectl logs${ns} $(kubectl get pods${ns} -l job-name=${o.name},batch.kubernetes.io/job-completion-index=$i --field-selector=status.phase=Succeeded -o name) > shard-$i.json; done`,
    'kubesim sweep merge shard-*.json',
  ];
}

/** The relative file paths a scenario document names (those the Job's ConfigMap must carry). */
export function scenarioFileRefs(doc: unknown): string[] {
  const out = new Set<string>();
  const d = doc as {
    cluster?: { snapshot?: unknown };
    workloads?: { file?: unknown }[];
    timeline?: { file?: unknown }[];
  };
  const add = (f: unknown) => {
    if (typeof f === 'string' && f && !f.startsWith('/')) out.add(f);
  };
  add(d?.cluster?.snapshot);
  for (const w of Array.isArray(d?.workloads) ? d.workloads : []) add(w?.file);
  for (const t of Array.isArray(d?.timeline) ? d.timeline : []) add(t?.file);
  return [...out];
}
