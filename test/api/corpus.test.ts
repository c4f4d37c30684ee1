import { describe, expect, it } from 'vitest';
import { ApiServer } from '../../src/api/apiserver.js';
import { checkManifests } from '../../src/api/manifest-check.js';
import { inCreationOrder, loadManifests, prepareForCreate } from '../../src/api/manifest.js';
import { lookupKind } from '../../src/api/registry.js';
import { MemoryStore } from '../../src/store/memory/store.js';

// Real public manifests (sources in test/fixtures/corpus/README.md), loaded as one file set.
const CORPUS = 'test/fixtures/corpus';

describe('public manifest corpus', () => {
  it('validates with zero "no matches for kind" errors (Strict, as kubectl --validate=strict)', async () => {
    const objects = await loadManifests([CORPUS], { recursive: true, fieldPositions: true });
    const reports = checkManifests(objects);
    const errors = reports.flatMap((r) => r.errors);
    expect(errors).toEqual([]);
    const kinds = new Set(objects.map((o) => o.object.kind));
    // what the bundles hold: workloads, RBAC, CRDs and their custom resources, webhooks, APIService
    for (const k of [
      'DaemonSet',
      'StatefulSet',
      'Job',
      'ReplicationController',
      'ConfigMap',
      'Secret',
      'ServiceAccount',
      'ClusterRole',
      'RoleBinding',
      'PodDisruptionBudget',
      'HorizontalPodAutoscaler',
      'NetworkPolicy',
      'IngressClass',
      'ValidatingWebhookConfiguration',
      'APIService',
      'CustomResourceDefinition',
      'ServiceMonitor',
      'PrometheusRule',
      'PersistentVolume',
    ])
      expect(kinds, k).toContain(k);
    expect(objects.length).toBe(185);
  });

  it('creates every bundle through an ApiServer, CRDs before their custom resources', async () => {
    // each install bundle into its own cluster (bundles overlap: two install ingress-nginx), every
    // cluster with the corpus's CRDs (the Prometheus Operator's, which the vLLM example expects)
    const all = await loadManifests([CORPUS], { recursive: true });
    const crds = all.filter((o) => o.object.kind === 'CustomResourceDefinition');
    const bundleOf = (file: string) => {
      const rel = file.slice(CORPUS.length + 1);
      return rel.startsWith('kube-prometheus/') ? 'kube-prometheus' : rel;
    };
    const bundles = new Map<string, typeof all>();
    for (const o of all)
      bundles.set(bundleOf(o.source.file), [...(bundles.get(bundleOf(o.source.file)) ?? []), o]);
    const failures: string[] = [];
    let created = 0;
    const daemonSets: string[] = [];
    for (const [name, objects] of bundles) {
      const api = new ApiServer(new MemoryStore(), { fieldValidation: 'Strict' });
      const ordered = inCreationOrder(name === 'kube-prometheus' ? objects : [...crds, ...objects]);
      for (const o of ordered) {
        try {
          await api.create(prepareForCreate(o.object));
          created++;
        } catch (e) {
          if (o.object.kind === 'CustomResourceDefinition' && name !== 'kube-prometheus') continue;
          failures.push(`${o.source.file}:${o.source.line}: ${(e as Error).message}`);
        }
      }
      daemonSets.push(...(await api.list('daemonsets')).items.map((d) => d.metadata.name!));
      if (name === 'kube-prometheus') expect((await api.list('servicemonitors')).items.length).toBe(13);
    }
    expect(failures).toEqual([]);
    expect(created).toBeGreaterThanOrEqual(all.length);
    expect(daemonSets.sort()).toEqual([
      'fluentd-elasticsearch',
      'kube-flannel-ds',
      'kube-proxy',
      'node-exporter',
    ]);
    expect(lookupKind('monitoring.coreos.com/v1', 'ServiceMonitor')).toBeUndefined(); // only those ApiServers know it
  });
});
